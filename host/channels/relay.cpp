// The outbound half of the channel core: a conversation's events, as the orchestrator publishes
// them, become what the chat sees — typing while a turn runs (refreshed before the platform's
// indicator lapses), one progress message edited in place at most every edit_interval (when the
// adapter can edit), and the final answer chunked and rendered as new messages, which notify.
#include "channels/service.hpp"

#include "core/log.hpp"

#include <boost/json.hpp>

namespace coffer::channels {

namespace json = boost::json;

namespace {
constexpr std::size_t kProgressTail = 600;        // bytes of the answer so far shown in the progress message
constexpr std::size_t kProgressKeep = 64 * 1024;  // what is kept of it

std::string tail(const std::string& s, std::size_t n) {
    if (s.size() <= n) return s;
    auto at = s.size() - n;
    while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) ++at;
    return "…" + s.substr(at);
}
std::string field(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
}  // namespace

Service::Binding& Service::bind(const std::string& conversation, const std::string& uid, const std::string& chat,
                                const std::optional<std::string>& thread) {
    auto it = bindings_.find(conversation);
    if (it != bindings_.end()) {
        it->second.thread = thread;
        return it->second;
    }
    auto& b = bindings_[conversation];
    b.channel_uid = uid;
    b.chat = chat;
    b.thread = thread;
    auto sender = to_service_;
    b.subscription = bus_.subscribe(chat::Orchestrator::topic(conversation), [this, sender, conversation] {
        sender.post([this, conversation] { drain(conversation); });
    });
    return b;
}

void Service::drain(const std::string& conversation) {
    auto it = bindings_.find(conversation);
    if (it == bindings_.end()) return;
    auto batch = it->second.subscription->take();
    for (auto& ev : batch.events) {
        boost::system::error_code ec;
        auto v = json::parse(ev.message->json, ec);
        if (ec || !v.is_object()) continue;
        auto b = bindings_.find(conversation);  // a handler may have dropped it
        if (b == bindings_.end()) return;
        on_event(conversation, b->second, v.as_object());
    }
}

void Service::on_event(const std::string& conversation, Binding& b, const json::object& e) {
    auto type = field(e, "type");
    auto live = live_.find(b.channel_uid);
    if (live == live_.end()) return;
    auto& caps = live->second.caps;
    if (type == "turn.started") {
        b.turn_id = field(e, "turn_id");
        b.user_message_id = field(e, "user_message_id");
        b.progress_ref.clear();
        b.progress_sent.clear();
        b.progress_text.clear();
        b.progress_status.clear();
        if (caps.typing) typing_tick(conversation);
    } else if (type == "text.delta") {
        b.progress_text += field(e, "text");
        if (b.progress_text.size() > kProgressKeep) b.progress_text = tail(b.progress_text, kProgressKeep / 2);
        if (caps.edit) progress(b, false);
    } else if (type == "tool.started") {
        auto name = field(e, "name");
        b.progress_status = name.empty() ? "using a tool" : "using " + name;
        if (caps.edit) progress(b, false);
    } else if (type == "turn.completed") {
        finish(b, e);
    }
}

void Service::progress(Binding& b, bool force) {
    if (b.turn_id.empty()) return;
    auto now = std::chrono::steady_clock::now();
    auto since = now - b.last_edit;
    if (!force && !b.progress_ref.empty() && since < options_.edit_interval) {
        if (b.edit_timer) return;  // a flush is already scheduled
        b.edit_timer = std::make_unique<boost::asio::steady_timer>(service_, options_.edit_interval - since);
        std::string conversation;
        for (auto& [id, other] : bindings_)
            if (&other == &b) conversation = id;
        b.edit_timer->async_wait([this, conversation](const boost::system::error_code& ec) {
            if (ec) return;
            auto it = bindings_.find(conversation);
            if (it == bindings_.end()) return;
            it->second.edit_timer.reset();  // its wait is over; a later burst schedules a new one
            progress(it->second, true);
        });
        return;
    }
    std::string text = "⏳ " + (b.progress_status.empty() ? std::string("working…") : b.progress_status + "…");
    if (!b.progress_text.empty()) text += "\n\n" + tail(b.progress_text, kProgressTail);
    if (text == b.progress_sent) return;  // no edit without a change
    if (b.progress_ref.empty()) {
        b.progress_ref = "p-" + b.turn_id;
        send(b.channel_uid, b.chat, b.thread, b.progress_ref, text);
    } else {
        edit(b.channel_uid, b.chat, b.progress_ref, text);
    }
    b.progress_sent = text;
    b.last_edit = now;
}

void Service::finish(Binding& b, const json::object& e) {
    b.typing_timer.reset();  // destroying a timer cancels its wait
    b.edit_timer.reset();
    auto status = field(e, "status");
    auto final_text = field(e, "final_text");
    if (!b.progress_ref.empty())
        edit(b.channel_uid, b.chat, b.progress_ref, status == "ok" ? "✓ done" : status == "interrupted" ? "■ stopped" : "✗ failed");
    std::string answer;
    if (status == "ok") answer = final_text.empty() ? "(the agent gave no answer)" : final_text;
    else if (status == "interrupted") answer = final_text.empty() ? "Stopped." : final_text + "\n\n(stopped)";
    else answer = "The turn failed: " + (field(e, "error").empty() ? std::string("no reason given") : field(e, "error"));
    // Recorded before sending: a daemon that dies in between loses this answer rather than
    // sending it twice after the restart.
    if (!b.user_message_id.empty())
        if (auto r = store_.answered_by_message(b.user_message_id); !r)
            core::log::error("cannot record a channel message as answered", {{"error", r.error().message}});
    auto live = live_.find(b.channel_uid);
    if (live != live_.end()) {
        auto chunks = chunk(answer, live->second.caps.max_text, live->second.caps.units);
        for (std::size_t i = 0; i < chunks.size(); ++i)
            send(b.channel_uid, b.chat, b.thread, "f-" + b.turn_id + "-" + std::to_string(i + 1), chunks[i]);
    }
    b.turn_id.clear();
    b.user_message_id.clear();
}

void Service::typing_tick(const std::string& conversation) {
    auto it = bindings_.find(conversation);
    if (it == bindings_.end() || it->second.turn_id.empty()) return;
    auto& b = it->second;
    auto live = live_.find(b.channel_uid);
    if (live == live_.end()) return;
    typing(b.channel_uid, b.chat, b.thread);
    // Refreshed a second before the platform's indicator lapses (a 5 s indicator → every 4 s).
    auto every = std::max(live->second.caps.typing_ttl - std::chrono::milliseconds(1000), std::chrono::milliseconds(1000));
    if (!b.typing_timer) b.typing_timer = std::make_unique<boost::asio::steady_timer>(service_);
    b.typing_timer->expires_after(every);
    b.typing_timer->async_wait([this, conversation](const boost::system::error_code& ec) {
        if (!ec) typing_tick(conversation);
    });
}

}  // namespace coffer::channels
