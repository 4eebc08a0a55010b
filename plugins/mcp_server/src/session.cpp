#include "session.hpp"

#include <coffer/mcp_instructions.hpp>

#include <atomic>

namespace coffer::mcp_server {

namespace {

// Forwards upstream-initiated traffic to the downstream session until the session closes.
class SessionSink : public ConnectionSink {
public:
    explicit SessionSink(sdk::McpSession s) : s_(s) {}
    void notify(std::string_view notification, coffer_call* related) override {
        if (!closed_) s_.notify_raw(notification, related);
    }
    bool request(std::uint64_t token, std::string_view req, coffer_call* related) override {
        if (closed_ || !s_.handle()) return false;
        auto* api = api_of();
        if (!api) return false;
        return api->session_request(s_.handle(), related, token, sdk::to_cstr(req)) == COFFER_OK;
    }
    void close() { closed_ = true; }

    const coffer_host_api* api_ = nullptr;

private:
    const coffer_host_api* api_of() const { return api_ && api_->session_request ? api_ : nullptr; }
    sdk::McpSession s_;
    bool closed_ = false;  // I/O thread only
};

}  // namespace

struct Session::Core {
    std::shared_ptr<Upstream> up;
    std::shared_ptr<SessionSink> sink;
    std::string client_caps;
    std::shared_ptr<Connection> conn;  // I/O thread only
    bool closed = false;

    std::shared_ptr<Connection> connection() {
        if (!conn || !conn->usable()) conn = std::make_shared<Connection>(up, sink, client_caps);
        return conn;
    }
};

Session::Session(std::shared_ptr<Upstream> up, sdk::McpSession session, const json::object& info)
    : core_(std::make_shared<Core>()) {
    core_->up = std::move(up);
    core_->sink = std::make_shared<SessionSink>(session);
    core_->sink->api_ = core_->up->runtime().host().api();
    if (auto* caps = info.if_contains("client_capabilities"); caps && caps->is_object())
        core_->client_caps = json::serialize(*caps);
    else
        core_->client_caps = "{}";
}

Session::~Session() {
    auto core = core_;
    core->up->runtime().run_sync([core] {
        core->closed = true;
        core->sink->close();
        if (core->conn)
            core->conn->close(Failure{err::kUnavailable, "the session closed", std::string(reason::closed), {}});
        core->conn.reset();
    });
}

void Session::request(sdk::McpCall call, std::string_view method, std::string_view params_json) {
    auto shared_call = std::make_shared<sdk::McpCall>(std::move(call));
    CallRequest r;
    r.method = std::string(method);
    r.params = std::string(params_json);
    r.handle = shared_call->handle();
    r.done = [shared_call](std::string_view result, std::string_view error) {
        if (!error.empty()) shared_call->error_raw(error);
        else shared_call->result(result);
    };
    auto core = core_;
    auto req = std::make_shared<CallRequest>(std::move(r));
    bool queued = core->up->runtime().post([core, req] {
        auto& r = *req;
        if (core->closed) {
            r.done({}, Failure{err::kUnavailable, "the session closed", std::string(reason::closed), {}}.text());
            return;
        }
        if (!core->up->running()) {
            r.done({}, Failure{err::kUnavailable, "mcp_server '" + core->up->name() + "' is disabled",
                               std::string(reason::disabled), {}}
                           .text());
            return;
        }
        auto conn = core->connection();
        if (r.method == "tools/list") {
            // The server's own instructions travel with its tools, for the gateway's tool search.
            r.done = [done = std::move(r.done), w = std::weak_ptr<Connection>(conn)](std::string_view result,
                                                                                   std::string_view error) {
                auto c = w.lock();
                if (!error.empty() || !c || c->instructions().empty()) return done(result, error);
                done(mcp_instructions::attach(result, c->instructions()), error);
            };
        }
        conn->submit(std::move(r));
    });
    if (!queued)
        req->done({}, Failure{err::kUnavailable, "the mcp_server plugin is shutting down", std::string(reason::closed), {}}.text());
}

void Session::cancel(coffer_call* call) {
    auto core = core_;
    core->up->runtime().post([core, call] {  // same queue as request(): never overtakes it
        if (core->conn) core->conn->cancel(call);
    });
}

void Session::respond(std::uint64_t token, std::string_view result_json, std::string_view error_json) {
    auto core = core_;
    core->up->runtime().post([core, token, result = std::string(result_json), error = std::string(error_json)] {
        if (core->conn) core->conn->respond(token, result, error);
    });
}

// A client notification: to the current connection only. None is started for it, and one that
// is still starting is skipped (the upstream asks roots/list itself once it wants them).
void Session::notify(std::string_view method, std::string_view params_json) {
    auto core = core_;
    core->up->runtime().post([core, method = std::string(method), params = std::string(params_json)] {
        if (core->conn && !core->closed) core->conn->notify(method, params);
    });
}

}  // namespace coffer::mcp_server
