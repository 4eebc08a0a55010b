// Supervision (G-11, G-12, G-27, D-8): crash mid-call, per-call timeout, failed starts with a
// bounded backoff, a missing runner, credential references, version negotiation.
#include <boost/test/unit_test.hpp>

#include "support.hpp"
#include "temp_dir.hpp"

#include <coffer/jsonrpc_codes.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

using namespace mcps_test;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(supervision)

BOOST_AUTO_TEST_CASE(crash_mid_call_fails_pending_calls_and_the_next_call_respawns) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto s = host.mcp_open(inst);
    long pid1 = std::stol(text_of(host.mcp_request(*s, "tools/call", tool("pid")).json));
    AsyncCall slow(*s, "tools/call", tool("slow", R"({"ms":10000})"));
    std::this_thread::sleep_for(20ms);
    auto t0 = std::chrono::steady_clock::now();
    auto crash = host.mcp_request(*s, "tools/call", tool("crash"));
    auto other = slow.wait(2s);
    BOOST_TEST((std::chrono::steady_clock::now() - t0 < 1s));  // at once, not at the timeout
    BOOST_TEST(error_reason(crash.details) == "upstream_exited");
    BOOST_TEST(error_message(crash.details).find("exited with status 3") != std::string::npos, crash.details);
    BOOST_TEST(error_reason(other.details) == "upstream_exited");
    BOOST_TEST(error_message(other.details).find("tools/call") != std::string::npos);
    BOOST_TEST(eventually([&] { return host.children().empty(); }));  // reaped and forgotten
    auto st = status_of(host, inst);
    BOOST_TEST(st.at("last_error").as_string().find("exited with status 3") != std::string::npos);
    auto next = host.mcp_request(*s, "tools/call", tool("pid"));
    BOOST_REQUIRE_MESSAGE(next.ok(), next.details);  // respawned, no backoff after a crash
    BOOST_TEST(std::stol(text_of(next.json)) != pid1);
    BOOST_TEST(status_of(host, inst).at("health").as_string() == "ok");
    // Killed by a signal from outside (kill -9 of the upstream).
    long pid2 = std::stol(text_of(next.json));
    ::kill(static_cast<pid_t>(pid2), SIGKILL);
    BOOST_TEST(eventually([&] { return host.children().empty(); }));
    BOOST_TEST(status_of(host, inst).at("last_error").as_string().find("signal 9") != std::string::npos);
    BOOST_TEST(host.mcp_request(*s, "tools/call", tool("echo", R"({"text":"again"})")).ok());
    s.reset();
}

BOOST_AUTO_TEST_CASE(per_call_timeout) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config({}, R"({"timeout_ms":300})"));
    auto s = host.mcp_open(inst);
    BOOST_TEST(host.mcp_request(*s, "tools/call", tool("echo", R"({"text":"x"})")).ok());
    auto t0 = std::chrono::steady_clock::now();
    auto r = host.mcp_request(*s, "tools/call", tool("slow", R"({"ms":5000})"));
    auto took = std::chrono::steady_clock::now() - t0;
    BOOST_TEST((took >= 250ms));
    BOOST_TEST((took < 2s));
    BOOST_TEST(error_code(r.details) == coffer::jsonrpc::code::request_timeout);
    BOOST_TEST(error_reason(r.details) == "timeout");
    BOOST_TEST(error_message(r.details).find("did not answer tools/call within 300 ms") != std::string::npos, r.details);
    // The upstream was told, and the connection is still good.
    auto stats = host.mcp_request(*s, "tools/call", tool("stats"));
    BOOST_REQUIRE(stats.ok());
    BOOST_TEST(json::parse(text_of(stats.json)).at("cancelled").as_array().size() == 1u);
    s.reset();
}

BOOST_AUTO_TEST_CASE(initialize_timeout_is_a_failed_start) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config({"--init-delay", "3000"}, R"({"timeout_ms":200})"));
    auto s = host.mcp_open(inst);
    auto r = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_code(r.details) == coffer::jsonrpc::code::request_timeout);
    BOOST_TEST(error_message(r.details).find("did not finish starting within 200 ms") != std::string::npos, r.details);
    BOOST_TEST(eventually([&] { return host.children().empty(); }));  // the stuck child was killed
    BOOST_TEST(status_of(host, inst).at("health").as_string() == "unhealthy");
    s.reset();
}

BOOST_AUTO_TEST_CASE(failed_start_marks_unhealthy_and_backs_off_without_a_retry_storm) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config({"--stderr", "boom: cannot open db", "--exit-at-start", "4"}));
    auto s = host.mcp_open(inst);
    auto r = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_reason(r.details) == "start_failed");
    BOOST_TEST(error_message(r.details).find("exited with status 4") != std::string::npos, r.details);
    BOOST_TEST(error_message(r.details).find("boom: cannot open db") != std::string::npos, r.details);
    auto st = status_of(host, inst);
    BOOST_TEST(st.at("health").as_string() == "unhealthy");
    BOOST_TEST(st.at("consecutive_failures").as_int64() == 1);
    BOOST_TEST(st.at("retry_in_ms").as_int64() > 0);
    // During the backoff: fail fast, spawn nothing; another session is refused too.
    auto other = host.mcp_open(inst, R"({"id":"other"})");
    for (int i = 0; i < 20; ++i) {
        auto fast = host.mcp_request(i % 2 ? *s : *other, "tools/call", tool("echo"));
        BOOST_TEST(error_reason(fast.details) == "unhealthy");
        BOOST_TEST(error_message(fast.details).find("next attempt in") != std::string::npos);
    }
    BOOST_TEST(status_of(host, inst).at("consecutive_failures").as_int64() == 1);
    // After the delay one attempt runs (and fails again): the delay doubles.
    std::this_thread::sleep_for(std::chrono::milliseconds(st.at("retry_in_ms").as_int64() + 20));
    auto again = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_reason(again.details) == "start_failed");
    auto st2 = status_of(host, inst);
    BOOST_TEST(st2.at("consecutive_failures").as_int64() == 2);
    BOOST_TEST(st2.at("retry_in_ms").as_int64() > st.at("retry_in_ms").as_int64());
    other.reset();
    s.reset();
}

BOOST_AUTO_TEST_CASE(runner_not_installed) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", R"({"command":"coffer-no-such-runner-xyz","args":["-y","pkg"]})");
    auto st = status_of(host, inst);  // known before any call: registration still succeeded
    BOOST_TEST(st.at("health").as_string() == "unhealthy");
    BOOST_TEST(st.at("runner_not_installed").as_bool());
    BOOST_TEST(st.at("last_error").as_string() == "runner not installed: coffer-no-such-runner-xyz");
    auto s = host.mcp_open(inst);
    auto r = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_reason(r.details) == "runner_not_installed");
    BOOST_TEST(error_message(r.details) == "runner not installed: coffer-no-such-runner-xyz");
    BOOST_TEST(host.children().empty());
    // A path that exists but cannot be executed is "not installed" too.
    coffer::test::TempDir dir("mcps-noexec");
    std::string file = (dir / "server").string();
    std::ofstream(file) << "";
    ::chmod(file.c_str(), 0644);
    auto* inst2 = host.create("mcp_server", "up2", R"({"command":")" + std::string(file) + R"("})");
    auto last = status_of(host, inst2).at("last_error");
    BOOST_TEST(last.is_string());
    if (last.is_string())
        BOOST_TEST(last.as_string() == "runner not installed: " + std::string(file) + " (not executable)");
    s.reset();
}

BOOST_AUTO_TEST_CASE(missing_interpreter_of_a_script_is_a_missing_runner) {
    coffer::test::TempDir dir("mcps-script");
    std::string script = (dir / "server").string();
    {
        std::ofstream f(script);
        f << "#!/usr/bin/env coffer-no-such-interpreter\n";
    }
    ::chmod(script.c_str(), 0755);
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", R"({"command":")" + script + R"("})");
    auto s = host.mcp_open(inst);
    auto r = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_message(r.details) == "runner not installed: coffer-no-such-interpreter", r.details);
    BOOST_TEST(status_of(host, inst).at("runner_not_installed").as_bool());
    s.reset();
}

BOOST_AUTO_TEST_CASE(credential_references_are_resolved_through_the_host_at_spawn) {
    FakeHost host(coffer_plugin_entry_v1);
    const std::string secret = "fake-host-secret-0b7d";
    // coffer-test-upstream exits at start unless $API_TOKEN has this SHA-256 (of `secret`).
    auto* inst = host.create("mcp_server", "up",
                             stdio_config({"--require-env", "API_TOKEN=fee499d656de3ec9e32124fcff9caff4a21b65d3501aaa2e00a54ea74259fdcc"},
                                          R"({"env":{"API_TOKEN":"credref:github"}})"));
    BOOST_TEST(host.resolved_refs().empty());  // nothing is resolved before a connection starts
    auto s = host.mcp_open(inst);
    auto r = host.mcp_request(*s, "tools/list");
    BOOST_TEST(error_reason(r.details) == "credential_unresolved", r.details);
    BOOST_TEST(error_message(r.details).find(
                   "credential 'github' (env API_TOKEN) does not exist; create it with `coffer credential set github`") !=
                   std::string::npos,
               r.details);
    BOOST_TEST(status_of(host, inst).at("last_error").as_string().find("credential 'github' (env API_TOKEN)") !=
               std::string::npos);
    BOOST_TEST(host.children().empty());  // never spawned
    BOOST_TEST((host.resolved_refs() == std::vector<std::string>{"github"}));

    host.set_credential("github", secret);
    auto ok = host.mcp_request(*s, "tools/list");
    BOOST_TEST(ok.ok(), ok.details);  // the upstream got the right value in its environment
    BOOST_TEST(status_of(host, inst).at("health").as_string() == "ok");
    for (auto& l : host.logs()) BOOST_TEST(l.message.find(secret) == std::string::npos);
    BOOST_TEST(json::serialize(status_of(host, inst)).find(secret) == std::string::npos);
    s.reset();
}

BOOST_AUTO_TEST_CASE(version_negotiation) {
    FakeHost host(coffer_plugin_entry_v1);
    // Counter-offer: the upstream answers with its own (older) version.
    auto* a = host.create("mcp_server", "a", stdio_config({"--max-version", "2024-11-05"}));
    // Strict: the upstream refuses newer versions with an error; Coffer steps down.
    auto* b = host.create("mcp_server", "b", stdio_config({"--max-version", "2025-03-26", "--strict-version"}));
    auto sa = host.mcp_open(a);
    auto sb = host.mcp_open(b);
    BOOST_TEST(json::parse(text_of(host.mcp_request(*sa, "tools/call", tool("stats")).json)).at("protocol_version").as_string() ==
               "2024-11-05");
    BOOST_TEST(json::parse(text_of(host.mcp_request(*sb, "tools/call", tool("stats")).json)).at("protocol_version").as_string() ==
               "2025-03-26");
    BOOST_TEST(status_of(host, b).at("protocol_version").as_string() == "2025-03-26");
    // An upstream that refuses initialize outright.
    auto* c = host.create("mcp_server", "c", stdio_config({"--fail-initialize"}));
    auto sc = host.mcp_open(c);
    auto r = host.mcp_request(*sc, "tools/list");
    BOOST_TEST(error_message(r.details).find("refused initialize") != std::string::npos, r.details);
    sa.reset();
    sb.reset();
    sc.reset();
}

BOOST_AUTO_TEST_CASE(config_change_restarts_upstreams) {
    FakeHost host(coffer_plugin_entry_v1);
    auto* inst = host.create("mcp_server", "up", stdio_config());
    auto s = host.mcp_open(inst);
    long pid = std::stol(text_of(host.mcp_request(*s, "tools/call", tool("pid")).json));
    BOOST_TEST(host.update(inst, stdio_config({"--max-version", "2025-06-18"})).ok());
    BOOST_TEST(eventually([&] { return pid_gone(pid); }));
    auto stats = host.mcp_request(*s, "tools/call", tool("stats"));
    BOOST_TEST(json::parse(text_of(stats.json)).at("protocol_version").as_string() == "2025-06-18");
    s.reset();
}

BOOST_AUTO_TEST_SUITE_END()
