// The host's event loop lent to plugins (ABI 1.9, docs/abi.md section 17): descriptor readiness,
// one-shot timers and deferred calls, all run on the network thread's io_context, so a plugin can
// do its I/O where the MCP gateway already runs instead of on a thread of its own.
//
// Every registration is an Entry with its own id. Its callback runs under the Entry's lock, and
// cancel() takes that lock after marking the Entry dead: once cancel() returns, the callback is
// not running on another thread and never runs again — what lets a plugin free its context (or
// be unloaded) right after. Cancelling from inside the callback is allowed (the lock is
// recursive). The Asio objects of an Entry are touched on the loop thread only.
#pragma once

#include <coffer/abi.h>

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace coffer {
class Handoff;
}

namespace coffer::plugin {

class Loop {
public:
    // Constructed before `io` runs, destroyed after its run() returned (or on its thread).
    explicit Loop(boost::asio::io_context& io);
    ~Loop();
    Loop(const Loop&) = delete;
    Loop& operator=(const Loop&) = delete;

    using ReadyFn = void (*)(void* ctx, std::uint32_t events);
    using FireFn = void (*)(void* ctx);

    coffer_status watch(const std::string& owner, int fd, std::uint32_t events, ReadyFn ready, void* ctx,
                        std::uint64_t* id);
    coffer_status timer(const std::string& owner, std::uint64_t delay_ms, FireFn fire, void* ctx, std::uint64_t* id);
    coffer_status defer(const std::string& owner, FireFn fire, void* ctx, std::uint64_t* id);
    // The caller must be `owner` (a plugin cannot end another's registration).
    coffer_status cancel(const std::string& owner, std::uint64_t id);
    bool in_loop() const;
    // Ends every registration of a plugin (it shut down and may be unloaded).
    void forget(const std::string& owner);
    // How many registrations are live (tests).
    std::size_t live() const;

    struct Entry;

private:
    std::shared_ptr<Entry> add(const std::string& owner);
    void on_loop(std::function<void()> fn);
    void arm(const std::shared_ptr<Entry>& e);
    void deliver(const std::shared_ptr<Entry>& e, std::uint32_t events);
    void fire(const std::shared_ptr<Entry>& e);
    void end(const std::shared_ptr<Entry>& e);
    void erase(std::uint64_t id);

    boost::asio::io_context& io_;
    std::unique_ptr<Handoff> to_loop_;  // other threads → the loop thread
    mutable std::mutex mu_;
    std::unordered_map<std::uint64_t, std::shared_ptr<Entry>> entries_;
    std::uint64_t next_id_ = 1;
};

}  // namespace coffer::plugin
