#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"
#include "resource/audit.hpp"
#include "resource/retention.hpp"
#include "store/migrations.hpp"

#include <filesystem>
#include <unistd.h>

using namespace coffer;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_SUITE(retention)

BOOST_AUTO_TEST_CASE(purges_in_batches_only_expired_rows) {
    coffer::test::TempDir dir("retention");
    auto path = dir / "coffer.db";
    {
        auto db = store::Database::open(path);
        BOOST_REQUIRE(db.ok());
        BOOST_REQUIRE(store::migrate(**db).ok());
        auto& d = **db;
        std::int64_t now = 100LL * 86400000;
        BOOST_REQUIRE(d.exec("BEGIN").ok());
        for (int i = 0; i < 250; ++i)
            BOOST_REQUIRE(d.exec("INSERT INTO audit (ts_ms, actor, event_type) VALUES (" + std::to_string(now - 50LL * 86400000) +
                                 ",'system','old')").ok());
        for (int i = 0; i < 7; ++i)
            BOOST_REQUIRE(d.exec("INSERT INTO audit (ts_ms, actor, event_type) VALUES (" + std::to_string(now - 86400000) +
                                 ",'system','new')").ok());
        BOOST_REQUIRE(d.exec("COMMIT").ok());
        BOOST_REQUIRE(resource::set_retention(d, "audit", 10, "cli").ok());
        std::int64_t total = 0;
        int batches = 0;
        for (;;) {
            auto n = resource::purge_batch(d, "audit", now, 100);
            BOOST_REQUIRE(n.ok());
            if (*n == 0) break;
            BOOST_TEST(*n <= 100);
            total += *n;
            ++batches;
        }
        BOOST_TEST(total == 250);
        BOOST_TEST(batches == 3);
        auto left = resource::list_audit(d, 1000);
        BOOST_REQUIRE(left.ok());
        // 7 recent rows + the retention_changed event (timestamped now, real clock).
        BOOST_TEST(left->size() == 8u);
        // Forever: nothing purged.
        BOOST_REQUIRE(resource::set_retention(d, "audit", std::nullopt, "cli").ok());
        auto n = resource::purge_batch(d, "audit", now + 1000LL * 86400000, 100);
        BOOST_REQUIRE(n.ok());
        BOOST_TEST(*n == 0);
        BOOST_TEST(!resource::set_retention(d, "nosuch", 3, "cli").ok());
        BOOST_TEST(!resource::set_retention(d, "audit", 0, "cli").ok());
    }
}

BOOST_AUTO_TEST_SUITE_END()
