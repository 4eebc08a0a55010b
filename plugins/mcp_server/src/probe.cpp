#include "probe.hpp"

#include "connection.hpp"

#include <future>

namespace coffer::mcp_server {

namespace {

constexpr int kMaxPages = 100;

// Runs on the I/O thread: the list calls one after another, every page of each.
struct ProbeTask : std::enable_shared_from_this<ProbeTask> {
    std::shared_ptr<Upstream> up;
    std::shared_ptr<Connection> conn;
    ProbeOptions opts;
    ProbeResult result;
    std::promise<void> done;
    bool finished = false;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();

    void run() {
        conn = std::make_shared<Connection>(up, nullptr, "{}");
        list("tools/list", "tools", result.tools, {}, 0, [self = shared_from_this()] { self->after_tools(); });
    }

    bool advertises(std::string_view capability) const {
        boost::system::error_code ec;
        auto v = json::parse(conn->capabilities(), ec);
        return !ec && v.is_object() && v.as_object().contains(capability);
    }

    void after_tools() {
        if (!opts.resources_and_prompts) return succeed();
        if (!advertises("resources")) return after_resources();
        list("resources/list", "resources", result.resources, {}, 0,
             [self = shared_from_this()] { self->after_resources(); });
    }
    void after_resources() {
        if (!advertises("prompts")) return succeed();
        list("prompts/list", "prompts", result.prompts, {}, 0, [self = shared_from_this()] { self->succeed(); });
    }

    void list(std::string method, std::string key, json::array& into, std::string cursor, int page,
              std::function<void()> next) {
        CallRequest r;
        r.method = method;
        r.params = cursor.empty() ? std::string("{}") : json::serialize(json::object{{"cursor", cursor}});
        auto self = shared_from_this();
        r.done = [self, method, key, &into, page, next](std::string_view res, std::string_view error) {
            if (self->finished) return;
            if (!error.empty()) return self->fail(method, error);
            boost::system::error_code ec;
            auto v = json::parse(res, ec);
            if (ec || !v.is_object()) return self->fail(method, R"({"message":"the result is not a JSON object"})");
            if (auto* items = v.as_object().if_contains(key); items && items->is_array())
                for (auto& i : items->as_array()) into.push_back(i);
            auto* nc = v.as_object().if_contains("nextCursor");
            if (nc && nc->is_string() && !nc->as_string().empty() && page + 1 < kMaxPages)
                return self->list(method, key, into, std::string(nc->as_string()), page + 1, next);
            next();
        };
        conn->submit(std::move(r));
    }

    void fail(const std::string& method, std::string_view error_json) {
        std::string message(error_json);
        boost::system::error_code ec;
        auto v = json::parse(error_json, ec);
        if (!ec && v.is_object()) {
            if (auto* m = v.as_object().if_contains("message"); m && m->is_string()) message = m->as_string();
            if (auto* d = v.as_object().if_contains("data"); d && d->is_object())
                if (auto* r = d->as_object().if_contains("reason"); r && r->is_string())
                    result.runner_missing = r->as_string() == "runner_not_installed";
        }
        result.error = conn && conn->state() == Connection::State::ready ? method + " failed: " + message : message;
        end(false);
    }

    void succeed() { end(true); }

    void end(bool ok) {
        if (finished) return;
        finished = true;
        result.ok = ok;
        if (conn) {
            result.protocol_version = conn->protocol_version();
            if (!conn->server_info().empty()) {
                boost::system::error_code ec;
                auto v = json::parse(conn->server_info(), ec);
                if (!ec) result.server_info = v;
            }
            conn->close(Failure{err::kUnavailable, "probe finished", std::string(reason::closed), {}});
        }
        result.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        done.set_value();
    }
};

}  // namespace

ProbeResult probe(const std::shared_ptr<Upstream>& real, ProbeOptions opts) {
    // A private Upstream: same config, its own health (a test is never refused by the backoff).
    auto cfg = real->config();
    auto up = std::make_shared<Upstream>(real->runtime(), *cfg);
    up->set_running(true);
    auto task = std::make_shared<ProbeTask>();
    task->up = up;
    task->opts = opts;
    auto fut = task->done.get_future();
    auto& rt = real->runtime();
    if (!rt.post([task] { task->run(); })) {  // false when the plugin is not running
        ProbeResult r;
        r.error = "the mcp_server plugin is shutting down";
        return r;
    }
    // Each step has its own timeout_ms limit; the whole probe gets a little more.
    auto limit = cfg->timeout * 2 + std::chrono::seconds(1);
    if (fut.wait_for(limit) != std::future_status::ready) {
        rt.run_sync([&] {
            task->result.error = "no answer within " + std::to_string(limit.count()) + " ms";
            task->end(false);
        });
    }
    ProbeResult r;
    rt.run_sync([&] { r = task->result; });
    if (r.ok) real->health().connected(r.protocol_version, r.server_info.is_null() ? "" : json::serialize(r.server_info));
    else real->health().refused(r.error, r.runner_missing);
    return r;
}

}  // namespace coffer::mcp_server
