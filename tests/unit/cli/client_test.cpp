// The CLI's client library (cli/client) without a daemon: REST targets and their encoding, the
// error envelope both ways (and what a body that is not one becomes), daemon.json reading, the
// vault folder, and daemon discovery when there is no daemon or only a stale daemon.json.
#define BOOST_TEST_MODULE cli_client
#include <boost/test/unit_test.hpp>

#include "client/codes.hpp"
#include "client/errors.hpp"
#include "client/http.hpp"
#include "client/locator.hpp"
#include "client/url.hpp"
#include "client/vault.hpp"
#include "temp_dir.hpp"

#include <boost/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

using namespace coffer;
using namespace coffer::client;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

void write_daemon_json(const fs::path& vault, const json::value& v) {
    fs::create_directories(vault);
    std::ofstream(vault / "daemon.json") << json::serialize(v);
}

// A pid that certainly names no process: a child that has exited and been reaped.
int dead_pid() {
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

// A loopback port nothing listens on (bound, never listened, closed at the end of the test).
std::uint16_t closed_port() {
    // The kernel does not hand out a port in the ephemeral range that is bound, so binding one
    // keeps it closed for the test's duration; connecting to it is refused.
    static int fd = -1;
    static std::uint16_t port = 0;
    if (fd < 0) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
    }
    return port;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(url)

BOOST_AUTO_TEST_CASE(segments_are_percent_encoded) {
    BOOST_TEST(encode_component("AZaz09-_.~") == "AZaz09-_.~");
    BOOST_TEST(encode_component("a/b c?d#e%") == "a%2Fb%20c%3Fd%23e%25");
    BOOST_TEST(encode_component("\xc3\xa9") == "%C3%A9");
    // A '/' in a name cannot add a path segment.
    BOOST_TEST(api_path({"resources", "mcp_server", "../x"}) == "/api/v1/resources/mcp_server/..%2Fx");
    BOOST_TEST(api_path({}) == "/api/v1");
}

BOOST_AUTO_TEST_CASE(empty_query_values_are_skipped) {
    BOOST_TEST(with_query("/api/v1/audit", {{"limit", "5"}, {"server", ""}, {"q", "a&b=c"}}) ==
               "/api/v1/audit?limit=5&q=a%26b%3Dc");
    BOOST_TEST(with_query("/p", {{"a", ""}}) == "/p");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(errors)

BOOST_AUTO_TEST_CASE(a_well_formed_envelope_is_taken_as_is) {
    auto e = parse_error_envelope(
        409, R"({"error":{"code":"CONFLICT","message":"exists","details":{"pointer":"/name"}}})");
    BOOST_TEST(e.code == "CONFLICT");
    BOOST_TEST(e.message == "exists");
    BOOST_TEST(e.details.at("pointer").as_string() == "/name");
    // The envelope's own code wins over the status's.
    BOOST_TEST(parse_error_envelope(500, R"({"error":{"code":"NOT_FOUND","message":"m"}})").code == "NOT_FOUND");
}

BOOST_AUTO_TEST_CASE(anything_else_becomes_the_statuss_code) {
    auto html = parse_error_envelope(404, "<html>not here</html>");
    BOOST_TEST(html.code == "NOT_FOUND");
    BOOST_TEST(html.message == "the daemon answered HTTP 404 without an error envelope");
    BOOST_TEST(parse_error_envelope(503, "").code == "UNAVAILABLE");
    BOOST_TEST(parse_error_envelope(599, "{}").code == "INTERNAL");
    BOOST_TEST(parse_error_envelope(418, "[]").code == code::bad_response);
    // An envelope without a code or message is completed from the status.
    auto partial = parse_error_envelope(401, R"({"error":{}})");
    BOOST_TEST(partial.code == "UNAUTHORIZED");
    BOOST_TEST(partial.message == "the daemon answered HTTP 401");
}

BOOST_AUTO_TEST_CASE(statuses_map_to_the_rest_contracts_codes) {
    BOOST_TEST(code_for_status(400) == "BAD_REQUEST");
    BOOST_TEST(code_for_status(403) == "FORBIDDEN");
    BOOST_TEST(code_for_status(413) == "PAYLOAD_TOO_LARGE");
    BOOST_TEST(code_for_status(501) == "UNSUPPORTED");
    BOOST_TEST(code_for_status(502) == "PLUGIN_ERROR");
    BOOST_TEST(code_for_status(302) == code::bad_response);
}

BOOST_AUTO_TEST_CASE(an_error_round_trips_through_its_envelope) {
    auto e = core::Error::make("VALIDATION_FAILED", "bad config", json::object{{"errors", json::array{}}});
    auto env = error_envelope(e);
    BOOST_TEST(env.at("error").at("code").as_string() == "VALIDATION_FAILED");
    auto back = error_from_json(400, env);
    BOOST_TEST(back.code == e.code);
    BOOST_TEST(back.message == e.message);
    BOOST_TEST(back.details == e.details);
    // No details, no member.
    auto bare = error_envelope(core::Error::make("NOT_FOUND", "gone"));
    BOOST_TEST(!bare.at("error").as_object().contains("details"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(vault)

BOOST_AUTO_TEST_CASE(daemon_json_is_read_with_every_field) {
    test::TempDir dir("client");
    write_daemon_json(dir.path(), json::object{{"pid", 4242}, {"port", 51234}, {"token", "t0k"}, {"version", "1.0"},
                                               {"started_at", "2026-01-01T00:00:00Z"}, {"vault", dir.path().string()},
                                               {"mcp_socket", "/tmp/s.sock"}});
    auto info = read_daemon_info(dir.path());
    BOOST_REQUIRE(info.ok());
    BOOST_TEST(info->pid == 4242);
    BOOST_TEST(info->port == 51234);
    BOOST_TEST(info->token == "t0k");
    BOOST_TEST(info->version == "1.0");
    BOOST_TEST(info->mcp_socket == "/tmp/s.sock");
    BOOST_TEST(daemon_json_path(dir.path()) == dir / "daemon.json");
}

BOOST_AUTO_TEST_CASE(missing_broken_or_incomplete_daemon_json_is_refused) {
    test::TempDir dir("client");
    auto missing = read_daemon_info(dir.path());
    BOOST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.error().code == "NOT_FOUND");
    std::ofstream(dir / "daemon.json") << R"({"pid":1,"port":)";  // half-written
    BOOST_TEST(read_daemon_info(dir.path()).error().code == "INTERNAL");
    for (auto bad : {json::object{{"pid", 1}, {"port", 70000}, {"token", "t"}},
                     json::object{{"pid", 0}, {"port", 1}, {"token", "t"}},
                     json::object{{"pid", 1}, {"port", 1}, {"token", ""}},
                     json::object{{"pid", "1"}, {"port", 1}, {"token", "t"}}}) {
        write_daemon_json(dir.path(), bad);
        auto r = read_daemon_info(dir.path());
        BOOST_TEST(!r.ok(), json::serialize(bad));
    }
}

BOOST_AUTO_TEST_CASE(the_vault_folder_is_created_private) {
    test::TempDir dir("client");
    auto vault = dir / "a" / "vault";
    BOOST_REQUIRE(ensure_vault_dir(vault).ok());
    struct stat st {};
    BOOST_REQUIRE(::stat(vault.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0700u);
    BOOST_TEST(ensure_vault_dir(vault).ok());  // already there
    std::ofstream(dir / "file") << "x";
    BOOST_TEST(!ensure_vault_dir(dir / "file").ok());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(discovery)

BOOST_AUTO_TEST_CASE(no_daemon_json_is_absent) {
    test::TempDir dir("client");
    auto p = probe_daemon(dir.path());
    BOOST_TEST((p.state == Probe::State::absent));
    BOOST_TEST(!p.info.has_value());
}

BOOST_AUTO_TEST_CASE(a_stale_daemon_json_is_absent_and_says_why) {
    test::TempDir dir("client");
    int pid = dead_pid();
    write_daemon_json(dir.path(), json::object{{"pid", pid}, {"port", closed_port()}, {"token", "t"}});
    auto p = probe_daemon(dir.path());
    BOOST_TEST((p.state == Probe::State::absent));
    BOOST_REQUIRE(p.info.has_value());
    BOOST_TEST(p.info->pid == pid);
    BOOST_TEST(p.reason == "daemon.json names pid " + std::to_string(pid) + ", which is not running");
}

BOOST_AUTO_TEST_CASE(a_reused_pid_is_not_taken_for_the_daemon) {
    // This test process is alive but is no coffer-daemon: daemon.json is left over.
    test::TempDir dir("client");
    write_daemon_json(dir.path(), json::object{{"pid", ::getpid()}, {"port", closed_port()}, {"token", "t"}});
    auto p = probe_daemon(dir.path());
    BOOST_TEST((p.state == Probe::State::absent));
    BOOST_TEST(p.reason.find("not a coffer-daemon") != std::string::npos, p.reason);
}

BOOST_AUTO_TEST_CASE(without_spawning_no_daemon_is_unreachable) {
    test::TempDir dir("client");
    EnsureOptions opt;
    opt.allow_spawn = false;
    auto r = ensure_daemon(dir / "vault", opt);
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().code == code::daemon_unreachable);
}

BOOST_AUTO_TEST_CASE(a_refused_connection_is_unreachable_not_an_exception) {
    HttpRequest req;
    req.port = closed_port();
    auto r = http_send(req, {std::chrono::milliseconds(500), std::chrono::milliseconds(500)});
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().code == code::daemon_unreachable);
    HttpResponse res;
    res.headers = {{"Content-Type", "application/json"}, {"X-Coffer-Trace", "abc"}};
    BOOST_TEST(res.header("x-coffer-trace").value_or("") == "abc");
    BOOST_TEST(!res.header("retry-after").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
