// The daemon's own surface: readiness, daemon.json, auth, Host/Origin guard, trace ids, token
// rotation, one daemon per vault, clean shutdown, schema-version refusal.
#define BOOST_TEST_MODULE daemon
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

#include <sqlite3.h>
#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}
std::string error_code(const HttpResult& r) {
    auto v = parse(r.body);
    if (!v.is_object() || !v.as_object().contains("error")) return "<no envelope>";
    return std::string(v.at("error").at("code").as_string());
}
}  // namespace

BOOST_AUTO_TEST_CASE(ready_status_and_state_file) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    int status = 0;
    auto s = d.call_json("GET", "/api/v1/daemon/status", "", &status);
    BOOST_TEST(status == 200);
    BOOST_TEST(s.at("status").as_string() == "ready");
    BOOST_TEST(s.at("port").as_int64() == d.port());
    BOOST_TEST(s.at("pid").as_int64() == d.pid());
    BOOST_TEST(!s.at("started_at").as_string().empty());
    BOOST_TEST(!s.at("version").as_string().empty());

    struct stat st {};
    BOOST_REQUIRE(::stat((d.vault() / "daemon.json").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    BOOST_REQUIRE(::stat(d.vault().c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0700u);
    auto state = parse(slurp(d.vault() / "daemon.json"));
    for (auto key : {"pid", "port", "token", "version", "started_at"}) BOOST_TEST(state.as_object().contains(key));
    BOOST_TEST(state.at("token").as_string().size() >= 32u);
    BOOST_TEST(fs::exists(d.vault() / "coffer.db"));
    BOOST_TEST(fs::exists(d.vault() / "logs" / "daemon.log"));
}

BOOST_AUTO_TEST_CASE(token_required_and_trace_id_logged) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto none = http_request(d.port(), "GET", "/api/v1/daemon/status");
    BOOST_TEST(none.status == 401);
    BOOST_TEST(error_code(none) == "UNAUTHORIZED");
    auto wrong = http_request(d.port(), "GET", "/api/v1/resources", "", {{"X-Coffer-Token", std::string(64, 'a')}});
    BOOST_TEST(wrong.status == 401);
    auto ok = d.call("GET", "/api/v1/resources");
    BOOST_TEST(ok.status == 200);
    BOOST_REQUIRE(ok.headers.count("x-coffer-trace"));
    auto trace = ok.headers.at("x-coffer-trace");
    BOOST_TEST(trace.size() == 16u);
    BOOST_REQUIRE(none.headers.count("x-coffer-trace"));
    BOOST_TEST(none.headers.at("x-coffer-trace") != trace);
    // The same id is in the daemon's log line for that request (logs flush per line).
    auto logged = [&] {
        std::istringstream lines(slurp(d.vault() / "logs" / "daemon.log"));
        for (std::string line; std::getline(lines, line);)
            if (string_at(line, "/trace") == trace) return true;
        return false;
    };
    BOOST_TEST(eventually(logged));
    auto log = slurp(d.vault() / "logs" / "daemon.log");
    // Never the token in the log.
    BOOST_TEST(log.find(d.token()) == std::string::npos);
}

BOOST_AUTO_TEST_CASE(host_and_origin_guard) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto evil_host = http_request(d.port(), "GET", "/api/v1/daemon/status", "",
                                  {{"X-Coffer-Token", d.token()}, {"Host", "evil.example:38470"}});
    BOOST_TEST(evil_host.status == 403);
    BOOST_TEST(error_code(evil_host) == "FORBIDDEN");
    auto evil_origin = http_request(d.port(), "GET", "/api/v1/daemon/status", "",
                                    {{"X-Coffer-Token", d.token()}, {"Origin", "http://evil.example"}});
    BOOST_TEST(evil_origin.status == 403);
    auto rebinding = http_request(d.port(), "GET", "/api/v1/daemon/status", "",
                                  {{"X-Coffer-Token", d.token()}, {"Host", "127.0.0.1.evil.example"}});
    BOOST_TEST(rebinding.status == 403);
    auto local_origin = http_request(d.port(), "GET", "/api/v1/daemon/status", "",
                                     {{"X-Coffer-Token", d.token()}, {"Origin", "http://localhost:3000"},
                                      {"Host", "localhost:" + std::to_string(d.port())}});
    BOOST_TEST(local_origin.status == 200);
}

BOOST_AUTO_TEST_CASE(unknown_routes_and_methods) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto r = d.call("GET", "/api/v1/nope");
    BOOST_TEST(r.status == 404);
    BOOST_TEST(error_code(r) == "NOT_FOUND");
    auto m = d.call("DELETE", "/api/v1/daemon/status");
    BOOST_TEST(m.status == 405);
}

BOOST_AUTO_TEST_CASE(token_rotation) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto old = d.token();
    auto r = d.call("POST", "/api/v1/daemon/rotate-token");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(http_request(d.port(), "GET", "/api/v1/daemon/status", "", {{"X-Coffer-Token", old}}).status == 401);
    d.reload_state();
    BOOST_TEST(d.token() != old);
    int status = 0;
    auto audit = d.call_json("GET", "/api/v1/audit?limit=10", "", &status);
    BOOST_TEST(status == 200);
    bool found = false;
    for (auto& e : audit.at("events").as_array()) found |= e.at("event_type").as_string() == "token_rotated";
    BOOST_TEST(found);
}

BOOST_AUTO_TEST_CASE(one_daemon_per_vault) {
    TempDir dir;
    auto vault = dir.path() / "vault";
    fs::create_directories(vault);
    std::map<std::string, std::string> env{{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}};
    auto a = spawn({(bin_dir() / "coffer-daemon").string()}, env, dir.path() / "a.log");
    auto b = spawn({(bin_dir() / "coffer-daemon").string()}, env, dir.path() / "b.log");
    // Exactly one exits (code 2: already running, after waiting up to 2 s for a lock that might
    // be on its way out), the other serves.
    int rc_a = wait_pid(a, std::chrono::milliseconds(5000));
    int rc_b = rc_a == -2 ? wait_pid(b, std::chrono::milliseconds(5000)) : -3;
    BOOST_TEST(((rc_a == 2 && pid_alive(b)) || (rc_b == 2 && pid_alive(a))));
    for (auto p : {a, b})
        if (pid_alive(p)) {
            ::kill(p, SIGTERM);
            BOOST_TEST(wait_pid(p, std::chrono::seconds(10)) == 0);
        }
    auto log = slurp(dir.path() / (rc_a == 2 ? "a.log" : "b.log"));
    BOOST_TEST(log.find("already running") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(clean_shutdown_on_sigterm_and_via_api) {
    TempDir dir;
    Daemon d(dir.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    BOOST_TEST(d.stop() == 0);
    BOOST_TEST(!fs::exists(d.vault() / "daemon.json"));
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto pid = d.pid();
    auto r = d.call("POST", "/api/v1/daemon/stop");
    BOOST_TEST(r.status == 202);
    BOOST_TEST(wait_pid(pid, std::chrono::seconds(10)) == 0);
    BOOST_TEST(!fs::exists(d.vault() / "daemon.json"));
}

BOOST_AUTO_TEST_CASE(refuses_newer_schema) {
    TempDir dir;
    auto vault = dir.path() / "vault";
    {
        Daemon d(vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        d.stop();
    }
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open((vault / "coffer.db").c_str(), &db) == SQLITE_OK);
    BOOST_REQUIRE(sqlite3_exec(db, "PRAGMA user_version = 999", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto r = run({(bin_dir() / "coffer-daemon").string()}, {{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}},
                 std::chrono::seconds(10));
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(r.err.find("newer than this coffer-daemon") != std::string::npos);
    BOOST_TEST(!fs::exists(vault / "daemon.json"));
}
