// cli/agentconf: Coffer's MCP entry written into real-shaped agent configs (Claude Code's
// ~/.claude.json, Codex's config.toml) with comments and unrelated entries, byte-compared with the
// expected files in fixtures/; idempotence, uninstall restoring the original bytes, malformed input
// refused with nothing written, a file changed between read and write, the .bak, links, modes, and
// the unified diff of --dry-run.
//
// COFFER_AGENTCONF_WRITE_EXPECTED=1 rewrites the expected files from the current output (then
// read the diff before committing them).
#define BOOST_TEST_MODULE agentconf
#include <boost/test/unit_test.hpp>

#include "agentconf/config_file.hpp"
#include "agentconf/json_member.hpp"
#include "agentconf/mcp_entry.hpp"
#include "agentconf/toml_table.hpp"
#include "agentconf/unified_diff.hpp"
#include "temp_dir.hpp"

#include <boost/json.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace coffer;
using namespace coffer::agentconf;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

const fs::path kFixtures = COFFER_AGENTCONF_FIXTURES;
const char* kShim = "/opt/coffer/bin/coffer-mcp-shim";

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const fs::path& p, std::string_view text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::string fixture(const std::string& name) {
    BOOST_REQUIRE_MESSAGE(fs::exists(kFixtures / name), "missing fixture " << name);
    return read(kFixtures / name);
}

// Compares `actual` with fixtures/<name> byte for byte (or writes it, see the header comment).
void expect_file(const std::string& name, const std::string& actual) {
    if (const char* w = std::getenv("COFFER_AGENTCONF_WRITE_EXPECTED"); w && std::string(w) == "1") {
        write(kFixtures / name, actual);
        return;
    }
    auto expected = fixture(name);
    BOOST_TEST(actual == expected, "differs from fixtures/" << name << ":\n"
                                                            << unified_diff(expected, actual, "expected", "actual"));
}

McpEntry entry(const std::string& agent) { return McpEntry{"coffer", kShim, {"--agent", agent}}; }

struct Sandbox {
    test::TempDir dir{"agentconf"};
    AgentEnv env{dir.path() / "home", {}, {}};
    Sandbox() { fs::create_directories(env.home); }
    fs::path claude() const { return env.home / ".claude.json"; }
    fs::path codex() const { return env.home / ".codex" / "config.toml"; }
};

// install → expected bytes; a second install changes nothing; uninstall → the original bytes.
void round_trip(AgentType type, const std::string& input, const std::string& expected) {
    Sandbox sb;
    auto path = type == AgentType::claude_code ? sb.claude() : sb.codex();
    auto original = fixture(input);
    write(path, original);

    auto plan = plan_install(type, sb.env, entry(std::string(to_string(type))));
    BOOST_REQUIRE_MESSAGE(plan.ok(), (plan.ok() ? "" : plan.error().message));
    BOOST_TEST(plan->changed());
    BOOST_REQUIRE(apply(*plan).ok());
    expect_file(expected, read(path));
    BOOST_TEST(read(backup_path(path)) == original, "the .bak holds the previous bytes");

    // Idempotent: nothing to change, and apply() writes nothing (the .bak stays as it was).
    fs::remove(backup_path(path));
    auto again = plan_install(type, sb.env, entry(std::string(to_string(type))));
    BOOST_REQUIRE(again.ok());
    BOOST_TEST(!again->changed());
    BOOST_REQUIRE(apply(*again).ok());
    BOOST_TEST(!fs::exists(backup_path(path)), "an unchanged install leaves no new .bak");

    auto state = entry_state(type, sb.env);
    BOOST_REQUIRE(state.ok());
    BOOST_TEST(state->installed);
    BOOST_TEST(state->command == kShim);
    BOOST_TEST((state->args == std::vector<std::string>{"--agent", std::string(to_string(type))}));

    auto un = plan_uninstall(type, sb.env);
    BOOST_REQUIRE(un.ok());
    BOOST_REQUIRE(apply(*un).ok());
    BOOST_TEST(read(path) == original, "uninstall removes exactly what install added");
    auto un2 = plan_uninstall(type, sb.env);
    BOOST_REQUIRE(un2.ok());
    BOOST_TEST(!un2->changed());
}

}  // namespace

BOOST_AUTO_TEST_CASE(claude_real_shaped_config) {
    round_trip(AgentType::claude_code, "claude.json", "claude.installed.json");
}

BOOST_AUTO_TEST_CASE(claude_config_without_mcp_servers_tab_indented) {
    round_trip(AgentType::claude_code, "claude_no_servers.json", "claude_no_servers.installed.json");
}

BOOST_AUTO_TEST_CASE(codex_real_shaped_config) {
    round_trip(AgentType::codex, "codex.toml", "codex.installed.toml");
}

BOOST_AUTO_TEST_CASE(claude_existing_entry_keeps_the_users_additions) {
    Sandbox sb;
    write(sb.claude(), fixture("claude_custom_entry.json"));
    auto plan = plan_install(AgentType::claude_code, sb.env, entry("claude_code"));
    BOOST_REQUIRE(plan.ok());
    expect_file("claude_custom_entry.installed.json", plan->after);
    auto v = json::parse(plan->after).at("mcpServers").at("coffer").as_object();
    BOOST_TEST(v.at("env").at("COFFER_HOME").as_string() == "/home/me/vault");
    BOOST_TEST(v.at("command").as_string() == kShim);
}

BOOST_AUTO_TEST_CASE(codex_existing_entry_keeps_comments_and_other_keys) {
    Sandbox sb;
    write(sb.codex(), fixture("codex_existing.toml"));
    auto plan = plan_install(AgentType::codex, sb.env, entry("codex"));
    BOOST_REQUIRE(plan.ok());
    expect_file("codex_existing.installed.toml", plan->after);
    // Uninstall takes the whole entry, its sub-table too, and nothing else.
    BOOST_REQUIRE(apply(*plan).ok());
    auto un = plan_uninstall(AgentType::codex, sb.env);
    BOOST_REQUIRE(un.ok());
    expect_file("codex_existing.uninstalled.toml", un->after);
}

BOOST_AUTO_TEST_CASE(codex_file_without_final_newline) {
    Sandbox sb;
    write(sb.codex(), fixture("codex_no_newline.toml"));
    auto plan = plan_install(AgentType::codex, sb.env, entry("codex"));
    BOOST_REQUIRE(plan.ok());
    expect_file("codex_no_newline.installed.toml", plan->after);
}

BOOST_AUTO_TEST_CASE(missing_files_are_created_private) {
    Sandbox sb;
    for (auto type : {AgentType::claude_code, AgentType::codex}) {
        auto plan = plan_install(type, sb.env, entry(std::string(to_string(type))));
        BOOST_REQUIRE(plan.ok());
        BOOST_TEST(!plan->before.exists);
        BOOST_REQUIRE(apply(*plan).ok());
        auto path = config_path(type, sb.env);
        expect_file(type == AgentType::claude_code ? "new.claude.json" : "new.config.toml", read(path));
        BOOST_TEST(!fs::exists(backup_path(path)), "no .bak when there was no file");
        struct stat st {};
        BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
        BOOST_TEST((st.st_mode & 0777) == 0600u);
    }
    // Uninstall where there is no file: nothing to do, nothing created.
    Sandbox empty;
    auto un = plan_uninstall(AgentType::codex, empty.env);
    BOOST_REQUIRE(un.ok());
    BOOST_TEST(!un->changed());
    BOOST_REQUIRE(apply(*un).ok());
    BOOST_TEST(!fs::exists(empty.codex()));
}

BOOST_AUTO_TEST_CASE(mode_is_kept_and_links_are_followed) {
    Sandbox sb;
    auto target = sb.dir.path() / "dotfiles" / "claude.json";
    write(target, fixture("claude.json"));
    ::chmod(target.c_str(), 0644);
    fs::create_symlink(target, sb.claude());
    auto plan = plan_install(AgentType::claude_code, sb.env, entry("claude_code"));
    BOOST_REQUIRE(plan.ok());
    BOOST_REQUIRE(apply(*plan).ok());
    BOOST_TEST(fs::is_symlink(sb.claude()), "the link stays a link");
    expect_file("claude.installed.json", read(target));
    struct stat st {};
    BOOST_REQUIRE(::stat(target.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0644u);
    BOOST_TEST(read(backup_path(target)) == fixture("claude.json"));
}

BOOST_AUTO_TEST_CASE(malformed_input_is_refused_and_nothing_is_written) {
    const std::vector<std::pair<std::string, std::string>> claude_cases = {
        {"trailing comma", "{\n  \"a\": 1,\n}\n"},
        {"comment", "{\n  // a comment\n  \"a\": 1\n}\n"},
        {"top level array", "[1, 2]\n"},
        {"unterminated string", "{\"a\": \"b}\n"},
        {"duplicate mcpServers", "{\"mcpServers\": {}, \"mcpServers\": {}}\n"},
        {"mcpServers not an object", "{\"mcpServers\": []}\n"},
        {"text after the object", "{} {}\n"},
        {"bad escape", "{\"a\": \"\\q\"}\n"},
        {"empty", "  \n"},
    };
    for (const auto& [what, text] : claude_cases) {
        Sandbox sb;
        write(sb.claude(), text);
        auto plan = plan_install(AgentType::claude_code, sb.env, entry("claude_code"));
        BOOST_TEST(!plan.ok(), "claude: " << what << " is refused");
        auto un = plan_uninstall(AgentType::claude_code, sb.env);
        if (what != "mcpServers not an object" && what != "duplicate mcpServers") BOOST_TEST(!un.ok(), "claude uninstall: " << what);
        BOOST_TEST(read(sb.claude()) == text);
        BOOST_TEST(!fs::exists(backup_path(sb.claude())));
    }
    const std::vector<std::pair<std::string, std::string>> codex_cases = {
        {"unterminated string", "model = \"o3\n"},
        {"unterminated multi-line string", "a = \"\"\"\nnever closed\n"},
        {"missing =", "model \"o3\"\n"},
        {"bad header", "[mcp_servers.coffer\ncommand = \"x\"\n"},
        {"unterminated array", "args = [\"a\",\n"},
        {"two values on a line", "a = \"x\" \"y\"\n"},
        {"table twice", "[mcp_servers.coffer]\ncommand = \"a\"\n[mcp_servers.coffer]\nargs = []\n"},
        {"dotted keys", "mcp_servers.coffer.command = \"/x\"\n"},
        {"dotted keys in the parent table", "[mcp_servers]\ncoffer.command = \"/x\"\n"},
        {"inline table", "[mcp_servers]\ncoffer = { command = \"/x\" }\n"},
        {"inline parent", "mcp_servers = { coffer = { command = \"/x\" } }\n"},
        {"array of tables", "[[mcp_servers.coffer]]\ncommand = \"/x\"\n"},
    };
    for (const auto& [what, text] : codex_cases) {
        Sandbox sb;
        write(sb.codex(), text);
        auto plan = plan_install(AgentType::codex, sb.env, entry("codex"));
        BOOST_TEST(!plan.ok(), "codex: " << what << " is refused");
        BOOST_TEST(!plan_uninstall(AgentType::codex, sb.env).ok(), "codex uninstall: " << what << " is refused");
        BOOST_TEST(!entry_state(AgentType::codex, sb.env).ok());
        BOOST_TEST(read(sb.codex()) == text);
        BOOST_TEST(!fs::exists(backup_path(sb.codex())));
    }
}

BOOST_AUTO_TEST_CASE(a_file_changed_between_read_and_write_is_not_overwritten) {
    for (auto type : {AgentType::claude_code, AgentType::codex}) {
        Sandbox sb;
        auto path = config_path(type, sb.env);
        write(path, fixture(type == AgentType::claude_code ? "claude.json" : "codex.toml"));
        auto plan = plan_install(type, sb.env, entry(std::string(to_string(type))));
        BOOST_REQUIRE(plan.ok());
        const std::string theirs = type == AgentType::claude_code ? "{\"written\": \"by the agent\"}\n" : "written = \"by the agent\"\n";
        auto r = apply(*plan, [&] { write(path, theirs); });
        BOOST_REQUIRE(!r.ok());
        BOOST_TEST(r.error().code == core::code::conflict);
        BOOST_TEST(read(path) == theirs, "the other writer's content stays");
        BOOST_TEST(!fs::exists(backup_path(path)), "nothing written, not even the .bak");
        // A file that appears after a read that found none is not overwritten either.
        Sandbox fresh;
        auto p2 = config_path(type, fresh.env);
        auto plan2 = plan_install(type, fresh.env, entry(std::string(to_string(type))));
        BOOST_REQUIRE(plan2.ok());
        auto r2 = apply(*plan2, [&] { write(p2, theirs); });
        BOOST_TEST(!r2.ok());
        BOOST_TEST(read(p2) == theirs);
    }
}

BOOST_AUTO_TEST_CASE(where_the_configs_are) {
    AgentEnv env{"/h", {}, {}};
    BOOST_TEST(config_path(AgentType::claude_code, env) == fs::path("/h/.claude.json"));
    BOOST_TEST(config_path(AgentType::codex, env) == fs::path("/h/.codex/config.toml"));
    env.codex_home = "/c";
    env.claude_config_dir = "/k";
    BOOST_TEST(config_path(AgentType::claude_code, env) == fs::path("/k/.claude.json"));
    BOOST_TEST(config_path(AgentType::codex, env) == fs::path("/c/config.toml"));
    BOOST_TEST(config_dir(AgentType::claude_code, env) == fs::path("/k"));
    BOOST_TEST((parse_agent_type("codex") == AgentType::codex));
    BOOST_TEST(!parse_agent_type("cursor").has_value());
}

BOOST_AUTO_TEST_CASE(json_member_editor_edges) {
    // A one-line object gets a one-line member.
    auto r = json_set(R"({"a":1})", {"b"}, json::value(2));
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(*r == R"({"a":1, "b": 2})");
    // Replacing a value keeps everything around it.
    r = json_set("{\n  \"a\": [1,2],   \"b\": true\n}", {"a"}, json::value(json::array{3}));
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(*r == "{\n  \"a\": [\n    3\n  ],   \"b\": true\n}");
    // Keys are compared decoded.
    auto g = json_get(R"({"mcp\u0053ervers": {"coffer": 1}})", {"mcpServers", "coffer"});
    BOOST_REQUIRE(g.ok());
    BOOST_TEST((g->has_value() && **g == json::value(1)));
    // Removal: first, middle, last, only.
    BOOST_TEST(*json_remove(R"({"a": 1, "b": 2, "c": 3})", {"a"}) == R"({"b": 2, "c": 3})");
    BOOST_TEST(*json_remove(R"({"a": 1, "b": 2, "c": 3})", {"b"}) == R"({"a": 1, "c": 3})");
    BOOST_TEST(*json_remove(R"({"a": 1, "b": 2, "c": 3})", {"c"}) == R"({"a": 1, "b": 2})");
    BOOST_TEST(*json_remove(R"({"x": {"a": 1}})", {"x", "a"}) == R"({"x": {}})");
    BOOST_TEST(*json_remove(R"({"x": {"a": 1}, "y": 0})", {"x", "a"}, 1) == R"({"y": 0})");
    BOOST_TEST(*json_remove(R"({"x": {"a": 1}})", {"x", "a"}, 1) == R"({})");
    // Deep nesting is refused, not a crash.
    BOOST_TEST(!json_get(std::string(100000, '[') , {"a"}).ok());
    BOOST_TEST(!json_get("{\"a\":" + std::string(5000, '[') + std::string(5000, ']') + "}", {"a"}).ok());
}

BOOST_AUTO_TEST_CASE(toml_table_editor_edges) {
    auto t = toml_get_table("[a]\nk = 'lit'\nl = [\"x\", 'y',]\nm = 1\n", {"a"});
    BOOST_REQUIRE(t.ok());
    BOOST_TEST(t->exists);
    BOOST_REQUIRE(t->keys.size() == 2u);
    BOOST_TEST(std::get<std::string>(t->keys[0].value) == "lit");
    BOOST_TEST((std::get<std::vector<std::string>>(t->keys[1].value) == std::vector<std::string>{"x", "y"}));
    // An equal value in another spelling is left alone.
    const std::string same = "[mcp_servers.coffer]\ncommand = '/opt/coffer/bin/coffer-mcp-shim'\nargs = [ \"--agent\" , 'codex' ]\n";
    auto r = toml_set_table(same, {"mcp_servers", "coffer"}, {{"command", std::string(kShim)}, {"args", std::vector<std::string>{"--agent", "codex"}}});
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(*r == same);
    // Escapes are written and read back.
    BOOST_TEST(toml_quote("a\"b\\c\n\x01") == "\"a\\\"b\\\\c\\n\\u0001\"");
    auto esc = toml_get_table("[t]\nk = \"a\\\"b\\\\c\\n\\u00e9\"\n", {"t"});
    BOOST_REQUIRE(esc.ok());
    BOOST_TEST(std::get<std::string>(esc->keys[0].value) == "a\"b\\c\n\xc3\xa9");
    // CRLF files scan.
    BOOST_TEST(toml_get_table("a = 1\r\n[t]\r\nk = \"v\"\r\n", {"t"}).ok());
    // A date-time with a space is a value.
    BOOST_TEST(toml_get_table("when = 1979-05-27 07:32:00Z\n", {"t"}).ok());
}

BOOST_AUTO_TEST_CASE(unified_diff_like_diff_u) {
    BOOST_TEST(unified_diff("a\n", "a\n", "x", "y").empty());
    std::string before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    std::string after = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n11\n";
    BOOST_TEST(unified_diff(before, after, "a/f", "b/f") ==
               "--- a/f\n+++ b/f\n@@ -3,8 +3,9 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n 10\n+11\n");
    BOOST_TEST(unified_diff("", "x\n", "a", "b") == "--- a\n+++ b\n@@ -0,0 +1 @@\n+x\n");
    BOOST_TEST(unified_diff("a\nb", "a\nc", "a", "b") ==
               "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n");
    // Far-apart changes make two hunks.
    std::string many, many2;
    for (int i = 1; i <= 20; ++i) {
        many += std::to_string(i) + "\n";
        many2 += (i == 2 || i == 18 ? "x" : std::to_string(i)) + "\n";
    }
    auto d = unified_diff(many, many2, "a", "b");
    BOOST_TEST(d == "--- a\n+++ b\n@@ -1,5 +1,5 @@\n 1\n-2\n+x\n 3\n 4\n 5\n@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+x\n 19\n 20\n");
}
