// Each driver's command line, the one place its flags are listed.
#include <boost/test/unit_test.hpp>

#include "claude_driver.hpp"
#include "codex_driver.hpp"

namespace json = boost::json;
using Argv = std::vector<std::string>;

BOOST_AUTO_TEST_CASE(claude_first_turn_and_resumed_turn) {
    coffer::claude_code::ClaudeDriver d;
    coffer::agent::DriverConfig cfg;
    coffer::agent::TurnRequest t;
    t.prompt = "-starts with a dash";
    BOOST_TEST((d.argv("/bin/claude", cfg, t) ==
                Argv{"/bin/claude", "-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--",
                     "-starts with a dash"}));
    t.resume_key = "sess-1";
    t.mcp_config_file = "/d/mcp.json";
    cfg.args = {"--permission-mode", "acceptEdits"};
    BOOST_TEST((d.argv("claude", cfg, t) ==
                Argv{"claude", "-p", "--output-format", "stream-json", "--verbose", "--include-partial-messages", "--resume",
                     "sess-1", "--mcp-config", "/d/mcp.json", "--permission-mode", "acceptEdits", "--", "-starts with a dash"}));
}

BOOST_AUTO_TEST_CASE(codex_first_turn_and_resumed_turn) {
    coffer::codex::CodexDriver d;
    coffer::agent::DriverConfig cfg;
    coffer::agent::TurnRequest t;
    t.prompt = "do it";
    BOOST_TEST((d.argv("codex", cfg, t) == Argv{"codex", "exec", "--json", "--skip-git-repo-check", "do it"}));
    t.resume_key = "0199";
    t.mcp_config = json::parse(R"({"mcpServers":{"coffer":{"command":"coffer-mcp-shim","args":["--agent","cx"]}}})").as_object();
    cfg.args = {"--full-auto"};
    BOOST_TEST((d.argv("codex", cfg, t) ==
                Argv{"codex", "exec", "--json", "--skip-git-repo-check", "-c", "mcp_servers.coffer.command=\"coffer-mcp-shim\"",
                     "-c", "mcp_servers.coffer.args=[\"--agent\",\"cx\"]", "--full-auto", "resume", "0199", "do it"}));
    BOOST_TEST(coffer::codex::toml_string("a\"b\\") == "\"a\\\"b\\\\\"");
}
