// Credentials in the real daemon: the REST endpoints of G-41 and the CLI, deletes blocked by
// references, MasterKeyMissing at startup (G-40), and credref values of mcp_server configs
// resolved at spawn/connect (G-13) — with the upstream checking what it received.
#define BOOST_TEST_MODULE integration_credentials
#include <boost/test/unit_test.hpp>

#include "cred_support.hpp"
#include "support.hpp"  // mcps_test (tests/unit/mcp_server): HttpUpstream, stdio_config

#include <sys/stat.h>

#include <filesystem>

using namespace coffer::test;
using namespace cred_test;
namespace fs = std::filesystem;

namespace {

std::string audit_text(Vault& v) { return json::serialize(v.req("GET", "/api/v1/audit?limit=1000", "", 200)); }
// Whether the audit log has an event of `type`.
bool audited(Vault& v, const std::string& type) {
    return coffer::test::has_member(v.req("GET", "/api/v1/audit?limit=1000", "", 200), "/events", "event_type", type);
}

std::vector<std::string> pointers(const json::value& v) {
    std::vector<std::string> out;
    for (auto& e : v.at("error").at("details").at("errors").as_array()) out.emplace_back(e.at("pointer").as_string());
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rest_set_exists_get_list_delete) {
    Vault v;
    const std::string secret = "rest-secret-8c1f2e";
    BOOST_TEST(!fs::exists(v.d.vault() / "master.key"));
    auto created = v.set("api.key", secret, 201);
    BOOST_TEST(created.at("created").as_bool());
    BOOST_TEST(created.at("credential").at("ref").as_string() == "api.key");
    BOOST_TEST(json::serialize(created).find(secret) == std::string::npos);
    struct stat st {};
    BOOST_REQUIRE(::stat((v.d.vault() / "master.key").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);

    auto replaced = v.set("api.key", secret + "-2", 200);
    BOOST_TEST(!replaced.at("created").as_bool());
    BOOST_TEST(v.req("GET", "/api/v1/credentials/api.key/exists", "", 200).at("exists").as_bool());
    BOOST_TEST(!v.req("GET", "/api/v1/credentials/nope/exists", "", 200).at("exists").as_bool());
    auto list = v.req("GET", "/api/v1/credentials", "", 200);
    BOOST_TEST(list.at("credentials").as_array().size() == 1u);
    BOOST_TEST(json::serialize(list).find(secret) == std::string::npos);
    BOOST_TEST(!audited(v, "credential_read"));  // nothing read yet

    auto got = v.req("GET", "/api/v1/credentials/api.key", "", 200);
    BOOST_TEST(got.at("credential").at("value").as_string() == secret + "-2");
    BOOST_TEST(audited(v, "credential_read"));
    BOOST_TEST(audited(v, "credential_set"));
    BOOST_TEST(audited(v, "master_key_created"));
    BOOST_TEST(audit_text(v).find(secret) == std::string::npos);  // the secret nowhere in it

    BOOST_TEST(v.req("DELETE", "/api/v1/credentials/api.key", "", 200).at("deleted").at("ref").as_string() == "api.key");
    v.req("GET", "/api/v1/credentials/api.key", "", 404);
    v.req("DELETE", "/api/v1/credentials/api.key", "", 404);
    BOOST_TEST(audited(v, "credential_deleted"));
}

BOOST_AUTO_TEST_CASE(rest_bad_input_is_refused_and_changes_nothing) {
    Vault v;
    auto bad_ref = v.set("a/b", "x", 400);
    BOOST_TEST(bad_ref.at("error").at("code").as_string() == "VALIDATION_FAILED");
    BOOST_TEST(pointers(bad_ref) == std::vector<std::string>{"/ref"});
    auto empty = v.set("ok", "", 400);
    BOOST_TEST(pointers(empty) == std::vector<std::string>{"/value"});
    auto extra = v.req("POST", "/api/v1/credentials", R"({"ref":"ok","value":"v","note":"x"})", 400);
    BOOST_TEST(pointers(extra) == std::vector<std::string>{"/note"});
    auto number = v.req("POST", "/api/v1/credentials", R"({"ref":"ok","value":5})", 400);
    BOOST_TEST(pointers(number) == std::vector<std::string>{"/value"});
    auto broken = v.req("POST", "/api/v1/credentials", R"({"ref":"ok","value":"unterminated)", 400);
    BOOST_TEST(broken.at("error").at("code").as_string() == "BAD_REQUEST");
    BOOST_TEST(json::serialize(broken).find("unterminated") == std::string::npos);
    v.req("GET", "/api/v1/credentials/-x/exists", "", 400);
    BOOST_TEST(v.req("GET", "/api/v1/credentials", "", 200).at("credentials").as_array().empty());
    BOOST_TEST(!fs::exists(v.d.vault() / "master.key"));  // nothing was stored, so no key either
    // No token, no service.
    auto anon = http_request(v.d.port(), "GET", "/api/v1/credentials/ok", "", {});
    BOOST_TEST(anon.status == 401);
}

BOOST_AUTO_TEST_CASE(cli_set_get_exists_list_delete) {
    Vault v;
    auto set = v.d.cli({"credential", "set", "cli-tok", "--value-stdin"}, "cli-secret-4d2a\n");
    BOOST_TEST(set.exit_code == 0, set.err);
    BOOST_TEST(set.out == "credential 'cli-tok' created\n");
    auto setj = v.d.cli({"credential", "set", "cli-tok", "--value-stdin", "--json"}, "cli-secret-4d2a");
    BOOST_TEST(setj.exit_code == 0, setj.err);
    BOOST_TEST(!parse(setj.out).at("created").as_bool());
    BOOST_TEST(setj.out.find("cli-secret") == std::string::npos);

    auto ex = v.d.cli({"credential", "exists", "cli-tok", "--json"});
    BOOST_TEST(ex.exit_code == 0);
    BOOST_TEST(json::serialize(parse(ex.out)) == R"({"ref":"cli-tok","exists":true})");
    auto no = v.d.cli({"credential", "exists", "other"});
    BOOST_TEST(no.exit_code == 0);
    BOOST_TEST(no.out == "credential 'other' does not exist\n");

    auto get = v.d.cli({"credential", "get", "cli-tok"});
    BOOST_TEST(get.exit_code == 0, get.err);
    BOOST_TEST(get.out == "cli-secret-4d2a\n");  // the trailing newline of stdin was dropped
    auto getj = v.d.cli({"credential", "get", "cli-tok", "--json"});
    BOOST_TEST(parse(getj.out).at("credential").at("value").as_string() == "cli-secret-4d2a");

    auto list = v.d.cli({"credential", "list", "--json"});
    BOOST_TEST(list.exit_code == 0);
    BOOST_TEST(parse(list.out).at("credentials").at(0).at("ref").as_string() == "cli-tok");
    BOOST_TEST(list.out.find("cli-secret") == std::string::npos);

    // A value is never taken from the command line, and stdin must be asked for explicitly.
    auto no_stdin = v.d.cli({"credential", "set", "x"}, "value");
    BOOST_TEST(no_stdin.exit_code == 2);
    BOOST_TEST(no_stdin.err.find("--value-stdin") != std::string::npos, no_stdin.err);
    auto extra_arg = v.d.cli({"credential", "set", "x", "value"});
    BOOST_TEST(extra_arg.exit_code == 2);
    auto bad = v.d.cli({"credential", "set", "bad/ref", "--value-stdin"}, "v");
    BOOST_TEST(bad.exit_code == 1);
    BOOST_TEST(bad.err.find("VALIDATION_FAILED") != std::string::npos, bad.err);

    auto del = v.d.cli({"credential", "delete", "cli-tok"});
    BOOST_TEST(del.exit_code == 0, del.err);
    auto again = v.d.cli({"credential", "delete", "cli-tok", "--json"});
    BOOST_TEST(again.exit_code == 1);
    BOOST_TEST(parse(again.out).at("error").at("code").as_string() == "NOT_FOUND");
}

BOOST_AUTO_TEST_CASE(a_referenced_credential_cannot_be_deleted) {
    Vault v;
    v.set("shared", "shared-secret-77");
    v.create_server("web", mcps_test::http_config("http://127.0.0.1:9/mcp", R"({"headers":{"Authorization":"credref:shared"}})"));
    v.create_server("tool", mcps_test::stdio_config({}, R"({"env":{"TOKEN":"credref:shared"}})"));
    auto r = v.req("DELETE", "/api/v1/credentials/shared", "", 409);
    BOOST_TEST(r.at("error").at("code").as_string() == "CONFLICT");
    BOOST_TEST(r.at("error").at("message").as_string().find("mcp_server:tool, mcp_server:web") != std::string::npos,
               json::serialize(r));
    BOOST_TEST(json::serialize(r.at("error").at("details").at("resources")) == R"(["mcp_server:tool","mcp_server:web"])");
    BOOST_TEST(json::serialize(r).find("shared-secret") == std::string::npos);
    auto cli = v.d.cli({"credential", "delete", "shared"});
    BOOST_TEST(cli.exit_code == 1);
    BOOST_TEST(cli.err.find("CONFLICT") != std::string::npos, cli.err);
    BOOST_TEST(v.req("GET", "/api/v1/credentials/shared/exists", "", 200).at("exists").as_bool());
    // Once no resource refers to it, it goes.
    v.req("DELETE", "/api/v1/resources/mcp_server/web", "", 200);
    v.req("PATCH", "/api/v1/resources/mcp_server/tool", R"({"config":{"command":")" + mcps_test::upstream_path() + R"("}})", 200);
    v.req("DELETE", "/api/v1/credentials/shared", "", 200);
}

BOOST_AUTO_TEST_CASE(ciphertext_without_the_master_key_refuses_to_start) {
    TempDir dir;
    auto vault = dir.path() / "vault";
    {
        Daemon d(vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        int status = 0;
        d.call_json("POST", "/api/v1/credentials", R"({"ref":"keep","value":"keep-secret-31"})", &status);
        BOOST_REQUIRE(status == 201);
        BOOST_REQUIRE(d.stop() == 0);
    }
    fs::rename(vault / "master.key", dir.path() / "master.key.saved");
    auto r = run({(bin_dir() / "coffer-daemon").string()}, {{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}},
                 std::chrono::seconds(20));
    BOOST_TEST(r.exit_code != 0);
    BOOST_TEST(r.exit_code != -1);  // it exited by itself
    BOOST_TEST(r.err.find("MasterKeyMissing") != std::string::npos, r.err);
    BOOST_TEST(r.err.find((vault / "master.key").string()) != std::string::npos, r.err);
    BOOST_TEST(!fs::exists(vault / "daemon.json"));
    BOOST_TEST(!fs::exists(vault / "master.key"));  // no new key was made behind the user's back
    // The CLI reports it as an unreachable daemon that failed to start.
    auto cli = run({(bin_dir() / "coffer").string(), "credential", "exists", "keep"},
                   {{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}}, std::chrono::seconds(30));
    BOOST_TEST(cli.exit_code == 3, cli.out << cli.err);

    fs::rename(dir.path() / "master.key.saved", vault / "master.key");
    Daemon d(vault);
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    int status = 0;
    auto got = d.call_json("GET", "/api/v1/credentials/keep", "", &status);
    BOOST_TEST(status == 200);
    BOOST_TEST(got.at("credential").at("value").as_string() == "keep-secret-31");
}

BOOST_AUTO_TEST_CASE(stdio_env_credref_is_resolved_at_spawn) {
    Vault v;
    const std::string secret = "stdio-secret-5e9b";
    v.create_server("tool", mcps_test::stdio_config({"--require-env", "API_TOKEN=" + sha256_hex(secret)},
                                                    R"({"env":{"API_TOKEN":"credref:tool-token"}})"));
    // Not there yet: a clear error in the test result and the status, no spawn.
    auto t = v.req("POST", "/api/v1/resources/mcp_server/tool/actions/test", "{}", 200);
    BOOST_TEST(!t.at("result").at("ok").as_bool());
    BOOST_TEST(t.at("result").at("error").as_string().find(
                   "credential 'tool-token' (env API_TOKEN) does not exist; create it with `coffer credential set tool-token`") !=
                   std::string::npos,
               json::serialize(t));
    auto st = v.server_status("tool");
    BOOST_TEST(st.at("health").as_string() == "unhealthy");
    BOOST_TEST(st.at("last_error").as_string().find("credential 'tool-token' (env API_TOKEN) does not exist") !=
               std::string::npos);

    v.set("tool-token", secret);
    auto ok = v.req("POST", "/api/v1/resources/mcp_server/tool/actions/test", "{}", 200);
    BOOST_TEST(ok.at("result").at("ok").as_bool(), json::serialize(ok));  // the upstream saw the right value
    BOOST_TEST(v.server_status("tool").at("health").as_string() == "ok");

    // A changed credential takes effect at the next spawn; the upstream notices a wrong one.
    v.set("tool-token", secret + "-wrong", 200);
    auto wrong = v.req("POST", "/api/v1/resources/mcp_server/tool/actions/test", "{}", 200);
    BOOST_TEST(!wrong.at("result").at("ok").as_bool());
    BOOST_TEST(json::serialize(wrong).find(secret) == std::string::npos);
    BOOST_TEST(audited(v, "credential_resolved"));
}

BOOST_AUTO_TEST_CASE(http_header_credref_is_resolved_at_connect) {
    Vault v;
    const std::string secret = "Bearer http-secret-a71c";
    mcps_test::HttpUpstream up(false, {"--require-header", "Authorization=" + sha256_hex(secret)});
    v.create_server("web", mcps_test::http_config(up.url(), R"({"headers":{"Authorization":"credref:web-token"}})"));
    auto t = v.req("POST", "/api/v1/resources/mcp_server/web/actions/test", "{}", 200);
    BOOST_TEST(!t.at("result").at("ok").as_bool());
    BOOST_TEST(t.at("result").at("error").as_string().find("credential 'web-token' (header Authorization) does not exist") !=
               std::string::npos,
               json::serialize(t));
    v.set("web-token", secret);
    auto ok = v.req("POST", "/api/v1/resources/mcp_server/web/actions/test", "{}", 200);
    BOOST_TEST(ok.at("result").at("ok").as_bool(), json::serialize(ok));
    v.set("web-token", "Bearer not-it", 200);
    auto wrong = v.req("POST", "/api/v1/resources/mcp_server/web/actions/test", "{}", 200);
    BOOST_TEST(!wrong.at("result").at("ok").as_bool());
    BOOST_TEST(wrong.at("result").at("error").as_string().find("401") != std::string::npos, json::serialize(wrong));
    BOOST_TEST(json::serialize(wrong).find("not-it") == std::string::npos);
    // A header value with a line break would smuggle a header: refused before connecting.
    v.set("web-token", "Bearer x\r\nX-Evil: 1", 200);
    auto crlf = v.req("POST", "/api/v1/resources/mcp_server/web/actions/test", "{}", 200);
    BOOST_TEST(crlf.at("result").at("error").as_string().find(
                   "credential 'web-token' cannot be used as header Authorization: it contains a line break") !=
                   std::string::npos,
               json::serialize(crlf));
    BOOST_TEST(json::serialize(crlf).find("X-Evil") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(invalid_references_are_refused_at_registration) {
    Vault v;
    auto r = v.create_server("tool", mcps_test::stdio_config({}, R"({"env":{"T":"credref:bad/name"}})"), 400);
    BOOST_TEST(pointers(r) == std::vector<std::string>{"/config/env/T"}, json::serialize(r));
    v.req("GET", "/api/v1/resources/mcp_server/tool", "", 404);
}
