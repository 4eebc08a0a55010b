// The periodic purge deletes rows older than the policy and keeps the rest.
#define BOOST_TEST_MODULE retention_purge
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"

#include <sqlite3.h>

#include <chrono>
#include <thread>

using namespace coffer::test;
namespace fs = std::filesystem;

namespace {
long long scalar(const fs::path& db_path, const char* sql) {
    sqlite3* db = nullptr;
    sqlite3_open(db_path.c_str(), &db);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
    long long v = -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}
}  // namespace

BOOST_AUTO_TEST_CASE(old_audit_rows_are_purged) {
    TempDir dir;
    auto vault = dir.path() / "vault";
    {
        Daemon d(vault);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
        BOOST_TEST(d.call("PUT", "/api/v1/retention/audit", R"({"days":10})").status == 200);
        d.stop();
    }
    // 5,000 rows from 20 days ago and 3 from 2 days ago, written while the daemon is down.
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open((vault / "coffer.db").c_str(), &db) == SQLITE_OK);
    auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch()).count();
    std::string sql = "BEGIN;";
    for (int i = 0; i < 5000; ++i)
        sql += "INSERT INTO audit (ts_ms, actor, event_type, target, payload) VALUES (" +
               std::to_string(now_ms - 20LL * 86400000) + ",'system','old_event','x','{}');";
    for (int i = 0; i < 3; ++i)
        sql += "INSERT INTO audit (ts_ms, actor, event_type, target, payload) VALUES (" +
               std::to_string(now_ms - 2LL * 86400000) + ",'system','recent_event','x','{}');";
    sql += "COMMIT;";
    BOOST_REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);

    Daemon d(vault);
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    BOOST_TEST(eventually(
        [&] { return scalar(vault / "coffer.db", "SELECT count(*) FROM audit WHERE event_type='old_event'") == 0; },
        std::chrono::seconds(20), std::chrono::milliseconds(100)));
    BOOST_TEST(scalar(vault / "coffer.db", "SELECT count(*) FROM audit WHERE event_type='recent_event'") == 3);
    BOOST_TEST(d.call("GET", "/api/v1/daemon/status").status == 200);
}
