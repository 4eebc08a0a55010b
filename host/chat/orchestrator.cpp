#include "chat/orchestrator.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "plugin/call.hpp"
#include "plugin/turns.hpp"

#include <coffer/utf8.hpp>

#include <boost/json.hpp>

#include <sys/stat.h>

#include <algorithm>

namespace coffer::chat {

namespace json = boost::json;
using core::Error;

namespace {

constexpr std::size_t kMaxText = 256 * 1024;       // one message
constexpr std::size_t kMaxPending = 1000;          // queued messages per conversation
constexpr std::size_t kPreview = 80;

Error invalid(const std::string& pointer, const std::string& message) {
    return Error::make(core::code::validation_failed, pointer + " " + message,
                       json::object{{"errors", json::array{json::object{{"pointer", pointer}, {"message", message}}}}});
}

// The keys of `o` must all be in `known`.
std::optional<Error> unknown_keys(const json::object& o, std::initializer_list<std::string_view> known) {
    for (auto& kv : o) {
        bool ok = false;
        for (auto k : known) ok |= kv.key() == k;
        if (!ok) return invalid("/" + std::string(kv.key()), "is not a known field");
    }
    return std::nullopt;
}

std::string preview(const std::string& s) { return utf8::clip(s, kPreview); }

bool is_dir(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string sse_frame(std::uint64_t id, std::string_view type, std::string_view data) {
    std::string f;
    f.reserve(data.size() + type.size() + 32);
    f += "id: ";
    f += std::to_string(id);
    f += "\nevent: ";
    f += type;
    f += "\ndata: ";
    f += data;
    f += "\n\n";
    return f;
}

}  // namespace

Orchestrator::Orchestrator(store::Database& db, resource::Agents& agents, events::Bus& bus, Handoff::Sender service)
    : store_(db), agents_(agents), bus_(bus), service_(std::move(service)) {}

core::Result<std::int64_t> Orchestrator::recover() {
    auto n = store_.fail_running("the daemon stopped while the turn was running");
    if (n && *n > 0) core::log::warn("turns left running by a previous daemon marked failed", {{"turns", *n}});
    return n;
}

void Orchestrator::shutdown() {
    {
        std::lock_guard<std::mutex> g(live_mu_);
        closed_ = true;
        live_.clear();
    }
    for (auto& [id, s] : states_) {
        if (!s.turn) continue;
        // Recorded, not left "running"; the failure a restart would record otherwise.
        if (auto r = store_.end_turn(s.turn->id, "error", std::string("the daemon stopped during the turn"), s.turn->resume_key); !r)
            core::log::error("cannot record the end of a turn at shutdown", {{"turn", s.turn->id}, {"error", r.error().message}});
        s.turn.reset();
    }
}

core::Result<Conversation> Orchestrator::load(const std::string& id) {
    auto c = store_.get(id);
    if (!c) return c.error();
    if (!*c) return Error::make(core::code::not_found, "no conversation '" + id + "'");
    return std::move(**c);
}

core::Result<json::object> Orchestrator::create(const json::value& body) {
    auto* o = body.if_object();
    if (!o) return invalid("", "must be an object");
    if (auto e = unknown_keys(*o, {"agent", "cwd", "title", "mcp_config"})) return *e;
    auto text = [&](const char* key) -> std::string {
        auto* v = o->if_contains(key);
        return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    Conversation c;
    c.agent = text("agent");
    c.cwd = text("cwd");
    c.title = text("title");
    if (c.agent.empty()) return invalid("/agent", "is required: the name of an agent (coffer agent list)");
    if (!agents_.find(c.agent)) return Error::make(core::code::not_found, "no running agent named '" + c.agent + "'",
                                                   json::object{{"errors", json::array{json::object{{"pointer", "/agent"}, {"message", "no such agent"}}}}});
    if (c.cwd.empty() || c.cwd.front() != '/') return invalid("/cwd", "is required: an absolute path");
    if (!is_dir(c.cwd)) return invalid("/cwd", "is not an existing folder");
    if (c.title.size() > 200) return invalid("/title", "is longer than 200 bytes");
    if (auto* m = o->if_contains("mcp_config"); m && !m->is_null()) {
        if (!m->is_object()) return invalid("/mcp_config", "must be an object");
        c.mcp_config = json::serialize(*m);
    }
    c.id = "c_" + core::random_hex(8);
    c.created_at = c.updated_at = core::now_iso();
    if (auto r = store_.create(c); !r) return r.error();
    return c.to_json();
}

core::Result<json::array> Orchestrator::list() {
    auto all = store_.list();
    if (!all) return all.error();
    json::array out;
    for (auto& c : *all) {
        auto o = c.to_json();
        auto it = states_.find(c.id);
        o["state"] = it == states_.end() ? state_json(State()) : state_json(it->second);
        out.push_back(std::move(o));
    }
    return out;
}

core::Result<json::object> Orchestrator::show(const std::string& id, int message_limit) {
    auto c = load(id);
    if (!c) return c.error();
    auto o = c->to_json();
    o["state"] = state_json(state(id));
    auto msgs = store_.messages(id, message_limit);
    if (!msgs) return msgs.error();
    o["messages"] = std::move(*msgs);
    auto last = store_.last_turn(id);
    if (!last) return last.error();
    o["last_turn"] = *last ? json::value((*last)->to_json()) : json::value(nullptr);
    return o;
}

core::Result<void> Orchestrator::remove(const std::string& id) {
    auto c = load(id);
    if (!c) return c.error();
    if (auto it = states_.find(id); it != states_.end() && it->second.turn)
        return Error::make(core::code::conflict, "conversation '" + id + "' has a running turn; interrupt it first");
    if (auto r = store_.remove(id); !r) return r;
    states_.erase(id);
    return {};
}

core::Result<json::object> Orchestrator::send(const std::string& id, const json::value& body) {
    auto* o = body.if_object();
    if (!o) return invalid("", "must be an object");
    if (auto e = unknown_keys(*o, {"text", "source"})) return *e;
    auto* t = o->if_contains("text");
    if (!t || !t->is_string() || t->as_string().empty()) return invalid("/text", "is required: the message for the agent");
    if (t->as_string().size() > kMaxText) return invalid("/text", "is longer than 256 KiB");
    std::string source = "api";
    if (auto* s = o->if_contains("source")) {
        if (!s->is_string() || s->as_string().empty() || s->as_string().size() > 64)
            return invalid("/source", "must be a short string naming where the message came from");
        source = std::string(s->as_string());
    }
    auto c = load(id);
    if (!c) return c.error();
    auto& s = state(id);
    if (s.queue.size() >= kMaxPending)
        return Error::make(core::code::conflict, "conversation '" + id + "' already has " + std::to_string(kMaxPending) +
                                                     " queued messages");
    Pending p{"m_" + core::random_hex(8), std::string(t->as_string()), source, core::now_iso()};
    s.queue.push_back(p);
    bool idle = !s.turn && !s.paused;
    if (!idle) queue_changed(id, s);
    pump(*c);
    json::object msg{{"id", p.id}, {"text", p.text}, {"source", p.source}, {"queued_at", p.queued_at}};
    bool started = s.turn && s.turn->user_message_id == p.id;
    bool queued = std::any_of(s.queue.begin(), s.queue.end(), [&](const Pending& q) { return q.id == p.id; });
    // Neither running nor waiting: its turn could not start (the events say why).
    msg["status"] = started ? "started" : queued ? "queued" : "failed";
    json::object out{{"message", std::move(msg)}, {"state", state_json(s)}};
    if (started) out["turn_id"] = s.turn->id;
    return out;
}

void Orchestrator::pump(const Conversation& c) {
    auto& s = state(c.id);
    while (!s.turn && !s.paused && !s.queue.empty()) start_next(c, s);
}

void Orchestrator::start_next(const Conversation& c, State& s) {
    Pending p = std::move(s.queue.front());
    s.queue.pop_front();
    auto turn_id = "t_" + core::random_hex(8);
    // The message is committed now that its turn starts (T-3), not when it was queued.
    if (auto r = store_.add_message(c.id, p.id, "user", p.text, p.source, turn_id); !r) {
        core::log::error("cannot commit a message; its turn does not start", {{"conversation", c.id}, {"error", r.error().message}});
        return fail_start(c, s, turn_id, p.id, "cannot record the message: " + r.error().message);
    }
    auto agent = agents_.find(c.agent);
    if (!agent) return fail_start(c, s, turn_id, p.id, "the agent '" + c.agent + "' is not running (removed, disabled or its plugin is not loaded)");
    TurnRow row{turn_id, c.id, p.id, "running", core::now_iso(), {}, {}, {}};
    if (auto r = store_.begin_turn(row, c.resume_key); !r) return fail_start(c, s, turn_id, p.id, r.error().message);

    Turn t;
    t.id = turn_id;
    t.agent_uid = agent->uid;
    t.user_message_id = p.id;
    t.handle = next_handle_++;
    t.resume_key = c.resume_key;
    {
        std::lock_guard<std::mutex> g(live_mu_);
        if (closed_) return;
        live_[t.handle] = c.id;
    }
    s.turn = t;
    s.ring.clear();  // the ring holds the current turn
    publish(c.id, s, json::object{{"type", "turn.started"}, {"turn_id", turn_id}, {"agent", c.agent},
                                  {"user_message_id", p.id}, {"text", p.text}, {"source", p.source}});
    queue_changed(c.id, s);

    json::object req{{"conversation_id", c.id}, {"turn_id", turn_id}, {"prompt", p.text}, {"cwd", c.cwd},
                     {"resume_key", c.resume_key ? json::value(*c.resume_key) : json::value(nullptr)}};
    boost::system::error_code ec;
    req["mcp_config"] = c.mcp_config ? json::parse(*c.mcp_config, ec) : json::value(nullptr);
    auto text = json::serialize(req);
    auto res = plugin::call(*agent->plugin, "start_turn", [&](coffer_reply* r) {
        return agent->fns.start_turn(agent->instance, plugin::turn_handle(t.handle), plugin::cstr(text), r);
    });
    if (!res) {
        {
            std::lock_guard<std::mutex> g(live_mu_);
            live_.erase(t.handle);
        }
        json::object done{{"type", "turn.completed"}, {"status", "error"}, {"error", res.error().message}};
        complete(c.id, s, done);
    }
}

// The turn could not even start: it still has a start and an end for every subscriber.
void Orchestrator::fail_start(const Conversation& c, State& s, const std::string& turn_id, const std::string& user_message_id,
                              const std::string& error) {
    s.ring.clear();
    publish(c.id, s, json::object{{"type", "turn.started"}, {"turn_id", turn_id}, {"agent", c.agent},
                                  {"user_message_id", user_message_id}});
    publish(c.id, s, json::object{{"type", "turn.completed"}, {"turn_id", turn_id}, {"status", "error"}, {"error", error},
                                  {"final_text", ""}});
    queue_changed(c.id, s);
}

coffer_status Orchestrator::on_driver_event(std::uint64_t turn, json::object event) {
    std::string conversation;
    {
        std::lock_guard<std::mutex> g(live_mu_);
        auto it = live_.find(turn);
        if (it == live_.end()) return COFFER_E_NOT_FOUND;
        conversation = it->second;
        if (event.at("type").as_string() == "turn.completed") live_.erase(it);  // exactly one, decided here
    }
    service_.post([this, conversation, turn, e = std::move(event)]() mutable { apply(conversation, turn, std::move(e)); });
    return COFFER_OK;
}

void Orchestrator::apply(const std::string& conversation, std::uint64_t handle, json::object event) {
    auto it = states_.find(conversation);
    if (it == states_.end() || !it->second.turn || it->second.turn->handle != handle) return;  // shut down meanwhile
    auto& s = it->second;
    std::string type(event.at("type").as_string());
    event["turn_id"] = s.turn->id;
    if (type == "turn.completed") return complete(conversation, s, event);
    if (type == "session") {
        if (auto* k = event.if_contains("agent_session_id"); k && k->is_string() && !k->as_string().empty()) {
            s.turn->resume_key = std::string(k->as_string());
            // Kept at once, so a daemon that dies mid-turn still resumes the newest session.
            if (auto r = store_.set_resume_key(conversation, *s.turn->resume_key); !r)
                core::log::error("cannot record the agent's resume key", {{"conversation", conversation}, {"error", r.error().message}});
        }
    } else if (type == "message.completed") {
        if (auto* t = event.if_contains("text"); t && t->is_string()) s.turn->last_message = std::string(t->as_string());
    }
    publish(conversation, s, std::move(event));
}

void Orchestrator::complete(const std::string& conversation, State& s, json::object& event) {
    Turn t = *s.turn;
    event["type"] = "turn.completed";
    event["turn_id"] = t.id;
    auto* st = event.if_contains("status");
    std::string status = st && st->is_string() ? std::string(st->as_string()) : "error";
    if (status != "ok" && status != "interrupted") status = "error";
    if (t.interrupt_requested && status == "error") status = "interrupted";  // our signal ended it
    event["status"] = status;
    auto* ft = event.if_contains("final_text");
    std::string final_text = ft && ft->is_string() && !ft->as_string().empty() ? std::string(ft->as_string()) : t.last_message;
    event["final_text"] = final_text;
    std::optional<std::string> error;
    if (auto* e = event.if_contains("error"); e && e->is_string()) error = std::string(e->as_string());
    if (!final_text.empty())
        if (auto r = store_.add_message(conversation, "m_" + core::random_hex(8), "assistant", final_text, "agent", t.id); !r)
            core::log::error("cannot commit the agent's answer", {{"conversation", conversation}, {"error", r.error().message}});
    if (t.resume_key)
        if (auto r = store_.set_resume_key(conversation, *t.resume_key); !r)
            core::log::error("cannot record the agent's resume key", {{"conversation", conversation}, {"error", r.error().message}});
    if (auto r = store_.end_turn(t.id, status, error, t.resume_key); !r)
        core::log::error("cannot record the end of a turn", {{"turn", t.id}, {"error", r.error().message}});
    if (t.resume_key) event["resume_key"] = *t.resume_key;
    s.turn.reset();
    if (status == "interrupted") s.paused = true;  // T-4: the queue waits for resume
    publish(conversation, s, std::move(event));
    if (status == "interrupted") queue_changed(conversation, s);
    auto c = load(conversation);
    if (c) pump(*c);
}

void Orchestrator::publish(const std::string& conversation, State& s, json::object event) {
    auto seq = ++s.seq;
    event["seq"] = seq;
    event["conversation_id"] = conversation;
    event["ts"] = core::now_ms();
    auto msg = std::make_shared<events::Message>();
    msg->type = std::string(event.at("type").as_string());
    msg->json = json::serialize(event);
    msg->sse = sse_frame(seq, msg->type, msg->json);  // once, not once per subscriber
    events::Event e{seq, msg};
    s.ring.push(e);
    bus_.publish(topic(conversation), std::move(msg), seq);
}

json::object Orchestrator::queue_json(const State& s) const {
    json::array pending;
    std::int64_t n = 0;
    for (auto& p : s.queue)
        pending.push_back(json::object{{"position", ++n}, {"id", p.id}, {"text_preview", preview(p.text)},
                                       {"source", p.source}, {"queued_at", p.queued_at}});
    return json::object{{"paused", s.paused}, {"pending", std::move(pending)}};
}

json::object Orchestrator::state_json(const State& s) const {
    return json::object{{"running", s.turn.has_value()},
                        {"turn_id", s.turn ? json::value(s.turn->id) : json::value(nullptr)},
                        {"pending", static_cast<std::int64_t>(s.queue.size())},
                        {"paused", s.paused}};
}

void Orchestrator::queue_changed(const std::string& conversation, State& s) {
    auto q = queue_json(s);
    q["type"] = "queue.changed";
    publish(conversation, s, std::move(q));
}

core::Result<json::object> Orchestrator::interrupt(const std::string& id) {
    if (auto c = load(id); !c) return c.error();
    auto& s = state(id);
    bool was_paused = s.paused;
    s.paused = true;
    if (!s.turn) {
        if (!was_paused) queue_changed(id, s);
        return json::object{{"interrupted", false}, {"state", state_json(s)}};
    }
    s.turn->interrupt_requested = true;
    if (!was_paused) queue_changed(id, s);
    if (auto agent = agents_.find_uid(s.turn->agent_uid)) {
        std::lock_guard<std::recursive_mutex> g(agent->plugin->mu);  // calls into a plugin are serialized
        try {
            agent->fns.interrupt(agent->instance, plugin::turn_handle(s.turn->handle));
        } catch (...) {
            core::log::error("agent driver threw from interrupt", {{"plugin", agent->plugin->name}});
        }
    }
    // Without a live instance the plugin's stop already signalled the turn; it completes as usual.
    return json::object{{"interrupted", true}, {"turn_id", s.turn->id}, {"state", state_json(s)}};
}

core::Result<json::object> Orchestrator::queue(const std::string& id) {
    if (auto c = load(id); !c) return c.error();
    auto& s = state(id);
    auto q = queue_json(s);
    q["state"] = state_json(s);
    return q;
}

core::Result<json::object> Orchestrator::resume_queue(const std::string& id) {
    auto c = load(id);
    if (!c) return c.error();
    auto& s = state(id);
    if (s.paused) {
        s.paused = false;
        queue_changed(id, s);
        pump(*c);
    }
    return queue(id);
}

core::Result<json::object> Orchestrator::clear_queue(const std::string& id) {
    if (auto c = load(id); !c) return c.error();
    auto& s = state(id);
    auto n = s.queue.size();
    s.queue.clear();
    if (n) queue_changed(id, s);
    auto q = queue_json(s);
    q["removed"] = static_cast<std::int64_t>(n);
    return q;
}

// `item` is a position (1 = next) or a pending message's id.
core::Result<json::object> Orchestrator::remove_queued(const std::string& id, const std::string& item) {
    if (auto c = load(id); !c) return c.error();
    auto& s = state(id);
    auto at = s.queue.end();
    if (!item.empty() && item.find_first_not_of("0123456789") == std::string::npos && item.size() < 7) {
        auto n = std::stoul(item);
        if (n >= 1 && n <= s.queue.size()) at = s.queue.begin() + static_cast<std::ptrdiff_t>(n - 1);
    } else {
        at = std::find_if(s.queue.begin(), s.queue.end(), [&](const Pending& p) { return p.id == item; });
    }
    if (at == s.queue.end())
        return Error::make(core::code::not_found, "no queued message '" + item + "' in conversation '" + id + "'");
    json::object removed{{"id", at->id}, {"text_preview", preview(at->text)}};
    s.queue.erase(at);
    queue_changed(id, s);
    auto q = queue_json(s);
    q["removed"] = std::move(removed);
    return q;
}

core::Result<Orchestrator::Attach> Orchestrator::attach(const std::string& id, std::optional<std::uint64_t> last_id,
                                                        events::Subscription::Wake wake) {
    if (auto c = load(id); !c) return c.error();
    auto& s = state(id);
    Attach a;
    auto replay = s.ring.after(last_id, s.seq);
    auto st = state_json(s);
    st["type"] = "state";
    st["conversation_id"] = id;
    st["seq"] = s.seq;
    st["replay"] = static_cast<std::int64_t>(replay.events.size());  // how many ring events follow
    a.preamble = sse_frame(s.seq, "state", json::serialize(st));
    a.preamble.insert(0, "retry: 2000\n\n");
    if (replay.resync) {
        json::object r{{"type", "resync"}, {"conversation_id", id}, {"reason", "the events after that id are no longer kept"},
                       {"seq", s.seq}};
        a.preamble += "event: resync\ndata: " + json::serialize(r) + "\n\n";
    }
    for (auto& e : replay.events) a.preamble += e.message->sse;
    a.subscription = bus_.subscribe(topic(id), std::move(wake));
    return a;
}

std::size_t Orchestrator::pending_total() const {
    std::size_t n = 0;
    for (auto& [id, s] : states_) n += s.queue.size();
    return n;
}

std::size_t Orchestrator::running_total() const {
    std::size_t n = 0;
    for (auto& [id, s] : states_) n += s.turn.has_value();
    return n;
}

}  // namespace coffer::chat
