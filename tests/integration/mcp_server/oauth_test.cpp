// OAuth for HTTP upstreams on the real daemon (issue 15 item 5): coffer-test-upstream --oauth is a
// protected MCP server that is its own authorization server (PKCE, resource indicator, rotating
// refresh tokens). Before login a call fails with the login hint; `coffer mcp login` (a real CLI
// process) prints the URL, the test plays the browser (GET the URL, follow its redirect to the
// CLI's loopback listener), and afterwards a client's tools/call through /mcp reaches the upstream
// with the token. Tokens are kept as an encrypted credential, never in the logs; an expiring
// token is refreshed and the rotated refresh token survives a daemon restart; a forged redirect
// is refused and stores nothing.
#define BOOST_TEST_MODULE mcp_server_oauth
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"
#include "eventually.hpp"
#include "http_client.hpp"
#include "mcp_client.hpp"
#include "stdio_child.hpp"
#include "support.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int count_lines(const std::string& text, const std::string& line) {
    int n = 0;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) n += l == line;
    return n;
}

// "http://127.0.0.1:PORT/path?query" → port and target.
std::pair<std::uint16_t, std::string> split_url(const std::string& url) {
    auto rest = url.substr(std::string("http://127.0.0.1:").size());
    auto slash = rest.find('/');
    return {static_cast<std::uint16_t>(std::stoi(rest.substr(0, slash))), rest.substr(slash)};
}

struct Fixture : StartedDaemon {
    fs::path grants = dir.path() / "grants.log";

    json::value status(const std::string& name) {
        return d.call_json("GET", "/api/v1/resources/mcp_server/" + name).at("resource").at("status").at("plugin");
    }

    // `coffer mcp login <name>` with the test as the browser: returns the CLI's exit code.
    int login(const std::string& name) {
        StdioChild cli({(bin_dir() / "coffer").string(), "mcp", "login", name, "--timeout", "60"}, d.env(),
                       dir.path() / "login.err");
        auto url = cli.line(std::chrono::seconds(20));
        BOOST_REQUIRE_MESSAGE(url && url->rfind("http://127.0.0.1:", 0) == 0, "no authorization URL: " << read_file(dir.path() / "login.err"));
        auto [port, target] = split_url(*url);
        auto authorize = http_request(port, "GET", target);  // the authorization server approves at once
        BOOST_REQUIRE_EQUAL(authorize.status, 302);
        auto location = authorize.headers["location"];
        BOOST_REQUIRE(location.rfind("http://127.0.0.1:", 0) == 0);
        auto [cb_port, cb_target] = split_url(location);
        auto back = http_request(cb_port, "GET", cb_target);  // the browser lands on the CLI's listener
        BOOST_TEST(back.status == 200);
        BOOST_TEST(back.body.find("close this window") != std::string::npos);
        return cli.wait(std::chrono::seconds(20));
    }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(login_then_calls_carry_the_token, Fixture) {
    mcps_test::HttpUpstream up(false, {"--oauth", "--oauth-ttl", "3600", "--oauth-log", grants.string()});
    auto added = d.cli({"mcp", "add", "secure", "--http", up.url()});
    BOOST_REQUIRE_MESSAGE(added.exit_code == 0, added.err);

    // Before login: the call fails, and says what to do.
    auto before = d.cli({"mcp", "test", "secure"});
    BOOST_TEST(before.exit_code != 0);
    BOOST_TEST((before.out + before.err).find("coffer mcp login secure") != std::string::npos, before.out + before.err);

    BOOST_REQUIRE_EQUAL(login("secure"), 0);
    auto g = read_file(grants);
    BOOST_TEST(count_lines(g, "register") == 1);
    BOOST_TEST(count_lines(g, "authorize") == 1);
    BOOST_TEST(count_lines(g, "token authorization_code") == 1, g);

    // A client of the gateway calls the upstream's tool: the daemon sends the token.
    McpClient c(d);
    c.initialize();
    auto r = c.call_tool("secure__echo", {{"text", "through oauth"}});
    BOOST_TEST(json::serialize(r).find("through oauth") != std::string::npos, json::serialize(r));
    BOOST_TEST(count_lines(read_file(grants), "token refresh_token") == 0);  // a fresh token is not refreshed

    // Kept as an encrypted credential of the plugin's namespace, never in a log or the config.
    auto creds = d.cli({"credential", "list", "--json"});
    BOOST_TEST(creds.out.find("mcp_server.oauth.secure") != std::string::npos, creds.out);
    auto log = d.log();
    BOOST_TEST(log.find("at-") == std::string::npos);
    BOOST_TEST(log.find("rt-") == std::string::npos);
    auto shown = d.cli({"mcp", "show", "secure", "--json"});
    BOOST_TEST(shown.out.find("at-") == std::string::npos);
    auto audit = d.cli({"audit", "--json", "--limit", "50"});
    BOOST_TEST(audit.out.find("oauth_login") != std::string::npos);
    BOOST_TEST(audit.out.find("at-") == std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(an_expiring_token_is_refreshed_and_the_rotation_survives_a_restart, Fixture) {
    // Tokens live 30 s: within the minute before expiry, so every new connection refreshes first.
    mcps_test::HttpUpstream up(false, {"--oauth", "--oauth-ttl", "30", "--oauth-log", grants.string()});
    BOOST_REQUIRE(d.cli({"mcp", "add", "secure", "--http", up.url()}).exit_code == 0);
    BOOST_REQUIRE_EQUAL(login("secure"), 0);
    auto t1 = d.cli({"mcp", "test", "secure"});
    BOOST_TEST(t1.exit_code == 0, t1.out + t1.err);
    BOOST_TEST(count_lines(read_file(grants), "token refresh_token") >= 1);
    // The upstream honours each refresh token once: the rotated one must have been stored, or
    // the refresh after a restart is refused.
    d.stop();
    BOOST_REQUIRE(d.start());
    auto before = count_lines(read_file(grants), "token refresh_token");
    auto t2 = d.cli({"mcp", "test", "secure"});
    BOOST_TEST(t2.exit_code == 0, t2.out + t2.err);
    auto g = read_file(grants);
    BOOST_TEST(count_lines(g, "token refresh_token") == before + 1, g);
    BOOST_TEST(g.find("refused") == std::string::npos, g);
}

BOOST_FIXTURE_TEST_CASE(a_token_refused_before_its_expiry_is_refreshed_at_the_next_connect, Fixture) {
    // The server says tokens live an hour but drops them after 2 s (a revocation, a restart).
    mcps_test::HttpUpstream up(false, {"--oauth", "--oauth-ttl", "2", "--oauth-claimed-ttl", "3600", "--oauth-log",
                                       grants.string()});
    BOOST_REQUIRE(d.cli({"mcp", "add", "secure", "--http", up.url()}).exit_code == 0);
    BOOST_REQUIRE_EQUAL(login("secure"), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    // initialize is answered 401: the connection refreshes and starts again, and the call works.
    auto t = d.cli({"mcp", "test", "secure"});
    BOOST_TEST(t.exit_code == 0, t.out + t.err);
    auto g = read_file(grants);
    BOOST_TEST(count_lines(g, "token refresh_token") == 1, g);
}

BOOST_FIXTURE_TEST_CASE(a_token_refused_mid_session_is_refreshed_and_the_call_sent_again, Fixture) {
    mcps_test::HttpUpstream up(false, {"--oauth", "--oauth-ttl", "2", "--oauth-claimed-ttl", "3600", "--oauth-log",
                                       grants.string()});
    BOOST_REQUIRE(d.cli({"mcp", "add", "secure", "--http", up.url()}).exit_code == 0);
    BOOST_REQUIRE_EQUAL(login("secure"), 0);
    McpClient c(d);
    c.initialize("2025-11-25");
    auto first = c.call_tool("secure__echo", {{"text", "before"}});
    BOOST_REQUIRE_MESSAGE(first.as_object().contains("result"), json::serialize(first));
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    // The open connection's token is refused now: refreshed once, the call sent again.
    auto second = c.call_tool("secure__echo", {{"text", "after"}});
    BOOST_TEST(second.as_object().contains("result"), json::serialize(second));
    BOOST_TEST(json::serialize(second).find("after") != std::string::npos);
    auto third = c.call_tool("secure__echo", {{"text", "again"}});
    BOOST_TEST(third.as_object().contains("result"), json::serialize(third));
    auto g = read_file(grants);
    BOOST_TEST(count_lines(g, "token refresh_token") == 1, g);
}

BOOST_FIXTURE_TEST_CASE(a_forged_redirect_is_refused_and_stores_nothing, Fixture) {
    mcps_test::HttpUpstream up(false, {"--oauth", "--oauth-log", grants.string()});
    BOOST_REQUIRE(d.cli({"mcp", "add", "secure", "--http", up.url()}).exit_code == 0);
    int status = 0;
    auto started = d.call_json("POST", "/api/v1/resources/mcp_server/secure/actions/login",
                               R"({"redirect_uri":"http://127.0.0.1:9/callback"})", &status);
    BOOST_REQUIRE_EQUAL(status, 200);
    BOOST_TEST(std::string(started.at("result").at("authorization_url").as_string()).find("code_challenge_method=S256") !=
               std::string::npos);
    auto forged = d.call_json("POST", "/api/v1/resources/mcp_server/secure/actions/login_complete",
                              R"({"query":"code=stolen&state=not-the-one"})", &status);
    BOOST_TEST(status == 503, json::serialize(forged));
    BOOST_TEST(json::serialize(forged).find("state") != std::string::npos);
    BOOST_TEST(d.cli({"credential", "list", "--json"}).out.find("mcp_server.oauth.secure") == std::string::npos);
    BOOST_TEST(count_lines(read_file(grants), "token authorization_code") == 0);
    // Bad arguments: a redirect that is not loopback, an unknown argument, a stdio server.
    d.call_json("POST", "/api/v1/resources/mcp_server/secure/actions/login", R"({"redirect_uri":"https://evil.example/cb"})",
                &status);
    BOOST_TEST(status == 400);
    d.call_json("POST", "/api/v1/resources/mcp_server/secure/actions/login", R"({"redirect":"x"})", &status);
    BOOST_TEST(status == 400);
}
