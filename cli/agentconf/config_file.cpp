// Reading and atomically replacing an agent's config file, with a .bak and a changed-file check.
#include "agentconf/config_file.hpp"

#include <coffer/atomic_file.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace coffer::agentconf {

namespace fs = std::filesystem;

namespace {

core::Error io_error(const std::string& what, const fs::path& p, const std::string& why) {
    return core::Error::make(core::code::internal, what + " " + p.string() + ": " + why);
}

// The file's bytes, nullopt when it does not exist.
core::Result<std::optional<std::string>> slurp(const fs::path& p) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) return io_error("cannot read", p, ec.message());
    if (!fs::exists(st)) return std::optional<std::string>{};
    if (!fs::is_regular_file(st)) return io_error("cannot edit", p, "not a regular file");
    std::ifstream in(p, std::ios::binary);
    if (!in) return io_error("cannot read", p, std::strerror(errno));
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) return io_error("cannot read", p, "read error");
    return std::optional<std::string>{buf.str()};
}

}  // namespace

fs::path backup_path(const fs::path& path) {
    auto b = path;
    b += ".bak";
    return b;
}

core::Result<Snapshot> read_config(const fs::path& path) {
    Snapshot snap;
    snap.path = path;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec))) {
        auto target = fs::weakly_canonical(path, ec);
        if (ec) return io_error("cannot resolve the link", path, ec.message());
        snap.path = target;
    }
    auto text = slurp(snap.path);
    if (!text) return std::move(text).error();
    if (*text) {
        snap.exists = true;
        snap.text = std::move(**text);
        struct stat st {};
        if (::stat(snap.path.c_str(), &st) == 0) snap.mode = st.st_mode & 07777;
    }
    return snap;
}

core::Result<void> replace_config(const Snapshot& before, std::string_view next,
                                  const std::function<void()>& before_commit) {
    const auto& path = before.path;
    std::error_code ec;
    auto dir = path.parent_path();
    if (!dir.empty() && !fs::exists(dir, ec)) {
        fs::create_directories(dir, ec);
        if (ec) return io_error("cannot create the folder", dir, ec.message());
        fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
    }
    if (before_commit) before_commit();
    // The file must still hold what the edit was computed from; what is left of the window is
    // the .bak's write and the rename.
    auto now = slurp(path);
    if (!now) return std::move(now).error();
    if (now->has_value() != before.exists || (before.exists && **now != before.text))
        return core::Error::make(core::code::conflict,
                                 path.string() + " changed while Coffer was editing it (the agent may have written it): nothing "
                                 "was written; run the command again");
    if (before.exists) {
        if (auto err = coffer::write_file_atomic(backup_path(path), before.text, before.mode); !err.empty())
            return core::Error::make(core::code::internal, "cannot keep a backup: " + err);
    }
    if (auto err = coffer::write_file_atomic(path, next, before.mode); !err.empty())
        return core::Error::make(core::code::internal, err);
    return {};
}

}  // namespace coffer::agentconf
