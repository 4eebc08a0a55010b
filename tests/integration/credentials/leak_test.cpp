// G-42: after a representative session with an HTTP and a stdio upstream that use credentials,
// no secret value appears in any database row, any file of the vault (logs, daemon output,
// upstream-pids, the database files themselves), the audit export, or what list/show/status
// print. The upstreams check the values they receive (by SHA-256), so the session proves the
// secrets did reach them; a third server with a wrong value shows the check is real.
#define BOOST_TEST_MODULE integration_leak
#include <boost/test/unit_test.hpp>

#include "cred_support.hpp"
#include "mcp_client.hpp"
#include "support.hpp"  // mcps_test: HttpUpstream, stdio_config

#include <coffer/base64.hpp>

#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace coffer::test;
using namespace cred_test;
namespace fs = std::filesystem;

namespace {

// Standard base64 of the whole 3-byte groups: a prefix is enough to find an encoded copy, and it
// does not depend on what follows the secret in the encoded stream.
std::string base64(const std::string& in) { return coffer::base64_encode(in.substr(0, in.size() / 3 * 3)); }

std::string file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Every row of every table, every column as text (blobs as bytes): "table|col=value|…" lines.
std::vector<std::string> all_rows(const fs::path& db_path, std::map<std::string, int>& rows_per_table) {
    sqlite3* db = nullptr;
    std::vector<std::string> out;
    if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return out;
    }
    std::vector<std::string> tables;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    for (auto& t : tables) {
        sqlite3_prepare_v2(db, ("SELECT * FROM \"" + t + "\"").c_str(), -1, &st, nullptr);
        while (sqlite3_step(st) == SQLITE_ROW) {
            std::string line = t;
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                const void* p = sqlite3_column_blob(st, c);
                int n = sqlite3_column_bytes(st, c);
                line += "|" + std::string(sqlite3_column_name(st, c)) + "=" +
                        (p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string());
            }
            out.push_back(std::move(line));
            ++rows_per_table[t];
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return out;
}

std::string tool_text(const json::value& reply) {
    try {
        return std::string(reply.at("result").at("content").at(0).at("text").as_string());
    } catch (...) {
        return "<no text: " + json::serialize(reply) + ">";
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(no_secret_value_is_stored_logged_audited_or_shown) {
    auto nonce = std::to_string(::getpid()) + "x" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    const std::string http_secret = "Bearer leak-canary-http-" + nonce;
    const std::string stdio_secret = "leak-canary-stdio-" + nonce;
    const std::string wrong_secret = "Bearer leak-canary-wrong-" + nonce;
    const std::vector<std::string> secrets{http_secret, stdio_secret, wrong_secret, "leak-canary-http-" + nonce,
                                           "leak-canary-wrong-" + nonce};

    Vault v;
    mcps_test::HttpUpstream http(false, {"--require-header", "Authorization=" + sha256_hex(http_secret)});

    // Credentials through REST and through the CLI (stdin).
    v.set("leak-http", http_secret);
    auto cli_set = v.d.cli({"credential", "set", "leak-stdio", "--value-stdin"}, stdio_secret + "\n");
    BOOST_REQUIRE_MESSAGE(cli_set.exit_code == 0, cli_set.err);
    v.set("leak-wrong", wrong_secret);

    v.create_server("web", mcps_test::http_config(http.url(), R"({"headers":{"Authorization":"credref:leak-http"}})"));
    v.create_server("tool", mcps_test::stdio_config({"--require-env", "API_TOKEN=" + sha256_hex(stdio_secret)},
                                                    R"({"env":{"API_TOKEN":"credref:leak-stdio"}})"));
    v.create_server("bad", mcps_test::http_config(http.url(), R"({"headers":{"Authorization":"credref:leak-wrong"}})"));

    // A representative session through /mcp: list, calls on both upstreams, a resource read,
    // a call that fails upstream, then the session ends.
    std::vector<std::string> shown;  // everything the daemon printed or answered, for the scan
    {
        McpClient c(v.d);
        auto init = c.initialize();
        BOOST_REQUIRE_MESSAGE(init.status == 200, init.body);
        auto tools = c.request("tools/list");
        shown.push_back(tools.body);
        auto names = names_of(tools.json);
        BOOST_TEST((std::find(names.begin(), names.end(), "web__echo") != names.end()), tools.body);
        BOOST_TEST((std::find(names.begin(), names.end(), "tool__echo") != names.end()), tools.body);
        auto a = c.call_tool("web__echo", json::object{{"text", "through http"}});
        BOOST_TEST(tool_text(a) == "through http");  // the HTTP upstream accepted the header
        auto b = c.call_tool("tool__echo", json::object{{"text", "through stdio"}});
        BOOST_TEST(tool_text(b) == "through stdio");  // the stdio upstream started with the right env
        auto f = c.call_tool("tool__fail");
        auto r = c.request("resources/list");
        shown.push_back(r.body);
        auto bad = c.call_tool("bad__echo", json::object{{"text", "x"}});
        BOOST_TEST(bad.as_object().contains("error"), json::serialize(bad));  // the upstream refused the wrong value
        for (auto* j : {&a, &b, &f, &bad}) shown.push_back(json::serialize(*j));
        c.end_session();
    }
    BOOST_TEST(v.server_status("bad").at("last_error").as_string().find("401") != std::string::npos);

    // What users look at: REST show/status/list, the CLI's views, actions, the audit export.
    for (auto name : {"web", "tool", "bad"}) {
        shown.push_back(json::serialize(v.req("GET", std::string("/api/v1/resources/mcp_server/") + name, "", 200)));
        shown.push_back(json::serialize(v.req("POST", std::string("/api/v1/resources/mcp_server/") + name + "/actions/test", "{}", 200)));
        auto show = v.d.cli({"mcp", "show", name, "--verbose", "--json"});
        BOOST_TEST(show.exit_code == 0, show.err);
        shown.push_back(show.out + show.err);
        auto human = v.d.cli({"mcp", "show", name, "--verbose"});
        shown.push_back(human.out + human.err);
    }
    for (std::vector<std::string> args : {std::vector<std::string>{"mcp", "list", "--json"}, {"resource", "list", "--json"},
                                          {"credential", "list", "--json"}, {"credential", "exists", "leak-http"},
                                          {"audit", "--limit", "1000", "--json"}, {"audit", "--limit", "1000", "--verbose"}}) {
        auto r = v.d.cli(args);
        BOOST_TEST(r.exit_code == 0, r.err);
        shown.push_back(r.out + r.err);
    }
    auto audit = v.req("GET", "/api/v1/audit?limit=1000", "", 200);
    shown.push_back(json::serialize(audit));
    BOOST_REQUIRE_EQUAL(v.d.stop(), 0);  // flushes the logs

    // The scan.
    std::map<std::string, int> rows_per_table;
    auto rows = all_rows(v.d.vault() / "coffer.db", rows_per_table);
    std::vector<std::pair<std::string, std::string>> files;
    for (auto& e : fs::recursive_directory_iterator(v.d.vault()))
        if (e.is_regular_file()) files.emplace_back(e.path().string(), file_bytes(e.path()));

    // The scan sees what it should (so "zero occurrences" means something).
    BOOST_TEST(rows_per_table["credentials"] == 3);
    BOOST_TEST(rows_per_table["audit"] > 10);
    BOOST_TEST(rows_per_table["resources"] == 3);
    bool saw_log = false, saw_ref = false;
    for (auto& [path, bytes] : files)
        if (path.find("/logs/") != std::string::npos && bytes.find("credential") != std::string::npos) saw_log = true;
    for (auto& r : rows) saw_ref |= r.find("credential_resolved") != std::string::npos && r.find("leak-stdio") != std::string::npos;
    BOOST_TEST(saw_log);
    BOOST_TEST(saw_ref);
    BOOST_TEST(files.size() >= 4u);

    for (auto& secret : secrets) {
        for (auto& needle : {secret, base64(secret)}) {
            for (auto& r : rows) BOOST_TEST(r.find(needle) == std::string::npos, "database row leaks a secret: " << r);
            for (auto& [path, bytes] : files) BOOST_TEST(bytes.find(needle) == std::string::npos, path << " leaks a secret");
            for (auto& s : shown) BOOST_TEST(s.find(needle) == std::string::npos, "output leaks a secret: " << s);
        }
    }
}
