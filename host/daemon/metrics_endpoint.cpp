// GET /metrics (see metrics_endpoint.hpp).
#include "daemon/metrics_endpoint.hpp"

#include "metrics/exposition.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace coffer::daemon {

namespace json = boost::json;

namespace {

// Every resource in scope: enabled or not, and each top-level number of its live status (an
// index's documents and chunks, an upstream's connections and restarts …) — whatever the kind
// reports, without the host knowing the kind. A status field named "restarts" is also exported
// as a counter of its own, the convention for a kind that restarts something it supervises.
void write_resources(metrics::Writer& w, resource::Service& resources) {
    auto list = resources.list(std::nullopt, false);
    if (!list) return;  // the scrape still answers with everything else; the next one retries
    struct Row {
        std::string kind, name;
        bool enabled = false;
        json::object status;
    };
    std::vector<Row> rows;
    for (auto& v : *list) {
        auto* o = v.if_object();
        auto* kind = o ? o->if_contains("kind") : nullptr;
        auto* name = o ? o->if_contains("name") : nullptr;
        auto* enabled = o ? o->if_contains("enabled") : nullptr;
        if (!kind || !kind->is_string() || !name || !name->is_string()) continue;
        Row r{std::string(kind->as_string()), std::string(name->as_string()), enabled && enabled->is_bool() && enabled->as_bool(), {}};
        // The host's part ({state, last_error}) and the plugin's own status ({plugin: {…}}), flat.
        if (auto shown = resources.show(r.kind, r.name); shown)
            if (auto* st = shown->if_contains("status"); st && st->is_object()) {
                r.status = st->as_object();
                if (auto* pl = r.status.if_contains("plugin"); pl && pl->is_object())
                    for (auto& kv : pl->as_object()) r.status.insert_or_assign(kv.key(), kv.value());
            }
        rows.push_back(std::move(r));
    }
    w.family("coffer_resource_enabled", "gauge", "1 when the resource is enabled, by kind and name");
    for (auto& r : rows) w.sample("coffer_resource_enabled", {{"kind", r.kind}, {"name", r.name}}, std::uint64_t(r.enabled));
    w.family("coffer_resource_status_value", "gauge",
             "Numeric fields of each resource's live status (index documents and chunks, upstream connections …)");
    for (auto& r : rows)
        for (auto& kv : r.status) {
            auto& v = kv.value();
            if (!v.is_number()) continue;
            w.sample("coffer_resource_status_value", {{"kind", r.kind}, {"name", r.name}, {"field", kv.key()}},
                     v.to_number<double>());
        }
    w.family("coffer_resource_restarts_total", "counter",
             "Restarts of what a resource supervises (MCP upstream processes) after a crash or a lost connection");
    for (auto& r : rows)
        if (auto* v = r.status.if_contains("restarts"); v && v->is_number())
            w.sample("coffer_resource_restarts_total", {{"kind", r.kind}, {"name", r.name}}, v->to_number<double>());
}

}  // namespace

api::Mount metrics_mount(MetricsDeps d) {
    auto handler = [d](http::Request&& req, http::Respond respond) {
        if (req.method != "GET" && req.method != "HEAD") {
            http::Response r;
            r.status = 405;
            r.content_type = std::string(metrics::kContentType);
            r.headers.emplace_back("Allow", "GET");
            r.body = "only GET is allowed on /metrics\n";
            return respond(std::move(r));
        }
        // Network thread: the gateway's own series and the HTTP counters.
        auto w = std::make_shared<metrics::Writer>();
        w->family("coffer_build_info", "gauge", "The daemon's version (always 1)");
        w->sample("coffer_build_info", {{"version", d.version}}, std::uint64_t(1));
        w->family("coffer_start_time_seconds", "gauge", "When the daemon started, in Unix seconds");
        w->sample("coffer_start_time_seconds", {}, d.started_at_s);
        d.api.write_metrics(*w);
        d.gateway.write_metrics(*w);
        // Service thread: resources, conversations, the invocation log.
        boost::asio::post(d.service, [d, w, respond = std::move(respond)] {
            write_resources(*w, d.resources);
            w->family("coffer_chat_pending_messages", "gauge", "Messages waiting in conversations' queues");
            w->sample("coffer_chat_pending_messages", {}, std::uint64_t(d.chat.pending_total()));
            w->family("coffer_chat_running_turns", "gauge", "Agent turns running now");
            w->sample("coffer_chat_running_turns", {}, std::uint64_t(d.chat.running_total()));
            auto rec = d.invocations.recorded(), wr = d.invocations.written(), dr = d.invocations.dropped();
            w->family("coffer_invocation_log_queued", "gauge", "Invocation rows waiting to be written to the database");
            w->sample("coffer_invocation_log_queued", {}, rec >= wr + dr ? rec - wr - dr : std::uint64_t(0));
            w->family("coffer_invocation_log_dropped_total", "counter", "Invocation rows dropped because the queue was full");
            w->sample("coffer_invocation_log_dropped_total", {}, dr);
            http::Response r;
            r.content_type = std::string(metrics::kContentType);
            r.headers.emplace_back("Cache-Control", "no-store");
            r.body = w->take();
            respond(std::move(r));
        });
    };
    return api::Mount{{"/metrics"}, std::move(handler), {}, false, true};  // quiet: scraped every few seconds
}

}  // namespace coffer::daemon
