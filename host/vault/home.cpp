// COFFER_HOME resolution (vault/home.hpp).
#include "vault/home.hpp"

#include "vault/layout.hpp"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace coffer::vault {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

// The home folder of the passwd entry of the real user id; empty when there is none.
std::string passwd_home() {
    long hint = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    std::vector<char> buf(hint > 0 ? static_cast<std::size_t>(hint) : 16384);
    struct passwd pw {};
    struct passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) != 0 || !found || !found->pw_dir)
        return {};
    return found->pw_dir;
}

}  // namespace

core::Result<fs::path> resolve_home(const fs::path& override_dir) {
    fs::path p = override_dir;
    if (p.empty()) p = env("COFFER_HOME");
    if (p.empty()) {
        std::string home = env("HOME");
        if (home.empty()) home = passwd_home();
        if (home.empty())
            return core::Error::make(core::code::bad_request,
                                     "cannot tell where the vault is: COFFER_HOME and HOME are not set and the user has "
                                     "no home folder in the passwd database; set COFFER_HOME or pass --home");
        p = fs::path(home) / kDefaultDirName;
    }
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    return (ec ? p : abs).lexically_normal();
}

}  // namespace coffer::vault
