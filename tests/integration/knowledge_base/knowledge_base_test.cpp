// The knowledge_base kind on the real daemon with a temporary vault: a knowledge base over a real
// folder searched by keyword (a natural-language question, a Chinese query), grep (real
// ripgrep), vector and hybrid (a stand-in OpenAI-compatible endpoint, its key a stored
// credential); edits and deletions made outside Coffer; MCP tools read/list/write with path
// confinement and read-only refusal; agent scope across sessions; kill -9 during a bulk index.
#define BOOST_TEST_MODULE knowledge_base
#include <boost/test/unit_test.hpp>

#include "embeddings_server.hpp"
#include "mcp_client.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::string quote(const std::string& s) { return json::serialize(json::value(s)); }

struct Fixture : StartedDaemon {
    fs::path docs = dir.path() / "docs";

    Fixture() {
        write(docs / "install.md", "# Install\n\nCoffer runs on Linux.\n\n## Debian\n\nInstall the package with apt-get "
                                   "install coffer, then start the daemon.\n");
        write(docs / "guides/backup.md", "# Backups\n\nRun coffer backup to copy the vault to another disk.\n\n"
                                         "Restore needs the daemon stopped.\n");
        write(docs / "zh/deploy.md", "# 部署指南\n\n向量数据库用于语义检索。\n\n## 配置\n\n修改配置文件后重启服务。\n");
    }

    json::value req(const std::string& m, const std::string& t, const std::string& b, int expect) {
        int status = 0;
        auto v = d.call_json(m, t, b, &status);
        BOOST_TEST(status == expect, m << " " << t << " -> " << status << " " << json::serialize(v));
        return v;
    }

    void add_kb(const std::string& name, const std::string& config, const std::string& extra = "") {
        req("POST", "/api/v1/resources",
            R"({"kind":"knowledge_base","name":)" + quote(name) + R"(,"config":)" + config + extra + "}", 201);
    }

    json::value status(const std::string& name) {
        auto v = d.call_json("GET", "/api/v1/resources/knowledge_base/" + name);
        if (!v.is_object() || !v.as_object().contains("resource")) return nullptr;
        return v.at("resource").at("status").at("plugin");
    }

    // Waits until the knowledge base has indexed `documents` documents and is idle.
    bool indexed(const std::string& name, std::int64_t documents, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
        return eventually(
            [&] {
                auto s = status(name);
                return s.is_object() && s.at("health").as_string() == "ok" && s.at("documents").to_number<std::int64_t>() == documents;
            },
            timeout, std::chrono::milliseconds(50));
    }

    // Waits until the knowledge base is indexing and has committed some files but at most
    // `at_most` (a run that got further, or finished, proves nothing to the caller).
    bool indexing_with_at_most(const std::string& name, std::int64_t at_most, std::chrono::seconds timeout) {
        return eventually(
            [&] {
                auto s = status(name);
                if (!s.is_object() || !s.as_object().contains("progress")) return false;
                auto done = s.at("progress").at("done").to_number<std::int64_t>();
                return done > 0 && done <= at_most;
            },
            timeout, std::chrono::milliseconds(2));
    }

    json::value search(const json::object& args, int expect = 200) {
        auto v = req("POST", "/api/v1/kinds/knowledge_base/actions/search", json::serialize(args), expect);
        return expect == 200 ? v.at("result") : v;
    }

    json::value action(const std::string& name, const std::string& action, const json::object& args, int expect = 200) {
        auto v = req("POST", "/api/v1/resources/knowledge_base/" + name + "/actions/" + action, json::serialize(args), expect);
        return expect == 200 ? v.at("result") : v;
    }
};

// The paths of the results, best first.
std::vector<std::string> paths(const json::value& result) {
    std::vector<std::string> out;
    for (auto& r : result.at("results").as_array()) out.emplace_back(r.at("path").as_string());
    return out;
}

bool has_path(const json::value& result, const std::string& path) {
    auto p = paths(result);
    return std::find(p.begin(), p.end(), path) != p.end();
}

// A tools/call's text, and whether it was an error.
std::string tool_text(const json::value& reply) { return std::string(reply.at("result").at("content").at(0).at("text").as_string()); }
bool tool_failed(const json::value& reply) {
    auto* r = reply.as_object().if_contains("result");
    return !r || r->at("isError").as_bool();
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(keyword_grep_and_files_edited_outside, Fixture) {
    add_kb("docs", R"({"path":)" + quote(docs.string()) + "}");
    BOOST_REQUIRE(indexed("docs", 3));
    auto st = status("docs");
    BOOST_TEST(st.at("writable").as_bool() == false);  // a folder the user named is read-only by default
    BOOST_TEST(st.at("path").as_string() == docs.string());

    // A natural-language question with punctuation: the words still find the section.
    auto r = search({{"query", "How do I install it on Debian?"}});
    BOOST_REQUIRE(!r.at("results").as_array().empty());
    auto& top = r.at("results").at(0).as_object();
    BOOST_TEST(top.at("kb").as_string() == "docs");
    BOOST_TEST(top.at("path").as_string() == "install.md");
    BOOST_TEST(top.at("heading").as_string().find("Debian") != std::string::npos);
    BOOST_TEST(top.at("engine").as_string() == "keyword");
    BOOST_TEST(r.at("degraded").as_bool() == false);
    // Exactly the documented members.
    std::vector<std::string> keys;
    for (auto& [k, v] : top) keys.emplace_back(k);
    std::sort(keys.begin(), keys.end());
    BOOST_TEST((keys == std::vector<std::string>{"engine", "heading", "kb", "lines", "path", "score", "snippet"}));

    // Chinese.
    auto zh = search({{"query", "向量数据库"}});
    BOOST_REQUIRE(!zh.at("results").as_array().empty());
    BOOST_TEST(zh.at("results").at(0).at("path").as_string() == "zh/deploy.md");

    // grep: exact text, with the line it is on.
    auto g = search({{"query", "Restore needs the daemon"}, {"mode", "grep"}});
    BOOST_REQUIRE(paths(g) == std::vector<std::string>{"guides/backup.md"});
    BOOST_TEST(g.at("results").at(0).at("lines").at(0).as_int64() == 5);
    BOOST_TEST(g.at("results").at(0).at("engine").as_string() == "grep");

    // An edit outside Coffer: the new text is found at its new lines, the old text is gone.
    write(docs / "install.md", "# Install\n\nCoffer runs on Linux.\n\nSome words first.\n\n## Fedora\n\n"
                               "Install the package with dnf install coffer.\n");
    BOOST_TEST(eventually([&] { return has_path(search({{"query", "dnf"}}), "install.md"); }, std::chrono::seconds(10)));
    auto fresh = search({{"query", "dnf"}});
    BOOST_TEST(fresh.at("results").at(0).at("lines").at(0).as_int64() == 7);
    BOOST_TEST(fresh.at("results").at(0).at("lines").at(1).as_int64() == 9);
    BOOST_TEST(!has_path(search({{"query", "apt-get"}}), "install.md"));
    BOOST_TEST(!has_path(search({{"query", "apt-get"}, {"mode", "grep"}}), "install.md"));

    // A new file and a deleted one.
    write(docs / "new/tips.md", "# Tips\n\nUse the zeppelin flag for speed.\n");
    BOOST_TEST(eventually([&] { return has_path(search({{"query", "zeppelin"}}), "new/tips.md"); }, std::chrono::seconds(10)));
    fs::remove(docs / "guides/backup.md");
    BOOST_TEST(!has_path(search({{"query", "backup vault disk"}}), "guides/backup.md"));
    BOOST_TEST(eventually([&] { return status("docs").at("documents").as_int64() == 3; }));
    BOOST_TEST(action("docs", "check", {}).at("differences").as_array().empty());

    // read, stats, reindex.
    auto text = action("docs", "read", {{"path", "install.md"}, {"from", 7}, {"to", 9}});
    BOOST_TEST(text.at("content").as_string() == "## Fedora\n\nInstall the package with dnf install coffer.\n");
    BOOST_TEST(action("docs", "stats", {}).at("documents").as_int64() == 3);
    auto re = action("docs", "reindex", {});
    BOOST_TEST(re.at("scanned").as_int64() == 3);

    // Bad input: a query too long, a mode that does not exist, an unknown knowledge base.
    auto big = search({{"query", std::string(100 * 1024, 'a')}}, 400);
    BOOST_TEST(big.at("error").at("message").as_string().find("too long") != std::string::npos);
    search({{"query", "x"}, {"mode", "psychic"}}, 400);
    search({{"query", "x"}, {"kbs", json::array{"nope"}}}, 404);
    action("docs", "read", {{"path", "../escape.md"}}, 400);
}

BOOST_FIXTURE_TEST_CASE(cli_search_json_shape, Fixture) {
    auto added = d.cli({"kb", "add", "docs", docs.string()});
    BOOST_REQUIRE_MESSAGE(added.exit_code == 0, added.out + added.err);
    BOOST_REQUIRE(indexed("docs", 3));
    auto r = d.cli({"kb", "search", "--json", "backup vault"});
    BOOST_REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    auto v = parse(r.out);
    BOOST_REQUIRE(v.is_object());
    BOOST_TEST(v.as_object().size() == 2u);  // {"results":[…],"degraded":false}
    BOOST_TEST(v.at("degraded").as_bool() == false);
    BOOST_TEST(v.at("results").at(0).at("path").as_string() == "guides/backup.md");
    BOOST_TEST(v.at("results").at(0).at("lines").as_array().size() == 2u);
    auto grep = parse(d.cli({"kb", "search", "--json", "--mode", "grep", "--kb", "docs", "Restore"}).out);
    BOOST_TEST(grep.at("results").at(0).at("engine").as_string() == "grep");
    auto stats = parse(d.cli({"kb", "stats", "docs", "--json"}).out);
    BOOST_TEST(stats.at("documents").as_int64() == 3);
    // reindex: started in the background and followed to its end; --json prints its statistics.
    write(docs / "later.md", "# Later\n\nAdded after the first index.\n");
    fs::remove(docs / "zh/deploy.md");
    auto re = d.cli({"kb", "reindex", "docs", "--json"});
    BOOST_REQUIRE_MESSAGE(re.exit_code == 0, re.out + re.err);
    auto rs = parse(re.out);
    // The watcher may have indexed the two changes already; between them they are seen once.
    auto n = [&](const char* k) { return rs.at(k).to_number<int>(); };
    BOOST_TEST(n("scanned") == 3, re.out);
    BOOST_TEST(n("added") + n("updated") + n("unchanged") == 3);
    BOOST_TEST(n("added") <= 1);
    BOOST_TEST(n("removed") <= 1);
    BOOST_TEST(n("documents") == 3);
    BOOST_TEST(rs.as_object().contains("seconds"));
    auto human = d.cli({"kb", "reindex", "docs"});
    BOOST_TEST(human.exit_code == 0);
    BOOST_TEST(human.out.find("reindexed kb:docs: 3 files, 0 added, 0 updated, 0 removed") != std::string::npos, human.out);
    auto listed = search({{"query", "Added after the first index"}, {"kbs", json::array{"docs"}}});
    BOOST_TEST(has_path(listed, "later.md"));
    auto missing = d.cli({"kb", "reindex", "nope", "--json"});
    BOOST_TEST(missing.exit_code == 1);
    BOOST_TEST(parse(missing.out).at("error").at("code").as_string() == "NOT_FOUND", missing.out);
    auto del = d.cli({"kb", "delete", "docs"});
    BOOST_TEST(del.exit_code == 0);
    BOOST_TEST(fs::exists(docs / "install.md"));  // the documents are the user's
}

BOOST_FIXTURE_TEST_CASE(mcp_tools_write_confined_and_read_only_refused, Fixture) {
    add_kb("notes", "{}");  // Coffer's own folder: created, writable
    add_kb("docs", R"({"path":)" + quote(docs.string()) + "}");
    BOOST_REQUIRE(indexed("docs", 3));
    auto notes_dir = d.vault() / "knowledge" / "notes";
    BOOST_TEST(fs::is_directory(notes_dir));

    McpClient c(d);
    c.initialize("2025-11-25", json::object{{"coffer/agent", "claude-code"}});
    auto names = names_of(c.request("tools/list").json);
    for (auto n : {"notes__search", "notes__read", "notes__list", "notes__write", "docs__search", "docs__read", "docs__list"})
        BOOST_TEST((std::find(names.begin(), names.end(), n) != names.end()), n);
    BOOST_TEST((std::find(names.begin(), names.end(), "docs__write") == names.end()));

    // Written, then found at once (indexed before the call returned).
    auto w = c.call_tool("notes__write", {{"path", "decisions/cache.md"},
                                          {"content", "# Cache\n\nWe chose the quokka cache layer.\n"}});
    BOOST_TEST(!tool_failed(w), json::serialize(w));
    BOOST_TEST(fs::exists(notes_dir / "decisions/cache.md"));
    auto s = c.call_tool("notes__search", {{"query", "quokka"}});
    BOOST_TEST(!tool_failed(s));
    BOOST_TEST(s.at("result").at("structuredContent").at("results").at(0).at("path").as_string() == "decisions/cache.md");
    // create refuses an existing document; append adds to it.
    BOOST_TEST(tool_failed(c.call_tool("notes__write", {{"path", "decisions/cache.md"}, {"content", "x"}})));
    BOOST_TEST(!tool_failed(c.call_tool("notes__write", {{"path", "decisions/cache.md"}, {"content", "Appended wombat line.\n"},
                                                         {"mode", "append"}})));
    auto rd = c.call_tool("notes__read", {{"path", "decisions/cache.md"}, {"from_line", 3}});
    BOOST_TEST(tool_text(rd).find("3\tWe chose the quokka cache layer.") != std::string::npos);
    BOOST_TEST(tool_text(rd).find("4\tAppended wombat line.") != std::string::npos);
    auto ls = c.call_tool("notes__list", {});
    BOOST_TEST(ls.at("result").at("structuredContent").at("documents").at(0).at("title").as_string() == "Cache");

    // Confinement: nothing is written outside the folder.
    fs::create_directories(dir.path() / "outside");
    fs::create_directory_symlink(dir.path() / "outside", notes_dir / "link");
    for (auto bad : {"../escape.md", "/tmp/abs.md", "link/evil.md", "notes.txt", "a/../../b.md", ".hidden.md", ""}) {
        auto r = c.call_tool("notes__write", {{"path", bad}, {"content", "nope"}});
        BOOST_TEST(tool_failed(r), bad << ": " << json::serialize(r));
    }
    BOOST_TEST(fs::is_empty(dir.path() / "outside"));
    BOOST_TEST(!fs::exists(dir.path() / "vault" / "knowledge" / "escape.md"));
    BOOST_TEST(!fs::exists(notes_dir / "notes.txt"));

    // Read-only: the tool is not offered and a call is refused.
    auto ro = c.call_tool("docs__write", {{"path", "x.md"}, {"content", "no"}});
    BOOST_TEST(ro.as_object().contains("error"));
    BOOST_TEST(!fs::exists(docs / "x.md"));
    // Bad input answered as tool errors.
    BOOST_TEST(tool_failed(c.call_tool("docs__search", {{"query", std::string(9000, 'q')}})));
    BOOST_TEST(tool_failed(c.call_tool("docs__search", {{"query", "x"}, {"top_k", 0}})));
    BOOST_TEST(tool_failed(c.call_tool("docs__read", {{"path", "missing.md"}})));
    BOOST_TEST(tool_failed(c.call_tool("docs__search", {{"query", "x"}, {"unknown", 1}})));

    // The write was audited (path and agent, not the content).
    auto audit = d.call_json("GET", "/api/v1/audit?limit=100");
    bool seen = false;
    for (auto& e : audit.at("events").as_array())
        if (e.at("event_type").as_string() == "kb_document_written") {
            seen = true;
            BOOST_TEST(json::serialize(e).find("quokka") == std::string::npos);
        }
    BOOST_TEST(seen);
}

BOOST_FIXTURE_TEST_CASE(vector_and_hybrid_with_embeddings, Fixture) {
    EmbeddingsServer server;
    req("POST", "/api/v1/credentials", R"({"ref":"emb-key","value":"sk-test-4f1c9a"})", 201);
    add_kb("docs", R"({"path":)" + quote(docs.string()) + R"(,"embeddings":{"base_url":)" + quote(server.base_url()) +
                       R"(,"model":"test-embed","api_key":"credref:emb-key"}})");
    add_kb("plain", R"({"path":)" + quote(docs.string()) + "}");
    BOOST_REQUIRE(indexed("docs", 3));
    BOOST_REQUIRE(eventually([&] {
        auto s = status("docs");
        return s.at("vectors").to_number<std::int64_t>() > 0 && s.at("vectors") == s.at("chunks");
    }, std::chrono::seconds(20)));
    BOOST_TEST(server.last_authorization() == "Bearer sk-test-4f1c9a");

    auto v = search({{"query", "copy the vault to another disk"}, {"mode", "vector"}, {"kbs", json::array{"docs"}}});
    BOOST_TEST(v.at("degraded").as_bool() == false);
    BOOST_REQUIRE(!v.at("results").as_array().empty());
    BOOST_TEST(v.at("results").at(0).at("path").as_string() == "guides/backup.md");
    BOOST_TEST(v.at("results").at(0).at("engine").as_string() == "vector");
    auto h = search({{"query", "语义检索"}, {"mode", "hybrid"}, {"kbs", json::array{"docs"}}});
    BOOST_TEST(h.at("degraded").as_bool() == false);
    BOOST_TEST(h.at("results").at(0).at("path").as_string() == "zh/deploy.md");

    // No embeddings configured: keyword results, degraded, never an error.
    auto dg = search({{"query", "backup vault"}, {"mode", "vector"}, {"kbs", json::array{"plain"}}});
    BOOST_TEST(dg.at("degraded").as_bool() == true);
    BOOST_REQUIRE(!dg.at("results").as_array().empty());
    BOOST_TEST(dg.at("results").at(0).at("engine").as_string() == "keyword");

    // The key never reaches the daemon's log.
    std::ifstream in(d.vault() / "logs" / "daemon.log");
    std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    BOOST_TEST(log.find("sk-test-4f1c9a") == std::string::npos);
    BOOST_TEST(d.log().find("sk-test-4f1c9a") == std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(agent_scope_hides_a_knowledge_base, Fixture) {
    write(dir.path() / "secret/plan.md", "# Plan\n\nThe narwhal project ships in May.\n");
    add_kb("docs", R"({"path":)" + quote(docs.string()) + "}");
    add_kb("private", R"({"path":)" + quote((dir.path() / "secret").string()) + "}",
           R"(,"scope":[{"machine":"*","agents":["agent-a"]}])");
    BOOST_REQUIRE(indexed("private", 1));
    BOOST_REQUIRE(indexed("docs", 3));

    McpClient a(d), b(d);
    a.initialize("2025-11-25", json::object{{"coffer/agent", "agent-a"}});
    b.initialize("2025-11-25", json::object{{"coffer/agent", "agent-b"}});
    auto an = names_of(a.request("tools/list").json), bn = names_of(b.request("tools/list").json);
    BOOST_TEST((std::find(an.begin(), an.end(), "private__search") != an.end()));
    BOOST_TEST((std::find(bn.begin(), bn.end(), "private__search") == bn.end()));
    // all_kbs reaches the session's peers only.
    auto fa = a.call_tool("docs__search", {{"query", "narwhal"}, {"all_kbs", true}});
    BOOST_TEST(tool_text(fa).find("narwhal") != std::string::npos);
    auto fb = b.call_tool("docs__search", {{"query", "narwhal"}, {"all_kbs", true}});
    BOOST_TEST(!tool_failed(fb));
    BOOST_TEST(fb.at("result").at("structuredContent").at("results").as_array().empty());
    BOOST_TEST(b.call_tool("private__search", {{"query", "narwhal"}}).as_object().contains("error"));
}

BOOST_FIXTURE_TEST_CASE(kill_during_bulk_index_then_check_agrees, Fixture) {
    auto bulk = dir.path() / "bulk";
    constexpr int kFiles = 4000;
    for (int i = 0; i < kFiles; ++i) {
        std::string body = "# Note " + std::to_string(i) + "\n\n";
        for (int p = 0; p < 6; ++p)
            body += "## Part " + std::to_string(p) + "\n\nParagraph " + std::to_string(p) + " of note " + std::to_string(i) +
                    " about topic" + std::to_string(i % 37) + " and more words to index.\n\n";
        write(bulk / ("d" + std::to_string(i % 20)) / ("n" + std::to_string(i) + ".md"), body);
    }
    add_kb("bulk", R"({"path":)" + quote(bulk.string()) + "}");
    // Killed while it indexes: some files done, not all.
    bool midway = indexing_with_at_most("bulk", kFiles - 1, std::chrono::seconds(10));
    d.kill9();
    BOOST_TEST_REQUIRE(midway, "the index finished before the kill; the test proves nothing");
    BOOST_REQUIRE(d.start());
    BOOST_REQUIRE(indexed("bulk", kFiles, std::chrono::seconds(120)));
    auto check = action("bulk", "check", {});
    BOOST_TEST(check.at("consistent").as_bool() == true, json::serialize(check));
    BOOST_TEST(check.at("differences").as_array().empty());
    auto r = search({{"query", "topic7 note 7"}, {"kbs", json::array{"bulk"}}});
    BOOST_TEST(!r.at("results").as_array().empty());
}

// A search or a stats call asked while a large folder is indexed is answered between two batches
// of the index, not after the whole folder: it sees the batches committed so far.
BOOST_FIXTURE_TEST_CASE(searches_answer_while_a_bulk_index_runs, Fixture) {
    auto bulk = dir.path() / "bulk";
    constexpr int kFiles = 4000;  // eight batches of 500
    for (int i = 0; i < kFiles; ++i)
        write(bulk / ("d" + std::to_string(i % 20)) / ("n" + std::to_string(i) + ".md"),
              "# Note " + std::to_string(i) + "\n\nAbout topic" + std::to_string(i % 37) + " and the walrus.\n\n" +
                  std::string(2000, 'w') + "\n");
    add_kb("bulk", R"({"path":)" + quote(bulk.string()) + "}");
    // At least two batches still to go when the calls are queued.
    bool early = indexing_with_at_most("bulk", kFiles - 1000, std::chrono::seconds(20));
    BOOST_TEST_REQUIRE(early, "the index was too far along to prove anything");
    auto st = action("bulk", "stats", {});
    auto documents = st.at("documents").to_number<std::int64_t>();
    BOOST_TEST(documents > 0);
    BOOST_TEST(documents < kFiles, "stats waited for the whole index: " << documents);
    auto r = search({{"query", "walrus"}, {"kbs", json::array{"bulk"}}});
    BOOST_TEST(!r.at("results").as_array().empty());
    BOOST_REQUIRE(indexed("bulk", kFiles, std::chrono::seconds(120)));
    auto check = action("bulk", "check", {});
    BOOST_TEST(check.at("consistent").as_bool() == true, json::serialize(check));
}
