// Upstreams on the stateless 2026-07-28 revision (issue 15 item 1, SPEC G-6) through the real
// daemon: coffer-test-upstream --modern over Streamable HTTP and over stdio. The mcp_server plugin
// finds the era with server/discover (no initialize is ever sent), puts the version, capabilities
// and identity in every request's _meta, mirrors Mcp-Method / Mcp-Name / Mcp-Param-* headers,
// leaves out a tool whose x-mcp-header annotation is invalid, turns input_required into the
// client's own sampling request (or into input_required again for a 2026-07-28 client) and takes
// list changes and resource updates from subscriptions/listen. Clients on 2024-11-05,
// 2025-06-18, 2025-11-25 and 2026-07-28 all reach it. (The official TypeScript SDK published on
// npm, 1.32.x, does not speak 2026-07-28 yet, so the project's own server is the upstream.)
#define BOOST_TEST_MODULE mcp_server_stateless
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"
#include "http_client.hpp"
#include "http_stream.hpp"
#include "mcp_client.hpp"
#include "support.hpp"

#include <boost/json.hpp>

#include <optional>

using namespace coffer::test;
namespace json = boost::json;

namespace {

const char* kModern = "2026-07-28";

struct Fixture : StartedDaemon {
    mcps_test::HttpUpstream up{false, {"--modern"}};

    Fixture() {
        auto added = d.cli({"mcp", "add", "m", "--http", up.url()});
        BOOST_REQUIRE_MESSAGE(added.exit_code == 0, added.err);
        add_stdio_server(d, "s", COFFER_TEST_UPSTREAM, {"--modern"});
    }

    json::value status(const std::string& name) {
        return d.call_json("GET", "/api/v1/resources/mcp_server/" + name).at("resource").at("status").at("plugin");
    }
};

// The first text of a tools/call result (or of the whole reply carrying it).
std::string text_of(const json::value& reply) {
    const auto* r = reply.is_object() ? reply.as_object().if_contains("result") : nullptr;
    const json::value& result = r ? *r : reply;
    auto* content = result.is_object() ? result.as_object().if_contains("content") : nullptr;
    if (!content || !content->is_array() || content->as_array().empty()) return "(no content: " + json::serialize(result) + ")";
    return std::string(content->as_array()[0].at("text").as_string());
}

json::value stats(McpClient& c, const std::string& server) {
    return json::parse(text_of(c.call_tool(server + "__stats")));
}

json::object meta(json::object caps = {}) {
    return json::object{{"io.modelcontextprotocol/protocolVersion", kModern},
                        {"io.modelcontextprotocol/clientCapabilities", std::move(caps)},
                        {"io.modelcontextprotocol/clientInfo", {{"name", "modern-client"}, {"version", "1"}}}};
}

// A 2026-07-28 client of the gateway: one self-contained POST per request.
struct Modern {
    Daemon& d;
    int id = 0;
    HttpResult send(const std::string& method, json::object params, const std::string& name = "",
                    json::object caps = {}, std::map<std::string, std::string> extra = {}) {
        params["_meta"] = meta(std::move(caps));
        std::map<std::string, std::string> h{{"X-Coffer-Token", d.token()},
                                             {"MCP-Protocol-Version", kModern},
                                             {"Mcp-Method", method},
                                             {"Accept", "application/json, text/event-stream"}};
        if (!name.empty()) h["Mcp-Name"] = name;
        for (auto& [k, v] : extra) h[k] = v;
        auto body = json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", ++id}, {"method", method}, {"params", params}});
        return http_request(d.port(), "POST", "/mcp", body, h);
    }
};

// The next message on an event stream with this method (others are skipped).
std::optional<json::value> next_with_method(HttpStream& s, const std::string& method) {
    for (int i = 0; i < 50; ++i) {
        auto e = s.next_event();
        if (!e) return std::nullopt;
        if (e->data.empty()) continue;
        auto v = json::parse(e->data);
        auto* m = v.as_object().if_contains("method");
        if (m && m->is_string() && m->as_string() == method) return v;
    }
    return std::nullopt;
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(clients_of_every_revision_reach_a_2026_07_28_upstream_over_http, Fixture) {
    for (std::string v : {"2024-11-05", "2025-06-18", "2025-11-25"}) {
        BOOST_TEST_CONTEXT("client on " << v) {
            McpClient c(d);
            c.initialize(v);
            auto names = names_of(c.request("tools/list").json);
            auto has = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
            BOOST_TEST(has("m__echo"));
            BOOST_TEST(has("m__regional"));
            BOOST_TEST(!has("m__bad_header"));  // its x-mcp-header sits on a number: left out
            BOOST_TEST(text_of(c.call_tool("m__echo", {{"text", "hi " + v}})) == "hi " + v);
            // The annotated argument is mirrored into Mcp-Param-Region, non-ASCII as base64.
            auto regional = text_of(c.call_tool("m__regional", {{"region", "Zürich"}}));
            BOOST_TEST(regional.find("region=Zürich") != std::string::npos, regional);
            BOOST_TEST(regional.find("header=Zürich") != std::string::npos, regional);
            auto res = c.request("resources/read", {{"uri", "coffer://m/test://static/hello"}});
            BOOST_TEST(res.json.at("result").at("contents").at(0).at("text").as_string() == "hello world");
        }
    }
    // A 2026-07-28 client, end to end stateless. Once its session has listed the tools, the
    // gateway checks the Mcp-Param-* headers the client mirrors against the arguments.
    Modern m{d};
    BOOST_TEST(m.send("tools/list", {}).status == 200);
    auto call = [&](std::map<std::string, std::string> extra) {
        return m.send("tools/call", {{"name", "m__regional"}, {"arguments", {{"region", "eu-west"}}}}, "m__regional", {},
                      std::move(extra));
    };
    auto mismatch = call({{"Mcp-Param-Region", "us-east"}});
    BOOST_TEST(mismatch.status == 400);
    BOOST_TEST(json::parse(mismatch.body).at("error").at("code").as_int64() == -32020);
    BOOST_TEST(call({}).status == 200);  // not mirrored at all (a shim's client): the body is what counts
    auto stray = m.send("tools/call", {{"name", "m__regional"}, {"arguments", json::object{}}}, "m__regional", {},
                        {{"Mcp-Param-Region", "eu-west"}});
    BOOST_TEST(stray.status == 400);  // a header for an argument that is absent disagrees too
    BOOST_TEST(call({{"Mcp-Param-Region", "=?base64?ZXUtd2VzdA==?="}}).status == 200);  // encoded is fine
    auto r = call({{"Mcp-Param-Region", "eu-west"}});
    BOOST_TEST(r.status == 200);
    auto result = json::parse(r.body).at("result");
    BOOST_TEST(result.at("resultType").as_string() == "complete");
    BOOST_TEST(text_of(result).find("header=eu-west") != std::string::npos);

    auto st = status("m");
    BOOST_TEST(st.at("protocol_version").as_string() == kModern);
    BOOST_TEST(st.at("health").as_string() == "ok");
    McpClient c(d);
    c.initialize("2025-11-25");
    auto s = stats(c, "m");
    BOOST_TEST(s.at("legacy_initializes").as_int64() == 0);  // never a handshake
    BOOST_TEST(s.at("modern_requests").as_int64() > 10);
    BOOST_TEST(s.at("last_client_info").at("name").as_string() == "coffer");
    auto& h = s.at("last_headers").as_object();
    BOOST_TEST(h.at("mcp-method").as_string() == "tools/call");
    BOOST_TEST(h.at("mcp-name").as_string() == "regional");  // the last call before stats
    BOOST_TEST(h.at("mcp-param-region").as_string() == "eu-west");
    BOOST_TEST(h.at("mcp-protocol-version").as_string() == kModern);
}

BOOST_FIXTURE_TEST_CASE(a_stdio_upstream_on_2026_07_28, Fixture) {
    McpClient c(d);
    c.initialize("2025-06-18");
    BOOST_TEST(text_of(c.call_tool("s__echo", {{"text", "over stdio"}})) == "over stdio");
    BOOST_TEST(status("s").at("protocol_version").as_string() == kModern);
    auto s = stats(c, "s");
    BOOST_TEST(s.at("legacy_initializes").as_int64() == 0);
    BOOST_TEST(s.at("last_client_info").at("name").as_string() == "coffer");
    // No x-mcp-header on stdio, but the tool is still usable.
    BOOST_TEST(text_of(c.call_tool("s__regional", {{"region", "ap"}})).find("region=ap") != std::string::npos);

    // A dual-era server (initialize works too) is spoken to on 2026-07-28; a legacy one is
    // initialized after the probe fails.
    add_stdio_server(d, "dual", COFFER_TEST_UPSTREAM, {"--dual-era"});
    add_stdio_server(d, "old", COFFER_TEST_UPSTREAM);
    BOOST_TEST(text_of(c.call_tool("dual__echo", {{"text", "d"}})) == "d");
    BOOST_TEST(text_of(c.call_tool("old__echo", {{"text", "o"}})) == "o");
    BOOST_TEST(status("dual").at("protocol_version").as_string() == kModern);
    BOOST_TEST(status("old").at("protocol_version").as_string() == "2025-11-25");
    BOOST_TEST(stats(c, "dual").at("legacy_initializes").as_int64() == 0);
}

BOOST_FIXTURE_TEST_CASE(input_required_becomes_the_clients_sampling_request_and_back, Fixture) {
    // A 2026-07-28 client: the upstream's input_required reaches it as input_required.
    Modern m{d};
    json::object caps{{"sampling", json::object{}}};
    auto first = m.send("tools/call", {{"name", "m__sample"}, {"arguments", {{"prompt", "say hi"}}}}, "m__sample", caps);
    auto res = json::parse(first.body).at("result");
    BOOST_REQUIRE_EQUAL(res.at("resultType").as_string(), "input_required");
    auto& asks = res.at("inputRequests").as_object();
    BOOST_REQUIRE_EQUAL(asks.size(), 1u);
    BOOST_TEST(asks.begin()->value().at("method").as_string() == "sampling/createMessage");
    json::object answer{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "sampled-by-modern"}}}, {"model", "m1"}};
    auto second = m.send("tools/call",
                         {{"name", "m__sample"},
                          {"arguments", {{"prompt", "say hi"}}},
                          {"requestState", res.at("requestState")},
                          {"inputResponses", {{asks.begin()->key(), answer}}}},
                         "m__sample", caps);
    auto done = json::parse(second.body).at("result");
    BOOST_TEST(done.at("resultType").as_string() == "complete");
    BOOST_TEST(text_of(done).find("sampled-by-modern") != std::string::npos, second.body);

    // A 2025-11-25 client: the same question arrives as a sampling/createMessage request on the
    // call's stream, and its answer completes the call.
    McpClient c(d);
    c.initialize("2025-11-25", {}, json::object{{"sampling", json::object{}}});
    auto h = c.headers();
    h["Accept"] = "application/json, text/event-stream";
    HttpStream call(d.port(), "POST", "/mcp",
                    R"({"jsonrpc":"2.0","id":"call-1","method":"tools/call","params":{"name":"m__sample","arguments":{"prompt":"say hi"}}})",
                    h);
    BOOST_REQUIRE(call.read_head());
    BOOST_REQUIRE(call.is_event_stream());
    auto ask = next_with_method(call, "sampling/createMessage");
    BOOST_REQUIRE(ask);
    auto reply = json::serialize(json::object{
        {"jsonrpc", "2.0"},
        {"id", ask->at("id")},
        {"result", {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "sampled-by-legacy"}}}, {"model", "m2"}}}});
    BOOST_TEST(c.post(reply).status == 202);
    std::optional<json::value> answer_msg;
    for (int i = 0; i < 20 && !answer_msg; ++i) {
        auto e = call.next_event();
        if (!e) break;
        if (e->data.empty()) continue;
        auto v = json::parse(e->data);
        if (v.as_object().contains("result") || v.as_object().contains("error")) answer_msg = v;
    }
    BOOST_REQUIRE(answer_msg);
    BOOST_TEST(text_of(answer_msg->at("result")).find("sampled-by-legacy") != std::string::npos,
               json::serialize(*answer_msg));
    BOOST_TEST(stats(c, "m").at("input_rounds").as_int64() == 2);
}

BOOST_FIXTURE_TEST_CASE(list_changes_and_resource_updates_come_through_subscriptions_listen, Fixture) {
    McpClient c(d);
    c.initialize("2025-11-25");
    BOOST_REQUIRE(c.call_tool("m__echo", {{"text", "warm"}}).is_object());  // the upstream is connected
    auto stream = c.open_stream();
    BOOST_REQUIRE_EQUAL(stream->status(), 200);
    BOOST_TEST(eventually([&] { return stats(c, "m").at("listens").as_int64() >= 1; }));
    c.call_tool("m__toggle");
    BOOST_TEST(next_with_method(*stream, "notifications/tools/list_changed").has_value());

    // resources/subscribe reopens the listen stream with the resource in it.
    auto sub = c.request("resources/subscribe", {{"uri", "coffer://m/test://static/hello"}});
    BOOST_TEST(sub.json.as_object().contains("result"), sub.body);
    BOOST_TEST(eventually([&] {
        c.call_tool("m__touch", {{"uri", "test://static/hello"}});
        auto e = stream->next_event(std::chrono::milliseconds(300));
        if (!e || e->data.empty()) return false;
        auto v = json::parse(e->data);
        auto* m = v.as_object().if_contains("method");
        return m && m->as_string() == "notifications/resources/updated" &&
               v.at("params").at("uri").as_string() == "coffer://m/test://static/hello";
    }));
}
