// The client's notifications/roots/list_changed in the real daemon (ABI 1.4 `notify`): the
// gateway forwards it to the providers the session has open, and only those; a provider built
// against 1.3 is never handed the hook; the bundled mcp_server kind passes it to
// coffer-test-upstream, whose roots/list then reaches the client.
#define BOOST_TEST_MODULE integration_mcp_client_notifications
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <algorithm>

using namespace coffer::test;
namespace json = boost::json;

namespace {

constexpr const char* kRootsChanged = "notifications/roots/list_changed";
const json::object kRootsCapability{{"roots", json::object{{"listChanged", true}}}};

std::string text_of(const json::value& reply) {
    auto* r = reply.as_object().if_contains("result");
    if (!r) return "error: " + json::serialize(reply);
    return std::string(r->at("content").at(0).at("text").as_string());
}

json::array notified(Daemon& d, const std::string& echo) {
    auto st = echo_status(d, echo);
    auto* n = st.if_contains("notified");
    return n && n->is_array() ? n->as_array() : json::array{};
}

long opened(Daemon& d, const std::string& echo) {
    auto st = echo_status(d, echo);
    auto* n = st.if_contains("opened");
    return n ? static_cast<long>(n->as_int64()) : -1;
}

json::object find_plugin(Daemon& d, const std::string& name) {
    auto list = d.call_json("GET", "/api/v1/plugins");
    for (auto& p : list.at("plugins").as_array())
        if (p.at("name").as_string() == name) return p.as_object();
    return {};
}

long heard(const json::object& stats, std::string_view method) {
    auto& all = stats.at("notifications").as_array();
    return std::count_if(all.begin(), all.end(), [&](const json::value& v) { return v.as_string() == method; });
}

void add_resource(Daemon& d, const std::string& kind, const std::string& name, const json::object& config) {
    auto body = json::serialize(json::object{{"kind", kind}, {"name", name}, {"config", config}});
    auto r = d.call("POST", "/api/v1/resources", body);
    if (r.status != 201) throw std::runtime_error("cannot create " + kind + ":" + name + ": " + r.body);
}

}  // namespace

BOOST_AUTO_TEST_CASE(reaches_the_open_links_of_its_session_only) {
    EchoDaemon echo;
    auto& d = echo.d;
    add_echo(d, "a");
    add_echo(d, "b");
    McpClient c(d), other(d);
    c.initialize("2025-11-25", {}, kRootsCapability);
    other.initialize("2025-11-25", {}, kRootsCapability);
    BOOST_TEST(text_of(c.call_tool("a__search", {{"query", "x"}})) == "a: x");       // c's link to a
    BOOST_TEST(text_of(other.call_tool("a__search", {{"query", "y"}})) == "a: y");   // other's link to a
    BOOST_REQUIRE(opened(d, "a") == 2);
    BOOST_REQUIRE(opened(d, "b") == 0);

    BOOST_TEST(c.notify(kRootsChanged).status == 202);
    BOOST_TEST(eventually([&] { return !notified(d, "a").empty(); }));
    // A barrier: the next request on the same link is queued behind the notification.
    BOOST_TEST(text_of(c.call_tool("a__search", {{"query", "z"}})) == "a: z");
    auto got = notified(d, "a");
    BOOST_REQUIRE_EQUAL(got.size(), 1u);
    BOOST_TEST(got[0].at("method").as_string() == kRootsChanged);
    BOOST_TEST(got[0].at("session").as_string() == c.session());  // not other's session
    BOOST_TEST(got[0].at("params") == json::object{});
    // b was not opened just to be told.
    BOOST_TEST(opened(d, "b") == 0);
    BOOST_TEST(notified(d, "b").empty());

    // Other client notifications stay in the gateway; roots/list_changed again is forwarded again.
    BOOST_TEST(c.notify("notifications/progress", {{"progressToken", "t"}, {"progress", 1}}).status == 202);
    BOOST_TEST(c.notify(kRootsChanged).status == 202);
    BOOST_TEST(text_of(c.call_tool("a__search", {{"query", "w"}})) == "a: w");
    got = notified(d, "a");
    BOOST_REQUIRE_EQUAL(got.size(), 2u);
    BOOST_TEST(got[1].at("method").as_string() == kRootsChanged);
}

BOOST_AUTO_TEST_CASE(a_provider_built_against_1_3_is_never_handed_the_hook) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    install_test_plugins(d.vault(), {"mcp_v13"});
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto p = find_plugin(d, "mcp_v13");
    BOOST_REQUIRE_MESSAGE(p.at("status").as_string() == "loaded", json::serialize(p));
    BOOST_TEST(p.at("abi").as_string() == "1.3");
    add_resource(d, "mcp_v13", "old", {});
    McpClient c(d);
    c.initialize("2025-11-25", {}, kRootsCapability);
    BOOST_TEST(text_of(c.call_tool("old__trapped")) == "trapped 0");
    BOOST_TEST(c.notify(kRootsChanged).status == 202);
    // The next call runs behind anything the gateway did for the notification: had it called
    // past struct_size, the trap would have counted.
    BOOST_TEST(text_of(c.call_tool("old__trapped")) == "trapped 0");
}

#ifdef COFFER_TEST_UPSTREAM
BOOST_AUTO_TEST_CASE(an_mcp_server_upstream_hears_it_and_its_roots_list_reaches_the_client) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    add_resource(d, "mcp_server", "up", {{"command", COFFER_TEST_UPSTREAM}});
    McpClient c(d);
    c.initialize("2025-11-25", {}, kRootsCapability);
    auto stream = c.open_stream();  // where the upstream's unrelated roots/list arrives
    BOOST_REQUIRE_EQUAL(stream->status(), 200);
    auto stats = [&] { return json::parse(text_of(c.call_tool("up__stats"))).as_object(); };
    BOOST_TEST(heard(stats(), kRootsChanged) == 0);

    BOOST_TEST(c.notify(kRootsChanged).status == 202);
    auto ev = stream->next_event();
    BOOST_REQUIRE(ev);
    auto ask = json::parse(ev->data);
    BOOST_TEST(ask.at("method").as_string() == "roots/list");
    json::value roots = json::parse(R"({"roots":[{"uri":"file:///work/project","name":"project"}]})");
    BOOST_TEST(c.post(json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", ask.at("id")}, {"result", roots}})).status ==
               202);
    json::object seen;
    BOOST_TEST(eventually([&] { return !(seen = stats()).at("roots").is_null(); }));
    BOOST_TEST(heard(seen, kRootsChanged) == 1);
    BOOST_TEST(seen.at("roots") == roots);

    // A client without the roots capability: the upstream never hears it.
    McpClient bare(d);
    bare.initialize();
    auto bare_stats = [&] { return json::parse(text_of(bare.call_tool("up__stats"))).as_object(); };
    BOOST_TEST(heard(bare_stats(), "notifications/initialized") == 1);
    BOOST_TEST(bare.notify(kRootsChanged).status == 202);
    BOOST_TEST(heard(bare_stats(), kRootsChanged) == 0);  // stdio: in order behind the notification
}
#endif
