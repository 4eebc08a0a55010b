// Preference rows in SQLite: what is written is read back, a discovery never overwrites a user's
// row, and every write commits with its audit event (what changed, from what, by whom).
#include <boost/test/unit_test.hpp>

#include "curation/prefs_store.hpp"
#include "resource/audit.hpp"
#include "store/migrations.hpp"
#include "temp_dir.hpp"

#include <memory>

using namespace coffer;
using namespace coffer::curation;
namespace json = boost::json;

namespace {

struct Db {
    test::TempDir dir{"curation"};
    std::unique_ptr<store::Database> db = store::Database::open(dir / "coffer.db").value();
    Db() { BOOST_REQUIRE(store::migrate(*db).ok()); }

    const Row* find(const std::vector<Row>& rows, const std::string& name) {
        for (auto& r : rows)
            if (r.name == name) return &r;
        return nullptr;
    }
    std::vector<json::object> audit(const std::string& type) {
        std::vector<json::object> out;
        auto events = resource::list_audit(*db, 100);
        BOOST_REQUIRE(events.ok());
        for (auto& e : *events)
            if (e.at("event_type").as_string() == type) out.push_back(e.as_object());
        return out;
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(prefs_store)

BOOST_FIXTURE_TEST_CASE(discoveries_are_stored_and_audited_once, Db) {
    BOOST_REQUIRE(write_observed(*db, "up", Type::tool, {"a", "b"}, false, 1234).ok());
    auto rows = load_rows(*db).value();
    BOOST_REQUIRE(rows.size() == 2u);
    auto* a = find(rows, "a");
    BOOST_REQUIRE(a);
    BOOST_TEST(a->server == "up");
    BOOST_TEST((a->type == Type::tool));
    BOOST_TEST(!a->entry.enabled);
    BOOST_TEST(a->entry.origin == kOriginPolicy);
    BOOST_TEST(a->entry.first_seen_ms == 1234);
    auto events = audit("capabilities_discovered");
    BOOST_REQUIRE(events.size() == 1u);
    BOOST_TEST(events[0].at("target").as_string() == "up");
    // Seen again: nothing new, no new event; an empty list writes nothing either.
    BOOST_REQUIRE(write_observed(*db, "up", Type::tool, {"a", "b"}, true, 2000).ok());
    BOOST_REQUIRE(write_observed(*db, "up", Type::tool, {}, true, 2000).ok());
    BOOST_TEST(audit("capabilities_discovered").size() == 1u);
    BOOST_TEST(!find(load_rows(*db).value(), "a")->entry.enabled);
}

BOOST_FIXTURE_TEST_CASE(a_users_choice_is_kept_over_a_later_discovery, Db) {
    Row choice{"up", Type::prompt, "greet", Entry{false, std::string(kOriginUser), 0, 50}};
    BOOST_REQUIRE(write_choice(*db, choice, std::nullopt, "cli").ok());
    BOOST_REQUIRE(write_observed(*db, "up", Type::prompt, {"greet"}, true, 60).ok());
    auto rows = load_rows(*db).value();
    BOOST_REQUIRE(rows.size() == 1u);
    BOOST_TEST(!rows[0].entry.enabled);
    BOOST_TEST(rows[0].entry.origin == kOriginUser);
    BOOST_TEST(rows[0].entry.first_seen_ms == 0);  // set before any listing showed it
    auto disabled = audit("capability_disabled");
    BOOST_REQUIRE(disabled.size() == 1u);
    BOOST_TEST(disabled[0].at("actor").as_string() == "cli");
}

BOOST_FIXTURE_TEST_CASE(a_choice_updates_the_row_and_audits_from_and_to, Db) {
    BOOST_REQUIRE(write_observed(*db, "up", Type::tool, {"a"}, false, 10).ok());
    Row on{"up", Type::tool, "a", Entry{true, std::string(kOriginUser), 10, 20}};
    BOOST_REQUIRE(write_choice(*db, on, false, "rest").ok());
    auto rows = load_rows(*db).value();
    BOOST_REQUIRE(rows.size() == 1u);
    BOOST_TEST(rows[0].entry.enabled);
    BOOST_TEST(rows[0].entry.origin == kOriginUser);
    BOOST_TEST(rows[0].entry.first_seen_ms == 10);  // kept from the discovery
    BOOST_TEST(rows[0].entry.updated_ms == 20);
    auto enabled = audit("capability_enabled");
    BOOST_REQUIRE(enabled.size() == 1u);
    auto payload = enabled[0].at("payload");
    BOOST_TEST(payload.at("name").as_string() == "a");
    BOOST_TEST(payload.at("from").as_bool() == false);
    BOOST_TEST(payload.at("to").as_bool() == true);
}

BOOST_FIXTURE_TEST_CASE(rows_of_an_unknown_type_are_left_alone, Db) {
    BOOST_REQUIRE(db->exec("INSERT INTO mcp_capability_prefs VALUES ('up','widget','w',1,'user',NULL,1)").ok());
    BOOST_REQUIRE(write_observed(*db, "up", Type::tool, {"a"}, true, 1).ok());
    auto rows = load_rows(*db).value();
    BOOST_REQUIRE(rows.size() == 1u);
    BOOST_TEST(rows[0].name == "a");
}

BOOST_AUTO_TEST_SUITE_END()
