// The skill plugin without a daemon: its frontmatter parser and rules, its archive reader, and
// the kind driven through the SDK's fake host (coffer/testing.hpp) with a temporary HOME.
#define BOOST_TEST_MODULE skill_unit
#include <boost/test/unit_test.hpp>

#include "json_check.hpp"
#include "temp_dir.hpp"

#include "archive.hpp"
#include "archive_writer.hpp"
#include "frontmatter.hpp"
#include "rules.hpp"

#include <coffer/testing.hpp>

#include <boost/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern "C" const coffer_plugin* coffer_plugin_entry_v1(uint16_t, uint16_t);

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace coffer::plugins::skill;

namespace {

struct Tmp {
    coffer::test::TempDir dir{"skill-unit"};
    const fs::path& path = dir.path();
};

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string skill_md(const std::string& name, const std::string& description = "Does things.") {
    return "---\nname: " + name + "\ndescription: " + description + "\n---\n# " + name + "\n";
}

std::vector<std::string> problems(const std::string& text, std::optional<std::string_view> folder = std::nullopt) {
    SkillInfo info;
    return check_skill_md(text, folder, info);
}

bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
    for (auto& s : v)
        if (s.find(needle) != std::string::npos) return true;
    return false;
}

}  // namespace

// ---- frontmatter parser --------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(frontmatter_yaml_subset) {
    auto md = parse_skill_md(R"yaml(---
name: pdf-tools   # a comment
description: >
  Extract text
  and tables.

  Second paragraph.
license: "Apache-2.0"
allowed-tools: [Read, "Bash(git:*)", 'Grep']
metadata:
  author: Ada Lovelace
  version: 1.0
  empty:
literal: |-
  line one
    indented
plain: first line
  continued
quoted: "tab\tand \u00e9"
single: 'it''s'
list:
- a
- b: 1
  c: 2
flowmap: {k: v, n: "x, y"}
---
# Body
)yaml");
    BOOST_TEST_REQUIRE(md.ok(), (md.errors.empty() ? "" : md.errors[0]));
    auto& f = md.frontmatter;
    BOOST_TEST(f.at("name").as_string() == "pdf-tools");
    BOOST_TEST(f.at("description").as_string() == "Extract text and tables.\nSecond paragraph.\n");
    BOOST_TEST(f.at("license").as_string() == "Apache-2.0");
    BOOST_TEST(f.at("allowed-tools").as_array().size() == 3u);
    BOOST_TEST(f.at("allowed-tools").at(1).as_string() == "Bash(git:*)");
    BOOST_TEST(f.at("metadata").at("version").as_string() == "1.0");
    BOOST_TEST(f.at("metadata").at("empty").is_null());
    BOOST_TEST(f.at("literal").as_string() == "line one\n  indented");
    BOOST_TEST(f.at("plain").as_string() == "first line continued");
    BOOST_TEST(f.at("quoted").as_string() == "tab\tand \xc3\xa9");
    BOOST_TEST(f.at("single").as_string() == "it's");
    BOOST_TEST(f.at("list").at(0).as_string() == "a");
    BOOST_TEST(f.at("list").at(1).at("c").as_string() == "2");
    BOOST_TEST(f.at("flowmap").at("n").as_string() == "x, y");
    BOOST_TEST(md.body == "# Body\n");
}

BOOST_AUTO_TEST_CASE(frontmatter_syntax_errors_name_the_line) {
    auto check = [](const std::string& text, const std::string& needle) {
        auto md = parse_skill_md(text);
        BOOST_TEST_REQUIRE(!md.ok(), text);
        BOOST_TEST(md.errors[0].find(needle) != std::string::npos, md.errors[0] << " (wanted: " << needle << ")");
    };
    check("# no frontmatter\n", "must begin with a '---' line");
    check("---\nname: x\n", "never closed");
    check("---\nname: x\nname: y\n---\n", "line 3: duplicate key 'name'");
    check("---\nname: \"unclosed\n---\n", "never closed");
    check("---\ndescription: Use when: you need it\n---\n", "line 2: a plain value must not contain ': '");
    check("---\nname: &a x\n---\n", "anchors and aliases");
    check("---\nname: !!str x\n---\n", "tags");
    check("---\nname: x\n\tdescription: y\n---\n", "tab");
    check("---\n- a\n- b\n---\n", "must be a mapping");
    check("---\nname: x\n  bad: indent\n---\n", "must not contain ': '");
}

BOOST_AUTO_TEST_CASE(frontmatter_depth_is_bounded) {
    std::string text = "---\nk: ";
    for (int i = 0; i < 40; ++i) text += "[";
    for (int i = 0; i < 40; ++i) text += "]";
    text += "\n---\n";
    auto md = parse_skill_md(text);
    BOOST_TEST(!md.ok());
    BOOST_TEST(md.errors[0].find("deeper") != std::string::npos);
}

// Block and flow style count levels alike: collections only, 16 of them (the top mapping is the
// first). Flow style used to count the scalars inside its deepest mapping as a level too, so a
// value written back in flow style could be refused (found by the frontmatter fuzz target).
BOOST_AUTO_TEST_CASE(frontmatter_depth_is_the_same_in_block_and_flow_style) {
    auto block = [](int n) {  // n nested mappings below the top one, the deepest holding a scalar
        std::string t = "---\n";
        for (int i = 0; i < n; ++i) t += std::string(i, ' ') + "k" + std::to_string(i) + ":\n";
        return t + std::string(n, ' ') + "leaf: x\n---\n";
    };
    auto flow = [](int n) {
        std::string t = "---\nk0: ";
        for (int i = 1; i < n; ++i) t += "{k: ";
        t += "{leaf: x}";
        for (int i = 1; i < n; ++i) t += "}";
        return t + "\n---\n";
    };
    BOOST_TEST(parse_skill_md(block(15)).ok());
    BOOST_TEST(parse_skill_md(flow(15)).ok());
    BOOST_TEST(!parse_skill_md(block(16)).ok());
    BOOST_TEST(!parse_skill_md(flow(16)).ok());
}

// ---- rules ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(each_frontmatter_rule_has_its_own_message) {
    BOOST_TEST(problems(skill_md("good-name")).empty());
    BOOST_TEST(any_contains(problems("---\ndescription: d\n---\n"), "SKILL.md frontmatter: name is required"));
    BOOST_TEST(any_contains(problems(skill_md("Bad")), "name may contain only lowercase letters a-z, digits 0-9 and hyphens; 'B' at position 1"));
    BOOST_TEST(any_contains(problems(skill_md("under_score")), "'_' at position 6"));
    BOOST_TEST(any_contains(problems(skill_md("-lead")), "name must not start or end with a hyphen"));
    BOOST_TEST(any_contains(problems(skill_md("trail-")), "name must not start or end with a hyphen"));
    BOOST_TEST(any_contains(problems(skill_md("dou--ble")), "name must not contain two hyphens in a row"));
    BOOST_TEST(any_contains(problems(skill_md(std::string(65, 'a'))), "name must be 1–64 characters long (it has 65)"));
    BOOST_TEST(any_contains(problems(skill_md("abc"), std::string_view("abd")), "name \"abc\" must equal the skill's folder name \"abd\""));
    BOOST_TEST(any_contains(problems("---\nname: a\n---\n"), "description is required (1–1024 characters)"));
    BOOST_TEST(any_contains(problems("---\nname: a\ndescription: \"  \"\n---\n"), "description must not be empty"));
    BOOST_TEST(any_contains(problems(skill_md("a", std::string(1025, 'x'))), "description must be at most 1024 characters (it has 1025)"));
    BOOST_TEST(any_contains(problems("---\nname: a\ndescription: d\ncompatibility: " + std::string(501, 'c') + "\n---\n"),
                            "compatibility must be at most 500 characters (it has 501)"));
    BOOST_TEST(any_contains(problems("---\nname: a\ndescription: d\nmetadata: [x]\n---\n"), "metadata must be a mapping"));
    BOOST_TEST(any_contains(problems("---\nname: a\ndescription: d\nmetadata:\n  k:\n    deep: x\n---\n"),
                            "metadata.k must be a text value"));
    BOOST_TEST(any_contains(problems("---\nname: a\ndescription: d\nallowed-tools:\n  a: b\n---\n"),
                            "allowed-tools must be a text value or a list"));
    BOOST_TEST(any_contains(problems("---\nname: a\ndescription: d\nlicense: [MIT]\n---\n"), "license must be a text value"));
    BOOST_TEST(any_contains(problems("---\nname: [a]\ndescription: d\n---\n"), "name must be a text value, not a list"));
    BOOST_TEST(any_contains(problems(std::string("---\nname: a\ndescription: \xff\n---\n")), "not valid UTF-8"));
    // Several problems at once, each reported.
    BOOST_TEST(problems("---\nname: Bad--\n---\n").size() == 2u);
    // Unknown fields are kept, with a warning.
    SkillInfo info;
    BOOST_TEST(check_skill_md("---\nname: a\ndescription: d\nmodel: opus\n---\n", std::nullopt, info).empty());
    BOOST_TEST(info.warnings.size() == 1u);
}

// ---- archive names -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(archive_entry_names_are_normalised_or_refused) {
    std::string why;
    BOOST_TEST(*normalize_entry_name("./a//b/./c", why) == "a/b/c");
    BOOST_TEST(*normalize_entry_name("dir/", why) == "dir");
    BOOST_TEST(!normalize_entry_name("/etc/passwd", why));
    BOOST_TEST(why.find("absolute path") != std::string::npos);
    BOOST_TEST(!normalize_entry_name("a/../../b", why));
    BOOST_TEST(why.find("'..'") != std::string::npos);
    BOOST_TEST(!normalize_entry_name("C:/x", why));
    // The drive-letter rule applies after "./" is dropped (found by the archive fuzz target:
    // "./C:/x" was accepted as "C:/x", which itself is refused).
    BOOST_TEST(!normalize_entry_name("./C:/x", why));
    BOOST_TEST(why.find("drive letter") != std::string::npos);
    BOOST_TEST(!normalize_entry_name("a\\b", why));
    BOOST_TEST(!normalize_entry_name("a/\x01", why));
}

BOOST_AUTO_TEST_CASE(archive_with_safe_links_becomes_plain_files) {
    Tmp t;
    auto arc = t.path / "ok.tar.gz";
    skill_test::write_archive(arc, {{"s/", "", 'd'}, {"s/SKILL.md", skill_md("s")}, {"s/a.txt", "A"},
                                    {"s/link.txt", "", 'l', "a.txt"}, {"s/hard.txt", "", 'h', "s/a.txt"},
                                    {"s/run.sh", "echo", 'f', "", 0755}},
                              false);
    fs::create_directories(t.path / "out");
    std::vector<std::string> p;
    extract_archive(arc, t.path / "out", p);
    BOOST_TEST_REQUIRE(p.empty(), (p.empty() ? "" : p[0]));
    BOOST_TEST(!fs::is_symlink(t.path / "out/s/link.txt"));
    BOOST_TEST(read(t.path / "out/s/link.txt") == "A");
    BOOST_TEST(read(t.path / "out/s/hard.txt") == "A");
    BOOST_TEST(((fs::status(t.path / "out/s/run.sh").permissions() & fs::perms::owner_exec) != fs::perms::none));
}

BOOST_AUTO_TEST_CASE(hostile_archives_are_refused_and_write_nothing_outside) {
    Tmp t;
    struct Case {
        const char* label;
        std::vector<skill_test::Entry> entries;
        bool zip;
        const char* needle;
    };
    std::vector<Case> cases{
        {"dotdot", {{"SKILL.md", skill_md("x")}, {"../evil.txt", "pwned"}}, false, "contains a '..' component"},
        {"dotdot-zip", {{"SKILL.md", skill_md("x")}, {"a/../../evil.txt", "pwned"}}, true, "contains a '..' component"},
        {"absolute", {{"SKILL.md", skill_md("x")}, {"/tmp/evil.txt", "pwned"}}, false, "has an absolute path"},
        {"abs-link", {{"SKILL.md", skill_md("x")}, {"passwd", "", 'l', "/etc/passwd"}}, false, "points to an absolute path"},
        {"out-link", {{"SKILL.md", skill_md("x")}, {"sub/up", "", 'l', "../../outside"}}, false, "points outside the skill folder"},
        {"zip-link", {{"SKILL.md", skill_md("x")}, {"up", "", 'l', "../x"}}, true, "points outside the skill folder"},
        {"hard-out", {{"SKILL.md", skill_md("x")}, {"h", "", 'h', "../etc/passwd"}}, false, "hard link"},
        {"dir-link", {{"SKILL.md", skill_md("x")}, {"d/", "", 'd'}, {"l", "", 'l', "d"}}, false, "points to a folder"},
        {"dangling", {{"SKILL.md", skill_md("x")}, {"l", "", 'l', "nothing"}}, false, "not a file in the archive"},
        {"fifo", {{"SKILL.md", skill_md("x")}, {"pipe", "", 'p'}}, false, "special file"},
        {"twice", {{"SKILL.md", skill_md("x")}, {"a", "1"}, {"a", "2"}}, false, "appears twice"},
    };
    for (auto& c : cases) {
        auto arc = t.path / (std::string(c.label) + (c.zip ? ".zip" : ".tar.gz"));
        skill_test::write_archive(arc, c.entries, c.zip);
        auto out = t.path / "out" / c.label / "deep";
        fs::create_directories(out);
        std::vector<std::string> p;
        extract_archive(arc, out, p);
        BOOST_TEST_REQUIRE(!p.empty(), c.label);
        BOOST_TEST(any_contains(p, c.needle), c.label << ": " << p[0]);
        BOOST_TEST(!fs::exists(t.path / "out" / c.label / "evil.txt"), c.label);
        BOOST_TEST(!fs::exists(t.path / "out" / "evil.txt"), c.label);
    }
    std::vector<std::string> p;
    fs::create_directories(t.path / "junk-out");
    write(t.path / "junk.tar.gz", "this is not an archive");
    extract_archive(t.path / "junk.tar.gz", t.path / "junk-out", p);
    BOOST_TEST(any_contains(p, "archive"));
}

// ---- the kind through the fake host ---------------------------------------------------------

struct KindFixture {
    Tmp t;
    fs::path home, vault, src;
    std::string old_home;
    KindFixture() {
        home = t.path / "home";
        vault = t.path / "vault";
        src = t.path / "src";
        fs::create_directories(home);
        if (const char* h = std::getenv("HOME")) old_home = h;
        ::setenv("HOME", home.c_str(), 1);
    }
    ~KindFixture() { ::setenv("HOME", old_home.c_str(), 1); }
    fs::path make_skill(const std::string& name) {
        auto dir = src / name;
        write(dir / "SKILL.md", skill_md(name));
        write(dir / "references/guide.md", "guide");
        write(dir / "scripts/run.sh", "#!/bin/sh\necho hi\n");
        fs::permissions(dir / "scripts/run.sh", fs::perms::owner_exec, fs::perm_options::add);
        return dir;
    }
    std::string config(const fs::path& source) { return R"({"source":")" + source.string() + R"("})"; }
};

BOOST_FIXTURE_TEST_CASE(fake_host_lifecycle, KindFixture) {
    coffer::testing::FakeHost host(coffer_plugin_entry_v1, "{}", vault);
    auto& k = host.kind("skill");
    BOOST_TEST(std::string(k.name.ptr, k.name.len) == "skill");

    // validate checks what needs no reading of the source, with a pointer into the config …
    auto rel = host.validate("skill", R"({"source":"relative/path"})");
    BOOST_TEST(rel.status == COFFER_E_INVALID);
    BOOST_TEST(coffer::test::string_at(rel.details, "/errors/0/pointer") == "/source", rel.details);
    BOOST_TEST(coffer::test::string_at(rel.details, "/errors/0/message").find("must be an absolute path") != std::string::npos, rel.details);
    BOOST_TEST(host.validate("skill", config(src / "nowhere")).details.find("does not exist") != std::string::npos);
    // … create reads it and refuses a broken skill, naming the field and the rule.
    write(src / "broken/SKILL.md", "---\nname: Broken\ndescription: d\n---\n");
    try {
        host.create("skill", "broken", config(src / "broken"));
        BOOST_FAIL("a broken skill was created");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find("SKILL.md frontmatter: name may contain only lowercase") != std::string::npos,
                   e.what());
    }
    BOOST_TEST(!fs::exists(vault / "skills/broken"));

    auto dir = make_skill("hello");
    BOOST_TEST(host.validate("skill", config(dir)).ok());
    auto* inst = host.create("skill", "hello", config(dir));
    BOOST_TEST(fs::exists(vault / "skills/hello/SKILL.md"));
    BOOST_TEST(host.start(inst).ok());
    auto claude = home / ".claude/skills/hello";
    auto codex = home / ".agents/skills/hello";
    BOOST_TEST(read(claude / "references/guide.md") == "guide");
    BOOST_TEST(read(codex / "SKILL.md") == skill_md("hello"));
    BOOST_TEST(((fs::status(codex / "scripts/run.sh").permissions() & fs::perms::owner_exec) != fs::perms::none));

    auto st = json::parse(host.status(inst).json).as_object();
    BOOST_TEST(st.at("health").as_string() == "ok");
    BOOST_TEST(st.at("targets").as_array().size() == 2u);

    // Drift through the kind-level verify.
    write(claude / "SKILL.md", "tampered");
    fs::remove(codex / "references/guide.md");
    auto v = json::parse(host.kind_action("skill", "verify", "{}").json).as_object();
    auto& targets = v.at("skills").at(0).at("targets").as_array();
    BOOST_TEST(targets.at(0).at("state").as_string() == "modified");
    BOOST_TEST(targets.at(1).at("state").as_string() == "missing");
    BOOST_TEST(!v.at("ok").as_bool());
    auto r = json::parse(host.kind_action("skill", "verify", R"({"repair":true})").json).as_object();
    BOOST_TEST(r.at("summary").at("repaired").as_int64() == 2);
    BOOST_TEST(read(claude / "SKILL.md") == skill_md("hello"));
    BOOST_TEST(json::parse(host.kind_action("skill", "verify", "{}").json).at("ok").as_bool());
    BOOST_TEST(host.kind_action("skill", "verify", R"({"repair":"yes"})").status == COFFER_E_INVALID);

    // stop() defers the removal; the next call (status, as after a disable) completes it.
    BOOST_TEST(host.stop(inst).ok());
    BOOST_TEST(fs::exists(claude));
    auto after = json::parse(host.status(inst).json).as_object();
    BOOST_TEST(after.at("health").as_string() == "disabled");
    BOOST_TEST(!fs::exists(claude));
    BOOST_TEST(!fs::exists(codex));

    // stop() followed directly by destroy() (daemon shutdown) keeps the delivered files.
    BOOST_TEST(host.start(inst).ok());
    BOOST_TEST(host.stop(inst).ok());
    host.destroy(inst);
    BOOST_TEST(fs::exists(claude / "SKILL.md"));

    // Re-created at "daemon start": the record is found, nothing is imported again.
    fs::remove_all(dir);
    auto* again = host.create("skill", "hello", config(dir));
    BOOST_TEST(host.start(again).ok());
    BOOST_TEST(json::parse(host.status(again).json).at("health").as_string() == "ok");

    // remove(): deliveries and the library copy go.
    BOOST_TEST(host.stop(again).ok());
    BOOST_TEST(host.remove(again).ok());
    BOOST_TEST(!fs::exists(claude));
    BOOST_TEST(!fs::exists(vault / "skills/hello"));

    bool imported = false, delivered = false, repaired = false, removed = false;
    for (auto& a : host.audits()) {
        imported = imported || a.type == "skill_imported";
        delivered = delivered || a.type == "skill_delivered";
        repaired = repaired || a.type == "skill_repaired";
        removed = removed || a.type == "skill_removed";
        BOOST_TEST(a.target == "skill:hello");
    }
    BOOST_TEST((imported && delivered && repaired && removed));
}

BOOST_FIXTURE_TEST_CASE(fake_host_refusals_write_nothing, KindFixture) {
    coffer::testing::FakeHost host(coffer_plugin_entry_v1, "{}", vault);
    auto dir = make_skill("other-name");
    // The frontmatter name must equal the resource name: refused, nothing in the library.
    BOOST_CHECK_THROW(host.create("skill", "mismatch", config(dir)), std::runtime_error);
    BOOST_TEST(!fs::exists(vault / "skills/mismatch"));
    // Not a valid skill name.
    BOOST_CHECK_THROW(host.create("skill", "Upper_Case", config(dir)), std::runtime_error);
    // No source and no library folder to adopt.
    BOOST_CHECK_THROW(host.create("skill", "nothing", "{}"), std::runtime_error);
    // Adoption of a library folder put there by hand.
    write(vault / "skills/adopted/SKILL.md", skill_md("adopted"));
    auto* a = host.create("skill", "adopted", "{}");
    BOOST_TEST(host.start(a).ok());
    BOOST_TEST(fs::exists(home / ".claude/skills/adopted/SKILL.md"));
    // Only staging leftovers of the failed imports would be in the library folder: none are.
    for (auto& e : fs::directory_iterator(vault / "skills"))
        BOOST_TEST(e.path().filename().string().rfind(".staging-", 0) != 0u);
}

// What a daemon killed between the host's commit and the plugin's files leaves (see "Crash
// safety" in docs/architecture.md), replayed through the fake host: destroy() without remove()
// is the kill.
BOOST_FIXTURE_TEST_CASE(fake_host_changes_cut_short_leave_no_half_skill, KindFixture) {
    auto records = vault / "data";
    auto claude = home / ".claude/skills/hello";
    auto v1 = make_skill("hello");
    auto v2 = src / "v2" / "hello";
    write(v2 / "SKILL.md", skill_md("hello", "Version two."));
    {
        coffer::testing::FakeHost host(coffer_plugin_entry_v1, "{}", vault);
        auto* inst = host.create("skill", "hello", config(v1));
        BOOST_TEST(host.start(inst).ok());
        // A PATCH to v2 the host never committed: the plugin re-imported, then the daemon died.
        BOOST_TEST(host.update(inst, config(v2)).ok());
        BOOST_TEST(read(vault / "skills/hello/SKILL.md") == skill_md("hello", "Version two."));
        host.destroy(inst);
    }
    {
        // The next start hands the plugin the stored config (v1): the library follows it.
        coffer::testing::FakeHost host(coffer_plugin_entry_v1, "{}", vault);
        auto* inst = host.create("skill", "hello", config(v1));
        BOOST_TEST(host.start(inst).ok());
        BOOST_TEST(read(vault / "skills/hello/SKILL.md") == skill_md("hello"));
        BOOST_TEST(read(claude / "SKILL.md") == skill_md("hello"));
        host.destroy(inst);
    }
    // A delete the host committed before the plugin removed anything: the record now belongs to
    // a resource that is gone (another uid), its library folder and delivery are still there.
    auto rec = json::parse(read(records / "test-hello.json")).as_object();
    rec["uid"] = "gone-uid";
    write(records / "gone-uid.json", json::serialize(rec));
    fs::remove(records / "test-hello.json");
    BOOST_TEST(fs::exists(vault / "skills/hello"));
    BOOST_TEST(fs::exists(claude));
    // Temporaries of writers that are gone (pid 999999999 is beyond Linux's pid_max): a record being
    // replaced, a first delivery being built.
    write(records / "gone-uid.json.tmp-999999999-0123456789abcdef", "{");
    write(home / ".claude/skills/.coffer-staging-hello-999999999-0123456789ab/SKILL.md", "half");
    {
        // Creating the skill again (a new resource) works, and what the old one left is gone.
        coffer::testing::FakeHost host(coffer_plugin_entry_v1, "{}", vault);
        BOOST_TEST(!fs::exists(records / "gone-uid.json.tmp-999999999-0123456789abcdef"));
        BOOST_TEST(!fs::exists(home / ".claude/skills/.coffer-staging-hello-999999999-0123456789ab"));
        auto* inst = host.create("skill", "hello", config(v2));
        BOOST_TEST(!fs::exists(records / "gone-uid.json"));
        BOOST_TEST(host.start(inst).ok());
        BOOST_TEST(read(claude / "SKILL.md") == skill_md("hello", "Version two."));
        auto st = json::parse(host.status(inst).json).as_object();
        BOOST_TEST(st.at("health").as_string() == "ok", json::serialize(st));
    }
}
