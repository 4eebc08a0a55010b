// daemon/vault_check: links inside the vault and entries of the wrong type are refused, naming
// the entry and its target; the vault folder itself may be a link; absent entries are fine.
#define BOOST_TEST_MODULE daemon_unit
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"
#include "daemon/vault_check.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace coffer::daemon;
namespace fs = std::filesystem;

namespace {
// A vault folder and, beside it, a folder outside the vault for links to point at.
struct Dir {
    coffer::test::TempDir tmp{"vault-check"};
    const fs::path& path = tmp.path();
    Dir() {
        fs::create_directories(path / "vault");
        fs::create_directories(path / "elsewhere");
    }
    fs::path vault() const { return path / "vault"; }
    fs::path elsewhere() const { return path / "elsewhere"; }
};

std::string message(const coffer::core::Result<void>& r) { return r ? "<ok>" : r.error().message; }
}  // namespace

BOOST_AUTO_TEST_CASE(an_empty_or_ordinary_vault_passes) {
    Dir d;
    BOOST_TEST(check_vault_entries(d.vault()).ok());
    for (auto sub : {"logs", "data/skill", "plugins", "upstream-pids", "skills"}) fs::create_directories(d.vault() / sub);
    for (auto file : {"coffer.db", "coffer.db-wal", "master.key", "daemon.json", "logs/daemon.log", "notes.txt"})
        std::ofstream(d.vault() / file) << "x";
    // A plugin installed as a link to its build is the user's own choice (plugins/ is not checked).
    fs::create_symlink(d.elsewhere(), d.vault() / "plugins" / "dev-plugin");
    BOOST_TEST(message(check_vault_entries(d.vault())) == "<ok>");
}

BOOST_AUTO_TEST_CASE(the_vault_itself_may_be_a_link) {
    Dir d;
    fs::create_directories(d.vault() / "logs");
    fs::create_symlink(d.vault(), d.path / "via-link");
    BOOST_TEST(check_vault_entries(d.path / "via-link").ok());
}

BOOST_AUTO_TEST_CASE(links_inside_the_vault_are_refused_with_their_target) {
    for (std::string entry : {"logs", "data", "plugins", "upstream-pids", "skills", "coffer.db", "coffer.db-wal",
                              "master.key", "daemon.lock", "mcp.sock", "knowledge", "data/skill", "logs/daemon.log"}) {
        Dir d;
        fs::create_directories((d.vault() / entry).parent_path());
        fs::create_symlink(d.elsewhere(), d.vault() / entry);
        auto r = check_vault_entries(d.vault());
        BOOST_REQUIRE_MESSAGE(!r.ok(), entry);
        auto m = r.error().message;
        BOOST_TEST(m.find((d.vault() / entry).string()) != std::string::npos, m);
        BOOST_TEST(m.find("symbolic link to " + d.elsewhere().string()) != std::string::npos, m);
        BOOST_TEST(m.find("refusing to start") == 0u, m);
    }
    // A dangling link too.
    Dir d;
    fs::create_symlink(d.path / "nowhere", d.vault() / "coffer.db");
    BOOST_TEST(!check_vault_entries(d.vault()).ok());
}

BOOST_AUTO_TEST_CASE(entries_of_the_wrong_type_are_refused) {
    Dir d;
    std::ofstream(d.vault() / "logs") << "not a folder";
    auto m = message(check_vault_entries(d.vault()));
    BOOST_TEST(m.find("logs is a file") != std::string::npos, m);
    BOOST_TEST(m.find("keeps a folder there") != std::string::npos, m);

    Dir e;
    fs::create_directories(e.vault() / "coffer.db");
    m = message(check_vault_entries(e.vault()));
    BOOST_TEST(m.find("coffer.db is a folder") != std::string::npos, m);
}
