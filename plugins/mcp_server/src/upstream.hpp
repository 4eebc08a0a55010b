// What every session of one mcp_server resource shares: the current config, the health and
// backoff, whether the resource is running, and the registry of its live connections (so stop
// and config changes reach every session's upstream).
#pragma once

#include "config.hpp"
#include "health.hpp"
#include "oauth.hpp"
#include "runtime.hpp"
#include "stateless.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <mutex>
#include <vector>

namespace coffer::mcp_server {

class Connection;

class Upstream {
public:
    Upstream(Runtime& rt, ServerConfig cfg)
        : rt_(rt), name_(cfg.name), cfg_(std::make_shared<const ServerConfig>(std::move(cfg))) {}

    Runtime& runtime() { return rt_; }
    Health& health() { return health_; }
    const std::string& name() const { return name_; }  // the resource name never changes

    std::shared_ptr<const ServerConfig> config() const { return locked_read(cfg_); }
    void set_config(ServerConfig cfg) {
        std::lock_guard<std::mutex> g(mu_);
        cfg_ = std::make_shared<const ServerConfig>(std::move(cfg));
        era_ = Era::unknown;  // another server, perhaps: probe again
    }

    // Which era the server speaks (2026-07-28 versioning: "a property of the server", cached for
    // the resource's config): unknown until a connection found out.
    enum class Era { unknown, stateless, sessions };
    Era era() const { return locked_read(era_); }
    void set_era(Era e) { locked_write(era_, e); }

    // 2026-07-28 over HTTP: the `x-mcp-header` annotations of the server's tools, learned from
    // every tools/list any connection relayed (a call mirrors them even on a connection that did
    // not list).
    std::shared_ptr<const stateless::ToolHeaders> tool_headers() const { return locked_read(tool_headers_); }
    void set_tool_headers(std::shared_ptr<const stateless::ToolHeaders> h) { locked_write(tool_headers_, std::move(h)); }

    bool running() const { return locked_read(running_); }
    void set_running(bool r) { locked_write(running_, r); }

    // A token just refreshed on the blocking thread: its write to the host's store is queued, so
    // for a few seconds connections take it from here rather than read the older one back.
    void remember_oauth(StoredOAuth s) {
        std::lock_guard<std::mutex> g(mu_);
        recent_oauth_ = std::move(s);
        recent_oauth_at_ = std::chrono::steady_clock::now();
    }
    void forget_recent_oauth() {  // a new login stored its tokens itself
        std::lock_guard<std::mutex> g(mu_);
        recent_oauth_.reset();
    }
    std::optional<StoredOAuth> recent_oauth() const {
        std::lock_guard<std::mutex> g(mu_);
        if (!recent_oauth_ || std::chrono::steady_clock::now() - recent_oauth_at_ > std::chrono::seconds(10)) return std::nullopt;
        return recent_oauth_;
    }

    void add(const std::shared_ptr<Connection>& c);
    void remove(const Connection* c);
    // Every registered connection that is still alive.
    std::vector<std::shared_ptr<Connection>> connections();

private:
    // A member read or replaced under mu_ (the I/O thread and the host's threads both use them).
    template <typename T> T locked_read(const T& member) const {
        std::lock_guard<std::mutex> g(mu_);
        return member;
    }
    template <typename T, typename V> void locked_write(T& member, V&& value) {
        std::lock_guard<std::mutex> g(mu_);
        member = std::forward<V>(value);
    }

    Runtime& rt_;
    const std::string name_;
    Health health_;
    mutable std::mutex mu_;
    std::shared_ptr<const ServerConfig> cfg_;
    bool running_ = false;
    Era era_ = Era::unknown;
    std::shared_ptr<const stateless::ToolHeaders> tool_headers_ = std::make_shared<const stateless::ToolHeaders>();
    std::optional<StoredOAuth> recent_oauth_;
    std::chrono::steady_clock::time_point recent_oauth_at_;
    std::vector<std::weak_ptr<Connection>> conns_;
};

}  // namespace coffer::mcp_server
