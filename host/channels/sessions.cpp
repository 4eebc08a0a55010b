// Channels into the user's own agent session (ADR 0041): a channel with `"deliver": "session"`
// hands each message that passed the owner gate to the newest MCP session listening to it (the
// gateway turns it into a Claude Code `notifications/claude/channel`), and sends that session's
// replies through the same outbound gate as every other answer. A message that finds no session
// is kept in the inbox ("received") and goes to the next session that listens; the owner is told
// once that it waits.
#include "channels/service.hpp"

#include "channels/commands.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/random.hpp"

#include <algorithm>

namespace coffer::channels {

Service::Live* Service::live_named(const std::string& name) {
    for (auto& [uid, l] : live_)
        if (l.adapter.name == name) return &l;
    return nullptr;
}

std::size_t Service::session_listeners(const std::string& name) {
    auto it = listeners_.find(name);
    if (it == listeners_.end()) return 0;
    auto& v = it->second;
    v.erase(std::remove_if(v.begin(), v.end(), [](const auto& w) { return w.expired(); }), v.end());
    return v.size();
}

void Service::to_session(Live& l, const InboxRow& row) {
    if (answer_permission(l, row)) return;
    auto it = listeners_.find(l.adapter.name);
    if (it != listeners_.end()) {
        mcp::ChannelMessage m{l.adapter.name, row.chat,        row.key, {}, row.text,
                              row.thread.value_or(std::string()), core::now_iso()};
        if (auto owner = store_.owner(l.adapter.uid); owner && *owner) m.sender_name = (*owner)->sender_name;
        auto& v = it->second;
        for (auto w = v.rbegin(); w != v.rend(); ++w) {  // the newest first
            auto listener = w->lock();
            if (!listener || !listener->deliver(m)) continue;
            if (auto r = store_.set_status(row.channel_uid, row.key, "delivered"); !r)
                core::log::error("cannot record a channel message as delivered", {{"channel", l.adapter.name}, {"error", r.error().message}});
            ++l.counters.forwarded;
            l.told_waiting = false;
            return;
        }
    }
    // Kept ("received") for the next session that listens.
    if (l.told_waiting) return;
    l.told_waiting = send(row.channel_uid, row.chat, row.thread, "wait-" + core::random_hex(4),
                          "No agent session listens to this channel right now. Your messages are kept and reach the "
                          "next one that does (coffer-mcp-shim --channel " + l.adapter.name + ").");
}

// "yes abcde" from the owner, for a request still open: the asking session gets the verdict and
// the message goes no further.
bool Service::answer_permission(Live& l, const InboxRow& row) {
    auto verdict = parse_permission_reply(row.text);
    if (!verdict) return false;
    auto now = core::now_ms();
    for (auto it = asked_.begin(); it != asked_.end();) it = it->second.expires_ms <= now ? asked_.erase(it) : std::next(it);
    auto it = asked_.find(verdict->request_id);
    if (it == asked_.end()) return false;  // no such open request: an ordinary message
    auto listener = it->second.listener.lock();
    auto tool = it->second.tool;
    asked_.erase(it);
    if (auto r = store_.set_status(row.channel_uid, row.key, "answered"); !r)
        core::log::error("cannot record a permission answer", {{"channel", l.adapter.name}, {"error", r.error().message}});
    if (!listener) {
        send(row.channel_uid, row.chat, row.thread, "perm-" + core::random_hex(4), "That session has ended; nothing was run.");
        return true;
    }
    listener->permission(verdict->request_id, verdict->allow ? "allow" : "deny");
    core::log::info("channel owner answered a permission request",
                    {{"channel", l.adapter.name}, {"tool", tool}, {"behavior", verdict->allow ? "allow" : "deny"}});
    send(row.channel_uid, row.chat, row.thread, "perm-" + core::random_hex(4),
         std::string(verdict->allow ? "✓ Allowed " : "✗ Denied ") + "`" + tool + "`.");
    return true;
}

void Service::ask(const std::string& channel, std::weak_ptr<mcp::ChannelListener> listener, mcp::PermissionRequest request) {
    to_service_.post([this, channel, listener = std::move(listener), request = std::move(request)]() mutable {
        if (stopped_) return;
        auto* l = live_named(channel);
        if (!l || !l->to_sessions) return;
        auto owner = store_.owner(l->adapter.uid);
        if (!owner || !*owner) return;  // nobody to ask: Claude Code's own prompt stays the way
        auto expires = core::now_ms() + 3600 * 1000;
        asked_.try_emplace(request.request_id, Asked{listener, request.tool_name, expires});
        std::string text = "🔐 Claude wants to use `" + request.tool_name + "`";
        if (!request.description.empty()) text += ": " + request.description;
        if (!request.input_preview.empty()) text += "\n\n```\n" + request.input_preview + "\n```";
        text += "\n\nReply \"yes " + request.request_id + "\" to allow or \"no " + request.request_id + "\" to deny.";
        send(l->adapter.uid, (*owner)->chat, std::nullopt, "ask-" + request.request_id, text);
    });
}

void Service::flush_to_session(const std::string& name) {
    auto* l = live_named(name);
    if (!l || !l->to_sessions) return;
    auto open = store_.open(l->adapter.uid);
    if (!open) {
        core::log::error("cannot read a channel's inbox", {{"channel", name}, {"error", open.error().message}});
        return;
    }
    for (auto& row : *open)
        if (row.status == "received") to_session(*l, row);
}

void Service::listen(const std::string& channel, std::weak_ptr<mcp::ChannelListener> listener,
                     std::function<void(std::string error)> done) {
    bool posted = to_service_.post([this, channel, listener = std::move(listener), done]() mutable {
        if (stopped_) return done("the daemon is stopping");
        auto* l = live_named(channel);
        if (l && !l->to_sessions)
            return done("channel '" + channel +
                        "' delivers its messages to an agent of Coffer's; set its config deliver to \"session\" "
                        "(coffer channel add … --deliver session) to bring it into this session");
        auto& v = listeners_[channel];
        v.erase(std::remove_if(v.begin(), v.end(), [](const auto& w) { return w.expired(); }), v.end());
        v.push_back(std::move(listener));
        core::log::info("an mcp session listens to a channel",
                        {{"channel", channel}, {"running", l != nullptr}, {"listeners", static_cast<std::int64_t>(v.size())}});
        done("");
        flush_to_session(channel);  // what waited for a session
    });
    if (!posted) done("the daemon is stopping");
}

void Service::reply(const std::string& channel, const std::string& chat, const std::string& text,
                    std::function<void(std::string error)> done) {
    bool posted = to_service_.post([this, channel, chat, text, done] {
        if (stopped_) return done("the daemon is stopping");
        auto* l = live_named(channel);
        if (!l) return done("channel '" + channel + "' is not running");
        if (!l->to_sessions) return done("channel '" + channel + "' does not deliver to agent sessions");
        // The outbound gate: the owner's chat only (send() checks it again for every chunk).
        if (!gate_allows(l->adapter.uid, chat)) return done("chat " + chat + " is not the owner's chat of channel '" + channel + "'");
        auto chunks = chunk(text, l->caps.max_text, l->caps.units);
        auto ref = "r-" + core::random_hex(6);
        for (std::size_t i = 0; i < chunks.size(); ++i)
            if (!send(l->adapter.uid, chat, std::nullopt, ref + "-" + std::to_string(i + 1), chunks[i]))
                return done(i == 0 ? "the platform did not take the message (see coffer channel status " + channel + ")"
                                   : "only " + std::to_string(i) + " of " + std::to_string(chunks.size()) + " parts were sent");
        done("");
    });
    if (!posted) done("the daemon is stopping");
}

}  // namespace coffer::channels
