// The skill kind on the real daemon (issue 5), with a temporary HOME and COFFER_HOME: import of
// valid and invalid skills (each frontmatter rule), delivery to both agents, drift (modified,
// missing, unmanaged), repair, disable/enable/delete, conflicts with a user's own skill,
// re-import, persistence across a daemon restart, hostile archives.
#define BOOST_TEST_MODULE skill
#include <boost/test/unit_test.hpp>

#include "archive_writer.hpp"
#include "daemon_fixture.hpp"

#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <sstream>

using namespace coffer::test;
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string skill_md(const std::string& name, const std::string& extra = "") {
    return "---\nname: " + name + "\ndescription: Helps with " + name + " tasks.\n" + extra + "---\n# " + name +
           "\n\nUse scripts/run.sh.\n";
}

std::string quote(const std::string& s) { return json::serialize(json::value(s)); }

struct Fixture {
    TempDir dir;
    fs::path home = dir.path() / "home";
    fs::path src = dir.path() / "src";
    Daemon d{dir.path() / "vault", {{"HOME", home.string()}}};
    fs::path claude = home / ".claude" / "skills";
    fs::path codex = home / ".agents" / "skills";
    fs::path library = dir.path() / "vault" / "skills";

    Fixture() {
        fs::create_directories(home);
        BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    }

    json::value req(const std::string& m, const std::string& t, const std::string& b, int expect) {
        int status = 0;
        auto v = d.call_json(m, t, b, &status);
        BOOST_TEST(status == expect, m << " " << t << " -> " << status << " " << json::serialize(v));
        return v;
    }

    // A skill folder with ~6 files, a script with its executable bit, nested folders.
    fs::path make_skill(const std::string& name, const std::string& folder = "") {
        auto root = src / (folder.empty() ? name : folder);
        write(root / "SKILL.md", skill_md(name));
        write(root / "scripts" / "run.sh", "#!/bin/sh\necho " + name + "\n");
        fs::permissions(root / "scripts" / "run.sh", fs::perms::owner_exec, fs::perm_options::add);
        write(root / "references" / "guide.md", "# Guide for " + name + "\n");
        write(root / "references" / "deep" / "notes.md", "notes\n");
        write(root / "assets" / "template.txt", "template\n");
        write(root / "LICENSE.txt", "MIT\n");
        return root;
    }

    json::value import(const std::string& name, const fs::path& source, int expect = 201, const std::string& extra = "") {
        return req("POST", "/api/v1/resources",
                   R"({"kind":"skill","name":)" + quote(name) + R"(,"config":{"source":)" + quote(source.string()) + "}" +
                       extra + "}",
                   expect);
    }

    json::value verify(bool repair = false) {
        return req("POST", "/api/v1/kinds/skill/actions/verify", repair ? R"({"repair":true})" : "{}", 200).at("result");
    }

    // The verify entry of one skill's target.
    json::value target_of(const json::value& report, const std::string& name, const std::string& target) {
        for (auto& s : report.at("skills").as_array())
            if (s.at("name").as_string() == name)
                for (auto& t : s.at("targets").as_array())
                    if (t.at("target").as_string() == target) return t;
        return nullptr;
    }

    std::string error_code(const json::value& v) {
        auto* o = v.if_object();
        if (!o || !o->contains("error")) return "";
        return std::string(v.at("error").at("code").as_string());
    }

    std::vector<std::pair<std::string, std::string>> errors(const json::value& v) {
        std::vector<std::pair<std::string, std::string>> out;
        if (auto* e = v.at("error").as_object().if_contains("details"); e && e->is_object())
            for (auto& x : e->at("errors").as_array())
                out.emplace_back(std::string(x.at("pointer").as_string()), std::string(x.at("message").as_string()));
        return out;
    }

    bool has_error(const json::value& v, const std::string& pointer, const std::string& needle) {
        for (auto& [p, m] : errors(v))
            if (p == pointer && m.find(needle) != std::string::npos) return true;
        return false;
    }

    std::size_t skill_count() {
        return req("GET", "/api/v1/resources?kind=skill", "", 200).at("resources").as_array().size();
    }

    // Nothing of a refused import may remain: no library folder (nor staging leftover), no deliveries.
    void nothing_written(const std::string& name) {
        BOOST_TEST(!fs::exists(library / name), name);
        BOOST_TEST(!fs::exists(claude / name), name);
        BOOST_TEST(!fs::exists(codex / name), name);
        if (fs::exists(library))
            for (auto& e : fs::directory_iterator(library)) BOOST_TEST(e.path().filename().string()[0] != '.', e.path());
    }

    // Plugins' audit events are written by the host asynchronously (posted to its service thread),
    // so one may land just after the response that caused it: wait for it a little.
    bool audited(const std::string& target, const std::string& type) {
        return eventually(
            [&] {
                auto types = audit_types(target);
                return std::find(types.begin(), types.end(), type) != types.end();
            },
            std::chrono::seconds(2), std::chrono::milliseconds(20));
    }

    std::vector<std::string> audit_types(const std::string& target) {
        std::vector<std::string> out;
        auto audit = req("GET", "/api/v1/audit?limit=200", "", 200);
        for (auto& e : audit.at("events").as_array())
            if (e.at("target").as_string() == target) out.emplace_back(e.at("event_type").as_string());
        return out;
    }
};

bool executable(const fs::path& p) { return (fs::status(p).permissions() & fs::perms::owner_exec) != fs::perms::none; }

}  // namespace

BOOST_FIXTURE_TEST_CASE(kind_is_loaded_with_its_actions, Fixture) {
    auto kinds = req("GET", "/api/v1/kinds", "", 200);
    bool found = false;
    for (auto& k : kinds.at("kinds").as_array())
        if (k.at("kind").as_string() == "skill") {
            found = true;
            BOOST_TEST(k.at("plugin").as_string() == "skill");
            BOOST_TEST(k.at("schema").at("properties").as_object().contains("source"));
        }
    BOOST_TEST(found);
}

BOOST_FIXTURE_TEST_CASE(import_folder_delivers_to_both_agents, Fixture) {
    auto source = make_skill("pdf-tools");
    auto created = import("pdf-tools", source);
    auto& res = created.at("resource");
    BOOST_TEST(res.at("enabled").as_bool());
    BOOST_TEST(res.at("status").at("state").as_string() == "running");
    BOOST_TEST(res.at("status").at("plugin").at("health").as_string() == "ok");

    for (auto& root : {library, claude, codex}) {
        auto s = root / "pdf-tools";
        BOOST_TEST(read(s / "SKILL.md") == skill_md("pdf-tools"), s);
        BOOST_TEST(read(s / "references" / "deep" / "notes.md") == "notes\n", s);
        BOOST_TEST(read(s / "assets" / "template.txt") == "template\n", s);
        BOOST_TEST(executable(s / "scripts" / "run.sh"), s);
    }
    auto shown = req("GET", "/api/v1/resources/skill/pdf-tools", "", 200).at("resource").at("status").at("plugin");
    BOOST_TEST(shown.at("library").at("files").as_int64() == 6);
    BOOST_TEST(shown.at("targets").as_array().size() == 2u);
    for (auto& t : shown.at("targets").as_array()) BOOST_TEST(t.at("state").as_string() == "ok");

    auto report = verify();
    BOOST_TEST(report.at("ok").as_bool());
    BOOST_TEST(report.at("summary").at("ok").as_int64() == 2);

    BOOST_TEST(audited("skill:pdf-tools", "resource_created"));
    BOOST_TEST(audited("skill:pdf-tools", "skill_imported"));
    BOOST_TEST(audited("skill:pdf-tools", "skill_delivered"));
}

BOOST_FIXTURE_TEST_CASE(targets_choose_the_agents, Fixture) {
    import("only-codex", make_skill("only-codex"), 201, R"(,"description":"x")");
    // PATCH the targets: the skill leaves claude_code, stays in codex.
    req("PATCH", "/api/v1/resources/skill/only-codex",
        R"({"config":{"source":)" + quote((src / "only-codex").string()) + R"(,"targets":["codex"]}})", 200);
    BOOST_TEST(!fs::exists(claude / "only-codex"));
    BOOST_TEST(fs::exists(codex / "only-codex" / "SKILL.md"));
    auto bad = req("PATCH", "/api/v1/resources/skill/only-codex", R"({"config":{"targets":["vim"]}})", 400);
    BOOST_TEST(error_code(bad) == "VALIDATION_FAILED");
    BOOST_TEST(errors(bad).at(0).first == "/config/targets/0");
    // Without a source, the config change keeps the library copy (the source may be gone).
    fs::remove_all(src / "only-codex");
    req("PATCH", "/api/v1/resources/skill/only-codex", R"({"config":{"targets":["claude_code","codex"]}})", 200);
    BOOST_TEST(fs::exists(claude / "only-codex" / "SKILL.md"));
}

BOOST_FIXTURE_TEST_CASE(scope_chooses_the_agents_too, Fixture) {
    // R-5 / S-3: a skill scoped to the agent codex goes only into codex's folder; the plugin learns
    // the scope through the ABI (create's resource_json, then rescope when it changes).
    import("scoped", make_skill("scoped"), 201, R"(,"scope":[{"machine":"*","agents":["codex"]}])");
    BOOST_TEST(fs::exists(codex / "scoped" / "SKILL.md"));
    BOOST_TEST(!fs::exists(claude / "scoped"));
    // Only the scope changes (same config): the delivery follows it.
    req("PATCH", "/api/v1/resources/skill/scoped", R"({"scope":[{"machine":"*","agents":["claude_code"]}]})", 200);
    BOOST_TEST(fs::exists(claude / "scoped" / "SKILL.md"));
    BOOST_TEST(!fs::exists(codex / "scoped"));
    // Scope and targets together: an agent must be in both.
    req("PATCH", "/api/v1/resources/skill/scoped",
        R"({"config":{"targets":["codex"]},"scope":[{"machine":"*","agents":["codex","claude_code"]}]})", 200);
    BOOST_TEST(fs::exists(codex / "scoped" / "SKILL.md"));
    BOOST_TEST(!fs::exists(claude / "scoped"));
    // Back to every agent, and it survives a restart as it is.
    req("PATCH", "/api/v1/resources/skill/scoped", R"({"config":{"targets":["claude_code","codex"]},"scope":[{"machine":"*","agents":["*"]}]})", 200);
    BOOST_TEST(fs::exists(claude / "scoped" / "SKILL.md"));
    BOOST_TEST(fs::exists(codex / "scoped" / "SKILL.md"));
    req("PATCH", "/api/v1/resources/skill/scoped", R"({"scope":[{"machine":"*","agents":["codex"]}]})", 200);
    d.stop();
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    BOOST_TEST(fs::exists(codex / "scoped" / "SKILL.md"));
    BOOST_TEST(!fs::exists(claude / "scoped"));
}

BOOST_FIXTURE_TEST_CASE(invalid_skills_are_refused_with_specific_errors, Fixture) {
    struct Case {
        std::string name;      // resource name
        std::string md;        // SKILL.md text ("" = no SKILL.md)
        std::string pointer;   // expected pointer
        std::string needle;    // expected message part
    };
    std::string long_desc(1025, 'd');
    std::vector<Case> cases{
        {"no-frontmatter", "# just markdown\n", "/config/source", "SKILL.md line 1: SKILL.md must begin with a '---' line"},
        {"unclosed", "---\nname: unclosed\n", "/config/source", "never closed"},
        {"yaml-error", "---\nname: yaml-error\ndescription: Use when: always\n---\n", "/config/source", "SKILL.md line 3"},
        {"no-name", "---\ndescription: d\n---\n", "/config/source", "SKILL.md frontmatter: name is required"},
        {"upper", "---\nname: Upper\ndescription: d\n---\n", "/config/source",
         "SKILL.md frontmatter: name may contain only lowercase letters a-z, digits 0-9 and hyphens"},
        {"underscore", "---\nname: under_score\ndescription: d\n---\n", "/config/source", "'_' at position 6"},
        {"lead", "---\nname: -lead\ndescription: d\n---\n", "/config/source", "name must not start or end with a hyphen"},
        {"trail", "---\nname: trail-\ndescription: d\n---\n", "/config/source", "name must not start or end with a hyphen"},
        {"double", "---\nname: dou--ble\ndescription: d\n---\n", "/config/source", "name must not contain two hyphens in a row"},
        {"toolong", "---\nname: " + std::string(65, 'a') + "\ndescription: d\n---\n", "/config/source",
         "name must be 1–64 characters long (it has 65)"},
        {"mismatch", "---\nname: other-name\ndescription: d\n---\n", "/name",
         "SKILL.md frontmatter: name \"other-name\" must equal the skill's name \"mismatch\""},
        {"no-desc", "---\nname: no-desc\n---\n", "/config/source", "SKILL.md frontmatter: description is required (1–1024 characters)"},
        {"empty-desc", "---\nname: empty-desc\ndescription: \"\"\n---\n", "/config/source", "description must not be empty"},
        {"long-desc", "---\nname: long-desc\ndescription: " + long_desc + "\n---\n", "/config/source",
         "description must be at most 1024 characters (it has 1025)"},
        {"compat", "---\nname: compat\ndescription: d\ncompatibility: " + std::string(501, 'c') + "\n---\n", "/config/source",
         "compatibility must be at most 500 characters"},
        {"meta", "---\nname: meta\ndescription: d\nmetadata:\n  k: [1, 2]\n---\n", "/config/source",
         "metadata.k must be a text value"},
        {"tools", "---\nname: tools\ndescription: d\nallowed-tools:\n  a: b\n---\n", "/config/source",
         "allowed-tools must be a text value or a list"},
        {"license", "---\nname: license\ndescription: d\nlicense: [MIT]\n---\n", "/config/source", "license must be a text value"},
        {"no-skill-md", "", "/config/source", "no SKILL.md found"},
    };
    for (auto& c : cases) {
        auto root = src / c.name;
        fs::create_directories(root);
        if (!c.md.empty()) write(root / "SKILL.md", c.md);
        write(root / "scripts" / "x.sh", "x");
        auto v = import(c.name, root, 400);
        BOOST_TEST(error_code(v) == "VALIDATION_FAILED", c.name);
        BOOST_TEST(has_error(v, c.pointer, c.needle), c.name << ": " << json::serialize(v));
        nothing_written(c.name);
    }
    // Source problems.
    auto rel = req("POST", "/api/v1/resources", R"({"kind":"skill","name":"rel","config":{"source":"relative/dir"}})", 400);
    BOOST_TEST(has_error(rel, "/config/source", "must be an absolute path"));
    auto missing = import("missing", src / "does-not-exist", 400);
    BOOST_TEST(has_error(missing, "/config/source", "does not exist"));
    write(src / "plain.txt", "hello");
    auto notarchive = import("plain", src / "plain.txt", 400);
    BOOST_TEST(has_error(notarchive, "/config/source", "not a .zip, .tar.gz"));
    // A name the resource framework accepts but a skill cannot have.
    auto badname = import("Bad_Name", make_skill("bad-name"), 400);
    BOOST_TEST(has_error(badname, "/name", "a skill name may contain only lowercase"));
    // A link out of a source folder.
    auto linked = make_skill("linked");
    fs::create_symlink("/etc/hostname", linked / "references" / "host");
    auto lv = import("linked", linked, 400);
    BOOST_TEST(has_error(lv, "/config/source", "link to an absolute path"));
    nothing_written("linked");
    BOOST_TEST(skill_count() == 0u);
}

BOOST_FIXTURE_TEST_CASE(drift_is_reported_and_repaired, Fixture) {
    import("drifty", make_skill("drifty"));
    import("steady", make_skill("steady"));
    // A user's own skill next to Coffer's, and a user's file inside Coffer's folder.
    write(claude / "my-own" / "SKILL.md", skill_md("my-own"));
    write(claude / "drifty" / "notes-by-user.md", "mine");

    write(claude / "drifty" / "references" / "guide.md", "edited by hand\n");
    fs::remove(codex / "drifty" / "assets" / "template.txt");

    auto report = verify();
    BOOST_TEST(!report.at("ok").as_bool());
    auto c = target_of(report, "drifty", "claude_code");
    BOOST_TEST(c.at("state").as_string() == "modified");
    BOOST_TEST(c.at("modified").at(0).as_string() == "references/guide.md");
    BOOST_TEST(c.at("extra").at(0).as_string() == "notes-by-user.md");
    auto x = target_of(report, "drifty", "codex");
    BOOST_TEST(x.at("state").as_string() == "missing");
    BOOST_TEST(x.at("missing").at(0).as_string() == "assets/template.txt");
    BOOST_TEST(target_of(report, "steady", "codex").at("state").as_string() == "ok");
    auto& unmanaged = report.at("unmanaged").as_array();
    BOOST_TEST_REQUIRE(unmanaged.size() == 1u);
    BOOST_TEST(unmanaged.at(0).at("name").as_string() == "my-own");
    BOOST_TEST(unmanaged.at(0).at("target").as_string() == "claude_code");
    BOOST_TEST(unmanaged.at(0).at("has_skill_md").as_bool());
    BOOST_TEST(report.at("summary").at("modified").as_int64() == 1);
    BOOST_TEST(report.at("summary").at("missing").as_int64() == 1);
    // Resource status says the same.
    auto st = req("GET", "/api/v1/resources/skill/drifty", "", 200).at("resource").at("status").at("plugin");
    BOOST_TEST(st.at("health").as_string() == "drift");

    auto repaired = verify(true);
    BOOST_TEST(repaired.at("summary").at("repaired").as_int64() == 2);
    BOOST_TEST(target_of(repaired, "drifty", "claude_code").at("repaired").as_bool());
    BOOST_TEST(read(claude / "drifty" / "references" / "guide.md") == "# Guide for drifty\n");
    BOOST_TEST(read(codex / "drifty" / "assets" / "template.txt") == "template\n");
    BOOST_TEST(read(claude / "drifty" / "notes-by-user.md") == "mine");  // not Coffer's: untouched
    BOOST_TEST(read(claude / "my-own" / "SKILL.md") == skill_md("my-own"));

    auto after = verify();
    BOOST_TEST(after.at("ok").as_bool());
    BOOST_TEST(after.at("unmanaged").as_array().size() == 1u);
    BOOST_TEST(audited("skill:drifty", "skill_repaired"));

    // A half-built delivery of a daemon that died mid-copy is cleaned by repair; a live one is not.
    pid_t dead = ::fork();
    if (dead == 0) ::_exit(0);
    ::waitpid(dead, nullptr, 0);
    auto abandoned = claude / (".coffer-staging-drifty-" + std::to_string(dead) + "-0123456789ab");
    auto live = claude / (".coffer-staging-drifty-" + std::to_string(::getpid()) + "-0123456789ab");
    write(abandoned / "SKILL.md", "half");
    write(live / "SKILL.md", "in progress");
    auto cleaned = verify(true);
    BOOST_TEST(cleaned.at("cleaned").as_array().size() == 1u);
    BOOST_TEST(!fs::exists(abandoned));
    BOOST_TEST(fs::exists(live));
    fs::remove_all(live);

    // A folder deleted whole is "missing" too, and repair brings it back.
    fs::remove_all(codex / "steady");
    BOOST_TEST(target_of(verify(), "steady", "codex").at("state").as_string() == "missing");
    verify(true);
    BOOST_TEST(fs::exists(codex / "steady" / "SKILL.md"));
}

BOOST_FIXTURE_TEST_CASE(disable_removes_only_what_coffer_delivered, Fixture) {
    import("tidy", make_skill("tidy"));
    write(claude / "neighbour" / "SKILL.md", skill_md("neighbour"));
    write(codex / "neighbour" / "SKILL.md", skill_md("neighbour"));
    write(claude / "neighbour" / "data.bin", "keep me");

    auto dis = req("POST", "/api/v1/resources/skill/tidy/disable", "", 200);
    BOOST_TEST(dis.at("resource").at("status").at("plugin").at("health").as_string() == "disabled");
    BOOST_TEST(!fs::exists(claude / "tidy"));
    BOOST_TEST(!fs::exists(codex / "tidy"));
    BOOST_TEST(fs::exists(library / "tidy" / "SKILL.md"));  // the library keeps it
    BOOST_TEST(read(claude / "neighbour" / "data.bin") == "keep me");
    BOOST_TEST(read(codex / "neighbour" / "SKILL.md") == skill_md("neighbour"));
    auto report = verify();
    BOOST_TEST(report.at("ok").as_bool());
    BOOST_TEST(report.at("unmanaged").as_array().size() == 2u);
    BOOST_TEST(audited("skill:tidy", "skill_undelivered"));

    req("POST", "/api/v1/resources/skill/tidy/enable", "", 200);
    BOOST_TEST(read(claude / "tidy" / "SKILL.md") == skill_md("tidy"));

    // A file the user added inside Coffer's folder survives a disable (and so does its folder).
    write(codex / "tidy" / "mine.txt", "user file");
    req("POST", "/api/v1/resources/skill/tidy/disable", "", 200);
    BOOST_TEST(!fs::exists(codex / "tidy" / "SKILL.md"));
    BOOST_TEST(read(codex / "tidy" / "mine.txt") == "user file");

    // Delete removes the library copy too.
    req("POST", "/api/v1/resources/skill/tidy/enable", "", 200);
    req("DELETE", "/api/v1/resources/skill/tidy", "", 200);
    BOOST_TEST(!fs::exists(library / "tidy"));
    BOOST_TEST(!fs::exists(claude / "tidy"));
    BOOST_TEST(fs::exists(claude / "neighbour" / "data.bin"));
    BOOST_TEST(audited("skill:tidy", "skill_removed"));
}

BOOST_FIXTURE_TEST_CASE(a_users_own_skill_is_never_overwritten, Fixture) {
    write(codex / "clash" / "SKILL.md", "---\nname: clash\ndescription: mine\n---\n");
    import("clash", make_skill("clash"));
    BOOST_TEST(read(codex / "clash" / "SKILL.md") == "---\nname: clash\ndescription: mine\n---\n");
    BOOST_TEST(read(claude / "clash" / "SKILL.md") == skill_md("clash"));
    auto st = req("GET", "/api/v1/resources/skill/clash", "", 200).at("resource").at("status").at("plugin");
    BOOST_TEST(st.at("health").as_string() == "conflict");
    auto report = verify(true);
    auto t = target_of(report, "clash", "codex");
    BOOST_TEST(t.at("state").as_string() == "conflict");
    BOOST_TEST(t.at("reason").as_string().find("did not deliver") != std::string::npos);
    BOOST_TEST(read(codex / "clash" / "SKILL.md") == "---\nname: clash\ndescription: mine\n---\n");
    // Disabling and deleting leave the user's folder alone as well.
    req("DELETE", "/api/v1/resources/skill/clash", "", 200);
    BOOST_TEST(fs::exists(codex / "clash" / "SKILL.md"));
    BOOST_TEST(!fs::exists(claude / "clash"));
}

BOOST_FIXTURE_TEST_CASE(reimport_and_library_edits_redeliver, Fixture) {
    auto v1 = make_skill("evolving");
    import("evolving", v1);
    // A new version elsewhere: a file changed, one removed, one added.
    auto v2 = src / "evolving-v2";
    fs::copy(v1, v2, fs::copy_options::recursive);
    write(v2 / "references" / "guide.md", "v2 guide\n");
    fs::remove(v2 / "assets" / "template.txt");
    write(v2 / "references" / "new.md", "new\n");
    req("PATCH", "/api/v1/resources/skill/evolving", R"({"config":{"source":)" + quote(v2.string()) + "}}", 200);
    for (auto& root : {library, claude, codex}) {
        BOOST_TEST(read(root / "evolving" / "references" / "guide.md") == "v2 guide\n");
        BOOST_TEST(read(root / "evolving" / "references" / "new.md") == "new\n");
        BOOST_TEST(!fs::exists(root / "evolving" / "assets" / "template.txt"));
    }
    BOOST_TEST(verify().at("ok").as_bool());

    // Same source edited in place: the reimport action.
    write(v2 / "SKILL.md", skill_md("evolving", "license: MIT\n"));
    req("POST", "/api/v1/resources/skill/evolving/actions/reimport", "{}", 200);
    BOOST_TEST(read(claude / "evolving" / "SKILL.md") == skill_md("evolving", "license: MIT\n"));

    // An invalid new version is refused and changes nothing.
    write(v2 / "SKILL.md", "---\nname: evolving\n---\n");
    auto bad = req("POST", "/api/v1/resources/skill/evolving/actions/reimport", "{}", 400);
    BOOST_TEST(has_error(bad, "/config/source", "description is required"));
    BOOST_TEST(read(library / "evolving" / "SKILL.md") == skill_md("evolving", "license: MIT\n"));

    // The library copy edited by hand: verify says outdated; repair delivers the edit.
    write(library / "evolving" / "references" / "guide.md", "edited in the library\n");
    auto report = verify();
    BOOST_TEST(report.at("skills").at(0).at("library").at("state").as_string() == "changed");
    BOOST_TEST(target_of(report, "evolving", "claude_code").at("state").as_string() == "outdated");
    verify(true);
    BOOST_TEST(read(codex / "evolving" / "references" / "guide.md") == "edited in the library\n");
    BOOST_TEST(verify().at("ok").as_bool());
    // An invalid library edit is not delivered.
    write(library / "evolving" / "SKILL.md", "broken");
    auto inv = verify(true);
    BOOST_TEST(inv.at("skills").at(0).at("library").at("state").as_string() == "invalid");
    BOOST_TEST(read(codex / "evolving" / "SKILL.md") == skill_md("evolving", "license: MIT\n"));
}

BOOST_FIXTURE_TEST_CASE(archives_import_and_hostile_ones_are_refused, Fixture) {
    using skill_test::Entry;
    // A .tar.gz with one top-level folder, a .zip with the skill at its root.
    auto tgz = src / "from-tar.tar.gz";
    fs::create_directories(src);
    skill_test::write_archive(tgz, {{"from-tar/", "", 'd'}, {"from-tar/SKILL.md", skill_md("from-tar")},
                                    {"from-tar/scripts/go.sh", "echo go\n", 'f', "", 0755},
                                    {"__MACOSX/._SKILL.md", "junk"}},
                              false);
    import("from-tar", tgz);
    BOOST_TEST(executable(claude / "from-tar" / "scripts" / "go.sh"));
    BOOST_TEST(!fs::exists(library / "from-tar" / "__MACOSX"));
    auto zip = src / "from-zip.zip";
    skill_test::write_archive(zip, {{"SKILL.md", skill_md("from-zip")}, {"references/a.md", "a"}}, true);
    import("from-zip", zip);
    BOOST_TEST(read(codex / "from-zip" / "references" / "a.md") == "a");

    // Several skills in one archive: the resource name picks one.
    auto multi = src / "multi.tar.gz";
    skill_test::write_archive(multi, {{"one/SKILL.md", skill_md("one")}, {"two/SKILL.md", skill_md("two")}}, false);
    import("two", multi);
    BOOST_TEST(fs::exists(library / "two" / "SKILL.md"));
    auto none = import("three", multi, 400);
    BOOST_TEST(has_error(none, "/config/source", "holds several skills (one, two)"));

    struct Case {
        std::string name;
        std::vector<Entry> entries;
        bool zip;
        std::string needle;
    };
    auto md = [](const std::string& n) { return Entry{"SKILL.md", skill_md(n)}; };
    std::vector<Case> cases{
        {"evil-dotdot", {md("evil-dotdot"), {"../../escaped.txt", "pwned"}}, false, "contains a '..' component"},
        {"evil-zipslip", {md("evil-zipslip"), {"a/../../../escaped.txt", "pwned"}}, true, "contains a '..' component"},
        {"evil-absolute", {md("evil-absolute"), {"/tmp/escaped.txt", "pwned"}}, false, "has an absolute path"},
        {"evil-link", {md("evil-link"), {"passwd", "", 'l', "/etc/passwd"}}, false, "points to an absolute path"},
        {"evil-uplink", {md("evil-uplink"), {"up", "", 'l', "../../../home"}}, true, "points outside the skill folder"},
        {"evil-hardlink", {md("evil-hardlink"), {"h", "", 'h', "../../etc/passwd"}}, false, "hard link"},
        {"evil-dev", {md("evil-dev"), {"fifo", "", 'p'}}, false, "special file"},
    };
    for (auto& c : cases) {
        auto arc = src / (c.name + (c.zip ? ".zip" : ".tar.gz"));
        skill_test::write_archive(arc, c.entries, c.zip);
        auto v = import(c.name, arc, 400);
        BOOST_TEST(error_code(v) == "VALIDATION_FAILED", c.name);
        BOOST_TEST(has_error(v, "/config/source", c.needle), c.name << ": " << json::serialize(v));
        nothing_written(c.name);
    }
    // Nothing escaped anywhere near the vault, the home or the sources.
    for (auto& p : fs::recursive_directory_iterator(dir.path()))
        BOOST_TEST(p.path().filename() != "escaped.txt", p.path());
    BOOST_TEST(skill_count() == 3u);

    // The inspect kind action reads a source without importing it.
    auto insp = req("POST", "/api/v1/kinds/skill/actions/inspect", R"({"source":)" + quote(tgz.string()) + "}", 200);
    BOOST_TEST(insp.at("result").at("name").as_string() == "from-tar");
    BOOST_TEST(insp.at("result").at("root").as_string() == "from-tar");
    auto insp_bad = req("POST", "/api/v1/kinds/skill/actions/inspect",
                        R"({"source":)" + quote((src / "evil-link.tar.gz").string()) + "}", 400);
    BOOST_TEST(has_error(insp_bad, "/source", "points to an absolute path"));
}

BOOST_FIXTURE_TEST_CASE(deliveries_survive_a_daemon_restart, Fixture) {
    import("lasting", make_skill("lasting"));
    import("resting", make_skill("resting"), 201, R"(,"enabled":false)");
    BOOST_TEST(!fs::exists(claude / "resting"));
    BOOST_TEST(d.stop() == 0);
    // Delivered skills stay in the agents' folders while the daemon is down.
    BOOST_TEST(fs::exists(claude / "lasting" / "SKILL.md"));
    BOOST_TEST(fs::exists(codex / "lasting" / "SKILL.md"));
    BOOST_REQUIRE_MESSAGE(d.start(), d.log());
    auto report = verify();
    BOOST_TEST(report.at("ok").as_bool(), json::serialize(report));
    BOOST_TEST(report.at("summary").at("skills").as_int64() == 2);
    BOOST_TEST(!fs::exists(claude / "resting"));
    // The restart did not re-import or re-deliver anything.
    std::size_t imports = 0;
    for (auto& t : audit_types("skill:lasting")) imports += t == "skill_imported" || t == "skill_delivered";
    BOOST_TEST(imports == 2u);
}

BOOST_FIXTURE_TEST_CASE(cli_skill_commands, Fixture) {
    if (!fs::exists(bin_dir() / "coffer")) return;  // the CLI is optional in partial builds
    auto source = make_skill("cli-skill");
    auto imp = d.cli({"skill", "import", source.string(), "--json"});
    BOOST_TEST(imp.exit_code == 0, imp.out << imp.err);
    auto body = parse(imp.out);
    BOOST_TEST(body.at("resource").at("name").as_string() == "cli-skill");
    BOOST_TEST(body.at("resource").at("description").as_string() == "Helps with cli-skill tasks.");
    BOOST_TEST(fs::exists(claude / "cli-skill" / "SKILL.md"));

    auto list = d.cli({"skill", "list"});
    BOOST_TEST(list.out.find("cli-skill") != std::string::npos, list.out);

    write(claude / "cli-skill" / "SKILL.md", "tampered");
    auto v = d.cli({"skill", "verify", "--json"});
    BOOST_TEST(v.exit_code == 0);
    BOOST_TEST(!parse(v.out).at("result").at("ok").as_bool());
    auto r = d.cli({"skill", "verify", "--repair", "--json"});
    BOOST_TEST(parse(r.out).at("result").at("ok").as_bool(), r.out);
    BOOST_TEST(read(claude / "cli-skill" / "SKILL.md") == skill_md("cli-skill"));

    // Re-import of the same path after an edit.
    write(source / "references" / "guide.md", "v2\n");
    auto again = d.cli({"skill", "import", source.string()});
    BOOST_TEST(again.exit_code == 0, again.out << again.err);
    BOOST_TEST(again.out.find("re-imported skill:cli-skill") != std::string::npos, again.out);
    BOOST_TEST(read(codex / "cli-skill" / "references" / "guide.md") == "v2\n");

    auto dis = d.cli({"skill", "disable", "cli-skill"});
    BOOST_TEST(dis.exit_code == 0);
    BOOST_TEST(!fs::exists(codex / "cli-skill"));
    auto show = d.cli({"skill", "show", "cli-skill", "--json"});
    BOOST_TEST(!parse(show.out).at("resource").at("enabled").as_bool());
    BOOST_TEST(d.cli({"skill", "enable", "cli-skill"}).exit_code == 0);
    BOOST_TEST(fs::exists(codex / "cli-skill" / "SKILL.md"));
    BOOST_TEST(d.cli({"skill", "delete", "cli-skill"}).exit_code == 0);
    BOOST_TEST(!fs::exists(library / "cli-skill"));

    // A broken skill: exit 1, the field and the rule on stderr, nothing written.
    fs::create_directories(src / "broken");
    write(src / "broken" / "SKILL.md", "---\nname: broken--skill\ndescription: d\n---\n");
    auto bad = d.cli({"skill", "import", (src / "broken").string()});
    BOOST_TEST(bad.exit_code == 1);
    BOOST_TEST(bad.err.find("name must not contain two hyphens in a row") != std::string::npos, bad.err);
    BOOST_TEST(skill_count() == 0u);
}
