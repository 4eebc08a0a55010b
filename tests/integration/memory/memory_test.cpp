// The memory kind on the real daemon with a temporary vault: facts remembered through MCP in two
// projects (git repositories) and globally; recall sees the session's project and the global
// facts, never another project's; forget deletes the file and the hit; the files are where the
// documentation says; the CLI lists, shows, searches (--json shape) and forgets.
#define BOOST_TEST_MODULE memory
#include <boost/test/unit_test.hpp>

#include "mcp_client.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string text_of(const json::value& reply) { return std::string(reply.at("result").at("content").at(0).at("text").as_string()); }
bool failed(const json::value& reply) {
    auto* r = reply.as_object().if_contains("result");
    return !r || r->at("isError").as_bool();
}

struct Fixture : StartedDaemon {
    fs::path a = dir.path() / "work" / "alpha";
    fs::path b = dir.path() / "work" / "beta";
    Fixture() {
        fs::create_directories(a / ".git");
        fs::create_directories(a / "src" / "deep");
        fs::create_directories(b / ".git");
        int status = 0;
        d.call_json("POST", "/api/v1/resources", R"({"kind":"memory","name":"memory","config":{}})", &status);
        BOOST_REQUIRE_EQUAL(status, 201);
    }
    json::object meta(const fs::path& cwd) { return {{"coffer/agent", "codex"}, {"coffer/cwd", cwd.string()}}; }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(projects_are_apart_and_global_is_shared, Fixture) {
    McpClient in_a(d), in_b(d);
    in_a.initialize("2025-11-25", meta(a / "src" / "deep"));  // below the git root: still project alpha
    in_b.initialize("2025-11-25", meta(b));
    auto names = names_of(in_a.request("tools/list").json);
    for (auto n : {"memory__remember", "memory__recall", "memory__forget"})
        BOOST_TEST((std::find(names.begin(), names.end(), n) != names.end()), n);

    auto r1 = in_a.call_tool("memory__remember", {{"fact", "The alpha build needs the platypus flag."}, {"tags", json::array{"build"}}});
    BOOST_REQUIRE_MESSAGE(!failed(r1), json::serialize(r1));
    auto id = std::string(r1.at("result").at("structuredContent").at("id").as_string());
    auto file = fs::path(std::string(r1.at("result").at("structuredContent").at("path").as_string()));
    auto r2 = in_a.call_tool("memory__remember", {{"fact", "The user prefers tabs over spaces in platypus code."}, {"scope", "global"}});
    BOOST_REQUIRE(!failed(r2));

    // The files: one per fact, frontmatter first, under memory/projects/<slug>-<hash>/ and memory/global/.
    BOOST_TEST(file.parent_path().parent_path() == d.vault() / "memory" / "projects");
    BOOST_TEST(file.parent_path().filename().string().rfind("alpha-", 0) == 0u);
    BOOST_TEST(file.filename().string().find(id) != std::string::npos);
    auto body = read(file);
    BOOST_TEST(body.rfind("---\nid: " + id + "\n", 0) == 0u);
    BOOST_TEST(body.find("tags: [build]") != std::string::npos);
    BOOST_TEST(body.find("source: codex") != std::string::npos);
    BOOST_TEST(body.find("The alpha build needs the platypus flag.") != std::string::npos);
    BOOST_TEST(fs::is_directory(d.vault() / "memory" / "global"));

    // Recall in alpha: both. In beta: the global fact only.
    auto ra = in_a.call_tool("memory__recall", {{"query", "platypus"}});
    BOOST_TEST(text_of(ra).find("platypus flag") != std::string::npos);
    BOOST_TEST(text_of(ra).find("tabs over spaces") != std::string::npos);
    auto rb = in_b.call_tool("memory__recall", {{"query", "platypus"}});
    BOOST_TEST(text_of(rb).find("platypus flag") == std::string::npos);
    BOOST_TEST(text_of(rb).find("tabs over spaces") != std::string::npos);
    // Beta cannot forget alpha's fact.
    BOOST_TEST(failed(in_b.call_tool("memory__forget", {{"id", id}})));
    BOOST_TEST(fs::exists(file));

    // Forget: the file goes, and so does the hit.
    auto f = in_a.call_tool("memory__forget", {{"id", id}});
    BOOST_TEST(!failed(f), json::serialize(f));
    BOOST_TEST(!fs::exists(file));
    BOOST_TEST(text_of(in_a.call_tool("memory__recall", {{"query", "platypus flag"}})).find("platypus flag") == std::string::npos);

    // Bad input.
    BOOST_TEST(failed(in_a.call_tool("memory__remember", {{"fact", ""}})));
    BOOST_TEST(failed(in_a.call_tool("memory__remember", {{"fact", "x"}, {"scope", "everywhere"}})));
    BOOST_TEST(failed(in_a.call_tool("memory__remember", {{"fact", "x"}, {"tags", json::array{"bad tag"}}})));
    BOOST_TEST(failed(in_a.call_tool("memory__recall", {{"query", std::string(9000, 'z')}})));
    // A session without a working directory has no project: project scope is refused, global works.
    McpClient nowhere(d);
    nowhere.initialize("2025-11-25");
    BOOST_TEST(failed(nowhere.call_tool("memory__remember", {{"fact", "homeless fact"}})));
    BOOST_TEST(!failed(nowhere.call_tool("memory__remember", {{"fact", "homeless fact"}, {"scope", "global"}})));
}

BOOST_FIXTURE_TEST_CASE(cli_lists_shows_searches_and_forgets, Fixture) {
    McpClient in_a(d);
    in_a.initialize("2025-11-25", meta(a));
    auto r = in_a.call_tool("memory__remember", {{"fact", "Deploys go through the walrus pipeline."}});
    BOOST_REQUIRE(!failed(r));
    auto id = std::string(r.at("result").at("structuredContent").at("id").as_string());

    auto listed = parse(d.cli({"memory", "list", "--json", "--project", (a / "src").string()}).out);
    BOOST_REQUIRE(listed.is_object());
    BOOST_TEST(listed.at("facts").as_array().size() == 1u);
    BOOST_TEST(listed.at("facts").at(0).at("id").as_string() == id);
    BOOST_TEST(parse(d.cli({"memory", "list", "--json", "--project", b.string()}).out).at("facts").as_array().empty());

    auto shown = d.cli({"memory", "show", id});
    BOOST_TEST(shown.exit_code == 0);
    BOOST_TEST(shown.out.find("walrus pipeline") != std::string::npos);

    auto found = parse(d.cli({"memory", "search", "--json", "walrus"}).out);
    BOOST_REQUIRE(found.is_object());
    BOOST_TEST(found.as_object().size() == 2u);
    BOOST_TEST(found.at("degraded").as_bool() == false);
    BOOST_TEST(found.at("results").at(0).at("kb").as_string().rfind("projects/alpha-", 0) == 0u);
    BOOST_TEST(parse(d.cli({"memory", "search", "--json", "walrus", "--project", b.string()}).out)
                   .at("results").as_array().empty());

    auto gone = d.cli({"memory", "forget", id});
    BOOST_TEST(gone.exit_code == 0, gone.err);
    BOOST_TEST(parse(d.cli({"memory", "search", "--json", "walrus"}).out).at("results").as_array().empty());
    BOOST_TEST(d.cli({"memory", "show", id}).exit_code == 1);
}
