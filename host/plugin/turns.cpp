#include "plugin/turns.hpp"

#include <mutex>

namespace coffer::plugin {

namespace {
std::mutex g_mu;
std::shared_ptr<const TurnSink> g_sink;
}  // namespace

void set_turn_sink(std::shared_ptr<const TurnSink> sink) {
    std::lock_guard<std::mutex> g(g_mu);
    g_sink = std::move(sink);
}

std::shared_ptr<const TurnSink> current_turn_sink() {
    std::lock_guard<std::mutex> g(g_mu);
    return g_sink;
}

}  // namespace coffer::plugin
