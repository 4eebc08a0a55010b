// The client's notifications/roots/list_changed (ABI 1.4 `notify`) through the fake host: it
// reaches an initialized upstream over stdio and Streamable HTTP, only when the client declared
// `roots`, and never starts a connection of its own.
#include <boost/test/unit_test.hpp>

#include "support.hpp"

#include <algorithm>

using namespace mcps_test;

namespace {

constexpr const char* kRootsChanged = "notifications/roots/list_changed";

json::object stats(FakeHost& host, Session& s) {
    auto r = host.mcp_request(s, "tools/call", tool("stats"));
    if (!r.ok()) throw std::runtime_error("stats failed: " + r.details);
    return json::parse(text_of(r.json)).as_object();
}

// How many times the upstream heard `method` from its client.
long heard(const json::object& st, std::string_view method) {
    auto& all = st.at("notifications").as_array();
    return std::count_if(all.begin(), all.end(), [&](const json::value& v) { return v.as_string() == method; });
}

}  // namespace

BOOST_AUTO_TEST_SUITE(client_notifications)

BOOST_AUTO_TEST_CASE(the_wrapper_table_has_the_hook) {
    FakeHost host(coffer_plugin_entry_v1);
    const coffer_mcp_provider* mcp = host.kind("mcp_server").mcp;
    BOOST_REQUIRE(mcp);
    BOOST_TEST(mcp->struct_size == sizeof(coffer_mcp_provider));
    BOOST_TEST(mcp->notify != nullptr);
}

BOOST_AUTO_TEST_CASE(roots_list_changed_reaches_a_stdio_upstream_which_then_asks_roots_list) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto s = host.mcp_open(inst, R"({"id":"s1","client_capabilities":{"roots":{"listChanged":true}}})");
    // No connection yet: nothing is started for a notification.
    BOOST_TEST(host.mcp_notify(*s, kRootsChanged));
    BOOST_TEST(host.children().empty());
    auto before = stats(host, *s);  // starts the upstream
    BOOST_TEST(heard(before, kRootsChanged) == 0);
    BOOST_TEST(heard(before, "notifications/initialized") == 1);

    BOOST_TEST(host.mcp_notify(*s, kRootsChanged));
    // stdio keeps order: the next call reaches the upstream after the notification.
    BOOST_TEST(heard(stats(host, *s), kRootsChanged) == 1);
    BOOST_TEST(host.children().size() == 1u);

    // The upstream reacts with roots/list, relayed to the client; the answer goes back.
    BOOST_REQUIRE(eventually([&] { return !server_requests(*s).empty(); }));
    auto req = server_requests(*s).front();
    BOOST_TEST(json::parse(req.json).at("method").as_string() == "roots/list");
    host.mcp_respond(*s, req.token, R"({"roots":[{"uri":"file:///work","name":"work"}]})");
    json::value roots;
    BOOST_TEST(eventually([&] { return !(roots = stats(host, *s).at("roots")).is_null(); }));
    BOOST_TEST(roots == json::parse(R"({"roots":[{"uri":"file:///work","name":"work"}]})"));
}

BOOST_AUTO_TEST_CASE(without_the_roots_capability_nothing_is_forwarded) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto s = host.mcp_open(inst, R"({"id":"s2","client_capabilities":{"sampling":{}}})");
    BOOST_TEST(heard(stats(host, *s), "notifications/initialized") == 1);
    BOOST_TEST(host.mcp_notify(*s, kRootsChanged));
    auto after = stats(host, *s);  // in order behind the notification, had it been sent
    BOOST_TEST(heard(after, kRootsChanged) == 0);
    BOOST_TEST(server_requests(*s).empty());
}

BOOST_AUTO_TEST_CASE(other_client_notifications_are_not_forwarded) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto s = host.mcp_open(inst, R"({"id":"s3","client_capabilities":{"roots":{}}})");
    stats(host, *s);
    BOOST_TEST(host.mcp_notify(*s, "notifications/initialized"));
    BOOST_TEST(host.mcp_notify(*s, "notifications/whatever", R"({"x":1})"));
    BOOST_TEST(host.mcp_notify(*s, kRootsChanged));
    auto st = stats(host, *s);
    BOOST_TEST(heard(st, kRootsChanged) == 1);  // the barrier: what came before it was dropped
    BOOST_TEST(heard(st, "notifications/initialized") == 1);
    BOOST_TEST(heard(st, "notifications/whatever") == 0);
}

BOOST_AUTO_TEST_CASE(roots_list_changed_reaches_a_streamable_http_upstream) {
    HttpUpstream up;
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "web", http_config(up.url()));
    auto s = host.mcp_open(inst, R"({"id":"h1","client_capabilities":{"roots":{}}})");
    BOOST_TEST(heard(stats(host, *s), kRootsChanged) == 0);
    BOOST_TEST(host.mcp_notify(*s, kRootsChanged));
    // A notification is its own POST: no order against the next call, so wait for it.
    BOOST_TEST(eventually([&] { return heard(stats(host, *s), kRootsChanged) == 1; }));
}

BOOST_AUTO_TEST_SUITE_END()
