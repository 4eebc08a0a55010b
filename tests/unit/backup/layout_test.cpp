// What a backup may hold: runtime entries and reserved names are recognised, the vault lock is
// taken like the daemon's and refused while someone holds it.
#define BOOST_TEST_MODULE backup
#include <boost/test/unit_test.hpp>

#include "backup/layout.hpp"
#include "temp_dir.hpp"

#include <fstream>

using namespace coffer;
using namespace coffer::backup;

BOOST_AUTO_TEST_SUITE(layout)

BOOST_AUTO_TEST_CASE(runtime_state_is_recognised) {
    for (auto n : {"daemon.json", "daemon.lock", "spawn.lock", "mcp.sock", "logs", "upstream-pids", "coffer.db-wal",
                   "coffer.db-shm", "coffer.db-journal", "daemon.json.tmp-123-abc"})
        BOOST_TEST(is_runtime_entry(n), n);
    for (auto n : {"coffer.db", "master.key", "skills", "data", "plugins", "daemon", "logs2", "notes.tmp-1"})
        BOOST_TEST(!is_runtime_entry(n), n);
}

BOOST_AUTO_TEST_CASE(reserved_names_add_the_manifest_database_and_key) {
    for (auto n : {"coffer-backup.json", "coffer.db", "master.key", "daemon.json", "logs"}) BOOST_TEST(is_reserved_entry(n), n);
    for (auto n : {"skills", "data", "coffer-backup.json.old"}) BOOST_TEST(!is_reserved_entry(n), n);
}

BOOST_AUTO_TEST_CASE(the_vault_lock_excludes_a_second_holder) {
    test::TempDir dir("backup-lock");
    {
        // No daemon ever ran here: with Missing::unheld nothing is created and the lock is not held.
        auto unheld = lock_vault(dir.path(), vault::FileLock::Missing::unheld);
        BOOST_REQUIRE(unheld.ok());
        BOOST_TEST(!std::filesystem::exists(dir / "daemon.lock"));
    }
    auto first = lock_vault(dir.path());
    BOOST_REQUIRE(first.ok());
    BOOST_TEST(std::filesystem::exists(dir / "daemon.lock"));
    auto second = lock_vault(dir.path());
    BOOST_REQUIRE(!second.ok());
    BOOST_TEST(second.error().code == "CONFLICT");
    BOOST_TEST(second.error().details.at("reason").as_string() == "daemon_running");
}

BOOST_AUTO_TEST_SUITE_END()
