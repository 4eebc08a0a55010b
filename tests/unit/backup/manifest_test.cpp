// The backup manifest: its JSON form round-trips, every rule a restore relies on refuses with
// the documented reason, and on disk it is written 0600 and read back (or refused) as such.
#include <boost/test/unit_test.hpp>

#include "backup/manifest.hpp"
#include "backup/manifest_io.hpp"
#include "temp_dir.hpp"

#include <boost/json.hpp>

#include <sys/stat.h>

#include <fstream>

using namespace coffer;
using namespace coffer::backup;
namespace json = boost::json;

namespace {

const std::string kSum(64, 'a');

Manifest sample() {
    Manifest m;
    m.coffer_version = "1.2.3";
    m.schema_version = 7;
    m.created_at = "2026-01-02T03:04:05Z";
    m.source_vault = "/home/u/.coffer";
    m.master_key = true;
    m.entries = {
        {"coffer.db", Entry::Type::file, 0600, 4096, kSum, ""},
        {"master.key", Entry::Type::file, 0600, 44, kSum, ""},
        {"skills", Entry::Type::dir, 0700, 0, "", ""},
        {"skills/a", Entry::Type::dir, 0755, 0, "", ""},
        {"skills/a/SKILL.md", Entry::Type::file, 0644, 12, kSum, ""},
        {"skills/link", Entry::Type::symlink, 0777, 0, "", "a/SKILL.md"},
    };
    return m;
}

// The manifest's JSON with `entries` replaced, or with one member changed.
json::value with_entries(json::array entries, bool master_key = false) {
    auto o = sample().to_json();
    o["entries"] = std::move(entries);
    o["master_key"] = master_key;
    return o;
}
json::object db_entry() { return {{"path", "coffer.db"}, {"type", "file"}, {"mode", "0600"}, {"size", 1}, {"sha256", kSum}}; }

std::string reason(const core::Result<Manifest>& r) {
    if (r.ok()) return "<accepted>";
    return std::string(r.error().details.at("reason").as_string());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(manifest)

BOOST_AUTO_TEST_CASE(round_trips_through_json) {
    auto m = sample();
    auto doc = m.to_json();
    BOOST_TEST(doc.at("format").as_string() == "coffer-backup");
    BOOST_TEST(doc.at("format_version").as_int64() == kFormatVersion);
    BOOST_TEST(doc.at("entries").at(2).at("mode").as_string() == "0700");
    BOOST_TEST(!doc.at("entries").at(2).as_object().contains("sha256"));  // folders carry no hash
    auto back = Manifest::from_json(json::parse(json::serialize(doc)));
    BOOST_REQUIRE(back.ok());
    BOOST_TEST(back->coffer_version == "1.2.3");
    BOOST_TEST(back->schema_version == 7);
    BOOST_TEST(back->master_key);
    BOOST_REQUIRE(back->entries.size() == m.entries.size());
    auto* link = back->find("skills/link");
    BOOST_REQUIRE(link);
    BOOST_TEST((link->type == Entry::Type::symlink));
    BOOST_TEST(link->target == "a/SKILL.md");
    auto* md = back->find("skills/a/SKILL.md");
    BOOST_REQUIRE(md);
    BOOST_TEST(md->mode == 0644u);
    BOOST_TEST(md->size == 12u);
    BOOST_TEST(!back->find("skills/b"));
}

BOOST_AUTO_TEST_CASE(entries_are_sorted_by_path_when_read) {
    json::array list{json::object{{"path", "z"}, {"type", "dir"}, {"mode", "0700"}}, db_entry(),
                     json::object{{"path", "a"}, {"type", "dir"}, {"mode", "0700"}}};
    auto m = Manifest::from_json(with_entries(list));
    BOOST_REQUIRE(m.ok());
    BOOST_TEST(m->entries[0].path == "a");
    BOOST_TEST(m->entries[1].path == "coffer.db");
    BOOST_TEST(m->entries[2].path == "z");
}

BOOST_AUTO_TEST_CASE(a_newer_format_is_unsupported) {
    auto doc = sample().to_json();
    doc["format_version"] = kFormatVersion + 1;
    auto r = Manifest::from_json(doc);
    BOOST_TEST(reason(r) == "format_too_new");
    BOOST_TEST(r.error().code == "UNSUPPORTED");
}

BOOST_AUTO_TEST_CASE(every_rule_a_restore_relies_on_is_checked) {
    auto dir = [](std::string p) { return json::object{{"path", std::move(p)}, {"type", "dir"}, {"mode", "0700"}}; };
    auto file = [](std::string p) {
        return json::object{{"path", std::move(p)}, {"type", "file"}, {"mode", "0600"}, {"size", 1}, {"sha256", kSum}};
    };
    struct Case {
        const char* label;
        json::value doc;
    };
    auto bad_sum = file("x");
    bad_sum["sha256"] = "ABC";
    auto bad_mode = file("x");
    bad_mode["mode"] = "644";
    auto negative = file("x");
    negative["size"] = -1;
    auto no_target = json::object{{"path", "l"}, {"type", "symlink"}, {"mode", "0777"}, {"target", ""}};
    auto not_ours = sample().to_json();
    not_ours["format"] = "tarball";
    std::vector<Case> cases{
        {"escapes the vault", with_entries({db_entry(), file("../x")})},
        {"absolute path", with_entries({db_entry(), file("/etc/passwd")})},
        {"dot part", with_entries({db_entry(), dir("a"), file("a/./x")})},
        {"listed twice", with_entries({db_entry(), file("x"), file("x")})},
        {"parent not listed", with_entries({db_entry(), file("a/x")})},
        {"parent is a file", with_entries({db_entry(), file("a"), file("a/x")})},
        {"runtime state", with_entries({db_entry(), dir("logs")})},
        {"the manifest itself", with_entries({db_entry(), file("coffer-backup.json")})},
        {"no database", with_entries({file("x")})},
        {"database not a file", with_entries({dir("coffer.db")})},
        {"key flag disagrees", with_entries({db_entry(), file("master.key")}, false)},
        {"key missing", with_entries({db_entry()}, true)},
        {"hash not hex", with_entries({db_entry(), bad_sum})},
        {"mode not four octal digits", with_entries({db_entry(), bad_mode})},
        {"negative size", with_entries({db_entry(), negative})},
        {"empty link target", with_entries({db_entry(), no_target})},
        {"unknown type", with_entries({db_entry(), json::object{{"path", "x"}, {"type", "fifo"}, {"mode", "0600"}}})},
        {"not our format", not_ours},
        {"not an object", json::array{}},
    };
    for (auto& c : cases) BOOST_TEST(reason(Manifest::from_json(c.doc)) == "manifest_invalid", c.label);
    // The same document with the offending entry gone is accepted (the checks above are specific).
    BOOST_TEST(reason(Manifest::from_json(with_entries({db_entry(), dir("a"), file("a/x")}))) == "<accepted>");
}

BOOST_AUTO_TEST_CASE(clean_relative_paths) {
    for (auto p : {"a", "a/b", "a.b/c-d", "..a", "a.."}) BOOST_TEST(is_clean_relative_path(p), p);
    for (auto p : {"", "/a", "a/", "a//b", ".", "..", "a/../b", "./a", "a/."}) BOOST_TEST(!is_clean_relative_path(p), p);
    BOOST_TEST(!is_clean_relative_path(std::string_view("a\0b", 3)));
    BOOST_TEST(mode_text(0644) == "0644");
    BOOST_TEST(mode_text(0100600) == "0600");  // only the permission bits
}

BOOST_AUTO_TEST_CASE(written_private_and_read_back) {
    test::TempDir dir("backup-manifest");
    BOOST_REQUIRE(write_manifest(dir.path(), sample()).ok());
    struct stat st {};
    BOOST_REQUIRE(::stat((dir / "coffer-backup.json").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    auto back = read_manifest(dir.path());
    BOOST_REQUIRE(back.ok());
    BOOST_TEST(back->to_json() == sample().to_json());
}

BOOST_AUTO_TEST_CASE(a_missing_or_broken_manifest_is_refused) {
    test::TempDir dir("backup-manifest");
    auto missing = read_manifest(dir.path());
    BOOST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.error().code == "NOT_FOUND");
    BOOST_TEST(missing.error().details.at("reason").as_string() == "manifest_missing");
    std::ofstream(dir / "coffer-backup.json") << "{\"format\":";
    BOOST_TEST(reason(read_manifest(dir.path())) == "manifest_invalid");
}

BOOST_AUTO_TEST_SUITE_END()
