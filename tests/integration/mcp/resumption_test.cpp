// SSE stream resumption on /mcp (2025-11-25 transports, "Resumability and Redelivery";
// docs/decisions/0020-sse-resumption.md): a POST's event stream cut in the middle of a tools/call
// continues on GET + Last-Event-ID with the rest of the progress and the result exactly once; a
// GET stream resumed gets only what it missed; ids of another session or garbage replay nothing.
// The real daemon, coffer-test-upstream behind the bundled mcp_server kind, and mcp_echo.
#define BOOST_TEST_MODULE mcp_resumption
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace coffer::test;
namespace json = boost::json;

namespace {

struct Fixture : EchoDaemon {
    Fixture() {
        add_echo(d, "a");
        add_stdio_server(d, "up", COFFER_TEST_UPSTREAM);
    }
};

std::map<std::string, std::string> with(std::map<std::string, std::string> h, const std::string& k, const std::string& v) {
    h[k] = v;
    return h;
}

// GET /mcp for the client's session, resuming from `last_event_id`.
std::unique_ptr<HttpStream> resume(Daemon& d, const McpClient& c, const std::string& last_event_id) {
    auto h = with(c.headers(), "Accept", "text/event-stream");
    h["Last-Event-ID"] = last_event_id;
    auto s = std::make_unique<HttpStream>(d.port(), "GET", "/mcp", "", h);
    s->read_head();
    return s;
}

std::string stream_of(const std::string& id) { return id.substr(0, id.find('-')); }
std::string id_in(const std::string& stream, int seq) { return stream + "-" + std::to_string(seq); }

// tools/call with a progress token, as an event stream.
std::unique_ptr<HttpStream> call_streaming(Daemon& d, const McpClient& c, const std::string& id, const std::string& tool,
                                           json::object args) {
    auto body = json::serialize(json::object{
        {"jsonrpc", "2.0"},
        {"id", id},
        {"method", "tools/call"},
        {"params", json::object{{"name", tool}, {"arguments", std::move(args)}, {"_meta", {{"progressToken", "pt-" + id}}}}}});
    auto s = std::make_unique<HttpStream>(d.port(), "POST", "/mcp", body,
                                          with(c.headers(), "Accept", "application/json, text/event-stream"));
    s->read_head();
    return s;
}

std::string method_of(const json::value& v) {
    auto* m = v.is_object() ? v.as_object().if_contains("method") : nullptr;
    return m && m->is_string() ? std::string(m->as_string()) : std::string();
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_post_stream_cut_mid_call_resumes_on_get_with_the_rest_and_the_result_once, Fixture) {
    McpClient c(d);
    c.initialize("2025-11-25");
    BOOST_REQUIRE(c.call_tool("up__echo", {{"text", "warm"}}).is_object());  // the upstream is running
    auto standalone = c.open_stream();  // messages of the call must not land here
    BOOST_REQUIRE_EQUAL(standalone->status(), 200);

    auto post = call_streaming(d, c, "call-1", "up__progress", {{"steps", 5}, {"interval_ms", 250}});
    BOOST_REQUIRE_EQUAL(post->status(), 200);
    BOOST_REQUIRE(post->is_event_stream());
    auto prime = post->next_event();
    BOOST_REQUIRE(prime);
    BOOST_TEST(prime->data.empty());  // 2025-11-25 priming event: an id, no message
    auto n = stream_of(prime->id);
    BOOST_TEST(prime->id == id_in(n, 1));
    auto first = post->next_event();
    BOOST_REQUIRE(first);
    BOOST_TEST(first->id == id_in(n, 2));
    auto p1 = parse(first->data);
    BOOST_TEST(method_of(p1) == "notifications/progress");
    BOOST_TEST(p1.at("params").at("progress").as_int64() == 1);

    // The connection breaks; a while later (progress 2 and 3 went out meanwhile) the client resumes.
    post->close();
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    auto get = resume(d, c, first->id);
    BOOST_REQUIRE_EQUAL(get->status(), 200);  // not 409: a resume is no second standalone stream
    BOOST_REQUIRE(get->is_event_stream());
    std::vector<std::int64_t> progress;
    std::vector<std::string> ids;
    int answers = 0;
    while (auto ev = get->next_event(std::chrono::seconds(10))) {
        ids.push_back(ev->id);
        auto v = parse(ev->data);
        if (method_of(v) == "notifications/progress") {
            progress.push_back(v.at("params").at("progress").as_int64());
        } else if (v.is_object() && v.as_object().contains("id")) {
            BOOST_TEST(v.at("id").as_string() == "call-1");
            BOOST_TEST(v.at("result").at("content").at(0).at("text").as_string() == "done after 5 steps");
            ++answers;
        }
    }
    BOOST_TEST(get->ended());  // the resumed stream ends with the answer, like the POST's would have
    BOOST_TEST(progress == (std::vector<std::int64_t>{2, 3, 4, 5}), boost::test_tools::per_element());
    BOOST_TEST(answers == 1);
    BOOST_TEST(ids == (std::vector<std::string>{id_in(n, 3), id_in(n, 4), id_in(n, 5), id_in(n, 6), id_in(n, 7)}),
               boost::test_tools::per_element());
    BOOST_TEST(!standalone->next_event(std::chrono::milliseconds(300)));  // nothing of the call went there

    // The finished stream can still be read again from any of its ids: the tail, then the end.
    auto again = resume(d, c, id_in(n, 5));
    BOOST_REQUIRE_EQUAL(again->status(), 200);
    std::vector<std::string> tail;
    while (auto ev = again->next_event(std::chrono::seconds(5))) tail.push_back(ev->id);
    BOOST_TEST(again->ended());
    BOOST_TEST(tail == (std::vector<std::string>{id_in(n, 6), id_in(n, 7)}), boost::test_tools::per_element());
    // From its last id there is nothing left to resume.
    BOOST_TEST(resume(d, c, id_in(n, 7))->status() == 410);

    // The session goes on.
    BOOST_TEST(c.call_tool("up__echo", {{"text", "after"}}).at("result").at("content").at(0).at("text").as_string() ==
               "after");
}

BOOST_FIXTURE_TEST_CASE(a_get_stream_resumed_gets_only_what_it_missed, Fixture) {
    McpClient c(d);
    c.initialize("2025-06-18");
    BOOST_REQUIRE(c.request("tools/list").json.is_object());
    auto g1 = c.open_stream();
    BOOST_REQUIRE_EQUAL(g1->status(), 200);
    for (int i = 0; i < 3; ++i) BOOST_REQUIRE(c.call_tool("a__change").is_object());
    auto e1 = g1->next_event();
    BOOST_REQUIRE(e1);
    BOOST_TEST(method_of(parse(e1->data)) == "notifications/tools/list_changed");
    auto n = stream_of(e1->id);
    BOOST_TEST(e1->id == id_in(n, 1));  // GET streams have no priming event
    // Events 2 and 3 are on the wire, unread; the client goes away and two more happen meanwhile.
    g1->close();
    for (int i = 0; i < 2; ++i) BOOST_REQUIRE(c.call_tool("a__change").is_object());

    auto g2 = resume(d, c, e1->id);
    BOOST_REQUIRE_EQUAL(g2->status(), 200);
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) {
        auto ev = g2->next_event(std::chrono::seconds(5));
        BOOST_REQUIRE(ev);
        BOOST_TEST(method_of(parse(ev->data)) == "notifications/tools/list_changed");
        ids.push_back(ev->id);
    }
    BOOST_TEST(ids == (std::vector<std::string>{id_in(n, 2), id_in(n, 3), id_in(n, 4), id_in(n, 5)}),
               boost::test_tools::per_element());
    BOOST_TEST(!g2->next_event(std::chrono::milliseconds(300)));  // nothing twice
    // And the stream goes on live.
    BOOST_REQUIRE(c.call_tool("a__change").is_object());
    auto live = g2->next_event(std::chrono::seconds(5));
    BOOST_REQUIRE(live);
    BOOST_TEST(live->id == id_in(n, 6));
    // It is the session's stream now: a plain second GET is refused as before.
    BOOST_TEST(c.open_stream()->status() == 409);
}

BOOST_FIXTURE_TEST_CASE(ids_of_another_session_or_garbage_replay_nothing, Fixture) {
    McpClient a(d);
    a.initialize("2025-11-25");
    auto post = call_streaming(d, a, "a-1", "a__slow", {{"ms", 100}, {"steps", 2}});
    BOOST_REQUIRE(post->is_event_stream());
    std::vector<std::string> a_ids;
    while (auto ev = post->next_event(std::chrono::seconds(5))) a_ids.push_back(ev->id);
    BOOST_REQUIRE_EQUAL(a_ids.size(), 4u);  // priming, two progress, the answer
    auto a_stream = stream_of(a_ids[0]);

    // Session B, which has a finished stream of its own just like A's, presents A's id: a fresh
    // standalone stream of B's own, with none of A's events (nor of B's stream).
    McpClient b(d);
    b.initialize("2025-11-25");
    auto b_post = call_streaming(d, b, "b-1", "a__slow", {{"ms", 100}, {"steps", 2}});
    std::vector<std::string> b_ids;
    while (auto ev = b_post->next_event(std::chrono::seconds(5))) b_ids.push_back(ev->id);
    BOOST_REQUIRE_EQUAL(b_ids.size(), 4u);
    BOOST_TEST(stream_of(b_ids[0]) != a_stream);  // stream numbers are daemon-wide
    auto g = resume(d, b, a_ids[1]);
    BOOST_REQUIRE_EQUAL(g->status(), 200);
    BOOST_TEST(!g->next_event(std::chrono::milliseconds(500)));
    BOOST_REQUIRE(b.call_tool("a__change").is_object());
    auto own = g->next_event(std::chrono::seconds(5));
    BOOST_REQUIRE(own);
    BOOST_TEST(method_of(parse(own->data)) == "notifications/tools/list_changed");
    BOOST_TEST(stream_of(own->id) != a_stream);

    // Ids that name nothing resume nothing: each is a plain GET, refused while B's stream is open.
    for (const std::string& bad :
         {std::string("garbage"), std::string(""), std::string("0-0"), std::string("-1"), a_stream + "-",
          a_stream + "-999", std::string("99999999999-1"), std::string("18446744073709551616-1"),
          std::string(4000, '7') + "-1", a_ids[3] + "x"}) {
        auto r = resume(d, b, bad);
        BOOST_TEST(r->status() == 409, "Last-Event-ID '" << bad.substr(0, 40) << "'");
    }
    // B's stream was not taken over by any of them.
    BOOST_REQUIRE(b.call_tool("a__change").is_object());
    auto still = g->next_event(std::chrono::seconds(5));
    BOOST_REQUIRE(still);
    BOOST_TEST(stream_of(still->id) == stream_of(own->id));

    // A's id was a good one all along: A itself resumes with it.
    auto mine = resume(d, a, a_ids[1]);
    BOOST_REQUIRE_EQUAL(mine->status(), 200);
    std::vector<std::string> tail;
    while (auto ev = mine->next_event(std::chrono::seconds(5))) tail.push_back(ev->id);
    BOOST_TEST(tail == (std::vector<std::string>{a_ids[2], a_ids[3]}), boost::test_tools::per_element());

    // No session of that id: 404, as for any GET.
    auto h = with(b.headers(), "Accept", "text/event-stream");
    h["Mcp-Session-Id"] = "no-such-session";
    h["Last-Event-ID"] = a_ids[1];
    HttpStream gone(d.port(), "GET", "/mcp", "", h);
    BOOST_REQUIRE(gone.read_head());
    BOOST_TEST(gone.status() == 404);
    BOOST_TEST(d.call("GET", "/api/v1/daemon/status").status == 200);
}
