// coffer chat new|list|show|send|watch|interrupt|queue — conversations with managed agents over
// /api/v1/conversations, and their live event streams (SSE). See docs/agents-and-chat.md.
#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/codes.hpp"
#include "client/event_stream.hpp"
#include "client/url.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

namespace coffer::cli {
namespace json = boost::json;

namespace {

constexpr const char* kGroup = "chat";

std::string conv_path(const std::string& id, std::initializer_list<std::string_view> more = {}) {
    std::string p = client::api_path({"conversations", id});
    for (auto s : more) p += "/" + client::api_path({s}).substr(std::string_view("/api/v1/").size());
    return p;
}

// One conversation's activity as the stream tells it, to know when it is idle.
struct Activity {
    bool running = false;
    std::int64_t pending = 0;
    bool paused = false;
    std::int64_t replay_left = 0;  // ring events the stream replays before it goes live
    // Idle, and the replay of the last turn has been shown: a watcher that starts after the turn
    // ended still prints it before it exits.
    bool idle() const { return !running && (pending == 0 || paused) && replay_left <= 0; }
    void update(const std::string& type, const json::value& e) {
        if (type != "state" && type != "resync" && replay_left > 0) {
            --replay_left;  // history: the state event already told where things stand now
            return;
        }
        if (type == "state") {
            replay_left = field(e, "replay").is_int64() ? field(e, "replay").get_int64() : 0;
            running = field(e, "running").is_bool() && field(e, "running").get_bool();
            pending = field(e, "pending").is_int64() ? field(e, "pending").get_int64() : 0;
            paused = field(e, "paused").is_bool() && field(e, "paused").get_bool();
        } else if (type == "turn.started") {
            running = true;
        } else if (type == "turn.completed") {
            running = false;
        } else if (type == "queue.changed") {
            const auto* p = field(e, "pending").if_array();
            pending = p ? static_cast<std::int64_t>(p->size()) : 0;
            paused = field(e, "paused").is_bool() && field(e, "paused").get_bool();
        }
    }
};

// Human rendering: text as it arrives, tool calls and turn boundaries as one-line status.
class Renderer {
public:
    explicit Renderer(std::ostream& out) : out_(out) {}
    void event(const std::string& type, const json::value& e) {
        if (type == "text.delta") {
            out_ << text_field(e, "text") << std::flush;
            mid_line_ = true;
            return;
        }
        auto line = status_line(type, e);
        if (line.empty()) return;
        if (mid_line_) out_ << '\n';
        mid_line_ = false;
        out_ << line << '\n' << std::flush;
    }

private:
    static std::string status_line(const std::string& type, const json::value& e) {
        if (type == "turn.started") return "> " + text_field(e, "text");
        if (type == "tool.started") {
            auto input = field(e, "input");
            std::string what = text_field(input, "command");
            if (what.empty()) what = compact_json(input);
            if (what.size() > 100) what = what.substr(0, 97) + "...";
            return "  [" + text_field(e, "kind", "tool") + "] " + text_field(e, "name") + " " + what;
        }
        if (type == "tool.completed")
            return std::string("  [") + (field(e, "ok").is_bool() && field(e, "ok").get_bool() ? "ok" : "failed") + "] " +
                   text_field(e, "item_id");
        if (type == "warning") return "  warning: " + text_field(e, "message");
        if (type == "turn.completed") {
            auto status = text_field(e, "status");
            auto err = text_field(e, "error");
            return "[turn " + status + "]" + (err.empty() ? "" : " " + err);
        }
        if (type == "queue.changed") {
            const auto* p = field(e, "pending").if_array();
            bool paused = field(e, "paused").is_bool() && field(e, "paused").get_bool();
            if ((!p || p->empty()) && !paused) return {};
            return "  (queue: " + std::to_string(p ? p->size() : 0) + " pending" + (paused ? ", paused" : "") + ")";
        }
        if (type == "resync") return "  (some events were missed; catching up)";
        return {};
    }
    std::ostream& out_;
    bool mid_line_ = false;
};

struct WatchOptions {
    bool until_idle = false;
    std::optional<std::string> until_turn_of;  // stop when the turn of this user message completes
    std::optional<std::string> from;           // Last-Event-ID
};

// Streams the conversation's events (reconnecting after a resync from the last id seen) until
// the condition holds, the daemon ends the stream, or it fails. With a condition to wait for, a
// stream that ends before it holds is resumed from the last id seen (the daemon replays what
// came after it), at most kMaxResumes times in a row without an event.
int watch_events(Context& ctx, const std::string& id, const WatchOptions& w) {
    auto first = ctx.call("GET", client::with_query(conv_path(id), {{"messages", "0"}}));
    if (!first.ok()) return ctx.report(first);
    const auto* daemon = ctx.daemon_info();
    if (!daemon) return ctx.unreachable("no daemon connection for the event stream");
    Activity act;
    Renderer human(ctx.out());
    std::optional<std::string> last = w.from;
    std::string my_turn;
    bool done = false;
    constexpr int kMaxResumes = 5;
    int resumes = 0;  // in a row, without an event in between
    while (!done) {
        bool reconnect = false;
        auto r = client::read_event_stream(*daemon, conv_path(id, {"events"}), last, [&](const client::StreamedEvent& ev) {
            if (!ev.id.empty()) last = ev.id;
            if (ev.type != "state") resumes = 0;
            boost::system::error_code ec;
            auto e = json::parse(ev.data, ec);
            if (ec) return true;
            act.update(ev.type, e);
            if (ev.type == "resync" && ev.id.empty() && last) {  // behind: replay from the last id seen
                reconnect = true;
                return false;
            }
            if (ev.type != "state") {
                if (ctx.json()) ctx.raw_out() << ev.data << '\n' << std::flush;
                else human.event(ev.type, e);
            }
            if (w.until_turn_of) {
                if (ev.type == "turn.started" && text_field(e, "user_message_id") == *w.until_turn_of)
                    my_turn = text_field(e, "turn_id");
                if (ev.type == "turn.completed" && !my_turn.empty() && text_field(e, "turn_id") == my_turn) done = true;
            }
            if (w.until_idle && act.idle()) done = true;
            return !done;
        });
        if (!r) return ctx.fail(r.error());
        if (reconnect || done) continue;
        if (!w.until_idle && !w.until_turn_of) break;  // plain watch: the stream's end is the end
        if (!last || ++resumes > kMaxResumes)
            return ctx.fail(core::Error::make(client::code::daemon_unreachable,
                                              "the event stream kept ending before what the watch waits for"));
        ctx.err() << "coffer: the event stream ended early; resuming after event " << *last << '\n' << std::flush;
        std::this_thread::sleep_for(std::chrono::milliseconds(100 * resumes));
    }
    return exit_code::ok;
}

int create(Context& ctx, const Invocation& inv) {
    auto agent = inv.value("agent");
    if (!agent) throw UsageError("--agent is required", kGroup, "new");
    std::error_code ec;
    auto cwd = std::filesystem::absolute(inv.value("cwd").value_or("."), ec).lexically_normal().string();
    if (cwd.size() > 1 && cwd.back() == '/') cwd.pop_back();
    json::object body{{"agent", *agent}, {"cwd", cwd}};
    if (auto t = inv.value("title")) body["title"] = *t;
    auto reply = ctx.call("POST", client::api_path({"conversations"}), json::value(std::move(body)));
    if (!reply.ok()) return ctx.report(reply);
    const auto& c = field(reply.body(), "conversation");
    if (ctx.json()) ctx.print_json(c);
    else ctx.out() << "conversation " << text_field(c, "id") << " with agent:" << text_field(c, "agent") << " in "
                   << text_field(c, "cwd") << '\n';
    return exit_code::ok;
}

int list(Context& ctx, const Invocation&) {
    auto reply = ctx.call("GET", client::api_path({"conversations"}));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto* list = field(body, "conversations").if_array();
        if (!list || list->empty()) {
            ctx.out() << "no conversations (start one with `coffer chat new --agent NAME --cwd DIR`)\n";
            return;
        }
        std::vector<std::vector<std::string>> rows;
        for (const auto& c : *list) {
            const auto& st = field(c, "state");
            std::string state = field(st, "running").is_bool() && field(st, "running").get_bool() ? "running" : "idle";
            if (field(st, "paused").is_bool() && field(st, "paused").get_bool()) state += ", paused";
            rows.push_back({text_field(c, "id"), text_field(c, "agent"), state, text_field(st, "pending", "0"),
                            text_field(c, "cwd"), text_field(c, "title")});
        }
        print_table(ctx.out(), {"ID", "AGENT", "STATE", "QUEUED", "CWD", "TITLE"}, rows);
    });
}

int show(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("GET", conv_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value& body) {
        const auto& c = field(body, "conversation");
        ctx.out() << "conversation " << text_field(c, "id") << " with agent:" << text_field(c, "agent") << " in "
                  << text_field(c, "cwd") << '\n';
        if (auto k = text_field(c, "resume_key"); !k.empty()) ctx.out() << "  resume key: " << k << '\n';
        const auto& t = field(c, "last_turn");
        if (t.is_object())
            ctx.out() << "  last turn:  " << text_field(t, "status") << (text_field(t, "error").empty() ? "" : " — " + text_field(t, "error")) << '\n';
        if (const auto* msgs = field(c, "messages").if_array())
            for (const auto& m : *msgs) ctx.out() << "[" << text_field(m, "role") << "] " << text_field(m, "text") << '\n';
    });
}

int send(Context& ctx, const Invocation& inv) {
    json::object body{{"text", inv.args[1]}};
    if (auto s = inv.value("source")) body["source"] = *s;
    auto reply = ctx.call("POST", conv_path(inv.args[0], {"messages"}), json::value(std::move(body)));
    if (!inv.flag("watch")) {
        return ctx.respond(reply, [&](const json::value& b) {
            const auto& m = field(b, "message");
            ctx.out() << text_field(m, "status") << " " << text_field(m, "id") << '\n';
        });
    }
    if (!reply.ok()) return ctx.report(reply);
    WatchOptions w;
    w.until_turn_of = text_field(field(reply.body(), "message"), "id");
    return watch_events(ctx, inv.args[0], w);
}

int watch(Context& ctx, const Invocation& inv) {
    WatchOptions w;
    w.until_idle = inv.flag("until-idle");
    w.from = inv.value("from");
    return watch_events(ctx, inv.args[0], w);
}

int interrupt(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("POST", conv_path(inv.args[0], {"interrupt"}));
    return ctx.respond(reply, [&](const json::value& b) {
        bool stopped = field(b, "interrupted").is_bool() && field(b, "interrupted").get_bool();
        ctx.out() << (stopped ? "interrupted turn " + text_field(b, "turn_id") : std::string("no turn was running"))
                  << "; the queue is paused (`coffer chat queue " << inv.args[0] << " resume`)\n";
    });
}

void print_queue(Context& ctx, const json::value& q) {
    const auto* p = field(q, "pending").if_array();
    bool paused = field(q, "paused").is_bool() && field(q, "paused").get_bool();
    ctx.out() << (p ? p->size() : 0) << " queued" << (paused ? " (paused)" : "") << '\n';
    if (!p) return;
    std::vector<std::vector<std::string>> rows;
    for (const auto& x : *p)
        rows.push_back({text_field(x, "position"), text_field(x, "id"), text_field(x, "source"), text_field(x, "text_preview")});
    if (!rows.empty()) print_table(ctx.out(), {"#", "ID", "SOURCE", "TEXT"}, rows);
}

int queue(Context& ctx, const Invocation& inv) {
    const auto& id = inv.args[0];
    std::string op = inv.args.size() > 1 ? inv.args[1] : "list";
    client::ApiReply reply;
    if (op == "list") {
        if (inv.args.size() > 2) throw UsageError("queue list takes no more arguments", kGroup, "queue");
        reply = ctx.call("GET", conv_path(id, {"queue"}));
    } else if (op == "resume" || op == "clear") {
        if (inv.args.size() > 2) throw UsageError("queue " + op + " takes no more arguments", kGroup, "queue");
        reply = ctx.call("POST", conv_path(id, {"queue", op}));
    } else if (op == "remove") {
        if (inv.args.size() != 3) throw UsageError("queue remove needs the position (1 = next) or the message id", kGroup, "queue");
        reply = ctx.call("DELETE", conv_path(id, {"queue", inv.args[2]}));
    } else {
        throw UsageError("unknown queue operation '" + op + "' (list, resume, clear, remove <n>)", kGroup, "queue");
    }
    return ctx.respond(reply, [&](const json::value& b) { print_queue(ctx, b); });
}

int remove(Context& ctx, const Invocation& inv) {
    auto reply = ctx.call("DELETE", conv_path(inv.args[0]));
    return ctx.respond(reply, [&](const json::value&) { ctx.out() << "deleted conversation " << inv.args[0] << '\n'; });
}

}  // namespace

void register_chat_commands(Registry& r) {
    r.add_group({kGroup, "conversations with managed agents: send, watch, interrupt, queue (docs/agents-and-chat.md)"});
    r.add({kGroup, "new", "--agent NAME [--cwd DIR] [--title TEXT]", "start a conversation (--json prints it, with its id)",
           {{"agent", "NAME", "the agent (coffer agent list)"},
            {"cwd", "DIR", "the agent's working directory (default: this one)"},
            {"title", "TEXT", "a title for listings"}},
           0, 0, create});
    r.add({kGroup, "list", "", "every conversation with its state", {}, 0, 0, list});
    r.add({kGroup, "show", "<id>", "a conversation and its committed messages", {}, 1, 1, show});
    r.add({kGroup, "send", "<id> <text> [--watch] [--source NAME]",
           "send a message: starts a turn, or queues it behind the running one; returns at once",
           {{"watch", "", "follow the turn live (text as it arrives, tool calls as one line) until it ends"},
            {"source", "NAME", "where the message comes from (default api)"}},
           2, 2, send});
    r.add({kGroup, "watch", "<id> [--until-idle] [--from ID]",
           "print the conversation's events as they happen (--json: one JSON object per line)",
           {{"until-idle", "", "exit when no turn is running or queued"},
            {"from", "ID", "resume after this event id (the current turn's events are replayed otherwise)"}},
           1, 1, watch});
    r.add({kGroup, "interrupt", "<id>", "stop the running turn (the agent's whole process tree) and pause the queue", {}, 1, 1,
           interrupt});
    r.add({kGroup, "queue", "<id> [list|resume|clear|remove <n>]", "the messages waiting for their turn", {}, 1, 3, queue});
    r.add({kGroup, "delete", "<id>", "delete a conversation and its messages", {}, 1, 1, remove});
}

}  // namespace coffer::cli
