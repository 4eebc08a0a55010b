// The `coffer` CLI against the real daemon: exit codes (0/1/2/3), one JSON document on stdout with
// --json, usage errors before any daemon call, detect-or-spawn (D-5) including racing CLIs, stop,
// stale daemon.json, and the client library's re-read of daemon.json on 401.
#define BOOST_TEST_MODULE cli
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

#include "client/client.hpp"
#include "client/url.hpp"
#include "client/vault.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <fstream>
#include <future>
#include <iterator>
#include <set>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string coffer_bin() { return (bin_dir() / "coffer").string(); }

// Environment for a CLI run against `vault`: nothing inherited that would change behaviour.
std::map<std::string, std::string> env_for(const fs::path& vault) {
    return {{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}, {"COFFER_NO_SPAWN", ""},
            {"COFFER_DAEMON_BIN", ""}};
}

RunResult cli(const fs::path& vault, std::vector<std::string> args,
              std::map<std::string, std::string> extra = {}) {
    args.insert(args.begin(), coffer_bin());
    auto env = env_for(vault);
    for (auto& [k, v] : extra) env[k] = v;
    return run(args, env, std::chrono::seconds(30));
}

// stdout must be exactly one JSON document.
json::value one_document(const RunResult& r) {
    boost::system::error_code ec;
    auto v = json::parse(r.out, ec);
    BOOST_TEST(!ec, "stdout is not one JSON document: [" << r.out << "] stderr: " << r.err);
    return ec ? json::value(nullptr) : v;
}

std::string error_code_of(const json::value& v) {
    if (auto* o = v.if_object(); o && o->contains("error"))
        return std::string(v.at("error").at("code").as_string());
    return "<none>";
}

int daemon_pid(const fs::path& vault) {
    auto info = coffer::client::read_daemon_info(vault);
    return info ? info->pid : 0;
}

// Daemons whose command line names this vault (detect-or-spawn must leave exactly one).
std::set<int> daemons_for(const fs::path& vault) {
    std::set<int> out;
    for (auto& e : fs::directory_iterator("/proc")) {
        std::string name = e.path().filename();
        if (name.find_first_not_of("0123456789") != std::string::npos) continue;
        std::ifstream in(e.path() / "cmdline");
        std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (auto& c : cmdline)
            if (c == '\0') c = ' ';
        if (cmdline.find("coffer-daemon") != std::string::npos &&
            cmdline.find(vault.string()) != std::string::npos) {
            std::ifstream stat(e.path() / "stat");
            std::string line;
            std::getline(stat, line);
            auto close = line.rfind(')');
            if (close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z') continue;
            out.insert(std::stoi(name));
        }
    }
    return out;
}

// Gone, or a zombie its (exited) parent left for init to reap.
bool wait_gone(int pid, std::chrono::milliseconds limit) {
    return eventually(
        [pid] {
            if (!pid_alive(pid)) return true;
            std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
            std::string line;
            std::getline(stat, line);
            auto close = line.rfind(')');
            return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
        },
        limit, std::chrono::milliseconds(20));
}

// Stops whatever daemons a test's CLI runs left behind for this vault (they are not our children).
struct SpawnedDaemonGuard {
    fs::path vault;
    ~SpawnedDaemonGuard() {
        for (int pid : daemons_for(vault)) {
            ::kill(pid, SIGTERM);
            if (!wait_gone(pid, std::chrono::seconds(10))) ::kill(pid, SIGKILL);
        }
    }
};

struct TempVault {
    TempDir dir;
    fs::path vault = dir.path() / "vault";
    SpawnedDaemonGuard guard{vault};
};

// A fixture-started daemon with the test_kind plugin, for the command tests.
struct WithDaemon : StartedDaemon {
    WithDaemon() : StartedDaemon({"test_kind"}) {}
    RunResult run_cli(std::vector<std::string> args) { return cli(d.vault(), std::move(args)); }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Without a daemon

BOOST_AUTO_TEST_CASE(help_version_and_usage_errors) {
    TempVault t;
    auto v = cli(t.vault, {"--version"});
    BOOST_TEST(v.exit_code == 0);
    BOOST_TEST(v.out.find("coffer ") == 0u);

    auto h = cli(t.vault, {"--help"});
    BOOST_TEST(h.exit_code == 0);
    for (auto word : {"daemon", "plugin", "resource", "audit", "retention", "Exit codes"})
        BOOST_TEST(h.out.find(word) != std::string::npos, word);
    auto gh = cli(t.vault, {"resource", "--help"});
    BOOST_TEST(gh.exit_code == 0);
    BOOST_TEST(gh.out.find("coffer resource create") != std::string::npos);

    BOOST_TEST(cli(t.vault, {}).exit_code == 2);
    auto bogus = cli(t.vault, {"bogus"});
    BOOST_TEST(bogus.exit_code == 2);
    BOOST_TEST(bogus.err.find("unknown command 'bogus'") != std::string::npos);
    BOOST_TEST(bogus.out.empty());
    BOOST_TEST(cli(t.vault, {"resource", "show"}).exit_code == 2);
    BOOST_TEST(cli(t.vault, {"resource", "show", "no-colon"}).exit_code == 2);
    BOOST_TEST(cli(t.vault, {"resource", "list", "--nope"}).exit_code == 2);
    BOOST_TEST(cli(t.vault, {"audit", "--limit", "x"}).exit_code == 2);
    BOOST_TEST(cli(t.vault, {"retention", "set", "audit", "soon"}).exit_code == 2);

    // Invalid JSON is a usage error found before any daemon is contacted (or started).
    auto bad = cli(t.vault, {"--json", "resource", "create", "test_kind", "x", "--config", "{\"value\":"});
    BOOST_TEST(bad.exit_code == 2);
    BOOST_TEST(error_code_of(one_document(bad)) == "USAGE");
    BOOST_TEST(bad.err.find("invalid JSON in --config") != std::string::npos);
    BOOST_TEST(!fs::exists(t.vault / "daemon.json"));
    BOOST_TEST(daemons_for(t.vault).empty());
}

BOOST_AUTO_TEST_CASE(no_daemon_and_no_spawn_is_exit_3) {
    TempVault t;
    auto s = cli(t.vault, {"daemon", "status", "--json"});
    BOOST_TEST(s.exit_code == 3);
    BOOST_TEST(one_document(s) == json::parse(R"({"status":"stopped"})"));
    BOOST_TEST(s.err.find("daemon not running") != std::string::npos);

    auto stop = cli(t.vault, {"daemon", "stop"});
    BOOST_TEST(stop.exit_code == 0);
    BOOST_TEST(stop.out.find("not running") != std::string::npos);

    auto flag = cli(t.vault, {"--no-spawn", "resource", "list", "--json"});
    BOOST_TEST(flag.exit_code == 3);
    BOOST_TEST(error_code_of(one_document(flag)) == "DAEMON_UNREACHABLE");
    BOOST_TEST(flag.err.find("coffer daemon start") != std::string::npos);

    auto env = cli(t.vault, {"plugin", "list"}, {{"COFFER_NO_SPAWN", "1"}});
    BOOST_TEST(env.exit_code == 3);
    BOOST_TEST(cli(t.vault, {"daemon", "rotate-token"}).exit_code == 3); // never spawns
    BOOST_TEST(!fs::exists(t.vault / "daemon.json"));
    BOOST_TEST(daemons_for(t.vault).empty());
}

// ---------------------------------------------------------------------------------------------
// Detect-or-spawn

BOOST_AUTO_TEST_CASE(spawns_reuses_and_stops) {
    TempVault t;
    auto first = cli(t.vault, {"plugin", "list", "--json"});
    BOOST_REQUIRE_MESSAGE(first.exit_code == 0, first.err);
    BOOST_TEST(one_document(first).as_object().contains("plugins"));
    int pid = daemon_pid(t.vault);
    BOOST_REQUIRE(pid > 0);
    BOOST_TEST(daemons_for(t.vault) == std::set<int>{pid});

    struct stat st {};
    BOOST_REQUIRE(::stat(t.vault.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0700u);

    auto status = cli(t.vault, {"daemon", "status", "--json"});
    BOOST_TEST(status.exit_code == 0);
    auto doc = one_document(status);
    BOOST_TEST(doc.at("status").as_string() == "ready");
    BOOST_TEST(doc.at("pid").to_number<int>() == pid);
    for (auto key : {"port", "started_at", "version"}) BOOST_TEST(doc.as_object().contains(key), key);

    auto start = cli(t.vault, {"daemon", "start", "--json"});
    BOOST_TEST(start.exit_code == 0);
    BOOST_TEST(one_document(start).at("spawned").as_bool() == false);
    BOOST_TEST(daemon_pid(t.vault) == pid); // reused, not restarted

    auto stop = cli(t.vault, {"daemon", "stop", "--json"});
    BOOST_TEST(stop.exit_code == 0, stop.err);
    auto sd = one_document(stop);
    BOOST_TEST(sd.at("status").as_string() == "stopped");
    BOOST_TEST(sd.at("was_running").as_bool());
    BOOST_TEST(wait_gone(pid, std::chrono::seconds(1)));
    BOOST_TEST(!fs::exists(t.vault / "daemon.json"));

    auto again = cli(t.vault, {"daemon", "start"});
    BOOST_TEST(again.exit_code == 0, again.err);
    BOOST_TEST(again.out.find("started") != std::string::npos);
    BOOST_TEST(daemon_pid(t.vault) != pid);
}

BOOST_AUTO_TEST_CASE(racing_clis_end_with_one_daemon) {
    TempVault t;
    std::vector<std::future<RunResult>> runs;
    for (int i = 0; i < 4; ++i)
        runs.push_back(std::async(std::launch::async, [&] { return cli(t.vault, {"resource", "list", "--json"}); }));
    for (auto& f : runs) {
        auto r = f.get();
        BOOST_TEST(r.exit_code == 0, r.err);
        BOOST_TEST(one_document(r).as_object().contains("resources"));
    }
    int pid = daemon_pid(t.vault);
    BOOST_TEST(pid > 0);
    // Losing daemons exit on their own (daemon.lock); give them a moment.
    BOOST_TEST(eventually([&] { return daemons_for(t.vault).size() <= 1; }));
    BOOST_TEST(daemons_for(t.vault) == std::set<int>{pid});
}

BOOST_AUTO_TEST_CASE(stale_daemon_json_is_replaced) {
    TempVault t;
    {
        Daemon d(t.vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        d.kill9(); // leaves daemon.json behind
    }
    BOOST_REQUIRE(fs::exists(t.vault / "daemon.json"));
    auto status = cli(t.vault, {"daemon", "status"});
    BOOST_TEST(status.exit_code == 3);
    auto r = cli(t.vault, {"resource", "list"});
    BOOST_TEST(r.exit_code == 0, r.err);
    BOOST_TEST(daemons_for(t.vault).size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_daemon_that_cannot_start_says_why) {
    TempVault t;
    fs::create_directories(t.vault);
    ::chmod(t.vault.c_str(), 0700);
    // Something else holds the vault's daemon lock for longer than a starting daemon waits for it.
    int fd = ::open((t.vault / "daemon.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    BOOST_REQUIRE(fd >= 0);
    BOOST_REQUIRE(::flock(fd, LOCK_EX) == 0);
    auto r = cli(t.vault, {"resource", "list"});
    ::close(fd);
    BOOST_TEST(r.exit_code != 0);
    // The daemon's own words (it stops before its log is open), not only a pointer to the log.
    BOOST_TEST(r.err.find("exited during startup: coffer-daemon: another coffer-daemon is already running") !=
                   std::string::npos,
               r.err);
    BOOST_TEST(fs::exists(t.vault / "logs" / "daemon.stderr"));
}

BOOST_AUTO_TEST_CASE(the_folder_for_a_starting_daemons_words_is_private) {
    TempVault t;
    // A "daemon" that stops at once, before a real one would have made logs/ itself.
    auto exe = t.dir.path() / "daemon.sh";
    {
        std::ofstream f(exe);
        f << "#!/bin/sh\necho 'coffer-daemon: refused for this test' >&2\nexit 1\n";
    }
    fs::permissions(exe, fs::perms::owner_all);
    auto r = cli(t.vault, {"resource", "list"}, {{"COFFER_DAEMON_BIN", exe.string()}});
    BOOST_TEST(r.exit_code != 0);
    BOOST_TEST(r.err.find("exited during startup: coffer-daemon: refused for this test") != std::string::npos, r.err);
    struct stat st{};
    BOOST_REQUIRE(::stat((t.vault / "logs").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0700u);
}

// ---------------------------------------------------------------------------------------------
// Commands against a running daemon

BOOST_FIXTURE_TEST_CASE(resource_lifecycle_json_shapes, WithDaemon) {
    auto c = run_cli({"resource", "create", "test_kind", "r1", "--config", R"({"value":5})",
                      "--description", "first", "--json"});
    BOOST_REQUIRE_MESSAGE(c.exit_code == 0, c.err);
    auto created = one_document(c);
    BOOST_TEST(created.at("resource").at("name").as_string() == "r1");
    BOOST_TEST(created.at("resource").at("description").as_string() == "first");

    auto human = run_cli({"resource", "create", "test_kind:r2", "--config", R"({"value":1})", "--disabled"});
    BOOST_TEST(human.exit_code == 0, human.err);
    BOOST_TEST(human.out.find("created test_kind:r2") != std::string::npos);

    auto list = run_cli({"resource", "list", "--kind", "test_kind", "--json"});
    BOOST_TEST(list.exit_code == 0);
    BOOST_TEST(one_document(list).at("resources").as_array().size() == 2u);
    auto table = run_cli({"resource", "list"});
    BOOST_TEST(table.out.find("KIND") != std::string::npos);
    BOOST_TEST(table.out.find("r2") != std::string::npos);

    auto show = run_cli({"resource", "show", "test_kind:r1", "--json"});
    BOOST_TEST(one_document(show).at("resource").at("config").at("value").to_number<int>() == 5);

    auto upd = run_cli({"resource", "update", "test_kind:r1", "--config", R"({"value":6})", "--json"});
    BOOST_TEST(upd.exit_code == 0, upd.err);
    BOOST_TEST(one_document(upd).at("resource").at("config").at("value").to_number<int>() == 6);

    auto dis = run_cli({"resource", "disable", "test_kind:r1", "--json"});
    BOOST_TEST(one_document(dis).at("resource").at("enabled").as_bool() == false);
    auto en = run_cli({"resource", "enable", "test_kind:r1", "--json"});
    BOOST_TEST(one_document(en).at("resource").at("enabled").as_bool() == true);

    auto act = run_cli({"resource", "action", "test_kind:r1", "echo", "--args", R"({"x":1})", "--json"});
    BOOST_TEST(act.exit_code == 0, act.err);
    BOOST_TEST(one_document(act) == json::parse(R"({"result":{"echo":{"x":1}}})"));

    auto del = run_cli({"resource", "delete", "test_kind:r2", "--json"});
    BOOST_TEST(del.exit_code == 0);
    auto deleted = one_document(del).at("deleted");
    BOOST_TEST(deleted.at("kind").as_string() == "test_kind");
    BOOST_TEST(deleted.at("name").as_string() == "r2");

    auto audit = run_cli({"audit", "--limit", "3", "--json"});
    BOOST_TEST(audit.exit_code == 0);
    auto events = one_document(audit).at("events").as_array();
    BOOST_TEST(events.size() == 3u);
    BOOST_TEST(events[0].at("actor").as_string() == "cli");
    BOOST_TEST(events[0].at("event_type").as_string() == "resource_deleted");
}

BOOST_FIXTURE_TEST_CASE(daemon_errors_are_exit_1, WithDaemon) {
    auto ok = run_cli({"resource", "create", "test_kind", "dup", "--config", R"({"value":1})"});
    BOOST_REQUIRE(ok.exit_code == 0);
    auto dup = run_cli({"resource", "create", "test_kind", "dup", "--config", R"({"value":1})"});
    BOOST_TEST(dup.exit_code == 1);
    BOOST_TEST(dup.err.find("[CONFLICT]") != std::string::npos, dup.err);
    BOOST_TEST(dup.out.empty());

    auto invalid = run_cli({"resource", "create", "test_kind", "bad", "--config", R"({"value":"x"})"});
    BOOST_TEST(invalid.exit_code == 1);
    BOOST_TEST(invalid.err.find("[VALIDATION_FAILED]") != std::string::npos, invalid.err);
    BOOST_TEST(invalid.err.find("/config/value: ") != std::string::npos, invalid.err);

    auto invalid_json = run_cli({"--json", "resource", "create", "test_kind", "bad", "--config", R"({"value":"x"})"});
    BOOST_TEST(invalid_json.exit_code == 1);
    auto env = one_document(invalid_json);
    BOOST_TEST(error_code_of(env) == "VALIDATION_FAILED");
    BOOST_TEST(env.at("error").at("details").at("errors").as_array().size() >= 1u);

    auto missing = run_cli({"resource", "show", "test_kind:nope", "--verbose"});
    BOOST_TEST(missing.exit_code == 1);
    BOOST_TEST(missing.err.find("[NOT_FOUND]") != std::string::npos);
    BOOST_TEST(missing.err.find("trace: ") != std::string::npos);

    auto unknown = run_cli({"resource", "create", "no_such_kind", "x", "--json"});
    BOOST_TEST(unknown.exit_code == 1);
    BOOST_TEST(error_code_of(one_document(unknown)) == "UNKNOWN_KIND");
}

BOOST_FIXTURE_TEST_CASE(plugins_retention_and_status, WithDaemon) {
    auto p = run_cli({"plugin", "list", "--json"});
    BOOST_TEST(p.exit_code == 0);
    bool loaded = false;
    auto plugins = one_document(p);
    for (auto& e : plugins.at("plugins").as_array())
        if (e.at("name").as_string() == "test_kind") loaded = e.at("status").as_string() == "loaded";
    BOOST_TEST(loaded);
    BOOST_TEST(run_cli({"plugin", "list"}).out.find("test_kind") != std::string::npos);

    auto set = run_cli({"retention", "set", "audit", "30", "--json"});
    BOOST_TEST(set.exit_code == 0, set.err);
    BOOST_TEST(one_document(set) == json::parse(R"({"retention":{"table":"audit","days":30}})"));
    auto forever = run_cli({"retention", "set", "audit", "forever", "--json"});
    BOOST_TEST(one_document(forever).at("retention").at("days").is_null());
    auto show = run_cli({"retention", "show", "--json"});
    BOOST_TEST(one_document(show).as_object().contains("retention"));

    auto st = run_cli({"daemon", "status"});
    BOOST_TEST(st.exit_code == 0);
    BOOST_TEST(st.out.find(std::to_string(d.pid())) != std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(token_rotation, WithDaemon) {
    auto stale = coffer::client::read_daemon_info(d.vault());
    BOOST_REQUIRE(stale);

    auto rot = run_cli({"daemon", "rotate-token", "--json"});
    BOOST_TEST(rot.exit_code == 0, rot.err);
    BOOST_TEST(one_document(rot) == json::parse(R"({"rotated":true})"));
    d.reload_state();
    BOOST_TEST(d.token() != stale->token);

    // The next CLI run reads the new token.
    BOOST_TEST(run_cli({"resource", "list"}).exit_code == 0);

    // A client holding the old token gets 401, re-reads daemon.json and retries once.
    coffer::client::Client client(d.vault(), stale.value());
    auto reply = client.call("GET", coffer::client::api_path({"resources"}));
    BOOST_TEST(reply.ok(), reply.error.message);
    BOOST_TEST(reply.status == 200);
    BOOST_TEST(client.info().token == d.token());
}
