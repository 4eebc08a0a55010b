// The real daemon and links inside its vault: `logs`, `data`, `plugins`, `upstream-pids`,
// `skills` or `coffer.db` linked elsewhere make it refuse to start (exit 1, a message naming the
// entry and its target) and leave the target untouched (content, mode, no new files); a vault
// reached through a link (COFFER_HOME naming a link) still works; the files it creates are 0600.
#define BOOST_TEST_MODULE vault_links
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>

using namespace coffer::test;
namespace fs = std::filesystem;

namespace {

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return 0;
    return st.st_mode & 07777;
}

std::string bytes_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> out;
    for (auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
    return out;
}

// The files a daemon creates default to the umask; a common one, so 0644 would show.
struct CommonUmask {
    mode_t old = ::umask(022);
    ~CommonUmask() { ::umask(old); }
};

// Another application's folder: one file, mode 0755.
fs::path foreign_dir(const fs::path& at) {
    fs::create_directories(at);
    std::ofstream(at / "keep.txt") << "not coffer's";
    ::chmod(at.c_str(), 0755);
    return at;
}

// Another application's SQLite database (rollback journal, one table), mode 0644.
fs::path foreign_db(const fs::path& file) {
    fs::create_directories(file.parent_path());
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
    BOOST_REQUIRE(sqlite3_exec(db, "CREATE TABLE theirs(x); INSERT INTO theirs VALUES (1);", nullptr, nullptr, nullptr) ==
                  SQLITE_OK);
    sqlite3_close(db);
    ::chmod(file.c_str(), 0644);
    return file;
}

// Starts a daemon on `vault` that must refuse: exit code 1 and its stderr.
std::string refused_start(const fs::path& vault) {
    Daemon d(vault);
    BOOST_TEST(!d.start());
    BOOST_TEST(d.stop() == 1);
    return d.log();
}

}  // namespace

BOOST_AUTO_TEST_CASE(linked_folders_are_refused_and_left_alone) {
    CommonUmask umask_022;
    for (std::string entry : {"logs", "data", "plugins", "upstream-pids", "skills"}) {
        TempDir t;
        fs::path vault = t.path() / "vault";
        fs::create_directories(vault);
        fs::path target = foreign_dir(t.path() / ("their-" + entry));
        fs::create_symlink(target, vault / entry);

        auto log = refused_start(vault);
        BOOST_TEST(log.find("refusing to start") != std::string::npos, entry << ": " << log);
        BOOST_TEST(log.find((vault / entry).string() + " is a symbolic link to " + target.string()) != std::string::npos,
                   entry << ": " << log);
        BOOST_TEST(mode_of(target) == 0755u, entry);
        BOOST_TEST((names_in(target) == std::set<std::string>{"keep.txt"}), entry);
        BOOST_TEST(bytes_of(target / "keep.txt") == "not coffer's", entry);
        BOOST_TEST(!fs::exists(vault / "coffer.db"), entry);  // refused before anything was opened
    }
}

BOOST_AUTO_TEST_CASE(a_linked_database_is_refused_and_left_alone) {
    CommonUmask umask_022;
    TempDir t;
    fs::path vault = t.path() / "vault";
    fs::create_directories(vault);
    fs::path theirs = foreign_db(t.path() / "other-app" / "app.db");
    const std::string before = bytes_of(theirs);
    fs::create_symlink(theirs, vault / "coffer.db");

    auto log = refused_start(vault);
    BOOST_TEST(log.find((vault / "coffer.db").string() + " is a symbolic link to " + theirs.string()) != std::string::npos,
               log);
    BOOST_TEST(bytes_of(theirs) == before);  // no tables added, not switched to WAL
    BOOST_TEST(mode_of(theirs) == 0644u);
    BOOST_TEST((names_in(theirs.parent_path()) == std::set<std::string>{"app.db"}));  // no -wal, -shm
}

BOOST_AUTO_TEST_CASE(a_vault_reached_through_a_link_works) {
    TempDir t;
    fs::path real = t.path() / "real-vault";
    fs::create_directories(real);
    fs::create_symlink(real, t.path() / "vault-link");
    Daemon d(t.path() / "vault-link");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    BOOST_TEST(d.call("GET", "/api/v1/resources").status == 200);
    BOOST_TEST(fs::is_regular_file(fs::symlink_status(real / "coffer.db")));
    BOOST_TEST(d.stop() == 0);
}

BOOST_AUTO_TEST_CASE(log_and_database_side_files_are_private) {
    CommonUmask umask_022;
    TempDir t;
    Daemon d(t.path() / "vault");
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    BOOST_TEST(d.call("PUT", "/api/v1/retention/audit", R"({"days":30})").status == 200);  // a write: WAL in use
    const fs::path v = d.vault();
    for (auto file : {"logs/daemon.log", "coffer.db", "coffer.db-wal", "coffer.db-shm", "daemon.json"}) {
        BOOST_REQUIRE_MESSAGE(fs::exists(v / file), file);
        BOOST_TEST(mode_of(v / file) == 0600u, file << " is " << std::oct << mode_of(v / file));
    }
    for (auto dir : {"", "logs", "data", "plugins", "upstream-pids"}) BOOST_TEST(mode_of(v / dir) == 0700u, dir);
    BOOST_TEST(d.stop() == 0);
}
