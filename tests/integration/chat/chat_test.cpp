// Agents and conversations in the real daemon (T-1…T-6): turns streamed to every subscriber,
// replay for late ones, the FIFO queue, interrupt of the whole process tree, resume keys, a
// crashing agent, a daemon restart mid-turn, bad input, and the CLI over the same routes.
#define BOOST_TEST_MODULE integration_chat
#include <boost/test/unit_test.hpp>

#include "chat_fixture.hpp"

#include <algorithm>
#include <filesystem>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

std::string str(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<std::string> types(const std::vector<Received>& evs) {
    std::vector<std::string> out;
    for (auto& e : evs) out.push_back(e.type);
    return out;
}

std::string deltas(const std::vector<Received>& evs) {
    std::string out;
    for (auto& e : evs)
        if (e.type == "text.delta") out += str(e.data, "text");
    return out;
}

std::size_t count(const std::vector<Received>& evs, const std::string& type) {
    return static_cast<std::size_t>(std::count_if(evs.begin(), evs.end(), [&](auto& e) { return e.type == type; }));
}

bool has_arg_pair(const json::object& run, const std::string& a, const std::string& b) {
    auto& argv = run.at("argv").as_array();
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i].as_string() == a && argv[i + 1].as_string() == b) return true;
    return false;
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_turn_streams_deltas_to_two_subscribers, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    Subscriber a(d, c), b(d, c);
    BOOST_TEST(a.next()->type == "state");
    BOOST_TEST(b.next()->type == "state");
    auto sent = send(c, "hello there chunks=4 sleep=20");
    BOOST_TEST(str(sent.at("message").as_object(), "status") == "started");
    for (auto* s : {&a, &b}) {
        auto evs = s->until("turn.completed");
        BOOST_TEST(evs.front().type == "turn.started");
        BOOST_TEST(count(evs, "text.delta") == 4u);
        BOOST_TEST(deltas(evs) == "echo: hello there chunks=4 sleep=20");
        BOOST_TEST(count(evs, "session") == 1u);
        BOOST_TEST(count(evs, "message.completed") == 1u);
        BOOST_TEST(count(evs, "usage") == 1u);
        BOOST_TEST(str(evs.back().data, "status") == "ok");
        BOOST_TEST(str(evs.back().data, "final_text") == "echo: hello there chunks=4 sleep=20");
        for (std::size_t i = 1; i < evs.size(); ++i)  // SSE ids: the conversation's monotonic sequence
            BOOST_TEST(std::stoull(evs[i].id) > std::stoull(evs[i - 1].id));
        for (auto& e : evs) BOOST_TEST(str(e.data, "conversation_id") == c);
    }
    auto conv = show(c);
    auto& msgs = conv.at("messages").as_array();
    BOOST_REQUIRE(msgs.size() == 2u);
    BOOST_TEST(msgs[0].at("role").as_string() == "user");
    BOOST_TEST(msgs[1].at("text").as_string() == "echo: hello there chunks=4 sleep=20");
}

BOOST_FIXTURE_TEST_CASE(a_late_subscriber_gets_the_replay_and_last_event_id_resumes, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    Subscriber early(d, c);
    early.next();  // state
    send(c, "replay me chunks=3 sleep=20 hang=600");
    auto first = early.until("message.completed");
    Subscriber late(d, c);  // joins while the turn still runs
    auto state = late.next();
    BOOST_TEST(state->type == "state");
    BOOST_TEST(state->data.at("running").as_bool());
    auto replayed = late.until("turn.completed");
    BOOST_TEST(replayed.front().type == "turn.started");
    BOOST_TEST(deltas(replayed) == "echo: replay me chunks=3 sleep=20 hang=600");
    BOOST_TEST(count(replayed, "turn.completed") == 1u);

    // Reconnecting after the second delta: exactly what followed it.
    std::string second_delta;
    for (auto& e : first)
        if (e.type == "text.delta" && second_delta.empty() && deltas({e}) != deltas({first[0]})) second_delta = e.id;
    std::vector<Received> firsts;
    for (auto& e : first)
        if (e.type == "text.delta") firsts.push_back(e);
    BOOST_REQUIRE(firsts.size() == 3u);
    Subscriber resumed(d, c, firsts[1].id);
    resumed.next();  // state
    auto after = resumed.until("turn.completed");
    BOOST_TEST(after.front().id == std::to_string(std::stoull(firsts[1].id) + 1));
    BOOST_TEST(deltas(after) == str(firsts[2].data, "text"));

    // An id this daemon never issued: a resync, then the whole buffer.
    Subscriber lost(d, c, "999999");
    lost.next();  // state
    auto r = lost.next();
    BOOST_TEST(r->type == "resync");
    BOOST_TEST(lost.next()->type == "turn.started");
}

BOOST_FIXTURE_TEST_CASE(heartbeats_while_idle, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    HttpStream s(d.port(), "GET", "/api/v1/conversations/" + c + "/events", "", {{"X-Coffer-Token", d.token()}, {"Host", "127.0.0.1"}});
    BOOST_REQUIRE(s.read_head());
    // The heartbeat (every 200 ms here) is an SSE comment line, so read the raw body.
    auto raw = s.body(700ms);
    BOOST_TEST(raw.find("event: state") != std::string::npos, raw);
    BOOST_TEST(raw.find(": heartbeat\n\n") != std::string::npos, raw);
}

BOOST_FIXTURE_TEST_CASE(three_messages_sent_during_a_turn_run_in_order, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    Subscriber s(d, c);
    s.next();
    send(c, "first hang=500");
    std::vector<std::string> ids;
    for (auto t : {"second", "third", "fourth"}) {
        auto started = std::chrono::steady_clock::now();
        auto r = send(c, t);
        bool quick = std::chrono::steady_clock::now() - started < 1s;  // returns at once, not after the turn
        BOOST_TEST(quick);
        BOOST_TEST(str(r.at("message").as_object(), "status") == "queued");
        ids.push_back(str(r.at("message").as_object(), "id"));
    }
    // Queued messages are not committed until their turn starts.
    BOOST_TEST(show(c).at("messages").as_array().size() == 1u);
    auto q = req("GET", "/api/v1/conversations/" + c + "/queue", "", 200);
    BOOST_REQUIRE(q.at("pending").as_array().size() == 3u);
    BOOST_TEST(q.at("pending").as_array()[0].at("id").as_string() == ids[0]);

    std::vector<std::string> order;
    int completed = 0, started = 0;
    while (completed < 4) {
        auto evs = s.until("turn.completed");
        for (auto& e : evs) {
            if (e.type == "turn.started") {
                ++started;
                order.push_back(str(e.data, "text"));
            }
        }
        ++completed;
    }
    BOOST_TEST(started == 4);
    BOOST_TEST((order == std::vector<std::string>{"first hang=500", "second", "third", "fourth"}));
    auto msgs = show(c).at("messages").as_array();
    BOOST_REQUIRE(msgs.size() == 8u);
    BOOST_TEST(msgs[2].at("id").as_string() == ids[0]);
    BOOST_TEST(msgs[7].at("text").as_string() == "echo: fourth");
}

BOOST_FIXTURE_TEST_CASE(interrupt_stops_the_process_group_and_pauses_the_queue, ChatFixture) {
    add_agent("cc", "claude_code", R"({"interrupt_grace_ms": 300})");
    auto c = new_conversation("cc");
    Subscriber s(d, c);
    s.next();
    send(c, "long job hang=20000 child ignore-int");
    send(c, "after the interrupt");
    BOOST_REQUIRE(eventually([&] { return !runs().empty(); }));
    auto run = runs().front();
    auto pgid = run.at("pgid").as_int64();
    BOOST_TEST(pgid == run.at("pid").as_int64());  // the agent leads its own group
    BOOST_TEST(run.at("grandchild").as_int64() > 0);
    BOOST_TEST(!group_gone(pgid));
    s.until("message.completed");

    auto r = req("POST", "/api/v1/conversations/" + c + "/interrupt", "", 200);
    BOOST_TEST(r.at("interrupted").as_bool());
    auto evs = s.until("turn.completed");
    BOOST_TEST(str(evs.back().data, "status") == "interrupted");
    // By the time the turn is reported over, nothing of the agent's tree is left: SIGINT was
    // ignored, SIGTERM after the grace ended the leader, the group was killed before reaping.
    BOOST_TEST(group_gone(pgid));
    auto q = req("GET", "/api/v1/conversations/" + c + "/queue", "", 200);
    BOOST_TEST(q.at("paused").as_bool());
    BOOST_TEST(q.at("pending").as_array().size() == 1u);
    BOOST_TEST(str(show(c).at("last_turn").as_object(), "status") == "interrupted");

    // Nothing runs while paused; resume runs the next message.
    std::this_thread::sleep_for(200ms);
    BOOST_TEST(runs().size() == 1u);
    req("POST", "/api/v1/conversations/" + c + "/queue/resume", "", 200);
    auto next = s.until("turn.completed");
    BOOST_TEST(count(next, "turn.started") == 1u);
    BOOST_TEST(str(next.back().data, "status") == "ok");
    BOOST_TEST(count(evs, "turn.completed") == 1u);
}

BOOST_FIXTURE_TEST_CASE(the_next_turn_resumes_with_the_key_the_previous_turn_returned, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    Subscriber s(d, c);
    s.next();
    for (auto t : {"one", "two", "three"}) {
        send(c, t);
        s.until("turn.completed");
    }
    auto r = runs();
    BOOST_REQUIRE(r.size() == 3u);
    auto first_key = "s-" + std::to_string(r[0].at("pid").as_int64());
    auto& argv0 = r[0].at("argv").as_array();
    BOOST_TEST(std::find(argv0.begin(), argv0.end(), json::value("--resume")) == argv0.end());
    for (auto flag : {"-p", "--verbose", "--include-partial-messages"})
        BOOST_TEST(std::find(argv0.begin(), argv0.end(), json::value(flag)) != argv0.end(), flag);
    BOOST_TEST(has_arg_pair(r[0], "--output-format", "stream-json"));
    BOOST_TEST(has_arg_pair(r[0], "--", "one"));  // the prompt after --
    // Claude Code may answer a resume with a new session id: the next turn uses the newest one.
    BOOST_TEST(has_arg_pair(r[1], "--resume", first_key));
    BOOST_TEST(has_arg_pair(r[2], "--resume", first_key + "+"));
    BOOST_TEST(str(show(c), "resume_key") == first_key + "++");
    BOOST_TEST(r[2].at("cwd").as_string() == workdir());
}

BOOST_FIXTURE_TEST_CASE(codex_turns_resume_their_thread_and_report_tools, ChatFixture) {
    add_agent("cx", "codex");
    auto c = new_conversation("cx");
    Subscriber s(d, c);
    s.next();
    send(c, "list files tool");
    auto evs = s.until("turn.completed");
    BOOST_TEST(str(evs.back().data, "status") == "ok");
    BOOST_TEST(count(evs, "tool.started") == 1u);
    BOOST_TEST(count(evs, "tool.completed") == 1u);
    for (auto& e : evs)
        if (e.type == "tool.started") BOOST_TEST(str(e.data, "kind") == "command");
    BOOST_TEST(deltas(evs) == "echo: list files tool");  // one delta synthesised from agent_message
    send(c, "again");
    s.until("turn.completed");
    auto r = runs();
    BOOST_REQUIRE(r.size() == 2u);
    auto key = "s-" + std::to_string(r[0].at("pid").as_int64());
    BOOST_TEST(has_arg_pair(r[0], "exec", "--json"));
    BOOST_TEST(has_arg_pair(r[1], "resume", key));
    BOOST_TEST(r[1].at("argv").as_array().back().as_string() == "again");
}

BOOST_FIXTURE_TEST_CASE(a_crashing_agent_fails_the_turn_with_its_stderr_tail, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    Subscriber s(d, c);
    s.next();
    send(c, "please crash");
    auto evs = s.until("turn.completed");
    BOOST_TEST(count(evs, "turn.completed") == 1u);
    auto& done = evs.back().data;
    BOOST_TEST(str(done, "status") == "error");
    BOOST_TEST(str(done, "error").find("fatal: the model backend crashed") != std::string::npos, str(done, "error"));
    BOOST_TEST(str(done, "error").find("exited with code 3") != std::string::npos);
    BOOST_TEST(str(show(c).at("last_turn").as_object(), "status") == "error");
    // The conversation goes on.
    send(c, "fine now");
    BOOST_TEST(str(s.until("turn.completed").back().data, "status") == "ok");
}

BOOST_FIXTURE_TEST_CASE(unknown_upstream_events_are_ignored, ChatFixture) {
    add_agent("cc");
    add_agent("cx", "codex");
    for (auto agent : {"cc", "cx"}) {
        auto c = new_conversation(agent);
        Subscriber s(d, c);
        s.next();
        send(c, "noise please");
        auto evs = s.until("turn.completed");
        BOOST_TEST(str(evs.back().data, "status") == "ok");
        BOOST_TEST(count(evs, "warning") >= 1u);  // the line that is not JSON
        for (auto& e : evs) BOOST_TEST(e.type != "tool_progress");
    }
}

BOOST_FIXTURE_TEST_CASE(a_restart_marks_the_in_flight_turn_failed, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    send(c, "never ends hang=60000");
    BOOST_REQUIRE(eventually([&] { return !runs().empty(); }));
    auto pgid = runs().front().at("pgid").as_int64();
    BOOST_TEST(str(show(c).at("state").as_object(), "turn_id") != "");
    // The driver records its child (upstream-pids/) from its I/O thread, just after the spawn.
    BOOST_REQUIRE(eventually([&] { return std::filesystem::exists(d.vault() / "upstream-pids" / std::to_string(pgid)); }));
    d.kill9();
    BOOST_REQUIRE(d.start());
    auto conv = show(c);
    BOOST_TEST(!conv.at("state").at("running").as_bool());
    auto& last = conv.at("last_turn").as_object();
    BOOST_TEST(str(last, "status") == "error");
    BOOST_TEST(str(last, "error").find("daemon stopped") != std::string::npos);
    // The orphaned agent was recorded in upstream-pids/ and swept by the new daemon.
    BOOST_TEST(eventually([&] { return group_gone(pgid); }));
    // The conversation still works.
    Subscriber s(d, c);
    s.next();
    send(c, "hello again");
    BOOST_TEST(str(s.until("turn.completed").back().data, "status") == "ok");
}

BOOST_FIXTURE_TEST_CASE(bad_input_is_refused_and_changes_nothing, ChatFixture) {
    add_agent("cc");
    auto c = new_conversation("cc");
    auto pointer = [](const json::value& v) {
        return std::string(v.at("error").at("details").at("errors").as_array()[0].at("pointer").as_string());
    };
    BOOST_TEST(pointer(req("POST", "/api/v1/conversations", R"({"cwd":"/tmp"})", 400)) == "/agent");
    req("POST", "/api/v1/conversations", R"({"agent":"nobody","cwd":"/tmp"})", 404);
    BOOST_TEST(pointer(req("POST", "/api/v1/conversations", R"({"agent":"cc","cwd":"relative"})", 400)) == "/cwd");
    BOOST_TEST(pointer(req("POST", "/api/v1/conversations", R"({"agent":"cc","cwd":"/no/such/dir"})", 400)) == "/cwd");
    BOOST_TEST(pointer(req("POST", "/api/v1/conversations", R"({"agent":"cc","cwd":"/tmp","x":1})", 400)) == "/x");
    req("POST", "/api/v1/conversations", R"({"agent":)", 400);
    BOOST_TEST(pointer(req("POST", "/api/v1/conversations/" + c + "/messages", R"({"text":""})", 400)) == "/text");
    BOOST_TEST(pointer(req("POST", "/api/v1/conversations/" + c + "/messages", R"({"text":7})", 400)) == "/text");
    req("POST", "/api/v1/conversations/nope/messages", R"({"text":"hi"})", 404);
    req("POST", "/api/v1/conversations/nope/interrupt", "", 404);
    req("GET", "/api/v1/conversations/nope/events", "", 404);
    req("DELETE", "/api/v1/conversations/" + c + "/queue/9", "", 404);
    req("POST", "/api/v1/agents", R"({"name":"x","driver":"mcp_server"})", 400);
    req("POST", "/api/v1/agents", R"({"name":"cc","driver":"codex"})", 409);
    req("POST", "/api/v1/agents", R"({"name":"bad name!","driver":"codex"})", 400);
    BOOST_TEST(req("GET", "/api/v1/conversations", "", 200).at("conversations").as_array().size() == 1u);
    BOOST_TEST(show(c).at("messages").as_array().empty());
    BOOST_TEST(runs().empty());
    BOOST_TEST(req("GET", "/api/v1/agents", "", 200).at("agents").as_array().size() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_missing_agent_cli_fails_the_turn_not_the_daemon, ChatFixture) {
    req("POST", "/api/v1/agents", R"({"name":"ghost","driver":"claude_code","config":{"command":"/no/such/claude"}})", 201);
    auto c = new_conversation("ghost");
    Subscriber s(d, c);
    s.next();
    auto sent = send(c, "hello");
    BOOST_TEST(str(sent.at("message").as_object(), "status") == "failed");
    auto evs = s.until("turn.completed");
    BOOST_TEST((types(evs) == std::vector<std::string>{"turn.started", "queue.changed", "turn.completed"}));
    BOOST_TEST(str(evs.back().data, "error").find("/no/such/claude") != std::string::npos, str(evs.back().data, "error"));
}

BOOST_FIXTURE_TEST_CASE(the_cli_drives_a_conversation, ChatFixture) {
    auto add = d.cli({"agent", "add", "cc", "--driver", "claude_code", "--command", COFFER_FAKE_AGENT});
    BOOST_TEST_REQUIRE(add.exit_code == 0, add.err);
    auto made = d.cli({"chat", "new", "--agent", "cc", "--cwd", workdir(), "--json"});
    BOOST_TEST_REQUIRE(made.exit_code == 0, made.err);
    auto id = std::string(json::parse(made.out).at("id").as_string());
    // The first turn lasts long enough for the watch below to attach while it runs: a watcher
    // replays only the current turn, and the CLI may be slow to start (sanitizers, load).
    auto sent = d.cli({"chat", "send", id, "from the cli hang=2000", "--json"});
    BOOST_TEST_REQUIRE(sent.exit_code == 0, sent.err);
    auto m = json::parse(sent.out).at("message");
    BOOST_TEST(m.at("status").as_string() == "started");
    auto queued = d.cli({"chat", "send", id, "queued one", "--json"});
    BOOST_TEST(json::parse(queued.out).at("message").at("status").as_string() == "queued");
    auto watched = d.cli({"chat", "watch", id, "--json", "--until-idle"});
    BOOST_TEST_REQUIRE(watched.exit_code == 0, watched.err);
    std::vector<std::string> seen;
    std::istringstream lines(watched.out);
    std::string line;
    while (std::getline(lines, line)) seen.emplace_back(json::parse(line).at("type").as_string());
    BOOST_TEST(std::count(seen.begin(), seen.end(), "turn.completed") == 2);
    BOOST_TEST(std::count(seen.begin(), seen.end(), "text.delta") >= 2);
    BOOST_TEST(seen.back() == "turn.completed");
    auto live = d.cli({"chat", "send", id, "watch this tool", "--watch"});
    BOOST_TEST_REQUIRE(live.exit_code == 0, live.err);
    BOOST_TEST(live.out.find("echo: watch this tool") != std::string::npos, live.out);
    BOOST_TEST(live.out.find("[command] Bash ls") != std::string::npos, live.out);
    BOOST_TEST(live.out.find("[turn ok]") != std::string::npos, live.out);
    auto q = d.cli({"chat", "queue", id, "remove", "3"});
    BOOST_TEST(q.exit_code == 1);
    auto list = d.cli({"chat", "list", "--json"});
    BOOST_TEST(json::parse(list.out).at("conversations").as_array().size() == 1u);
}
