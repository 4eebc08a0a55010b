// The other downstream transports: legacy HTTP+SSE (/sse + /messages, 2024-11-05) and the
// stateless 2026-07-28 revision on /mcp — per-request _meta and mirrored headers, server/discover,
// resultType bridging, input_required round trips, subscriptions/listen, cancellation by
// disconnect (G-5, G-6).
#define BOOST_TEST_MODULE mcp_transports
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <thread>

using namespace coffer::test;
namespace json = boost::json;

namespace {

struct Fixture : EchoDaemon {
    Fixture() {
        add_echo(d, "a");
    }
};

const char* kVersion = "2026-07-28";

json::object meta(json::object caps = {}) {
    return json::object{{"io.modelcontextprotocol/protocolVersion", kVersion},
                        {"io.modelcontextprotocol/clientCapabilities", std::move(caps)},
                        {"io.modelcontextprotocol/clientInfo", {{"name", "modern-test"}, {"version", "1"}}},
                        {"coffer/agent", "modern"}};
}

// A 2026-07-28 POST with the mirrored headers done right unless overridden.
struct Modern {
    Daemon& d;
    int id = 0;
    std::map<std::string, std::string> headers(const std::string& method, const std::string& name = "") {
        std::map<std::string, std::string> h{{"X-Coffer-Token", d.token()},
                                             {"MCP-Protocol-Version", kVersion},
                                             {"Mcp-Method", method},
                                             {"Accept", "application/json, text/event-stream"}};
        if (!name.empty()) h["Mcp-Name"] = name;
        return h;
    }
    std::string body(const std::string& method, json::object params, json::object m = meta()) {
        params["_meta"] = std::move(m);
        return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", ++id}, {"method", method}, {"params", params}});
    }
    HttpResult send(const std::string& method, json::object params = {}, const std::string& name = "",
                    std::map<std::string, std::string> extra = {}) {
        auto h = headers(method, name);
        for (auto& [k, v] : extra) h[k] = v;
        return http_request(d.port(), "POST", "/mcp", body(method, std::move(params)), h);
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(legacy_http_sse, Fixture) {
    std::map<std::string, std::string> h{{"X-Coffer-Token", d.token()}, {"Accept", "text/event-stream"}};
    HttpStream sse(d.port(), "GET", "/sse", "", h);
    BOOST_REQUIRE(sse.read_head());
    BOOST_TEST(sse.status() == 200);
    auto endpoint = sse.next_event();
    BOOST_REQUIRE(endpoint);
    BOOST_TEST(endpoint->event == "endpoint");
    BOOST_TEST(endpoint->data.rfind("/messages?sessionId=", 0) == 0);
    auto post = [&](const std::string& body) {
        return http_request(d.port(), "POST", endpoint->data, body, {{"X-Coffer-Token", d.token()}});
    };
    BOOST_TEST(post(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"0"}}})")
                   .status == 202);
    auto init = sse.next_event();
    BOOST_REQUIRE(init);
    BOOST_TEST(init->event == "message");
    BOOST_TEST(parse(init->data).at("result").at("protocolVersion").as_string() == "2024-11-05");
    BOOST_TEST(!parse(init->data).at("result").at("capabilities").as_object().contains("completions"));
    BOOST_TEST(post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})").status == 202);
    BOOST_TEST(post(R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a__search","arguments":{"query":"s"}}})")
                   .status == 202);
    auto call = sse.next_event();
    BOOST_REQUIRE(call);
    BOOST_TEST(call->data == R"({"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a: s"}]}})");
    // Bad input is answered on the POST itself.
    auto bad = post("{oops");
    BOOST_TEST(bad.status == 400);
    BOOST_TEST(parse(bad.body).at("error").at("code").as_int64() == -32700);
    BOOST_TEST(post(R"([{"jsonrpc":"2.0","id":3,"method":"ping"}])").status == 400);
    BOOST_TEST(http_request(d.port(), "POST", "/messages?sessionId=nope", "{}", {{"X-Coffer-Token", d.token()}}).status == 404);
    BOOST_TEST(http_request(d.port(), "GET", "/sse", "", {{"Accept", "text/event-stream"}}).status == 401);
    BOOST_TEST(echo_status(d, "a").at("open").as_int64() == 1);
    sse.close();  // the stream is the session
    BOOST_TEST(eventually([&] { return echo_status(d, "a").at("open").as_int64() == 0; }));
    BOOST_TEST(post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})").status == 404);
}

BOOST_FIXTURE_TEST_CASE(stateless_2026_07_28, Fixture) {
    Modern m{d};
    auto disc = m.send("server/discover");
    BOOST_TEST(disc.status == 200);
    auto dj = parse(disc.body).at("result");
    BOOST_TEST(dj.at("resultType").as_string() == "complete");
    BOOST_TEST(dj.at("supportedVersions").at(0).as_string() == kVersion);
    BOOST_TEST(dj.at("_meta").at("io.modelcontextprotocol/serverInfo").at("name").as_string() == "coffer");
    BOOST_TEST(disc.headers.count("mcp-session-id") == 0);  // no sessions in 2026-07-28

    auto list = parse(m.send("tools/list").body).at("result");
    BOOST_TEST(list.at("resultType").as_string() == "complete");
    BOOST_TEST(list.at("ttlMs").as_int64() > 0);
    BOOST_TEST(list.at("cacheScope").as_string() == "private");
    BOOST_TEST(list.at("tools").as_array().size() == 13u);  // the provider's 12 + coffer__search_tools

    // The provider's result, with only resultType added in front.
    auto call = m.send("tools/call", json::object{{"name", "a__echo"}, {"arguments", {{"text", "x"}}}}, "a__echo");
    BOOST_TEST(call.body == R"({"jsonrpc":"2.0","id":)" + std::to_string(m.id) +
                                R"(,"result":{"resultType":"complete","content": [ {"type":"text", "text": "x"} ], "n":1.50, "isError": false }})");
    // Mcp-Name may be base64-encoded.
    BOOST_TEST(m.send("tools/call", json::object{{"name", "a__echo"}}, "=?base64?YV9fZWNobw==?=").status == 200);
    auto read = parse(m.send("resources/read", json::object{{"uri", "coffer://a/echo://static/one"}}, "coffer://a/echo://static/one").body);
    BOOST_TEST(read.at("result").at("ttlMs").as_int64() == 0);
    BOOST_TEST(read.at("result").at("contents").at(0).at("text").as_string() == "content of echo://static/one");
    auto missing = m.send("resources/read", json::object{{"uri", "coffer://a/nope://x"}}, "coffer://a/nope://x");
    BOOST_TEST(parse(missing.body).at("error").at("code").as_int64() == -32602);  // renumbered from -32002

    // What the revision requires is checked.
    auto code = [](const HttpResult& r) { return parse(r.body).at("error").at("code").as_int64(); };
    auto r = m.send("tools/call", json::object{{"name", "a__echo"}}, "a__search");
    BOOST_TEST(r.status == 400);
    BOOST_TEST(code(r) == -32020);
    r = m.send("tools/call", json::object{{"name", "a__echo"}});
    BOOST_TEST(code(r) == -32020);  // Mcp-Name missing
    r = m.send("tools/list", {}, "", {{"Mcp-Method", "prompts/list"}});
    BOOST_TEST(code(r) == -32020);
    r = m.send("tools/list", {}, "", {{"MCP-Protocol-Version", "2025-11-25"}});
    BOOST_TEST(code(r) == -32020);
    auto h = m.headers("tools/list");
    r = http_request(d.port(), "POST", "/mcp", m.body("tools/list", {}, json::object{{"io.modelcontextprotocol/protocolVersion", kVersion}}), h);
    BOOST_TEST(r.status == 400);
    BOOST_TEST(code(r) == -32602);  // clientCapabilities missing
    h["MCP-Protocol-Version"] = "2099-01-01";
    r = http_request(d.port(), "POST", "/mcp",
                     m.body("tools/list", {}, json::object{{"io.modelcontextprotocol/protocolVersion", "2099-01-01"},
                                                           {"io.modelcontextprotocol/clientCapabilities", json::object{}}}),
                     h);
    BOOST_TEST(r.status == 400);
    BOOST_TEST(code(r) == -32022);
    BOOST_TEST(parse(r.body).at("error").at("data").at("supported").as_array().size() == 5u);
    r = m.send("ping");
    BOOST_TEST(r.status == 404);  // removed in 2026-07-28
    BOOST_TEST(code(r) == -32601);
    r = m.send("initialize");  // so is the handshake: no session is opened for it
    BOOST_TEST(r.status == 404);
    BOOST_TEST(code(r) == -32601);
    BOOST_TEST(r.headers.count("mcp-session-id") == 0);
    // Header and body disagree while the body names an unknown version: the mismatch is reported.
    h = m.headers("tools/list");
    r = http_request(d.port(), "POST", "/mcp",
                     m.body("tools/list", {}, json::object{{"io.modelcontextprotocol/protocolVersion", "v999.0.0"},
                                                           {"io.modelcontextprotocol/clientCapabilities", json::object{}}}),
                     h);
    BOOST_TEST(r.status == 400);
    BOOST_TEST(code(r) == -32020);
    r = http_request(d.port(), "GET", "/mcp", "", {{"X-Coffer-Token", d.token()}, {"MCP-Protocol-Version", kVersion}});
    BOOST_TEST(r.status == 405);

    // A server request becomes input_required; the retry carries the answer.
    json::object caps{{"elicitation", json::object{}}};
    auto ask_body = [&](json::object extra) {
        json::object p{{"name", "a__ask"}};
        for (auto& kv : extra) p[kv.key()] = kv.value();
        return m.body("tools/call", p, meta(caps));
    };
    auto first = parse(http_request(d.port(), "POST", "/mcp", ask_body({}), m.headers("tools/call", "a__ask")).body);
    auto res = first.at("result");
    BOOST_REQUIRE_EQUAL(res.at("resultType").as_string(), "input_required");
    auto& asks = res.at("inputRequests").as_object();
    BOOST_REQUIRE_EQUAL(asks.size(), 1u);
    BOOST_TEST(asks.begin()->value().at("method").as_string() == "elicitation/create");
    auto second = parse(http_request(d.port(), "POST", "/mcp",
                                     ask_body(json::object{{"requestState", res.at("requestState")},
                                                           {"inputResponses", {{asks.begin()->key(), {{"action", "decline"}}}}}}),
                                     m.headers("tools/call", "a__ask"))
                            .body);
    BOOST_TEST(second.at("result").at("resultType").as_string() == "complete");
    BOOST_TEST(second.at("result").at("content").at(0).at("text").as_string().find("decline") != std::string::npos);
    auto stale = parse(http_request(d.port(), "POST", "/mcp", ask_body(json::object{{"requestState", "nope"}}),
                                    m.headers("tools/call", "a__ask"))
                           .body);
    BOOST_TEST(stale.at("error").at("code").as_int64() == -32602);
}

BOOST_FIXTURE_TEST_CASE(stateless_streams_subscriptions_and_cancellation, Fixture) {
    Modern m{d};
    // subscriptions/listen: acknowledged first, then the notifications opted in to, tagged.
    HttpStream listen(d.port(), "POST", "/mcp",
                      m.body("subscriptions/listen", json::object{{"notifications", {{"toolsListChanged", true}, {"promptsListChanged", false}}}}),
                      m.headers("subscriptions/listen"));
    BOOST_REQUIRE(listen.read_head());
    BOOST_TEST(listen.is_event_stream());
    auto ack = listen.next_event();
    BOOST_REQUIRE(ack);
    auto aj = parse(ack->data);
    BOOST_TEST(aj.at("method").as_string() == "notifications/subscriptions/acknowledged");
    BOOST_TEST(aj.at("params").at("_meta").at("io.modelcontextprotocol/subscriptionId").as_int64() == m.id);
    BOOST_TEST(aj.at("params").at("notifications").at("toolsListChanged").as_bool());
    auto sub_id = m.id;
    m.send("tools/list");  // opens the link the change comes from
    m.send("tools/call", json::object{{"name", "a__change"}}, "a__change");
    auto changed = listen.next_event();
    BOOST_REQUIRE(changed);
    auto cj = parse(changed->data);
    BOOST_TEST(cj.at("method").as_string() == "notifications/tools/list_changed");
    BOOST_TEST(cj.at("params").at("_meta").at("io.modelcontextprotocol/subscriptionId").as_int64() == sub_id);

    // Progress rides on the request's own stream.
    HttpStream slow(d.port(), "POST", "/mcp",
                    m.body("tools/call", json::object{{"name", "a__slow"}, {"arguments", {{"ms", 200}}}},
                           [] {
                               auto x = meta();
                               x["progressToken"] = "t";
                               return x;
                           }()),
                    m.headers("tools/call", "a__slow"));
    BOOST_REQUIRE(slow.read_head());
    auto p1 = slow.next_event();
    BOOST_REQUIRE(p1);
    BOOST_TEST(parse(p1->data).at("method").as_string() == "notifications/progress");

    // Closing a request's stream cancels it at the provider.
    HttpStream hang(d.port(), "POST", "/mcp", m.body("tools/call", json::object{{"name", "a__hang"}}), m.headers("tools/call", "a__hang"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    BOOST_TEST(echo_status(d, "a").at("cancelled").as_int64() == 0);
    hang.close();
    BOOST_TEST(eventually([&] { return echo_status(d, "a").at("cancelled").as_int64() == 1; }));
    // Requests of one identity share one gateway session (and one provider session).
    BOOST_TEST(echo_status(d, "a").at("opened").as_int64() == 1);
}
