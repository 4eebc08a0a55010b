#include "plugin/channels.hpp"

#include <mutex>

namespace coffer::plugin {

namespace {
std::mutex g_mu;
std::shared_ptr<const ChannelSink> g_sink;

constexpr std::size_t kMaxField = 256;          // ids and names
constexpr std::size_t kMaxText = 256 * 1024;    // one message, as the orchestrator accepts
}  // namespace

void set_channel_sink(std::shared_ptr<const ChannelSink> sink) {
    std::lock_guard<std::mutex> g(g_mu);
    g_sink = std::move(sink);
}

std::shared_ptr<const ChannelSink> current_channel_sink() {
    std::lock_guard<std::mutex> g(g_mu);
    return g_sink;
}

std::string check_envelope(const boost::json::object& e) {
    for (const char* key : {"id", "chat", "sender", "text"}) {
        auto* v = e.if_contains(key);
        if (!v || !v->is_string()) return std::string("\"") + key + "\" must be a string";
        auto limit = std::string_view(key) == "text" ? kMaxText : kMaxField;
        if (v->as_string().size() > limit) return std::string("\"") + key + "\" is too long";
        if (std::string_view(key) != "text" && v->as_string().empty()) return std::string("\"") + key + "\" is empty";
    }
    for (const char* key : {"sender_name", "thread", "chat_type"}) {
        auto* v = e.if_contains(key);
        if (v && !v->is_null() && (!v->is_string() || v->as_string().size() > kMaxField))
            return std::string("\"") + key + "\" must be a short string";
    }
    return {};
}

}  // namespace coffer::plugin
