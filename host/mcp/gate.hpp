// Calls into one plugin from the network thread without ever waiting on its lock: the plugin's
// mutex also serializes hooks that run on the service thread, and one of those may take seconds
// (an action that probes an upstream). When the lock is free and nothing is queued, an operation
// runs at once; otherwise it is queued, in order, and retried on a short timer.
#pragma once

#include "plugin/plugin.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <deque>
#include <functional>
#include <memory>

namespace coffer::mcp {

class PluginGate : public std::enable_shared_from_this<PluginGate> {
public:
    PluginGate(boost::asio::any_io_executor net, plugin::Plugin& plugin) : plugin_(plugin), timer_(net) {}

    plugin::Plugin& plugin() { return plugin_; }
    // Runs `op` holding the plugin's lock: now, or after what is queued. Network thread.
    void run(std::function<void()> op);
    // Runs everything queued, waiting for the lock — for when the caller knows the service thread
    // is not inside the plugin (it waits for us), so no operation may stay queued.
    void drain();
    bool idle() const { return queue_.empty(); }

private:
    void arm();
    void flush();  // lock held

    plugin::Plugin& plugin_;
    boost::asio::steady_timer timer_;
    std::deque<std::function<void()>> queue_;
    bool armed_ = false;
    std::chrono::milliseconds backoff_{1};
};

}  // namespace coffer::mcp
