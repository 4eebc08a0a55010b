// Gateway::probe: what one provider lists right now, through a short-lived provider session of the
// gateway's own (REST's view of a server's capabilities; kind-agnostic like every session). The
// names pass through curation like any list, so a capability first seen here is decided here.
#include "mcp/gateway.hpp"

#include "core/log.hpp"
#include "core/random.hpp"
#include "curation/curation.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/versions.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <functional>

namespace coffer::mcp {

namespace json = boost::json;

namespace {

constexpr int kMaxPages = 100;

struct ProbeJob final : LinkEvents, std::enable_shared_from_this<ProbeJob> {
    std::function<void(Gateway::Listing)> done;
    Gateway::Listing out;
    std::shared_ptr<Link> link;
    std::unique_ptr<boost::asio::steady_timer> timer;
    std::function<void()> closed;  // link_closed bookkeeping
    int pending = 4;
    bool finished = false;

    void link_notification(Link&, Call*, std::string) override {}
    void link_request(Link& l, Call*, std::uint64_t token, std::string) override {
        l.respond(token, {}, boost::json::serialize(boost::json::object{{"code", rpc::code::method_not_found},
                                                        {"message", "a capability listing takes no server requests"}}));
    }

    void finish(std::string error) {
        if (finished) return;
        finished = true;
        if (timer) timer->cancel();
        if (!error.empty() && out.error.empty()) out.error = std::move(error);
        out.ok = out.error.empty();
        if (link) link->close("capability listing done");
        if (closed) closed();
        if (auto d = std::move(done)) d(std::move(out));
    }

    void fetch(const char* method, std::vector<Gateway::Listed>* into, std::string cursor, int page) {
        std::string params = cursor.empty() ? "{}" : json::serialize(json::object{{"cursor", cursor}});
        link->request(method, params, {}, [self = shared_from_this(), method, into, page](std::string r, std::string e) {
            if (self->finished) return;
            if (!e.empty() || !raw::is_object(r)) {
                // A server without this capability answers method-not-found: an empty list, not a failure.
                auto code = e.empty() ? std::nullopt : raw::member(e, "code");
                if (!(code && *code == std::to_string(rpc::code::method_not_found)) && self->out.error.empty())
                    self->out.error = std::string(method) + ": " + (e.empty() ? "malformed answer" : e);
                if (--self->pending == 0) self->finish({});
                return;
            }
            std::string_view member = into == &self->out.tools       ? "tools"
                                      : into == &self->out.resources ? "resources"
                                      : into == &self->out.templates ? "resourceTemplates"
                                                                     : "prompts";
            std::string_view key = into == &self->out.resources   ? "uri"
                                   : into == &self->out.templates ? "uriTemplate"
                                                                  : "name";
            std::vector<std::string_view> items;
            if (auto arr = raw::member(r, member); arr && raw::items(*arr, items))
                for (auto item : items) {
                    auto k = raw::member(item, key);
                    auto name = k ? raw::decode_string(*k) : std::nullopt;
                    if (!name || name->empty()) continue;
                    auto d = raw::member(item, "description");
                    auto desc = d ? raw::decode_string(*d) : std::nullopt;
                    into->push_back({std::move(*name), desc ? std::move(*desc) : std::string()});
                }
            auto next = raw::member(r, "nextCursor");
            auto c = next ? raw::decode_string(*next) : std::nullopt;
            if (c && !c->empty() && page + 1 < kMaxPages) return self->fetch(method, into, *c, page + 1);
            if (--self->pending == 0) self->finish({});
        });
    }
};

}  // namespace

void Gateway::probe(const std::string& server, std::function<void(Listing)> done) {
    auto job = std::make_shared<ProbeJob>();
    // Names first seen here are decided here, like those of any list (curation is thread-safe).
    job->done = [this, server, done = std::move(done)](Listing listing) {
        if (env_.curator) {
            bool auto_enable = true;
            for (auto& q : *env_.providers.snapshot())
                if (q.name == server) auto_enable = q.auto_enable_new;
            auto names = [](const std::vector<Listed>& v) {
                std::vector<std::string> n;
                for (auto& l : v) n.push_back(l.name);
                return n;
            };
            env_.curator->observe(server, curation::Type::tool, names(listing.tools), auto_enable);
            env_.curator->observe(server, curation::Type::resource, names(listing.resources), auto_enable);
            env_.curator->observe(server, curation::Type::prompt, names(listing.prompts), auto_enable);
            env_.curator->observe(server, curation::Type::resource_template, names(listing.templates), auto_enable);
        }
        done(std::move(listing));
    };
    boost::asio::post(net_, [this, job, server] {
        if (stopped_) return job->finish("the daemon is stopping");
        std::optional<resource::Provider> p;
        for (auto& q : *env_.providers.snapshot())
            if (q.name == server) p = q;
        if (!p) return job->finish("server '" + server + "' is not running (disabled, out of scope or failed to start)");
        json::object info{{"id", "probe-" + core::random_hex(8)},
                          {"agent", ""},
                          {"cwd", ""},
                          {"client", json::object{{"name", "coffer-capabilities"}, {"version", config_.server_version}}},
                          {"client_capabilities", json::object{}},
                          {"protocol_version", to_string(kProviderVersion)}};
        job->link = Link::open(*p, json::serialize(info), net_.get_executor(), std::weak_ptr<LinkEvents>(job),
                               env_.gate(p->plugin));
        if (env_.link_opened) env_.link_opened(p->uid);
        job->closed = [this, uid = p->uid] {
            if (env_.link_closed) env_.link_closed(uid);
        };
        probes_.push_back(job->link);
        std::erase_if(probes_, [](const std::weak_ptr<Link>& w) { return w.expired(); });
        job->timer = std::make_unique<boost::asio::steady_timer>(net_, config_.probe_timeout);
        job->timer->async_wait([w = std::weak_ptr<ProbeJob>(job)](boost::system::error_code ec) {
            if (auto j = w.lock(); j && !ec) j->finish("the server did not answer within the probe timeout (30 s)");
        });
        job->fetch("tools/list", &job->out.tools, {}, 0);
        job->fetch("resources/list", &job->out.resources, {}, 0);
        job->fetch("prompts/list", &job->out.prompts, {}, 0);
        job->fetch("resources/templates/list", &job->out.templates, {}, 0);
    });
}

void Gateway::close_probes(const std::string& uid) {
    for (auto& w : probes_)
        if (auto l = w.lock(); l && (uid.empty() || l->uid() == uid)) l->close("the server was stopped or reconfigured");
}

}  // namespace coffer::mcp
