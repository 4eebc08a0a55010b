// repo::list_document: the REST listing written straight from the rows must be exactly the
// document the Resource model would serialize — same members, same order, same escapes — for
// every row, including text that needs escaping, a disabled resource, one out of scope and a
// config column that is not a JSON object.
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"
#include "resource/repository.hpp"
#include "resource/scope.hpp"
#include "store/migrations.hpp"

#include <boost/json.hpp>

using namespace coffer;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(listing)

BOOST_AUTO_TEST_CASE(the_listing_text_is_what_the_model_serializes) {
    coffer::test::TempDir dir("listing");
    auto db = store::Database::open(dir / "coffer.db");
    BOOST_REQUIRE(db.ok());
    BOOST_REQUIRE(store::migrate(**db).ok());
    auto& d = **db;
    auto add = [&](std::string kind, std::string name, std::string description, json::object config, bool enabled,
                   json::array scope) {
        resource::Resource r;
        r.uid = "uid-" + name;
        r.kind = std::move(kind);
        r.name = std::move(name);
        r.description = std::move(description);
        r.config = std::move(config);
        r.enabled = enabled;
        r.scope = std::move(scope);
        r.created_at = "2026-12-02T10:00:00.000Z";
        r.updated_at = "2026-12-02T11:00:00.000Z";
        BOOST_REQUIRE(resource::repo::insert(d, r).ok());
    };
    json::array everywhere{json::object{{"machine", "*"}, {"agents", json::array{"*"}}}};
    json::array elsewhere{json::object{{"machine", "other-host"}, {"agents", json::array{"*"}}}};
    add("skill", "b", "quotes \" and \\ and \xC3\xA9 and \x01", {{"z", 1.5}, {"a", json::array{1, "x", nullptr}}}, true,
        everywhere);
    add("skill", "a", "", {}, false, everywhere);
    add("mcp_server", "far", "out of scope", {{"command", "x"}}, true, elsewhere);
    add("mcp_server", "broken", "", {{"k", 1}}, true, everywhere);
    BOOST_REQUIRE(d.exec("UPDATE resources SET config = 'not json' WHERE name = 'broken'").ok());

    auto expected = [&](bool all, std::optional<std::string_view> kind) {
        auto rows = resource::repo::list(d, kind);
        BOOST_REQUIRE(rows.ok());
        json::array items;
        for (auto& r : *rows) {
            bool scoped = resource::in_machine_scope(r.scope, "this-host");
            if (!scoped && !all) continue;
            auto o = r.to_json();
            if (!scoped) o["in_scope"] = false;
            items.push_back(std::move(o));
        }
        return json::serialize(json::object{{"resources", items}});
    };
    for (bool all : {false, true})
        for (std::optional<std::string_view> kind : {std::optional<std::string_view>(), std::optional<std::string_view>("skill"),
                                                     std::optional<std::string_view>("none")}) {
            auto text = resource::repo::list_document(d, kind, [&](const json::array& scope) -> std::optional<bool> {
                bool scoped = resource::in_machine_scope(scope, "this-host");
                if (!scoped && !all) return std::nullopt;
                return scoped;
            });
            BOOST_REQUIRE(text.ok());
            BOOST_TEST(*text == expected(all, kind));
        }
    // The out-of-scope row is listed (marked) only when asked for, and the broken config reads {}.
    auto text = resource::repo::list_document(d, std::nullopt, [](const json::array&) { return std::optional<bool>(false); });
    BOOST_REQUIRE(text.ok());
    auto doc = json::parse(*text);
    BOOST_TEST(doc.at("resources").as_array().size() == 4u);
    for (auto& r : doc.at("resources").as_array()) {
        BOOST_TEST(r.at("in_scope").as_bool() == false);
        if (r.at("name").as_string() == "broken") BOOST_TEST(r.at("config").as_object().empty());
    }
}

BOOST_AUTO_TEST_SUITE_END()
