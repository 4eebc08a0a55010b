// The REST surface /api/v1/*: guards, auth, trace ids, routing onto the service thread.
#pragma once

#include "api/router.hpp"
#include "core/error.hpp"
#include "http/message.hpp"
#include "plugin/registry.hpp"
#include "resource/service.hpp"
#include "store/database.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace coffer::metrics {
class Writer;
}

namespace coffer::api {

// What the daemon itself offers the API.
class DaemonControl {
public:
    virtual ~DaemonControl() = default;
    virtual boost::json::object status() const = 0;
    virtual std::string token() const = 0;  // thread-safe
    virtual core::Result<void> rotate_token(const std::string& actor) = 0;
    virtual void request_stop() = 0;
};

struct Context {
    DaemonControl& daemon;
    resource::Service& resources;
    plugin::Registry& registry;
    store::Database& db;
};

// A non-REST surface served beside /api/v1 (the MCP gateway's /mcp, /sse, /messages): the same
// Host/Origin guard and token apply; the handler runs on the network thread.
struct Mount {
    std::vector<std::string> paths;  // exact paths
    http::Handler handler;
    // Shapes the guard's and the token check's refusals for this surface (default: the REST envelope).
    std::function<http::Response(int status, const std::string& code, const std::string& message,
                                 const std::string& trace)>
        refusal;
    // Reached without the token (the Host/Origin guard still applies): the handler decides what
    // needs a credential (the web console's pages and its login with a one-time code).
    bool open = false;
    // The surface keeps its own record of what it answered (the gateway's invocation log, the
    // scrapes of /metrics): the daemon log gets a line only for an error status or a slow answer,
    // so a busy MCP client neither costs a log write per call nor rotates the log's errors away.
    bool quiet = false;
};

// A browser session (the web console's cookie) standing in for the token on /api/v1. `none`: the
// request carries no session; `refused`: it carries one that may not be used for this request
// (unknown or expired, wrong Origin, a state change without the CSRF token) — `why` says which.
struct SessionCheck {
    enum class Outcome { none, valid, refused } outcome = Outcome::none;
    std::string why;
};
using SessionChecker = std::function<SessionCheck(const http::Request&)>;

class Api {
public:
    Api(Context ctx, boost::asio::any_io_executor service);
    // Called on the network thread; completes through `respond` from the service thread.
    void handle(http::Request&& req, http::Respond respond);

    // Call before serving: another component's REST route (runs on the service thread) or surface.
    void add_route(std::string method, std::string pattern, RouteFn fn) {
        router_.add(std::move(method), std::move(pattern), std::move(fn));
    }
    // A route that answers later without holding the service thread (see AsyncRouteFn).
    void add_async_route(std::string method, std::string pattern, AsyncRouteFn fn) {
        router_.add_async(std::move(method), std::move(pattern), std::move(fn));
    }
    void mount(Mount m) { mounts_.push_back(std::move(m)); }
    // Before serving: what else than X-Coffer-Token authenticates an /api/v1 request.
    void accept_sessions(SessionChecker check) { sessions_ = std::move(check); }
    // The routes this library owns: daemon status/stop/token, plugins, kinds, resources, actions,
    // audit, retention (routes.cpp). Called, like every other surface, from daemon/surfaces.cpp.
    void add_core_routes();

    // Any thread: HTTP answers by status class, every surface included (/metrics).
    void write_metrics(metrics::Writer& w) const;

private:
    const Mount* mount_for(const std::string& path) const;
    Context ctx_;
    boost::asio::any_io_executor service_;
    Router router_;
    std::vector<Mount> mounts_;
    SessionChecker sessions_;
    std::array<std::atomic<std::uint64_t>, 5> answered_{};  // 1xx … 5xx, from both threads
};

// The error envelope {"error":{code,message,details}} with the trace header.
http::Response error_response(const core::Error& e, const std::string& trace);
http::Response error_response(int status, const std::string& code, const std::string& message, const std::string& trace);

}  // namespace coffer::api
