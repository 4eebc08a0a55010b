// Backup and restore (issue 4 item 6, SPEC D-7) with the real daemon and CLI on temporary vaults:
// a backup taken while the daemon serves and is being written to, restored into an empty vault,
// gives every file back byte for byte with its mode, and the restored daemon serves the same
// resources (test_kind from the restored plugins/ folder, an imported skill); master.key only
// when asked; an offline backup never starts a daemon; every refusal leaves nothing behind.
#define BOOST_TEST_MODULE backup
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

void write(const fs::path& p, const std::string& text, unsigned mode = 0644) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    ::chmod(p.c_str(), mode);
}

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return 07777;
    return st.st_mode & 0777u;
}

std::string quote(const std::string& s) { return json::serialize(json::value(s)); }

// One entry of a folder tree: type ('f', 'd', 'l'), mode, content (files) or link text.
struct Node {
    char type = 'f';
    unsigned mode = 0;
    std::string data;
    bool operator==(const Node&) const = default;
};
using Tree = std::map<std::string, Node>;

// Every entry below `root` (links not followed), minus the top-level names in `skip`.
Tree tree(const fs::path& root, const std::set<std::string>& skip) {
    Tree out;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        auto rel = it->path().lexically_relative(root).generic_string();
        auto top = rel.substr(0, rel.find('/'));
        if (skip.count(top)) {
            if (it->is_directory() && !it->is_symlink()) it.disable_recursion_pending();
            continue;
        }
        Node n;
        n.mode = mode_of(it->path());
        if (it->is_symlink()) {
            n.type = 'l';
            n.data = fs::read_symlink(it->path()).string();
        } else if (it->is_directory()) {
            n.type = 'd';
        } else {
            n.data = read(it->path());
        }
        out[rel] = n;
    }
    return out;
}

void same_tree(const Tree& a, const Tree& b, bool compare_modes, const std::string& what) {
    std::set<std::string> names_a, names_b;
    for (auto& [p, n] : a) names_a.insert(p);
    for (auto& [p, n] : b) names_b.insert(p);
    BOOST_TEST((names_a == names_b), what << ": the same entries");
    for (auto& [p, n] : a) {
        auto it = b.find(p);
        if (it == b.end()) {
            BOOST_TEST(false, what << ": missing " << p);
            continue;
        }
        BOOST_TEST(n.type == it->second.type, what << ": type of " << p);
        BOOST_TEST((n.data == it->second.data), what << ": bytes of " << p);
        if (compare_modes) BOOST_TEST(n.mode == it->second.mode, what << ": mode of " << p << " " << std::oct << n.mode
                                                                       << " vs " << it->second.mode);
    }
}

std::string skill_md(const std::string& name) {
    return "---\nname: " + name + "\ndescription: Helps with " + name + " tasks.\n---\n# " + name +
           "\n\nUse scripts/run.sh.\n";
}

// `coffer --home <vault> …` with no daemon spawning.
RunResult cli_at(const fs::path& vault, std::vector<std::string> args) {
    std::vector<std::string> argv{(bin_dir() / "coffer").string(), "--home", vault.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, {{"COFFER_HOME", vault.string()}, {"COFFER_PORT", "0"}, {"COFFER_NO_SPAWN", "1"}},
               std::chrono::seconds(120));
}

std::string reason_of(const RunResult& r) {
    auto v = parse(r.out);
    auto* o = v.if_object();
    if (!o || !o->contains("error")) return "";
    auto& d = v.at("error").at("details");
    if (!d.is_object() || !d.as_object().contains("reason")) return "";
    return std::string(d.at("reason").as_string());
}

std::string code_of(const RunResult& r) {
    auto v = parse(r.out);
    auto* o = v.if_object();
    if (!o || !o->contains("error")) return "";
    return std::string(v.at("error").at("code").as_string());
}

// Top-level names in a folder (to check that nothing was left behind).
std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> out;
    std::error_code ec;
    for (auto& e : fs::directory_iterator(dir, ec)) out.insert(e.path().filename().string());
    return out;
}

std::int64_t sql_count(const fs::path& db_file, const std::string& sql) {
    sqlite3* db = nullptr;
    std::string uri = "file:" + db_file.string() + "?immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_stmt* st = nullptr;
    std::int64_t n = -1;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

// Names of the resources of a kind in a database file.
std::set<std::string> names_of_kind(const fs::path& db_file, const std::string& kind) {
    std::set<std::string> out;
    sqlite3* db = nullptr;
    std::string uri = "file:" + db_file.string() + "?immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        return out;
    }
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT name FROM resources WHERE kind = ?1", -1, &st, nullptr) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, kind.c_str(), -1, SQLITE_TRANSIENT);
        while (sqlite3_step(st) == SQLITE_ROW) out.insert(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

// Runtime state in a source vault, never in a backup (daemon.stderr is this fixture's capture of
// the daemon's output: it is copied like any file, but keeps growing in the source).
const std::set<std::string> kRuntime = {"daemon.json",   "daemon.lock",   "spawn.lock",    "logs",    "mcp.sock",
                                        "upstream-pids", "coffer.db-wal", "coffer.db-shm", "daemon.stderr"};

struct Source {
    TempDir dir;
    fs::path home = dir.path() / "home";
    fs::path src = dir.path() / "src";
    Daemon d{dir.path() / "vault", {{"HOME", home.string()}}};
    fs::path vault = dir.path() / "vault";
    // A well-formed Fernet key (the Fernet specification's test key): the daemon reads it.
    std::string key_text = "cw_0x689RpI-jtRR7oE8h_eQsKImvJapLeSbXpwF4e4=\n";

    Source() {
        fs::create_directories(home);
        install_test_plugins(vault, {"test_kind"});
        // Normally created by the first `coffer credential set`; written here so its bytes are known.
        write(vault / "master.key", key_text, 0600);
        // Trees beside the skill library: notes with odd modes, binary bytes, a link, an empty folder.
        write(vault / "knowledge" / "notes" / "a.md", "# A\n", 0640);
        write(vault / "knowledge" / "notes" / "tool.sh", "#!/bin/sh\necho hi\n", 0750);
        std::string blob;
        for (int i = 0; i < 256 * 4; ++i) blob.push_back(static_cast<char>(i & 0xff));
        write(vault / "knowledge" / "blob.bin", blob, 0600);
        fs::create_symlink("notes/a.md", vault / "knowledge" / "latest");
        fs::create_directories(vault / "memory" / "empty");
        ::chmod((vault / "memory").c_str(), 0750);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    }

    json::value req(const std::string& m, const std::string& t, const std::string& b, int expect) {
        int status = 0;
        auto v = d.call_json(m, t, b, &status);
        BOOST_TEST(status == expect, m << " " << t << " -> " << status << " " << json::serialize(v));
        return v;
    }

    fs::path make_skill(const std::string& name) {
        auto root = src / name;
        write(root / "SKILL.md", skill_md(name));
        write(root / "scripts" / "run.sh", "#!/bin/sh\necho " + name + "\n", 0755);
        write(root / "references" / "guide.md", "# Guide for " + name + "\n");
        return root;
    }

    // Three test_kind resources (one disabled) and an imported skill.
    void populate() {
        for (int i = 1; i <= 3; ++i)
            req("POST", "/api/v1/resources",
                R"({"kind":"test_kind","name":"t)" + std::to_string(i) + R"(","config":{"value":)" +
                    std::to_string(i * 2) + R"(,"label":"n)" + std::to_string(i) + R"("},"description":"d)" +
                    std::to_string(i) + "\"" + (i == 3 ? R"(,"enabled":false)" : "") + "}",
                201);
        req("POST", "/api/v1/resources",
            R"({"kind":"skill","name":"pdf-tools","config":{"source":)" + quote(make_skill("pdf-tools").string()) + "}}",
            201);
    }

    json::value resources() { return req("GET", "/api/v1/resources", "", 200).at("resources"); }

    RunResult backup(const fs::path& dest, bool with_key = false) {
        std::vector<std::string> args{"--json", "backup", dest.string()};
        if (with_key) args.push_back("--include-master-key");
        return d.cli(args);
    }
};

// What matters of a resource for "serves the same resources".
json::object essence(const json::value& r) {
    return json::object{{"uid", r.at("uid")},         {"kind", r.at("kind")},       {"name", r.at("name")},
                        {"config", r.at("config")},   {"enabled", r.at("enabled")}, {"scope", r.at("scope")},
                        {"description", r.at("description")}};
}

std::map<std::string, json::object> by_name(const json::value& list, const std::string& prefix_to_skip = "w-") {
    std::map<std::string, json::object> out;
    for (auto& r : list.as_array()) {
        std::string name(r.at("name").as_string());
        if (name.rfind(prefix_to_skip, 0) == 0) continue;
        out[std::string(r.at("kind").as_string()) + ":" + name] = essence(r);
    }
    return out;
}

// Adds `rows` audit rows through a second connection while the daemon runs, so the database is
// large enough that copying it takes a while.
void grow_database(const fs::path& db_file, int rows) {
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open(db_file.c_str(), &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    BOOST_REQUIRE(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    BOOST_REQUIRE(sqlite3_prepare_v2(db,
                                     "INSERT INTO audit (ts_ms, actor, event_type, target, payload) "
                                     "VALUES (?1, 'system', 'filler', ?2, ?3)",
                                     -1, &st, nullptr) == SQLITE_OK);
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                   .count();
    std::string payload = "{\"pad\":\"" + std::string(300, 'x') + "\"}";
    for (int i = 0; i < rows; ++i) {
        std::string target = "filler-" + std::to_string(i);
        sqlite3_bind_int64(st, 1, now);
        sqlite3_bind_text(st, 2, target.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(st, 3, payload.c_str(), -1, SQLITE_STATIC);
        BOOST_REQUIRE(sqlite3_step(st) == SQLITE_DONE);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    BOOST_REQUIRE(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
}

struct Write {
    Clock::time_point start, end;
    int status = 0;
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(backup_while_serving_and_writing_restores_the_same_vault, Source) {
    populate();
    constexpr int kFiller = 120000;
    grow_database(vault / "coffer.db", kFiller);
    auto before = by_name(resources());
    BOOST_REQUIRE_EQUAL(before.size(), 4u);

    // A client creating resources one after another for the whole backup.
    std::vector<Write> writes;
    std::mutex mu;
    std::atomic<bool> stop{false};
    auto port = d.port();
    auto token = d.token();
    std::thread writer([&] {
        for (int i = 0; !stop; ++i) {
            Write w;
            w.start = Clock::now();
            auto r = http_request(port, "POST", "/api/v1/resources",
                                  R"({"kind":"test_kind","name":"w-)" + std::to_string(i) + R"(","config":{"value":)" +
                                      std::to_string(i) + "}}",
                                  {{"X-Coffer-Token", token}});
            w.end = Clock::now();
            w.status = r.status;
            std::lock_guard<std::mutex> g(mu);
            writes.push_back(w);
        }
    });
    auto wait_writes = [&](std::size_t n) {
        eventually([&] {
            std::lock_guard<std::mutex> g(mu);
            return writes.size() >= n;
        }, std::chrono::seconds(10), std::chrono::milliseconds(5));
    };
    wait_writes(3);
    auto dest = dir.path() / "backups" / "b1";
    fs::create_directories(dest.parent_path());
    auto t_request = Clock::now();
    auto out = backup(dest);
    auto t_answer = Clock::now();
    {
        std::size_t n;
        {
            std::lock_guard<std::mutex> g(mu);
            n = writes.size();
        }
        wait_writes(n + 3);
    }
    stop = true;
    writer.join();

    BOOST_REQUIRE_MESSAGE(out.exit_code == 0, out.out << out.err);
    auto doc = parse(out.out);
    auto& b = doc.at("backup");
    BOOST_TEST(b.at("via").as_string() == "daemon");
    BOOST_TEST(b.at("master_key").as_bool() == false);
    BOOST_TEST(b.at("master_key_in_vault").as_bool() == true);
    BOOST_TEST(out.err.find("master.key is not in this backup") != std::string::npos, out.err);
    BOOST_TEST(fs::path(std::string(b.at("destination").as_string())) == dest);
    for (auto& w : writes) BOOST_TEST(w.status == 201);

    // The backup folder: private, every file only the owner's, the manifest last and complete.
    BOOST_TEST(mode_of(dest) == 0700u);
    auto in_backup = tree(dest, {});
    for (auto& [p, n] : in_backup)
        if (n.type != 'l') BOOST_TEST((n.mode & 077u) == 0u, p << " is readable by others: " << std::oct << n.mode);
    BOOST_TEST(!fs::exists(dest / "master.key"));
    for (auto& r : kRuntime)
        if (r != "daemon.stderr") BOOST_TEST(!fs::exists(fs::symlink_status(dest / r)), r << " is runtime state");
    auto manifest = parse(read(dest / "coffer-backup.json"));
    BOOST_REQUIRE(manifest.is_object());
    BOOST_TEST(manifest.at("format").as_string() == "coffer-backup");
    BOOST_TEST(manifest.at("format_version").as_int64() == 1);
    BOOST_TEST(manifest.at("schema_version").as_int64() >= 1);
    BOOST_TEST(!manifest.at("coffer_version").as_string().empty());
    BOOST_TEST(manifest.at("created_at").as_string().size() == 24u);
    std::set<std::string> listed;
    for (auto& e : manifest.at("entries").as_array()) listed.insert(std::string(e.at("path").as_string()));
    std::set<std::string> present;
    for (auto& [p, n] : in_backup)
        if (p != "coffer-backup.json") present.insert(p);
    BOOST_TEST((listed == present), "the manifest lists exactly the backup's entries");
    for (auto must : {"coffer.db", "skills/pdf-tools/SKILL.md", "plugins", "data", "knowledge/blob.bin",
                      "knowledge/latest", "memory/empty"})
        BOOST_TEST(listed.count(must) == 1u, must);
    BOOST_TEST(sql_count(dest / "coffer.db", "SELECT count(*) FROM audit WHERE event_type = 'filler'") == kFiller);

    // The snapshot is consistent: the writer's resources in it are w-0 … w-(k-1), every write
    // finished before the request is in it, and writes went on (and finished) while the backup
    // was being written — at least one completed before the answer and is not in the snapshot.
    auto in_snapshot = names_of_kind(dest / "coffer.db", "test_kind");
    std::size_t k = 0;
    while (in_snapshot.count("w-" + std::to_string(k))) ++k;
    std::size_t w_count = 0;
    for (auto& n : in_snapshot) w_count += n.rfind("w-", 0) == 0;
    BOOST_TEST(w_count == k, "the writer's resources in the snapshot are a prefix");
    std::size_t done_before = 0, done_during_not_in = 0;
    for (std::size_t i = 0; i < writes.size(); ++i) {
        if (writes[i].end < t_request) ++done_before;
        if (writes[i].end < t_answer && i >= k) ++done_during_not_in;
    }
    BOOST_TEST_MESSAGE("backup took " << b.at("duration_ms").as_int64() << " ms in the daemon, "
                                      << std::chrono::duration_cast<std::chrono::milliseconds>(t_answer - t_request).count()
                                      << " ms for the CLI; " << writes.size() << " writes, " << k
                                      << " in the snapshot, " << done_before << " finished before the request, "
                                      << done_during_not_in << " finished during the backup but after its snapshot");
    BOOST_TEST(k >= done_before);
    BOOST_TEST(done_during_not_in >= 1u, "no write finished while the backup was running (k=" << k << ", writes="
                                                                                              << writes.size() << ")");

    // Restore into an empty vault (the folder exists, as a fresh --home would leave it).
    fs::path home2 = dir.path() / "home2";
    fs::create_directories(home2);
    Daemon r{dir.path() / "restored", {{"HOME", home2.string()}}};
    auto res = r.cli({"--json", "restore", dest.string()});
    BOOST_REQUIRE_MESSAGE(res.exit_code == 0, res.out << res.err);
    auto rdoc = parse(res.out).at("restore");
    BOOST_TEST(rdoc.at("files").as_int64() == b.at("files").as_int64());
    BOOST_TEST(rdoc.at("bytes").as_int64() == b.at("bytes").as_int64());
    BOOST_TEST(rdoc.at("master_key").as_bool() == false);
    BOOST_TEST(mode_of(r.vault()) == 0700u);
    for (auto& n : names_in(dir.path())) BOOST_TEST(n.rfind(".coffer-restore-", 0) != 0, n << " left behind");

    // Every file identical: restored = backup (bytes, types), restored = source (bytes and modes).
    auto restored = tree(r.vault(), {"daemon.lock"});
    auto backup_tree = tree(dest, {"coffer-backup.json"});
    same_tree(restored, backup_tree, false, "restored vs backup");
    auto source_now = tree(vault, [] {
        auto s = kRuntime;
        s.insert({"coffer.db", "master.key"});
        return s;
    }());
    auto restored_trees = tree(r.vault(), {"daemon.lock", "coffer.db", "daemon.stderr"});
    same_tree(source_now, restored_trees, true, "restored vs source vault");
    BOOST_TEST(mode_of(r.vault() / "coffer.db") == 0600u);
    BOOST_TEST(!fs::exists(r.vault() / "master.key"));

    // The restored daemon serves the same resources, the test kind from the restored plugins/
    // folder, and the skill (delivered again into this machine's agents' folders).
    BOOST_REQUIRE_MESSAGE(r.start(), r.log());
    int status = 0;
    auto list = r.call_json("GET", "/api/v1/resources", "", &status);
    BOOST_REQUIRE_EQUAL(status, 200);
    auto after = by_name(list.at("resources"));
    BOOST_TEST(after.size() == before.size());
    for (auto& [key, res_before] : before) {
        auto it = after.find(key);
        BOOST_TEST((it != after.end()), key << " is served after the restore");
        if (it != after.end()) BOOST_TEST(json::serialize(it->second) == json::serialize(res_before), key);
    }
    auto t1 = r.call_json("GET", "/api/v1/resources/test_kind/t1", "", &status);
    BOOST_TEST(status == 200);
    BOOST_TEST(t1.at("resource").at("status").at("state").as_string() == "running");
    BOOST_TEST(t1.at("resource").at("status").at("plugin").at("value").as_int64() == 2);
    auto skill = r.call_json("GET", "/api/v1/resources/skill/pdf-tools", "", &status);
    BOOST_TEST(status == 200);
    BOOST_TEST(skill.at("resource").at("status").at("state").as_string() == "running");
    BOOST_TEST(read(home2 / ".claude" / "skills" / "pdf-tools" / "SKILL.md") == skill_md("pdf-tools"));
    auto w_after = names_of_kind(r.vault() / "coffer.db", "test_kind");
    BOOST_TEST(w_after.count("w-" + std::to_string(k)) == 0u);
    BOOST_TEST(r.stop() == 0);
}

BOOST_FIXTURE_TEST_CASE(master_key_only_when_asked, Source) {
    req("POST", "/api/v1/resources", R"({"kind":"test_kind","name":"k1","config":{"value":1}})", 201);
    const std::string secret = "backup-secret-5c1e-\xe2\x9c\x93";
    auto set = d.cli({"credential", "set", "deploy-token", "--value-stdin"}, secret);
    BOOST_REQUIRE_MESSAGE(set.exit_code == 0, set.out << set.err);

    auto with = dir.path() / "with-key";
    auto out = backup(with, true);
    BOOST_REQUIRE_MESSAGE(out.exit_code == 0, out.out << out.err);
    BOOST_TEST(parse(out.out).at("backup").at("master_key").as_bool());
    BOOST_TEST(out.err.find("warning:") != std::string::npos, out.err);
    BOOST_TEST(out.err.find("decrypt") != std::string::npos, out.err);
    BOOST_TEST(read(with / "master.key") == key_text);
    BOOST_TEST(mode_of(with / "master.key") == 0600u);
    auto manifest = parse(read(with / "coffer-backup.json"));
    BOOST_TEST(manifest.at("master_key").as_bool());

    auto without = dir.path() / "without-key";
    auto out2 = backup(without, false);
    BOOST_REQUIRE_MESSAGE(out2.exit_code == 0, out2.out << out2.err);
    BOOST_TEST(!parse(out2.out).at("backup").at("master_key").as_bool());
    BOOST_TEST(out2.err.find("warning:") == std::string::npos, out2.err);
    BOOST_TEST(!fs::exists(without / "master.key"));
    BOOST_TEST(!parse(read(without / "coffer-backup.json")).at("master_key").as_bool());

    auto v1 = dir.path() / "v-with";
    auto r1 = cli_at(v1, {"--json", "restore", with.string()});
    BOOST_REQUIRE_MESSAGE(r1.exit_code == 0, r1.out << r1.err);
    BOOST_TEST(parse(r1.out).at("restore").at("master_key").as_bool());
    BOOST_TEST(read(v1 / "master.key") == key_text);
    BOOST_TEST(mode_of(v1 / "master.key") == 0600u);

    auto v2 = dir.path() / "v-without";
    auto r2 = cli_at(v2, {"--json", "restore", without.string()});
    BOOST_REQUIRE_MESSAGE(r2.exit_code == 0, r2.out << r2.err);
    BOOST_TEST(!fs::exists(v2 / "master.key"));
    BOOST_TEST(fs::exists(v2 / "coffer.db"));

    // Restored with the key: the daemon serves the same credential (decrypted with the restored key).
    {
        Daemon rd{v1, {{"HOME", home.string()}}};
        BOOST_REQUIRE_MESSAGE(rd.start(), rd.log());
        auto got = rd.cli({"credential", "get", "deploy-token"});
        BOOST_TEST(got.exit_code == 0, got.err);
        BOOST_TEST(got.out.substr(0, secret.size()) == secret);
        BOOST_TEST(rd.stop() == 0);
    }
    // Restored without it: the ciphertext is there, the key is not, so the daemon refuses to start
    // and says why (nothing decrypted, nothing lost: the backup with the key still restores).
    {
        Daemon rd{v2, {{"HOME", home.string()}}};
        BOOST_TEST(!rd.start());
        BOOST_TEST(rd.log().find("MasterKeyMissing") != std::string::npos, rd.log());
    }
}

BOOST_FIXTURE_TEST_CASE(offline_backup_never_starts_a_daemon, Source) {
    populate();
    auto before = by_name(resources());
    BOOST_REQUIRE_EQUAL(d.stop(), 0);
    BOOST_REQUIRE(!fs::exists(vault / "daemon.json"));

    auto dest = dir.path() / "offline";
    auto out = d.cli({"--json", "backup", dest.string()});
    BOOST_REQUIRE_MESSAGE(out.exit_code == 0, out.out << out.err);
    BOOST_TEST(parse(out.out).at("backup").at("via").as_string() == "offline");
    BOOST_TEST(!fs::exists(vault / "daemon.json"), "the backup started a daemon");
    auto st = d.cli({"daemon", "status"});
    BOOST_TEST(st.exit_code == 3, "no daemon may be running: " << st.out);
    BOOST_TEST(!fs::exists(vault / "coffer.db-wal"));

    auto target = dir.path() / "from-offline";
    auto res = cli_at(target, {"--json", "restore", dest.string()});
    BOOST_REQUIRE_MESSAGE(res.exit_code == 0, res.out << res.err);
    // The trees byte for byte; the database is a copy of its content (its header differs: the
    // copy is one self-contained file, not in WAL mode), byte for byte the backup's.
    same_tree(tree(vault, [] {
                  auto s = kRuntime;
                  s.insert({"master.key", "coffer.db"});
                  return s;
              }()),
              tree(target, {"daemon.lock", "daemon.stderr", "coffer.db"}), true, "offline restore vs source");
    BOOST_TEST((read(target / "coffer.db") == read(dest / "coffer.db")));
    BOOST_TEST(sql_count(target / "coffer.db", "SELECT count(*) FROM resources") ==
               sql_count(vault / "coffer.db", "SELECT count(*) FROM resources"));
    Daemon r{target, {{"HOME", (dir.path() / "home3").string()}}};
    BOOST_REQUIRE_MESSAGE(r.start(), r.log());
    int status = 0;
    auto after = by_name(r.call_json("GET", "/api/v1/resources", "", &status).at("resources"));
    BOOST_TEST(status == 200);
    BOOST_TEST(after.size() == before.size());
    for (auto& [key, v] : before) BOOST_TEST((after.count(key) && json::serialize(after[key]) == json::serialize(v)), key);
}

BOOST_FIXTURE_TEST_CASE(backup_refusals_write_nothing, Source) {
    // A non-empty destination, and a file as destination.
    auto full = dir.path() / "full";
    write(full / "keep.txt", "mine\n");
    auto r = backup(full);
    BOOST_TEST(r.exit_code == 1, r.out << r.err);
    BOOST_TEST(reason_of(r) == "destination_not_empty");
    BOOST_TEST(code_of(r) == "CONFLICT");
    BOOST_TEST((names_in(full) == std::set<std::string>{"keep.txt"}));
    auto file = dir.path() / "a-file";
    write(file, "x");
    r = backup(file);
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(reason_of(r) == "destination_not_empty");
    BOOST_TEST(read(file) == "x");

    // Inside the vault; a parent that does not exist.
    r = backup(vault / "bk");
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(reason_of(r) == "destination_invalid");
    BOOST_TEST(!fs::exists(vault / "bk"));
    r = backup(dir.path() / "no" / "such" / "parent");
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(reason_of(r) == "destination_invalid");
    BOOST_TEST(!fs::exists(dir.path() / "no"));

    // Usage: no destination.
    r = d.cli({"backup"});
    BOOST_TEST(r.exit_code == 2);

    // REST: bad bodies, wrong method, no token.
    auto dest = (dir.path() / "rest").string();
    int status = 0;
    auto v = d.call_json("POST", "/api/v1/backup", R"({"destination":"relative/path"})", &status);
    BOOST_TEST(status == 400);
    BOOST_TEST(v.at("error").at("code").as_string() == "VALIDATION_FAILED");
    BOOST_TEST(v.at("error").at("details").at("errors").at(0).at("pointer").as_string() == "/destination");
    v = d.call_json("POST", "/api/v1/backup", "{}", &status);
    BOOST_TEST(status == 400);
    v = d.call_json("POST", "/api/v1/backup", R"({"destination":)" + quote(dest) + R"(,"include_master_key":"yes"})", &status);
    BOOST_TEST(status == 400);
    BOOST_TEST(v.at("error").at("details").at("errors").at(0).at("pointer").as_string() == "/include_master_key");
    v = d.call_json("POST", "/api/v1/backup", R"({"destination":)" + quote(dest) + R"(,"extra":1})", &status);
    BOOST_TEST(status == 400);
    v = d.call_json("POST", "/api/v1/backup", "not json", &status);
    BOOST_TEST(status == 400);
    BOOST_TEST(v.at("error").at("code").as_string() == "BAD_REQUEST");
    auto g = d.call("GET", "/api/v1/backup");
    BOOST_TEST(g.status == 405);
    auto anon = http_request(d.port(), "POST", "/api/v1/backup", R"({"destination":)" + quote(dest) + "}");
    BOOST_TEST(anon.status == 401);
    BOOST_TEST(!fs::exists(dest));

    // The same route works (and is audited) with a good body.
    v = d.call_json("POST", "/api/v1/backup", R"({"destination":)" + quote(dest) + "}", &status);
    BOOST_TEST(status == 200, json::serialize(v));
    BOOST_TEST(fs::exists(fs::path(dest) / "coffer-backup.json"));
    auto events = d.call_json("GET", "/api/v1/audit?limit=20", "", &status);
    bool audited = false;
    for (auto& e : events.at("events").as_array())
        audited |= e.at("event_type").as_string() == "backup_created" && e.at("target").as_string() == dest;
    BOOST_TEST(audited);

    // Offline, a folder that is no vault.
    auto nothing = dir.path() / "not-a-vault";
    fs::create_directories(nothing);
    r = cli_at(nothing, {"--json", "backup", (dir.path() / "nv").string()});
    BOOST_TEST(r.exit_code == 1, r.out << r.err);
    BOOST_TEST(reason_of(r) == "not_a_vault");
    BOOST_TEST(!fs::exists(dir.path() / "nv"));
}

BOOST_FIXTURE_TEST_CASE(restore_refusals_leave_nothing_behind, Source) {
    populate();
    auto good = dir.path() / "good";
    auto b = backup(good);
    BOOST_REQUIRE_MESSAGE(b.exit_code == 0, b.out << b.err);
    auto targets = dir.path() / "targets";
    fs::create_directories(targets);
    auto variant = [&](const std::string& name) {
        auto p = dir.path() / name;
        fs::copy(good, p, fs::copy_options::recursive | fs::copy_options::copy_symlinks);
        return p;
    };
    // Every refusal: exit 1, the reason, and no vault (nor staging folder) appears.
    auto refused = [&](const fs::path& src, const std::string& reason, const std::string& code) {
        auto target = targets / ("t-" + reason);
        auto r = cli_at(target, {"--json", "restore", src.string()});
        BOOST_TEST(r.exit_code == 1, reason << ": " << r.out << r.err);
        BOOST_TEST(reason_of(r) == reason, r.out);
        BOOST_TEST(code_of(r) == code, r.out);
        BOOST_TEST(!fs::exists(target), reason << ": the vault was created");
        for (auto& n : names_in(targets)) BOOST_TEST(n.rfind(".coffer-restore-", 0) != 0, n << " left behind");
        return r;
    };

    auto tampered = variant("tampered");
    {
        auto f = tampered / "skills" / "pdf-tools" / "SKILL.md";
        auto text = read(f);
        text[text.size() / 2] ^= 1;
        write(f, text, 0600);
    }
    auto r = refused(tampered, "checksum_mismatch", "BAD_REQUEST");
    BOOST_TEST(parse(r.out).at("error").at("details").at("path").as_string() == "skills/pdf-tools/SKILL.md");

    auto db_tampered = variant("db-tampered");
    {
        std::fstream f(db_tampered / "coffer.db", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(200);
        f.put('\x7f');
    }
    refused(db_tampered, "checksum_mismatch", "BAD_REQUEST");

    auto extra = variant("extra");
    write(extra / "skills" / "smuggled.txt", "x");
    refused(extra, "unexpected_file", "BAD_REQUEST");

    auto missing = variant("missing");
    fs::remove(missing / "skills" / "pdf-tools" / "references" / "guide.md");
    refused(missing, "missing_file", "BAD_REQUEST");

    auto no_manifest = variant("no-manifest");
    fs::remove(no_manifest / "coffer-backup.json");
    refused(no_manifest, "manifest_missing", "NOT_FOUND");

    auto corrupt = variant("corrupt");
    write(corrupt / "coffer-backup.json", "{\"format\":\"coffer-backup\",", 0600);
    refused(corrupt, "manifest_invalid", "BAD_REQUEST");

    auto rewrite_manifest = [&](const fs::path& p, const std::function<void(json::object&)>& edit) {
        auto m = parse(read(p / "coffer-backup.json"));
        edit(m.as_object());
        write(p / "coffer-backup.json", json::serialize(m), 0600);
    };
    auto newer = variant("newer");
    rewrite_manifest(newer, [](json::object& m) { m["schema_version"] = 999; });
    r = refused(newer, "schema_too_new", "UNSUPPORTED");
    BOOST_TEST(r.err.find("newer") != std::string::npos, r.err);

    auto newer_format = variant("newer-format");
    rewrite_manifest(newer_format, [](json::object& m) { m["format_version"] = 2; });
    refused(newer_format, "format_too_new", "UNSUPPORTED");

    // A manifest that would write outside the vault.
    auto escape = variant("escape");
    rewrite_manifest(escape, [](json::object& m) {
        m["entries"].as_array().push_back(json::object{
            {"path", "../escaped.txt"}, {"type", "file"}, {"mode", "0644"}, {"size", 0},
            {"sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}});
    });
    refused(escape, "manifest_invalid", "BAD_REQUEST");
    BOOST_TEST(!fs::exists(targets / "escaped.txt"));

    // A file under a listed symlink would be written through it.
    auto through_link = variant("through-link");
    rewrite_manifest(through_link, [](json::object& m) {
        auto& list = m["entries"].as_array();
        list.push_back(json::object{{"path", "zz"}, {"type", "symlink"}, {"mode", "0777"}, {"target", "/tmp"}});
        list.push_back(json::object{{"path", "zz/x"}, {"type", "file"}, {"mode", "0644"}, {"size", 0},
                                    {"sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}});
    });
    refused(through_link, "manifest_invalid", "BAD_REQUEST");

    // The vault is not empty: refused, untouched.
    auto busy = targets / "occupied";
    write(busy / "mine.txt", "keep me\n");
    r = cli_at(busy, {"--json", "restore", good.string()});
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(reason_of(r) == "vault_not_empty", r.out);
    BOOST_TEST((names_in(busy) == std::set<std::string>{"mine.txt"}));
    BOOST_TEST(read(busy / "mine.txt") == "keep me\n");

    // A daemon runs for the target vault.
    Daemon running{targets / "running"};
    BOOST_REQUIRE_MESSAGE(running.start(), running.log());
    auto listing = names_in(running.vault());
    r = cli_at(running.vault(), {"--json", "restore", good.string()});
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(reason_of(r) == "daemon_running", r.out);
    BOOST_TEST(code_of(r) == "CONFLICT");
    BOOST_TEST(r.err.find("coffer daemon stop") != std::string::npos, r.err);
    BOOST_TEST((names_in(running.vault()) == listing));
    BOOST_TEST(running.call("GET", "/api/v1/daemon/status").status == 200);
    BOOST_TEST(running.stop() == 0);

    // The untouched backup still restores, into a folder holding only leftovers of a daemon.
    auto leftovers = targets / "leftovers";
    fs::create_directories(leftovers / "logs");
    write(leftovers / "daemon.lock", "", 0600);
    r = cli_at(leftovers, {"--json", "restore", good.string()});
    BOOST_TEST(r.exit_code == 0, r.out << r.err);
    BOOST_TEST(fs::exists(leftovers / "skills" / "pdf-tools" / "SKILL.md"));
    BOOST_TEST(!fs::exists(leftovers / "logs"));
}

// A daemon told to stop in the middle of a backup stops cleanly, and the destination is either
// gone (the copy was cancelled and removed) or a complete backup — never half a one.
BOOST_FIXTURE_TEST_CASE(stopping_during_a_backup_leaves_no_partial_backup, Source) {
    grow_database(vault / "coffer.db", 120000);
    auto dest = dir.path() / "interrupted";
    HttpResult answer;
    auto port = d.port();
    auto token = d.token();
    std::thread client([&] {
        answer = http_request(port, "POST", "/api/v1/backup", R"({"destination":)" + quote(dest.string()) + "}",
                              {{"X-Coffer-Token", token}});
    });
    // Stop as soon as the backup has started writing.
    eventually([&] { return fs::exists(dest); }, std::chrono::seconds(2), std::chrono::milliseconds(1));
    BOOST_TEST(d.stop() == 0, d.log());
    client.join();
    bool complete = fs::exists(dest / "coffer-backup.json");
    BOOST_TEST_MESSAGE("answer " << answer.status << ", backup " << (complete ? "complete" : "absent"));
    if (complete) {
        auto r = cli_at(dir.path() / "check", {"--json", "restore", dest.string()});
        BOOST_TEST(r.exit_code == 0, r.out << r.err);
    } else {
        BOOST_TEST(!fs::exists(dest), "a partial backup was left at " << dest);
    }
    BOOST_TEST(!fs::exists(vault / "daemon.json"));
}
