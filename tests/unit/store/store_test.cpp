#define BOOST_TEST_MODULE store
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"
#include "store/migrations.hpp"

#include <filesystem>
#include <unistd.h>

using namespace coffer::store;
namespace fs = std::filesystem;

namespace {
// A database file in a fresh temporary folder (its -wal and -shm go with the folder).
struct TmpDb {
    coffer::test::TempDir dir{"store"};
    fs::path path = dir / "coffer.db";
};
}  // namespace

BOOST_AUTO_TEST_SUITE(store)

BOOST_AUTO_TEST_CASE(migrates_and_is_idempotent) {
    TmpDb t;
    auto db = Database::open(t.path);
    BOOST_REQUIRE(db.ok());
    auto v = migrate(**db);
    BOOST_REQUIRE(v.ok());
    BOOST_TEST(*v == current_schema_version());
    auto again = migrate(**db);
    BOOST_REQUIRE(again.ok());
    auto st = (*db)->prepare("PRAGMA journal_mode");
    BOOST_REQUIRE(st.ok());
    BOOST_REQUIRE(*st->step());
    BOOST_TEST(st->text(0) == "wal");
}

BOOST_AUTO_TEST_CASE(newer_schema_refused) {
    TmpDb t;
    auto db = Database::open(t.path);
    BOOST_REQUIRE(db.ok());
    BOOST_REQUIRE((*db)->exec("PRAGMA user_version = 999").ok());
    auto v = migrate(**db);
    BOOST_REQUIRE(!v.ok());
    BOOST_TEST(v.error().message.find("newer than this coffer-daemon") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(transaction_rolls_back_unless_committed) {
    TmpDb t;
    auto db = Database::open(t.path);
    BOOST_REQUIRE(db.ok());
    BOOST_REQUIRE(migrate(**db).ok());
    {
        Transaction tx(**db);
        BOOST_REQUIRE(tx.begun().ok());
        BOOST_REQUIRE((*db)->exec("INSERT INTO audit (ts_ms, actor, event_type) VALUES (1,'cli','x')").ok());
    }
    auto st = (*db)->prepare("SELECT count(*) FROM audit");
    BOOST_REQUIRE(*st->step());
    BOOST_TEST(st->int64(0) == 0);
    {
        Transaction tx(**db);
        BOOST_REQUIRE((*db)->exec("INSERT INTO audit (ts_ms, actor, event_type) VALUES (1,'cli','x')").ok());
        BOOST_REQUIRE(tx.commit().ok());
    }
    st->reset();
    BOOST_REQUIRE(*st->step());
    BOOST_TEST(st->int64(0) == 1);
}

BOOST_AUTO_TEST_SUITE_END()
