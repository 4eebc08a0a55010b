// The gateway over Streamable HTTP (/mcp) with two mcp_echo providers: aggregation and
// namespacing, routing with byte-for-byte results, streaming (progress, list_changed, server
// requests), cancellation, pagination, batches, and bad input (G-1…G-3, G-5, G-10, G-25).
#define BOOST_TEST_MODULE mcp_streamable
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;

namespace {

struct Fixture : EchoDaemon {
    Fixture() {
        add_echo(d, "a");
        add_echo(d, "b");
    }
};

std::string text_of(const json::value& reply) {
    return std::string(reply.at("result").at("content").at(0).at("text").as_string());
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(aggregates_namespaces_and_routes, Fixture) {
    McpClient c(d);
    auto init = c.initialize();
    BOOST_REQUIRE_EQUAL(init.status, 200);
    BOOST_TEST(!c.session().empty());
    BOOST_TEST(init.json.at("result").at("protocolVersion").as_string() == "2025-11-25");
    BOOST_TEST(echo_status(d, "a").at("opened").as_int64() == 0);  // lazily: nothing opened yet

    auto list = c.request("tools/list");
    auto names = names_of(list.json);
    BOOST_TEST(std::is_sorted(names.begin(), names.end()));
    BOOST_TEST((std::find(names.begin(), names.end(), "a__search") != names.end()));
    BOOST_TEST((std::find(names.begin(), names.end(), "b__search") != names.end()));
    BOOST_TEST(names.size() == 25u);  // 12 + 12, and coffer__search_tools
    // Only the name was rewritten: the provider's other bytes (1.50) are intact.
    BOOST_TEST(has_member(list.json, "/result/tools", "name", "a__echo"));
    BOOST_TEST(has_member(list.json, "/result/tools", "description", "Echoes its text"));
    BOOST_TEST(list.body.find(R"("x-weight":1.50)") != std::string::npos);
    BOOST_TEST(echo_status(d, "a").at("opened").as_int64() == 1);
    BOOST_TEST(echo_status(d, "b").at("opened").as_int64() == 1);
    auto again = c.request("tools/list");  // deterministic (and cached)
    BOOST_TEST(again.body.substr(again.body.find("\"result\"")) == list.body.substr(list.body.find("\"result\"")));

    // The result is the provider's text, byte for byte.
    auto echo = c.request("tools/call", json::object{{"name", "a__echo"}, {"arguments", {{"text", "hi"}}}});
    BOOST_TEST(echo.body == R"({"jsonrpc":"2.0","id":)" + std::to_string(c.last_id()) +
                                R"(,"result":{"content": [ {"type":"text", "text": "hi"} ], "n":1.50, "isError": false }})");
    BOOST_TEST(text_of(c.call_tool("a__search", {{"query", "x"}})) == "a: x");
    BOOST_TEST(text_of(c.call_tool("b__search", {{"query", "x"}})) == "b: x");

    // Errors of the provider pass through unchanged; tool errors stay results.
    auto fail = c.call_tool("a__fail");
    BOOST_TEST(json::serialize(fail.at("error")) == R"({"code":-32042,"message":"asked to fail","data":{"tool":"fail"}})");
    BOOST_TEST(c.call_tool("b__tool_error").at("result").at("isError").as_bool());

    // Identity and session info reach the provider.
    auto who = parse(text_of(c.call_tool("a__whoami")));
    BOOST_TEST(who.at("id").as_string() == c.session());
    BOOST_TEST(who.at("client").at("name").as_string() == "coffer-test");

    // Resources (reversibly prefixed), templates, prompts, completion.
    auto res = c.request("resources/list");
    auto uris = names_of(res.json, "resources", "uri");
    BOOST_TEST((uris == std::vector<std::string>{"coffer://a/echo://static/one", "coffer://a/echo://static/two",
                                                 "coffer://b/echo://static/one", "coffer://b/echo://static/two"}));
    auto read = c.request("resources/read", json::object{{"uri", "coffer://b/echo://static/two"}});
    BOOST_TEST(read.json.at("result").at("contents").at(0).at("text").as_string() == "content of echo://static/two");
    auto tpl = c.request("resources/templates/list");
    BOOST_TEST((names_of(tpl.json, "resourceTemplates", "uriTemplate") ==
                std::vector<std::string>{"coffer://a/echo://item/{id}", "coffer://b/echo://item/{id}"}));
    BOOST_TEST(c.request("resources/read", json::object{{"uri", "coffer://a/echo://item/7"}}).json.at("result").is_object());
    auto prompts = c.request("prompts/list");
    BOOST_TEST((names_of(prompts.json, "prompts") == std::vector<std::string>{"a__greet", "b__greet"}));
    auto got = c.request("prompts/get", json::object{{"name", "b__greet"}, {"arguments", {{"who", "Ann"}}}});
    BOOST_TEST(got.json.at("result").at("messages").at(0).at("content").at("text").as_string() == "Hello, Ann");
    auto comp = c.request("completion/complete",
                          json::object{{"ref", {{"type", "ref/prompt"}, {"name", "a__greet"}}},
                                       {"argument", {{"name", "who"}, {"value", "a"}}}});
    BOOST_TEST(comp.json.at("result").at("completion").at("values").at(0).as_string() == "alpha");
    auto ping = c.request("ping");
    BOOST_TEST(ping.body == R"({"jsonrpc":"2.0","id":)" + std::to_string(c.last_id()) + R"(,"result":{}})");
}

BOOST_FIXTURE_TEST_CASE(bad_input_gets_json_rpc_errors_and_the_daemon_lives, Fixture) {
    McpClient c(d);
    c.initialize();
    auto code = [](const McpReply& r) { return r.json.at("error").at("code").as_int64(); };

    auto r = c.post("{not json");
    BOOST_TEST(r.status == 400);
    BOOST_TEST(code(r) == -32700);
    r = c.post(std::string("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"x\":\"\xff\"}"));
    BOOST_TEST(code(r) == -32700);
    BOOST_TEST(r.json.at("error").at("message").as_string().find("UTF-8") != std::string::npos);
    r = c.post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");  // batches are 2025-03-26 only
    BOOST_TEST(r.status == 400);
    BOOST_TEST(code(r) == -32600);
    r = c.post(R"([])");
    BOOST_TEST(code(r) == -32600);
    r = c.post(R"({"jsonrpc":"1.0","id":1,"method":"ping"})");
    BOOST_TEST(code(r) == -32600);
    r = c.post(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
    BOOST_TEST(code(r) == -32600);
    r = c.post(R"("just a string")");
    BOOST_TEST(code(r) == -32600);
    r = c.post(R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":[1,2]})");
    BOOST_TEST(code(r) == -32602);
    BOOST_TEST(r.json.at("id").as_int64() == 5);
    BOOST_TEST(code(c.request("no/such/method")) == -32601);
    BOOST_TEST(code(c.request("tools/call", json::object{{"name", "search"}})) == -32602);       // no __
    BOOST_TEST(code(c.request("tools/call", json::object{{"name", "zzz__search"}})) == -32602);  // unknown server
    BOOST_TEST(code(c.request("tools/call", json::object{{"name", "__search"}})) == -32602);
    BOOST_TEST(code(c.request("tools/call")) == -32602);
    BOOST_TEST(code(c.request("resources/read", json::object{{"uri", "file:///etc/passwd"}})) == -32002);
    BOOST_TEST(code(c.request("resources/read", json::object{{"uri", "coffer://zzz/x"}})) == -32002);
    BOOST_TEST(code(c.request("tools/list", json::object{{"cursor", "garbage"}})) == -32602);
    std::string deep(100, '[');
    BOOST_TEST(code(c.post(deep + std::string(100, ']'))) == -32700);

    // 10 MB: refused before it is read, as a JSON-RPC error.
    std::string huge = R"({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"a__echo","arguments":{"text":")" +
                       std::string(10 << 20, 'x') + R"("}}})";
    r = c.post(huge);
    BOOST_TEST(r.status == 413);
    BOOST_TEST(code(r) == -32600);

    // Transport errors.
    auto raw = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})",
                            {{"X-Coffer-Token", d.token()}});
    BOOST_TEST(raw.status == 400);  // no session
    raw = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})",
                       {{"X-Coffer-Token", d.token()}, {"Mcp-Session-Id", "nope"}});
    BOOST_TEST(raw.status == 404);
    BOOST_TEST(parse(raw.body).at("error").at("code").as_int64() == -32001);
    raw = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})");
    BOOST_TEST(raw.status == 401);  // the token applies to /mcp
    BOOST_TEST(parse(raw.body).at("error").at("code").as_int64() == -32000);
    raw = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                       {{"X-Coffer-Token", d.token()}, {"Host", "evil.example:80"}});
    BOOST_TEST(raw.status == 403);  // and the DNS-rebinding guard
    raw = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})",
                       {{"X-Coffer-Token", d.token()}, {"Origin", "https://evil.example"}});
    BOOST_TEST(raw.status == 403);
    raw = http_request(d.port(), "PUT", "/mcp", "", {{"X-Coffer-Token", d.token()}});
    BOOST_TEST(raw.status == 405);
    auto h = c.headers();
    h["MCP-Protocol-Version"] = "1999-01-01";
    raw = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"ping"})", h);
    BOOST_TEST(raw.status == 400);

    // Still serving.
    BOOST_TEST(d.call("GET", "/api/v1/daemon/status").status == 200);
    BOOST_TEST(c.request("ping").json.at("result").is_object());
}

BOOST_FIXTURE_TEST_CASE(streams_progress_logs_list_changed_and_server_requests, Fixture) {
    McpClient c(d);
    c.initialize("2025-11-25", {}, json::object{{"elicitation", json::object{}}, {"roots", json::object{}}});

    // Progress (and nothing else) ahead of the answer, on the POST's own event stream.
    auto slow = c.request("tools/call", json::object{{"name", "a__slow"},
                                                     {"arguments", {{"ms", 300}, {"steps", 2}}},
                                                     {"_meta", {{"progressToken", "p1"}}}});
    BOOST_TEST(slow.streamed);
    BOOST_REQUIRE_EQUAL(slow.before.size(), 2u);
    BOOST_TEST(slow.before[0].at("method").as_string() == "notifications/progress");
    BOOST_TEST(slow.before[0].at("params").at("progressToken").as_string() == "p1");
    BOOST_TEST(text_of(slow.json) == "slow done");
    // Without event-stream support the answer is plain JSON (progress has nowhere to go).
    auto plain = c.request("tools/call",
                           json::object{{"name", "a__slow"}, {"arguments", {{"ms", 100}}}, {"_meta", {{"progressToken", 7}}}},
                           false);
    BOOST_TEST(!plain.streamed);
    BOOST_TEST(text_of(plain.json) == "slow done");

    // Log lines at or above the session's level.
    auto log = c.request("tools/call", json::object{{"name", "a__log"}, {"arguments", {{"level", "info"}}}});
    BOOST_REQUIRE_EQUAL(log.before.size(), 1u);
    BOOST_TEST(log.before[0].at("params").at("data").as_string() == "hello from echo");
    BOOST_TEST(c.request("logging/setLevel", json::object{{"level", "error"}}).json.at("result").is_object());
    BOOST_TEST(c.request("tools/call", json::object{{"name", "a__log"}, {"arguments", {{"level", "info"}}}}).before.empty());

    // list_changed reaches the GET stream; the next list shows the change.
    auto stream = c.open_stream();
    BOOST_REQUIRE_EQUAL(stream->status(), 200);
    BOOST_TEST(c.request("tools/list").json.is_object());
    BOOST_TEST(text_of(c.call_tool("b__change")) == "extra added");
    auto ev = stream->next_event();
    BOOST_REQUIRE(ev);
    BOOST_TEST(parse(ev->data).at("method").as_string() == "notifications/tools/list_changed");
    auto names = names_of(c.request("tools/list").json);
    BOOST_TEST((std::find(names.begin(), names.end(), "b__extra") != names.end()));
    BOOST_TEST((std::find(names.begin(), names.end(), "a__extra") == names.end()));
    // A second GET stream on the same session is refused.
    BOOST_TEST(c.open_stream()->status() == 409);

    // A server request during a call: relayed on the call's own stream, answered by a POST.
    HttpStream ask(d.port(), "POST", "/mcp",
                   R"({"jsonrpc":"2.0","id":"ask-1","method":"tools/call","params":{"name":"a__ask"}})",
                   [&] {
                       auto h = c.headers();
                       h["Accept"] = "application/json, text/event-stream";
                       return h;
                   }());
    BOOST_REQUIRE(ask.read_head());
    auto q = ask.next_event();
    BOOST_REQUIRE(q);
    BOOST_TEST(q->data.empty());  // 2025-11-25: the stream opens with a priming event (an id, no message)
    BOOST_TEST(!q->id.empty());
    q = ask.next_event();
    BOOST_REQUIRE(q);
    auto question = parse(q->data);
    BOOST_TEST(question.at("method").as_string() == "elicitation/create");
    auto answer = json::serialize(json::object{{"jsonrpc", "2.0"},
                                               {"id", question.at("id")},
                                               {"result", {{"action", "accept"}, {"content", {{"name", "Ann"}}}}}});
    BOOST_TEST(c.post(answer).status == 202);
    auto done = ask.next_event();
    BOOST_REQUIRE(done);
    BOOST_TEST(text_of(parse(done->data)).find("\"Ann\"") != std::string::npos);

    // The provider withdraws a question: the client hears notifications/cancelled for our id.
    auto roots = c.request("tools/call", json::object{{"name", "a__ask_cancel"}}, false);  // JSON: questions go to GET
    BOOST_TEST(roots.json.at("result").at("content").at(0).at("text").as_string() == "gave up asking");
    auto asked = stream->next_event();
    BOOST_REQUIRE(asked);
    auto aj = parse(asked->data);
    BOOST_TEST(aj.at("method").as_string() == "roots/list");
    auto withdrawn = stream->next_event();
    BOOST_REQUIRE(withdrawn);
    auto wj = parse(withdrawn->data);
    BOOST_TEST(wj.at("method").as_string() == "notifications/cancelled");
    BOOST_TEST(wj.at("params").at("requestId") == aj.at("id"));
    BOOST_TEST(wj.at("params").at("reason").as_string() == "gave up");

    // Without the capability the provider is told no, and says so.
    McpClient bare(d);
    bare.initialize();
    BOOST_TEST(text_of(bare.call_tool("a__ask")).find("refused") != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(cancellation_reaches_the_provider, Fixture) {
    McpClient c(d);
    c.initialize();
    auto h = c.headers();
    h["Accept"] = "application/json";
    HttpStream hang(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":"h1","method":"tools/call","params":{"name":"b__hang"}})", h);
    BOOST_REQUIRE(eventually([&] { return echo_status(d, "b").at("opened").as_int64() == 1; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    BOOST_TEST(c.notify("notifications/cancelled", json::object{{"requestId", "h1"}, {"reason", "test"}}).status == 202);
    BOOST_REQUIRE(hang.read_head());
    BOOST_TEST(hang.status() == 202);  // no response for a cancelled request; the exchange just ends
    BOOST_TEST(hang.body().empty());
    BOOST_TEST(eventually([&] { return echo_status(d, "b").at("cancelled").as_int64() == 1; }));
    // A legacy client's disconnect is not a cancellation; ending the session is.
    HttpStream hang2(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":"h2","method":"tools/call","params":{"name":"b__hang"}})", h);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    hang2.close();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    BOOST_TEST(echo_status(d, "b").at("cancelled").as_int64() == 1);
    BOOST_TEST(c.end_session() == 200);
    BOOST_TEST(eventually([&] { return echo_status(d, "b").at("closed").as_int64() == 1; }));
}

BOOST_AUTO_TEST_CASE(pages_across_providers) {
    EchoDaemon echo(std::map<std::string, std::string>{{"COFFER_MCP_PAGE_SIZE", "100"}});
    auto& d = echo.d;
    add_echo(d, "p", R"({"extra_tools":250,"page_size":40})");  // the provider pages too
    add_echo(d, "q", R"({"extra_tools":30,"bad_name":true})");
    McpClient c(d);
    c.initialize();
    std::vector<std::string> all;
    json::object params;
    for (int pages = 0; pages < 20; ++pages) {
        auto r = c.request("tools/list", params);
        auto names = names_of(r.json);
        BOOST_TEST(names.size() <= 100u);
        all.insert(all.end(), names.begin(), names.end());
        auto* next = r.json.at("result").as_object().if_contains("nextCursor");
        if (!next) break;
        params = json::object{{"cursor", *next}};
    }
    BOOST_TEST(all.size() == 262u + 42u + 1u);  // the invalid "bad name!" is left out; coffer__search_tools is in
    BOOST_TEST(std::is_sorted(all.begin(), all.end()));
    BOOST_TEST(std::set<std::string>(all.begin(), all.end()).size() == all.size());
}

BOOST_AUTO_TEST_CASE(batches_in_a_2025_03_26_session) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    McpClient c(d);
    BOOST_TEST(c.initialize("2025-03-26").json.at("result").at("protocolVersion").as_string() == "2025-03-26");
    auto r = c.post(R"([{"jsonrpc":"2.0","id":1,"method":"ping"},
                        {"jsonrpc":"2.0","method":"notifications/progress","params":{}},
                        {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a__search","arguments":{"query":"z"}}},
                        {"jsonrpc":"2.0","id":3,"method":"initialize","params":{}},
                        7])");
    BOOST_TEST(r.status == 200);
    BOOST_REQUIRE(r.json.is_array());
    BOOST_TEST(r.json.as_array().size() == 4u);
    std::set<std::string> ids;
    for (auto& a : r.json.as_array()) ids.insert(json::serialize(a.at("id")));
    BOOST_TEST((ids == std::set<std::string>{"1", "2", "3", "null"}));
    BOOST_TEST(c.post(R"([{"jsonrpc":"2.0","method":"notifications/initialized"}])").status == 202);
}

// The daemon log gets no line per successful /mcp call (the invocation log records every call),
// but still one for an MCP request refused with an error status, and for every REST request.
BOOST_FIXTURE_TEST_CASE(successful_mcp_calls_are_not_access_logged, Fixture) {
    auto lines_for = [&](const std::string& path_json) {
        std::ifstream in(d.vault() / "logs" / "daemon.log");
        std::string line;
        int n = 0;
        while (std::getline(in, line))
            if (line.find(R"("msg":"http")") != std::string::npos && line.find(path_json) != std::string::npos) ++n;
        return n;
    };
    McpClient c(d);
    BOOST_REQUIRE_EQUAL(c.initialize().status, 200);
    for (int i = 0; i < 20; ++i) BOOST_REQUIRE(c.request("tools/list").status == 200);
    BOOST_TEST(d.call("GET", "/api/v1/daemon/status").status == 200);
    auto refused = http_request(d.port(), "POST", "/mcp", R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})",
                                {{"X-Coffer-Token", d.token()}, {"Mcp-Session-Id", "no-such-session"},
                                 {"Accept", "application/json, text/event-stream"}});
    BOOST_TEST(refused.status == 404);
    BOOST_TEST(eventually([&] { return lines_for(R"("path":"/api/v1/daemon/status")") >= 1; }));
    BOOST_TEST(eventually([&] { return lines_for(R"("status":404)") >= 1; }));
    BOOST_TEST(lines_for(R"("path":"/mcp","status":200)") == 0);
}
