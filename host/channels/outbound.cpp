// The only way a channel message leaves the core: the outbound gate (only the owner's chat, the
// chat the inbound gate accepts), rendering for the adapter's markdown capability, and the
// guarded call into the adapter's send / edit / typing.
#include "channels/render.hpp"
#include "channels/service.hpp"

#include "core/log.hpp"
#include "plugin/call.hpp"

#include <boost/json.hpp>

namespace coffer::channels {

namespace json = boost::json;

bool Service::gate_allows(const std::string& uid, const std::string& chat) {
    auto owner = store_.owner(uid);
    return owner && *owner && (*owner)->chat == chat;
}

json::object Service::text_request(const Live& l, const std::string& chat, const std::string& ref, const std::string& markdown) {
    json::object req{{"chat", chat}, {"ref", ref}, {"format", l.caps.markdown}, {"plain", markdown}};
    req["text"] = l.caps.markdown == "html" ? markdown_to_html(markdown) : markdown;
    return req;
}

bool Service::send(const std::string& uid, const std::string& chat, const std::optional<std::string>& thread,
                   const std::string& ref, const std::string& markdown) {
    auto it = live_.find(uid);
    if (it == live_.end()) return false;
    auto& l = it->second;
    if (!gate_allows(uid, chat)) {
        core::log::warn("channel send refused: not the owner's chat", {{"channel", l.adapter.name}});
        return false;
    }
    auto req = text_request(l, chat, ref, markdown);
    if (thread && l.caps.threads) req["thread"] = *thread;
    auto text = json::serialize(req);
    auto r = plugin::call(*l.adapter.plugin, "channel send",
                          [&](coffer_reply* rep) { return l.adapter.fns.send(l.adapter.instance, plugin::cstr(text), rep); });
    if (!r) {
        ++l.counters.send_failed;
        core::log::warn("channel send failed", {{"channel", l.adapter.name}, {"error", r.error().message}});
        return false;
    }
    ++l.counters.sent;
    return true;
}

bool Service::edit(const std::string& uid, const std::string& chat, const std::string& ref, const std::string& markdown) {
    auto it = live_.find(uid);
    if (it == live_.end() || !it->second.caps.edit || !it->second.adapter.fns.edit) return false;
    auto& l = it->second;
    if (!gate_allows(uid, chat)) return false;
    auto text = json::serialize(text_request(l, chat, ref, markdown));
    auto r = plugin::call(*l.adapter.plugin, "channel edit",
                          [&](coffer_reply* rep) { return l.adapter.fns.edit(l.adapter.instance, plugin::cstr(text), rep); });
    if (!r) core::log::warn("channel edit failed", {{"channel", l.adapter.name}, {"error", r.error().message}});
    return static_cast<bool>(r);
}

void Service::typing(const std::string& uid, const std::string& chat, const std::optional<std::string>& thread) {
    auto it = live_.find(uid);
    if (it == live_.end() || !it->second.caps.typing || !it->second.adapter.fns.typing) return;
    auto& l = it->second;
    if (!gate_allows(uid, chat)) return;
    json::object req{{"chat", chat}};
    if (thread && l.caps.threads) req["thread"] = *thread;
    auto text = json::serialize(req);
    auto r = plugin::call(*l.adapter.plugin, "channel typing",
                          [&](coffer_reply* rep) { return l.adapter.fns.typing(l.adapter.instance, plugin::cstr(text), rep); });
    if (!r) core::log::debug("channel typing failed", {{"channel", l.adapter.name}, {"error", r.error().message}});
}

}  // namespace coffer::channels
