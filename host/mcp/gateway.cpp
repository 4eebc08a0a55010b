// Gateway: the session registry (create, find, forget), the keep-alive tick, shutdown, and what
// the lifecycle asks of it from other threads (refresh, providers changed, close an instance);
// plus the transport helpers the fronts share.
#include "mcp/gateway.hpp"
#include "mcp/builtin_search.hpp"
#include "mcp/local_socket.hpp"

#include "core/log.hpp"
#include "core/random.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <future>

namespace coffer::mcp {

namespace json = boost::json;

bool accepts(const http::Request& req, std::string_view type) {
    auto* a = req.header("accept");
    if (!a || a->empty()) return true;
    std::string lower(*a);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.find(type) != std::string::npos || lower.find("*/*") != std::string::npos) return true;
    auto slash = type.find('/');
    return lower.find(std::string(type.substr(0, slash)) + "/*") != std::string::npos;
}

bool json_body(const http::Request& req) {
    auto* c = req.header("content-type");
    if (!c) return false;
    std::string lower(*c);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    return lower.find("application/json") != std::string::npos;
}

http::Response rpc_http(int http_status, const json::value& id, int code, const std::string& message,
                        const json::value& data) {
    http::Response r;
    r.status = http_status;
    r.body = rpc::error(id, code, message, data);
    return r;
}

http::Response Gateway::http_error(int http_status, int code, const std::string& message) {
    return rpc_http(http_status, nullptr, code, message);
}

const std::vector<std::string>& Gateway::paths() {
    static const std::vector<std::string> p{"/mcp", "/sse", "/messages"};
    return p;
}

Gateway::Gateway(boost::asio::io_context& net, resource::Providers& providers, Config config)
    : net_(net), config_(std::move(config)),
      admission_(config_.http_sessions, config_.connection_sessions, config_.local_sessions), env_{net.get_executor(), providers, config_, {}, {}, {}, {}, {}, {}, {}, &metrics_, {}},
      handoff_(std::make_unique<coffer::Handoff>(net)), tick_(net) {
    env_.handoff = handoff_->sender();
    env_.closed = [this](const std::string& id) { forget(id); };
    env_.link_opened = [this](const std::string& uid) {
        std::lock_guard<std::mutex> g(uses_mu_);
        ++uses_[uid];
    };
    env_.link_closed = [this](const std::string& uid) {
        std::lock_guard<std::mutex> g(uses_mu_);
        if (auto it = uses_.find(uid); it != uses_.end() && --it->second <= 0) uses_.erase(it);
    };
    env_.gate = [this](plugin::Plugin* p) {
        auto& g = gates_[p];
        if (!g) g = std::make_shared<PluginGate>(net_.get_executor(), *p);
        return g;
    };
}

void Gateway::drain_gates() {
    for (auto& [p, g] : gates_) g->drain();
}

Gateway::~Gateway() {
    stopped_ = true;
    auto all = sessions_;
    for (auto& [id, s] : all) s->close("gateway destroyed");
}

void Gateway::start() { tick(); }

void Gateway::tick() {
    if (stopped_) return;
    tick_.expires_after(config_.keepalive);
    tick_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        auto all = sessions_;
        for (auto& [id, s] : all) s->keepalive();
        tick();
    });
}

void Gateway::shutdown() {
    if (stopped_.exchange(true)) return;
    Builtins::stopping();
    tick_.cancel();
    if (local_) local_->stop();  // no new local connections
    auto all = sessions_;
    for (auto& [id, s] : all) s->close("the daemon is stopping");
    stop_local();  // after the sessions: their last answers are written first
    close_probes({});
    drain_gates();  // every provider close has run before instances stop
    closed_all_ = true;
    core::log::info("mcp gateway stopped", {{"sessions", static_cast<std::int64_t>(all.size())}});
}

std::shared_ptr<Session> Gateway::create(Transport t, Version v, Identity who) {
    auto id = core::random_hex(16);
    auto s = std::make_shared<Session>(env_, id, t, v, std::move(who));
    sessions_[id] = s;
    count_ = sessions_.size();
    s->touch();
    metrics_.session_opened(transport_name(t));
    core::log::info("mcp session opened", {{"session", id}, {"transport", transport_name(t)}});
    return s;
}

std::string_view transport_name(Transport t) {
    return t == Transport::streamable ? "streamable-http"
           : t == Transport::sse      ? "sse"
           : t == Transport::local    ? "local-socket"
                                      : "stateless";
}

void Gateway::write_metrics(metrics::Writer& w) const {
    std::map<std::string, std::size_t> open;
    for (auto t : {Transport::streamable, Transport::sse, Transport::local, Transport::stateless})
        open[std::string(transport_name(t))] = 0;
    for (auto& [id, s] : sessions_)
        if (!s->closed()) ++open[std::string(transport_name(s->transport()))];
    metrics_.write(w, open);
}

std::shared_ptr<Session> Gateway::find(const std::string& id, Transport t) const {
    auto it = sessions_.find(id);
    if (it == sessions_.end() || it->second->transport() != t || it->second->closed()) return nullptr;
    return it->second;
}

void Gateway::forget(const std::string& id) {
    sessions_.erase(id);
    std::erase_if(stateless_, [&](const auto& kv) { return kv.second == id; });
    count_ = sessions_.size();
}

void Gateway::handle(http::Request&& req, http::Respond respond) {
    if (stopped_) return respond(http_error(503, rpc::code::server_error, "the daemon is stopping"));
    auto not_allowed = [&](const char* allow) {
        auto r = http_error(405, rpc::code::server_error, "Method Not Allowed: " + req.method + " " + req.path);
        r.headers.emplace_back("Allow", allow);
        respond(std::move(r));
    };
    try {
        if (req.path == "/mcp") {
            if (req.method == "POST") return post_mcp(req, std::move(respond));
            if (req.method == "GET") return get_mcp(req, std::move(respond));
            if (req.method == "DELETE") return delete_mcp(req, std::move(respond));
            return not_allowed("GET, POST, DELETE");
        }
        if (req.path == "/sse") return req.method == "GET" ? get_sse(req, std::move(respond)) : not_allowed("GET");
        if (req.path == "/messages")
            return req.method == "POST" ? post_messages(req, std::move(respond)) : not_allowed("POST");
        respond(http_error(404, rpc::code::server_error, "no such endpoint: " + req.path));
    } catch (const std::exception& e) {
        core::log::error("mcp handler threw", {{"path", req.path}, {"what", e.what()}});
        respond(http_error(500, rpc::code::internal_error, std::string("internal error: ") + e.what()));
    }
}

void Gateway::refresh() {
    boost::asio::post(net_, [this] {
        auto all = sessions_;
        for (auto& [id, s] : all) s->invalidate(true);
    });
}

void Gateway::providers_changed() {
    boost::asio::post(net_, [this] {
        if (stopped_) return;
        auto all = sessions_;
        for (auto& [id, s] : all) s->tell_lists_changed();
    });
}

void Gateway::close_instance(const std::string& uid) {
    {
        std::lock_guard<std::mutex> g(uses_mu_);
        if (stopped_ || !uses_.count(uid)) return;  // no session uses it: nothing to wait for
    }
    auto work = [this, uid] {
        auto all = sessions_;
        for (auto& [id, s] : all) s->close_provider(uid, "the server was stopped or reconfigured");
        close_probes(uid);
        drain_gates();  // the caller (service thread) is not inside a plugin: nothing stays queued
    };
    if (net_.get_executor().running_in_this_thread()) return work();
    auto done = std::make_shared<std::promise<void>>();
    auto fut = done->get_future();
    boost::asio::post(net_, [work, done] {
        work();
        done->set_value();
    });
    // Shutdown (on the network thread) may be waiting for this very thread: it closes every
    // session itself, so stop waiting once it has.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (fut.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready) {
        if (closed_all_) return;
        if (std::chrono::steady_clock::now() > deadline) {
            core::log::error("mcp sessions did not release an instance in 30 s", {{"uid", uid}});
            return;
        }
    }
}

}  // namespace coffer::mcp
