// The `coffer` CLI and text it did not write: a resource description with ESC, OSC (title and
// OSC-8 link), CR, NUL and a bidi override, and an upstream MCP server whose stderr carries the
// same, print escaped in human output (tables, details, error messages) and exactly in --json.
// Input it refuses before any daemon call: JSON with a key given twice (--config, --args) and a
// credential value that is not UTF-8.
#define BOOST_TEST_MODULE cli_output
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// What a hostile description holds, as JSON text and as the bytes it stands for.
const char* kHostileJson = R"(\u001b]0;pwned\u0007\u001b[2J\rEVIL\u0000 \u001b]8;;https://evil.example\u001b\\click\u001b]8;;\u001b\\ \u202etxt.exe\u009b31m)";
const std::string kHostile = std::string("\x1b]0;pwned\x07\x1b[2J\rEVIL") + std::string(1, '\0') +
                             " \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\ \xe2\x80\xaetxt.exe\xc2\x9b" "31m";

// Nothing on a terminal would act on: no C0 control but \n, no DEL, no C1 (as UTF-8), no bidi override.
bool inert(const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) {
        auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\n') || c == 0x7F) return false;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return false;
        if (s.compare(i, 3, "\xe2\x80\xae") == 0) return false;
    }
    return true;
}

struct WithDaemon : StartedDaemon {
    WithDaemon() : StartedDaemon({"test_kind"}) {}
};

// A vault with no daemon, where the CLI may not start one: a usage error (exit 2) proves the
// input was refused before any daemon was looked for (that would be exit 3).
RunResult cli_alone(const fs::path& vault, std::vector<std::string> args, const std::string& stdin_data = "") {
    args.insert(args.begin(), (bin_dir() / "coffer").string());
    return run(args, {{"COFFER_HOME", vault.string()}, {"COFFER_NO_SPAWN", "1"}, {"COFFER_DAEMON_BIN", ""}},
               std::chrono::seconds(30), stdin_data);
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(descriptions_print_escaped_and_json_stays_exact, WithDaemon) {
    auto r = d.call("POST", "/api/v1/resources",
                    std::string(R"({"kind":"test_kind","name":"evil","config":{"value":1},"description":")") +
                        kHostileJson + "\"}");
    BOOST_REQUIRE_MESSAGE(r.status == 201, r.body);

    for (std::vector<std::string> args : {std::vector<std::string>{"resource", "list"},
                                          {"resource", "show", "test_kind:evil"},
                                          {"resource", "list", "--verbose"}}) {
        auto out = d.cli(args);
        BOOST_TEST(out.exit_code == 0, out.err);
        BOOST_TEST(inert(out.out), args[1] << ": " << out.out);
        BOOST_TEST(out.out.find("\\x1b]0;pwned\\x07\\x1b[2J\\rEVIL\\x00 \\x1b]8;;https://evil.example\\x1b\\click") !=
                       std::string::npos,
                   out.out);
        BOOST_TEST(out.out.find("\\u202etxt.exe\\u009b31m") != std::string::npos, out.out);
    }

    // --json: the daemon's bytes, unchanged.
    auto list = d.cli({"resource", "list", "--json"});
    BOOST_TEST(list.exit_code == 0);
    BOOST_TEST(list.out == d.call("GET", "/api/v1/resources").body + "\n");
    auto shown = d.cli({"resource", "show", "test_kind:evil", "--json"});
    BOOST_TEST(json::parse(shown.out).at("resource").at("description").as_string() == kHostile);
    BOOST_TEST(shown.out.find("\xe2\x80\xae") != std::string::npos);  // raw in JSON, as sent

    // A daemon error message that echoes such text, on stderr.
    auto missing = d.cli({"resource", "show", "test_kind:no\x1b[31mpe"});
    BOOST_TEST(missing.exit_code == 1);
    BOOST_TEST(inert(missing.err), missing.err);
    BOOST_TEST(missing.err.find("no\\x1b[31mpe") != std::string::npos, missing.err);
}

#ifdef COFFER_TEST_UPSTREAM
BOOST_FIXTURE_TEST_CASE(upstream_server_text_prints_escaped, WithDaemon) {
    // An upstream MCP server that writes a hostile line to stderr and exits: its words come back
    // in the server's status and in `coffer mcp test`.
    std::string line = "\x1b]0;pwned\x07\rEVIL \xe2\x80\xae";
    auto add = d.cli({"mcp", "add", "evil", "--", COFFER_TEST_UPSTREAM, "--stderr", line, "--exit-at-start", "1"});
    BOOST_REQUIRE_MESSAGE(add.exit_code == 0, add.err);
    BOOST_TEST(inert(add.out), add.out);

    auto test = d.cli({"mcp", "test", "evil"});
    BOOST_TEST(test.exit_code == 1);
    BOOST_TEST(inert(test.out), test.out);
    BOOST_TEST(test.out.find("\\x1b]0;pwned\\x07\\rEVIL \\u202e") != std::string::npos, test.out);
    auto status = d.cli({"mcp", "status"});
    BOOST_TEST(inert(status.out), status.out);
    auto show = d.cli({"mcp", "show", "evil", "--verbose"});
    BOOST_TEST(inert(show.out), show.out);
    auto json_test = d.cli({"mcp", "test", "evil", "--json"});
    BOOST_TEST(json_test.out.find("\xe2\x80\xae") != std::string::npos, json_test.out);
}
#endif

BOOST_AUTO_TEST_CASE(duplicate_keys_are_refused_before_sending) {
    TempDir t;
    auto r = cli_alone(t.path() / "vault", {"resource", "create", "test_kind", "x", "--config", R"({"value":1,"value":2})"});
    BOOST_TEST(r.exit_code == 2, r.err);
    BOOST_TEST(r.err.find("invalid JSON in --config: duplicate key \"value\" at /value") != std::string::npos, r.err);

    r = cli_alone(t.path() / "vault", {"--json", "resource", "action", "test_kind:x", "echo", "--args",
                                       R"({"a":{"b":1,"b":2}})"});
    BOOST_TEST(r.exit_code == 2, r.err);
    BOOST_TEST(json::parse(r.out).at("error").at("code").as_string() == "USAGE");
    BOOST_TEST(r.err.find("duplicate key \"b\" at /a/b") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(a_credential_value_that_is_not_utf8_is_named_as_such) {
    TempDir t;
    auto r = cli_alone(t.path() / "vault", {"credential", "set", "tok", "--value-stdin"}, std::string("abc\xff\xfe") + "\n");
    BOOST_TEST(r.exit_code == 2, r.err);
    BOOST_TEST(r.err.find("the credential value read from standard input is not valid UTF-8 (byte 3)") !=
                   std::string::npos,
               r.err);
    BOOST_TEST(r.err.find("not valid JSON") == std::string::npos, r.err);
}
