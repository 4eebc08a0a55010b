#include "channels/service.hpp"

#include "channels/commands.hpp"
#include "channels/pairing.hpp"
#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "plugin/call.hpp"
#include "resource/audit.hpp"

#include <boost/json.hpp>

#include <cstdlib>

namespace coffer::channels {

namespace json = boost::json;
using core::Error;

namespace {
std::string str(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
std::optional<std::string> opt_str(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    if (!v || !v->is_string() || v->as_string().empty()) return std::nullopt;
    return std::string(v->as_string());
}
}  // namespace

Capabilities Capabilities::from(const json::object& o) {
    Capabilities c;
    auto flag = [&](const char* k, bool& out) {
        if (auto* v = o.if_contains(k); v && v->is_bool()) out = v->as_bool();
    };
    flag("edit", c.edit);
    flag("typing", c.typing);
    flag("threads", c.threads);
    if (auto* v = o.if_contains("typing_ttl_ms"); v && v->is_int64() && v->as_int64() >= 1000 && v->as_int64() <= 600000)
        c.typing_ttl = std::chrono::milliseconds(v->as_int64());
    if (auto* v = o.if_contains("max_text"); v && v->is_int64() && v->as_int64() >= 64 && v->as_int64() <= 1000000)
        c.max_text = static_cast<std::size_t>(v->as_int64());
    c.units = units_from(str(o, "text_units"));
    if (auto m = str(o, "markdown"); m == "html" || m == "markdown" || m == "plain") c.markdown = m;
    if (auto i = str(o, "ingress"); !i.empty()) c.ingress = i;
    return c;
}

json::object Capabilities::to_json() const {
    return json::object{{"edit", edit},
                        {"typing", typing},
                        {"typing_ttl_ms", typing_ttl.count()},
                        {"max_text", static_cast<std::int64_t>(max_text)},
                        {"text_units", units == Units::utf16 ? "utf16" : units == Units::bytes ? "bytes" : "codepoints"},
                        {"markdown", markdown},
                        {"threads", threads},
                        {"ingress", ingress}};
}

json::object Counters::to_json() const {
    return json::object{{"received", received},         {"dropped", dropped},
                        {"duplicates", duplicates},     {"forwarded", forwarded},
                        {"commands", commands},         {"sent", sent},
                        {"send_failed", send_failed},   {"pairing_failed", pairing_failed},
                        {"pairing_refused", pairing_refused}};
}

Service::Service(store::Database& db, resource::Service& resources, chat::Orchestrator& orchestrator, events::Bus& bus,
                 boost::asio::any_io_executor service, Handoff::Sender to_service, Options options)
    : db_(db), store_(db), resources_(resources), orchestrator_(orchestrator), bus_(bus), service_(std::move(service)),
      to_service_(std::move(to_service)), options_(options) {}

Service::~Service() { shutdown(); }

void Service::start() {
    plugin::set_channel_sink(std::make_shared<const plugin::ChannelSink>(
        [this](std::uint64_t handle, json::object envelope, plugin::ChannelAck ack) {
            return on_inbound(handle, std::move(envelope), std::move(ack));
        }));
    resources_.channels().set_listener({[this](const resource::ChannelAdapter& a) { published(a); },
                                        [this](const resource::ChannelAdapter& a) { retiring(a); }});
}

void Service::shutdown() {
    if (stopped_) return;
    stopped_ = true;
    plugin::set_channel_sink(nullptr);
    resources_.channels().set_listener({});
    std::vector<resource::ChannelAdapter> running;
    for (auto& [uid, l] : live_) running.push_back(l.adapter);
    for (auto& a : running) retiring(a);
    for (auto& [id, b] : bindings_) bus_.unsubscribe(b.subscription);
    bindings_.clear();
}

void Service::published(const resource::ChannelAdapter& a) {
    if (stopped_) return;
    auto& l = live_[a.uid];
    l.adapter = a;
    auto caps = plugin::call(*a.plugin, "channel capabilities",
                             [&](coffer_reply* rep) { return a.fns.capabilities(a.instance, rep); });
    l.caps = caps && caps->is_object() ? Capabilities::from(caps->as_object()) : Capabilities{};
    l.handle = next_handle_++;
    {
        std::lock_guard<std::mutex> g(handles_mu_);
        handles_[l.handle] = a.uid;
    }
    auto started = plugin::call(*a.plugin, "channel start",
                                [&](coffer_reply* rep) { return a.fns.start(a.instance, plugin::channel_handle(l.handle), rep); });
    if (!started) {
        l.last_error = started.error().message;
        core::log::warn("channel adapter failed to start receiving", {{"channel", a.name}, {"error", l.last_error}});
        return;
    }
    l.last_error.clear();
    if (auto res = resources_.show(a.kind, a.name))
        if (auto* c = res->if_contains("config"); c && c->is_object())
            l.to_sessions = str(c->as_object(), "deliver") == "session";
    // Messages kept by an earlier daemon and not answered: their turns never finished (the
    // orchestrator marked them failed at start), so they go to the agent again, in order.
    auto open = store_.open(a.uid);
    if (!open) {
        core::log::error("cannot read a channel's inbox", {{"channel", a.name}, {"error", open.error().message}});
        return;
    }
    for (auto& row : *open) {
        if (row.conversation_id && bindings_.count(*row.conversation_id)) continue;  // still in this daemon's hands
        forward(l, row);
    }
}

void Service::retiring(const resource::ChannelAdapter& a) {
    auto it = live_.find(a.uid);
    if (it == live_.end()) return;
    {
        std::lock_guard<std::mutex> g(handles_mu_);
        handles_.erase(it->second.handle);
    }
    // stop has no reply; call() still serializes it with the plugin's other hooks and contains a throw.
    (void)plugin::call(*a.plugin, "channel stop", [&](coffer_reply*) {
        a.fns.stop(a.instance);
        return COFFER_OK;
    });
    live_.erase(it);
}

coffer_status Service::on_inbound(std::uint64_t handle, json::object envelope, plugin::ChannelAck ack) {
    std::string uid;
    {
        std::lock_guard<std::mutex> g(handles_mu_);
        auto it = handles_.find(handle);
        if (it == handles_.end()) return COFFER_E_NOT_FOUND;
        uid = it->second;
    }
    ++backlog_;
    bool posted = to_service_.post([this, uid, envelope = std::move(envelope), ack = std::move(ack)]() mutable {
        --backlog_;
        handle_inbound(uid, std::move(envelope), ack);
    });
    if (!posted) {
        --backlog_;
        return COFFER_E_UNAVAILABLE;
    }
    return COFFER_OK;
}

void Service::handle_inbound(const std::string& uid, json::object e, const plugin::ChannelAck& ack) {
    auto done = [&](coffer_status st) {
        if (ack) ack(st);
    };
    auto it = live_.find(uid);
    if (it == live_.end()) return done(COFFER_E_UNAVAILABLE);  // stopped meanwhile: deliver again later
    auto& l = it->second;
    ++l.counters.received;
    InboxRow row{uid, str(e, "id"), str(e, "chat"), str(e, "sender"), str(e, "text"), "received", opt_str(e, "thread"),
                 std::nullopt, std::nullopt};
    auto owner = store_.owner(uid);
    if (!owner) {
        core::log::error("channel owner unreadable; message not kept", {{"channel", l.adapter.name}, {"error", owner.error().message}});
        return done(COFFER_E_INTERNAL);
    }
    if (!*owner || (*owner)->sender != row.sender || (*owner)->chat != row.chat) {
        // The gate: a stranger (or anyone, with no owner) gets nothing back, ever. Only a pending
        // code can change that, and only from the owner's own CLI.
        if (!try_pairing(l, row, str(e, "sender_name"))) ++l.counters.dropped;
        return done(COFFER_OK);
    }
    auto fresh = store_.insert(row, core::now_ms());
    if (!fresh) {
        core::log::error("channel message not kept", {{"channel", l.adapter.name}, {"error", fresh.error().message}});
        return done(COFFER_E_INTERNAL);
    }
    if (!*fresh) {
        ++l.counters.duplicates;
        return done(COFFER_OK);
    }
    done(COFFER_OK);  // durable now: the adapter may commit the platform's offset
    if (auto cmd = parse_command(row.text); cmd != Command::none) return handle_command(l, row, static_cast<int>(cmd));
    forward(l, row);
}

bool Service::try_pairing(Live& l, const InboxRow& row, const std::string& sender_name) {
    auto code = code_candidate(row.text);
    if (code.empty()) return false;
    auto p = store_.pairing(l.adapter.uid);
    if (!p || !p->code_hash) return false;
    auto now = core::now_ms();
    auto& name = l.adapter.name;
    if (p->locked_until_ms > now) {
        ++l.counters.pairing_refused;
        core::log::warn("pairing attempt refused: the channel is locked after too many wrong codes", {{"channel", name}});
        return true;
    }
    if (p->expires_at_ms <= now) {
        ++l.counters.pairing_refused;
        if (auto r = store_.clear_code(l.adapter.uid); !r)
            core::log::error("cannot clear an expired pairing code", {{"channel", name}, {"error", r.error().message}});
        core::log::warn("pairing attempt with an expired code", {{"channel", name}});
        return true;
    }
    if (!core::constant_time_equal(code_hash(l.adapter.uid, code), *p->code_hash)) {
        ++l.counters.pairing_failed;
        int failed = p->failed + 1;
        std::int64_t locked = 0;
        if (failed >= kMaxAttempts) {
            locked = now + std::chrono::duration_cast<std::chrono::milliseconds>(kLockout).count();
            failed = 0;
        }
        if (auto r = store_.record_failure(l.adapter.uid, failed, locked); !r)
            core::log::error("cannot record a failed pairing attempt", {{"channel", name}, {"error", r.error().message}});
        core::log::warn(locked ? "wrong pairing code; the channel is locked for an hour" : "wrong pairing code", {{"channel", name}});
        return true;
    }
    Owner o{row.sender, row.chat, sender_name, core::now_iso()};
    if (auto r = store_.pair(l.adapter.uid, o, row); !r) {
        core::log::error("cannot record the channel's owner", {{"channel", name}, {"error", r.error().message}});
        return true;
    }
    resource::record_audit(db_, "channel", "channel_paired", "channel:" + name, json::object{{"sender", row.sender}});
    core::log::info("channel paired with its owner", {{"channel", name}});
    send(l.adapter.uid, row.chat, row.thread, "pair-" + core::random_hex(4),
         "Paired: this chat is now the owner of the channel. Messages go to the agent.\n\n" + std::string(help_text()));
    return true;
}

void Service::handle_command(Live& l, const InboxRow& row, int command) {
    ++l.counters.commands;
    auto uid = l.adapter.uid;
    auto reply = [&](const std::string& text) { send(uid, row.chat, row.thread, "cmd-" + core::random_hex(4), text); };
    std::string answer;
    if (l.to_sessions && static_cast<Command>(command) != Command::help) {
        // Nothing of the orchestrator's: the conversation is the user's own agent session.
        if (auto r = store_.set_status(uid, row.key, "answered"); !r)
            core::log::error("cannot record a channel command as answered", {{"channel", l.adapter.name}, {"error", r.error().message}});
        auto listening = session_listeners(l.adapter.name);
        auto waiting = store_.count(uid, "received");
        answer = static_cast<Command>(command) == Command::status
                     ? std::to_string(listening) + (listening == 1 ? " agent session listens" : " agent sessions listen") +
                           " to this channel; " + std::to_string(waiting ? *waiting : 0) + " message(s) wait for one."
                     : "This channel delivers to your own agent session (Claude Code): start or stop turns there.";
        return reply(answer);
    }
    switch (static_cast<Command>(command)) {
    case Command::new_conversation: {
        auto c = conversation_for(l, row.chat, true);
        answer = c ? "New conversation " + *c + "." : "No new conversation: " + c.error().message;
        break;
    }
    case Command::stop: {
        auto c = store_.chat_conversation(uid, row.chat);
        if (!c) {
            answer = "Nothing is running.";
            break;
        }
        auto r = orchestrator_.interrupt(*c);
        bool running = r && (*r)["interrupted"].as_bool();
        answer = !r ? "Could not stop: " + r.error().message : running ? "Stopping the turn." : "Nothing is running.";
        break;
    }
    case Command::status: {
        auto c = store_.chat_conversation(uid, row.chat);
        auto q = c ? orchestrator_.queue(*c) : core::Result<json::object>(Error::make(core::code::not_found, ""));
        if (!c || !q) {
            answer = "No conversation yet; the next message starts one.";
            break;
        }
        auto& st = (*q)["state"].as_object();
        answer = "Conversation " + *c + ": " + (st["running"].as_bool() ? "a turn is running" : "idle") + ", " +
                 std::to_string(st["pending"].as_int64()) + " queued" + (st["paused"].as_bool() ? " (paused)" : "") + ".";
        break;
    }
    default:
        answer = std::string(help_text());
    }
    if (auto r = store_.set_status(uid, row.key, "answered"); !r)
        core::log::error("cannot record a channel command as answered", {{"channel", l.adapter.name}, {"error", r.error().message}});
    reply(answer);
}

core::Result<std::string> Service::conversation_for(Live& l, const std::string& chat, bool fresh) {
    auto uid = l.adapter.uid;
    if (!fresh)
        if (auto c = store_.chat_conversation(uid, chat))
            if (orchestrator_.queue(*c)) return *c;
    auto resource = resources_.show(l.adapter.kind, l.adapter.name);
    if (!resource) return resource.error();
    json::object config;
    if (auto* c = resource->if_contains("config"); c && c->is_object()) config = c->as_object();
    auto agent = str(config, "agent");
    auto cwd = str(config, "cwd");
    if (cwd.empty()) {
        const char* home = std::getenv("HOME");
        cwd = home && *home == '/' ? home : "/";
    }
    auto c = orchestrator_.create(json::object{{"agent", agent}, {"cwd", cwd}, {"title", l.adapter.name + " " + chat}});
    if (!c) return c.error();
    auto id = std::string((*c)["id"].as_string());
    if (auto r = store_.set_chat_conversation(uid, chat, id); !r) return r.error();
    return id;
}

void Service::forward(Live& l, const InboxRow& row) {
    if (l.to_sessions) return to_session(l, row);
    auto fail = [&](const std::string& why) {
        if (auto r = store_.set_status(row.channel_uid, row.key, "failed"); !r)
            core::log::error("cannot record a channel message as failed", {{"channel", l.adapter.name}, {"error", r.error().message}});
        send(row.channel_uid, row.chat, row.thread, "err-" + core::random_hex(4), why);
    };
    auto conv = conversation_for(l, row.chat, false);
    if (!conv) return fail("The message did not reach the agent: " + conv.error().message);
    bind(*conv, row.channel_uid, row.chat, row.thread);
    // A queue paused by /stop goes on with the owner's next message.
    if (auto q = orchestrator_.queue(*conv); q && (*q)["state"].as_object()["paused"].as_bool()) (void)orchestrator_.resume_queue(*conv);  // its result is the queue, shown by /status
    auto sent = orchestrator_.send(*conv, json::object{{"text", row.text}, {"source", "channel:" + l.adapter.name}});
    if (!sent) return fail("The message did not reach the agent: " + sent.error().message);
    auto& msg = (*sent)["message"].as_object();
    if (auto r = store_.dispatched(row.channel_uid, row.key, *conv, std::string(msg["id"].as_string())); !r)
        core::log::error("cannot record a channel message as handed over", {{"channel", l.adapter.name}, {"error", r.error().message}});
    ++l.counters.forwarded;
}

core::Result<json::object> Service::pair(const std::string& uid, std::chrono::seconds lifetime) {
    auto code = new_code();
    auto expires = core::now_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(lifetime).count();
    if (auto r = store_.set_code(uid, code_hash(uid, code), expires); !r) return r.error();
    json::object out{{"code", code}, {"expires_at", core::iso_time(expires)}};
    auto p = store_.pairing(uid);
    if (p && p->locked_until_ms > core::now_ms()) out["locked_until"] = core::iso_time(p->locked_until_ms);
    return out;
}

json::object Service::status(const std::string& uid) {
    json::object out;
    auto owner = store_.owner(uid);
    if (owner && *owner)
        out["owner"] = json::object{{"sender", (*owner)->sender}, {"chat", (*owner)->chat},
                                    {"sender_name", (*owner)->sender_name}, {"paired_at", (*owner)->paired_at}};
    else
        out["owner"] = nullptr;
    auto p = store_.pairing(uid);
    auto now = core::now_ms();
    json::object pairing{{"pending", p && p->code_hash && p->expires_at_ms > now}};
    if (p && p->code_hash && p->expires_at_ms > now) pairing["expires_at"] = core::iso_time(p->expires_at_ms);
    if (p && p->locked_until_ms > now) pairing["locked_until"] = core::iso_time(p->locked_until_ms);
    out["pairing"] = std::move(pairing);
    auto it = live_.find(uid);
    if (it == live_.end()) {
        out["receiving"] = false;
        out["counters"] = Counters{}.to_json();
    } else {
        out["receiving"] = it->second.last_error.empty();
        if (!it->second.last_error.empty()) out["error"] = it->second.last_error;
        out["counters"] = it->second.counters.to_json();
        out["capabilities"] = it->second.caps.to_json();
    }
    auto open = store_.count(uid, "received");
    auto dispatched = store_.count(uid, "dispatched");
    out["inbox"] = json::object{{"waiting", (open ? *open : 0) + (dispatched ? *dispatched : 0)}};
    return out;
}

core::Result<void> Service::unpair(const std::string& uid) { return store_.forget(uid, true); }

core::Result<void> Service::forget(const std::string& uid) {
    for (auto it = bindings_.begin(); it != bindings_.end();) {
        if (it->second.channel_uid == uid) {
            bus_.unsubscribe(it->second.subscription);
            it = bindings_.erase(it);
        } else {
            ++it;
        }
    }
    return store_.forget(uid, false);
}

}  // namespace coffer::channels
