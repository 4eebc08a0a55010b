// vault::resolve_home — the one COFFER_HOME resolution of daemon, CLI and shim: --home, else
// $COFFER_HOME, else $HOME/.coffer, else the passwd entry's home (HOME unset or empty).
#define BOOST_TEST_MODULE unit_vault
#include <boost/test/unit_test.hpp>

#include "vault/home.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace fs = std::filesystem;
using coffer::vault::resolve_home;

namespace {

// Sets (or unsets) an environment variable for one test and puts it back afterwards.
class EnvVar {
public:
    EnvVar(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* v = std::getenv(name)) old_ = v;
        if (value) ::setenv(name, value->c_str(), 1);
        else ::unsetenv(name);
    }
    ~EnvVar() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }

private:
    const char* name_;
    std::optional<std::string> old_;
};

std::string passwd_home() {
    const passwd* pw = ::getpwuid(::getuid());
    return pw && pw->pw_dir ? pw->pw_dir : "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(override_then_coffer_home_then_home) {
    EnvVar home("HOME", "/home/someone");
    {
        EnvVar ch("COFFER_HOME", "/srv/vault");
        BOOST_TEST(resolve_home("/elsewhere").value() == fs::path("/elsewhere"));
        BOOST_TEST(resolve_home().value() == fs::path("/srv/vault"));
    }
    EnvVar ch("COFFER_HOME", std::nullopt);
    BOOST_TEST(resolve_home().value() == fs::path("/home/someone/.coffer"));
}

BOOST_AUTO_TEST_CASE(empty_variables_count_as_unset) {
    EnvVar home("HOME", "/home/someone");
    EnvVar ch("COFFER_HOME", "");
    BOOST_TEST(resolve_home().value() == fs::path("/home/someone/.coffer"));
}

BOOST_AUTO_TEST_CASE(without_home_the_passwd_entry_decides) {
    EnvVar ch("COFFER_HOME", std::nullopt);
    auto pw = passwd_home();
    for (std::optional<std::string> h : {std::optional<std::string>(), std::optional<std::string>("")}) {
        EnvVar home("HOME", h);
        auto r = resolve_home();
        if (pw.empty()) {
            BOOST_REQUIRE(!r);
            BOOST_TEST(r.error().code == "BAD_REQUEST");
        } else {
            BOOST_REQUIRE(r);
            BOOST_TEST(*r == (fs::path(pw) / ".coffer").lexically_normal());
        }
    }
}

BOOST_AUTO_TEST_CASE(relative_paths_become_absolute_and_normal) {
    EnvVar ch("COFFER_HOME", "a/../b/./vault");
    auto r = resolve_home();
    BOOST_REQUIRE(r);
    BOOST_TEST(r->is_absolute());
    BOOST_TEST(*r == (fs::current_path() / "b" / "vault"));
    BOOST_TEST(resolve_home("x/..//y").value() == fs::current_path() / "y");
}
