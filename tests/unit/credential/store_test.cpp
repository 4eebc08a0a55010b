// credential::Store on a real SQLite database in a temporary vault: tokens only in the table,
// master.key created on first use, startup refusals, references blocking deletes, resolution.
#define BOOST_TEST_MODULE credential
#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"
#include "credential/ref.hpp"
#include "credential/store.hpp"
#include "crypto/fernet.hpp"
#include "crypto/key_file.hpp"
#include "store/migrations.hpp"

#include <boost/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace coffer;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

struct Vault {
    coffer::test::TempDir tmp{"credstore"};
    const fs::path& dir = tmp.path();
    std::unique_ptr<store::Database> db;
    Vault() { reopen(); }
    ~Vault() { db.reset(); }
    void reopen() {
        db.reset();
        db = store::Database::open(dir / "coffer.db").value();
        BOOST_REQUIRE(store::migrate(*db).ok());
    }
    std::vector<std::string> column(const std::string& sql) {
        auto st = db->prepare(sql).value();
        std::vector<std::string> out;
        while (*st.step()) out.push_back(st.text(0));
        return out;
    }
    void add_resource(const std::string& kind, const std::string& name, const std::string& config) {
        auto st = db->prepare(
                        "INSERT INTO resources (uid, kind, name, config, created_at, updated_at) VALUES (?,?,?,?,'t','t')")
                      .value();
        st.bind(1, kind + name).bind(2, kind).bind(3, name).bind(4, config);
        BOOST_REQUIRE(st.run().ok());
    }
};

std::string file_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(credential_store)

BOOST_AUTO_TEST_CASE(ref_names) {
    for (const char* good : {"a", "gh-token", "A.b_c-9", "0abc"}) BOOST_TEST(credential::ref_problem(good).empty(), good);
    for (const char* bad : {"", ".hidden", "-x", "a/b", "a b", "a:b", "caf\xc3\xa9"})
        BOOST_TEST(!credential::ref_problem(bad).empty(), bad);
    BOOST_TEST(credential::ref_problem(std::string(64, 'a')).empty());
    BOOST_TEST(!credential::ref_problem(std::string(65, 'a')).empty());
    auto refs = credential::referenced_refs(json::parse(
        R"({"env":{"A":"credref:one","B":"plain"},"headers":{"X":"credref:two"},"args":["credref:three"],"n":1})"));
    BOOST_TEST((refs == std::set<std::string>{"one", "two", "three"}));
}

BOOST_AUTO_TEST_CASE(set_stores_only_a_token_and_creates_the_key_once) {
    Vault v;
    credential::Store s(*v.db, v.dir);
    BOOST_REQUIRE(s.open().ok());
    BOOST_TEST(!fs::exists(v.dir / "master.key"));  // created when first needed
    auto r = s.set("gh", "ghp_value_1234", "cli");
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(r->created);
    BOOST_TEST(fs::exists(v.dir / "master.key"));
    struct stat st {};
    ::stat((v.dir / "master.key").c_str(), &st);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    auto key_text = file_text(v.dir / "master.key");
    auto tokens = v.column("SELECT token FROM credentials WHERE ref = 'gh'");
    BOOST_REQUIRE(tokens.size() == 1u);
    BOOST_TEST(tokens[0].find("ghp_value") == std::string::npos);
    // The stored token is standard Fernet: master.key's text opens it.
    auto key = crypto::FernetKey::parse(key_text.substr(0, key_text.find('\n'))).value();
    BOOST_TEST(crypto::fernet_decrypt(key, tokens[0]).value() == "ghp_value_1234");

    auto again = s.set("gh", "ghp_value_5678", "cli");
    BOOST_REQUIRE(again.ok());
    BOOST_TEST(!again->created);
    BOOST_TEST(file_text(v.dir / "master.key") == key_text);  // same key
    BOOST_TEST(s.read("gh", "cli").value() == "ghp_value_5678");
    BOOST_TEST(s.resolve("gh").value == "ghp_value_5678");
    auto audit = v.column("SELECT event_type || ':' || target || ':' || payload FROM audit ORDER BY id");
    BOOST_TEST((audit == std::vector<std::string>{"master_key_created:master.key:{}", "credential_set:gh:{\"created\":true}",
                                                   "credential_set:gh:{\"created\":false}", "credential_read:gh:{}"}));
}

BOOST_AUTO_TEST_CASE(bad_input_changes_nothing) {
    Vault v;
    credential::Store s(*v.db, v.dir);
    BOOST_REQUIRE(s.open().ok());
    BOOST_TEST(s.set("a/b", "x", "cli").error().code == "VALIDATION_FAILED");
    BOOST_TEST(s.set("ok", "", "cli").error().code == "VALIDATION_FAILED");
    BOOST_TEST(s.set("ok", std::string("a\0b", 3), "cli").error().code == "VALIDATION_FAILED");
    BOOST_TEST(s.set("ok", std::string(64 * 1024 + 1, 'x'), "cli").error().code == "VALIDATION_FAILED");
    BOOST_TEST(s.set("ok", std::string(64 * 1024, 'x'), "cli").ok());
    BOOST_TEST(v.column("SELECT ref FROM credentials") == std::vector<std::string>{"ok"});
    BOOST_TEST(s.read("missing", "cli").error().code == "NOT_FOUND");
    BOOST_TEST(s.remove("missing", "cli").error().code == "NOT_FOUND");
    BOOST_TEST(!*s.exists("missing"));
    BOOST_TEST(*s.exists("ok"));
}

BOOST_AUTO_TEST_CASE(a_referenced_credential_cannot_be_deleted) {
    Vault v;
    credential::Store s(*v.db, v.dir);
    BOOST_REQUIRE(s.open().ok());
    BOOST_REQUIRE(s.set("tok", "value-1", "cli").ok());
    v.add_resource("mcp_server", "gh", R"({"url":"http://x/","headers":{"Authorization":"credref:tok"}})");
    v.add_resource("mcp_server", "other", R"({"command":"x","env":{"T":"credref:tok"}})");
    v.add_resource("mcp_server", "unrelated", R"({"command":"x","env":{"T":"credref:tok2"}})");
    auto r = s.remove("tok", "cli");
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().code == "CONFLICT");
    BOOST_TEST(r.error().message.find("mcp_server:gh, mcp_server:other") != std::string::npos, r.error().message);
    BOOST_TEST(json::serialize(r.error().details.at("resources")) == R"(["mcp_server:gh","mcp_server:other"])");
    BOOST_TEST(*s.exists("tok"));
    auto list = s.list().value();
    BOOST_TEST(json::serialize(list.at(0).at("used_by")) == R"(["mcp_server:gh","mcp_server:other"])");
    BOOST_TEST(!list.at(0).as_object().contains("value"));
    BOOST_REQUIRE(v.db->exec("DELETE FROM resources WHERE name IN ('gh','other')").ok());
    BOOST_TEST(s.remove("tok", "cli").ok());
    BOOST_TEST(!*s.exists("tok"));
    BOOST_TEST((s.resolve("tok").outcome == credential::Resolution::Outcome::not_found));
}

BOOST_AUTO_TEST_CASE(startup_refuses_without_or_with_the_wrong_key) {
    Vault v;
    {
        credential::Store s(*v.db, v.dir);
        BOOST_REQUIRE(s.open().ok());
        BOOST_REQUIRE(s.set("a", "value-a", "cli").ok());
    }
    auto key = v.dir / "master.key";
    fs::rename(key, v.dir / "master.key.away");
    {
        credential::Store s(*v.db, v.dir);
        auto r = s.open();
        BOOST_REQUIRE(!r.ok());
        BOOST_TEST(r.error().message.find("MasterKeyMissing") == 0u, r.error().message);
        BOOST_TEST(r.error().message.find(key.string()) != std::string::npos);
    }
    BOOST_REQUIRE(crypto::create_key_file(key).ok());  // a different key
    {
        credential::Store s(*v.db, v.dir);
        auto r = s.open();
        BOOST_REQUIRE(!r.ok());
        BOOST_TEST(r.error().message.find("MasterKeyMismatch") == 0u, r.error().message);
    }
    fs::remove(key);
    fs::rename(v.dir / "master.key.away", key);
    credential::Store s(*v.db, v.dir);
    BOOST_REQUIRE(s.open().ok());
    BOOST_TEST(s.resolve("a").value == "value-a");
}

BOOST_AUTO_TEST_CASE(resolve_outcomes) {
    Vault v;
    credential::Store s(*v.db, v.dir);
    BOOST_REQUIRE(s.open().ok());
    BOOST_TEST((s.resolve("bad/ref").outcome == credential::Resolution::Outcome::invalid_ref));
    BOOST_TEST((s.resolve("none").outcome == credential::Resolution::Outcome::not_found));
    BOOST_REQUIRE(s.set("x", "vx", "cli").ok());
    auto ok = s.resolve("x");
    BOOST_TEST((ok.outcome == credential::Resolution::Outcome::ok));
    BOOST_TEST(ok.value == "vx");
    // A token the key cannot open (written behind the store's back) resolves as unavailable and
    // says so without any value.
    auto other = crypto::FernetKey::generate();
    auto st = v.db->prepare("UPDATE credentials SET token = ? WHERE ref = 'x'").value();
    st.bind(1, crypto::fernet_encrypt(other, "vx"));
    BOOST_REQUIRE(st.run().ok());
    {
        credential::Store fresh(*v.db, v.dir);
        BOOST_REQUIRE(fresh.open().error().message.find("MasterKeyMismatch") == 0u);  // the only token: wrong key
    }
    BOOST_REQUIRE(s.set("y", "vy", "cli").ok());
    credential::Store fresh(*v.db, v.dir);
    BOOST_REQUIRE(fresh.open().ok());  // one of two opens: start, x just does not resolve
    auto bad = fresh.resolve("x");
    BOOST_TEST((bad.outcome == credential::Resolution::Outcome::unavailable));
    BOOST_TEST(bad.value.empty());
    BOOST_TEST(bad.message.find("vx") == std::string::npos);
    BOOST_TEST(fresh.resolve("y").value == "vy");
    BOOST_TEST(fresh.read("x", "cli").error().code == "UNAVAILABLE");
}

BOOST_AUTO_TEST_SUITE_END()
