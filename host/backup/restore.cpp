#include "backup/restore.hpp"

#include "backup/errors.hpp"
#include "backup/files.hpp"
#include "backup/layout.hpp"
#include "backup/manifest_io.hpp"
#include "backup/snapshot.hpp"
#include "store/migrations.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>

namespace coffer::backup {

namespace fs = std::filesystem;
namespace json = boost::json;

json::object RestoreReport::to_json() const {
    return json::object{{"source", source.string()},
                        {"vault", vault.string()},
                        {"created_at", created_at},
                        {"coffer_version", coffer_version},
                        {"schema_version", schema_version},
                        {"files", files},
                        {"directories", directories},
                        {"symlinks", symlinks},
                        {"bytes", bytes},
                        {"master_key", master_key}};
}

namespace {

core::Error mismatch(std::string_view why, const std::string& path, std::string message) {
    return error(core::code::bad_request, why, std::move(message), json::object{{"path", path}});
}

// The manifest, checked against what this coffer can restore.
core::Result<Manifest> load_manifest(const fs::path& source) {
    std::error_code ec;
    if (!fs::is_directory(source, ec))
        return error(core::code::not_found, reason::manifest_missing,
                     source.string() + " is not a folder; give the folder `coffer backup` wrote",
                     json::object{{"path", source.string()}});
    auto m = read_manifest(source);
    if (!m) return m.error();
    int ours = store::current_schema_version();
    if (m->schema_version > ours)
        return error(core::code::unsupported, reason::schema_too_new,
                     "the backup's database schema version " + std::to_string(m->schema_version) +
                         " is newer than this coffer's (" + std::to_string(ours) + "); restore it with coffer " +
                         m->coffer_version + " or newer",
                     json::object{{"schema_version", m->schema_version}, {"supported", ours}});
    return m;
}

RestoreReport report_of(const Manifest& m, const fs::path& source) {
    RestoreReport r;
    r.source = source;
    r.created_at = m.created_at;
    r.coffer_version = m.coffer_version;
    r.schema_version = m.schema_version;
    r.master_key = m.master_key;
    for (auto& e : m.entries) {
        if (e.type == Entry::Type::file) ++r.files, r.bytes += e.size;
        if (e.type == Entry::Type::dir) ++r.directories;
        if (e.type == Entry::Type::symlink) ++r.symlinks;
    }
    return r;
}

// Every entry of the backup folder is listed with its type (and its link text); nothing listed is
// missing; every file has its size and SHA-256.
core::Result<void> check_files(const fs::path& source, const Manifest& m) {
    std::error_code ec;
    std::map<std::string, bool> seen;
    for (auto& e : m.entries) seen.emplace(e.path, false);
    for (auto it = fs::recursive_directory_iterator(source, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        auto rel = it->path().lexically_relative(source).generic_string();
        if (rel == kManifest) continue;
        const Entry* e = m.find(rel);
        auto st = lstat_path(it->path());
        if (!st) return st.error();
        Entry::Type type = S_ISDIR(st->st_mode)   ? Entry::Type::dir
                           : S_ISLNK(st->st_mode) ? Entry::Type::symlink
                                                  : Entry::Type::file;
        if (!e || e->type != type || !(S_ISDIR(st->st_mode) || S_ISLNK(st->st_mode) || S_ISREG(st->st_mode)))
            return mismatch(reason::unexpected_file, rel,
                            "the backup holds \"" + rel + "\", which its manifest does not list" +
                                (e ? " as a " + std::string(type_name(e->type)) : std::string()) +
                                "; the backup folder was changed after it was written");
        seen[rel] = true;
        if (type == Entry::Type::dir && S_ISDIR(st->st_mode)) continue;
        if (type == Entry::Type::symlink) {
            auto target = fs::read_symlink(it->path(), ec);
            if (ec || target.string() != e->target)
                return mismatch(reason::checksum_mismatch, rel,
                                "the link \"" + rel + "\" in the backup does not point where the manifest says");
            continue;
        }
        auto h = hash_file(it->path());
        if (!h) return h.error();
        if (h->size != e->size || h->sha256 != e->sha256)
            return mismatch(reason::checksum_mismatch, rel,
                            "\"" + rel + "\" in the backup does not match its manifest (" +
                                (h->size != e->size ? "size " + std::to_string(h->size) + " instead of " +
                                                          std::to_string(e->size)
                                                    : std::string("SHA-256 differs")) +
                                "): the backup is damaged or was altered; nothing was restored");
    }
    if (ec) return io_error("cannot read the backup folder", source.string(), ec.value());
    for (auto& [path, found] : seen)
        if (!found)
            return mismatch(reason::missing_file, path,
                            "\"" + path + "\" is listed in the backup's manifest but missing from the folder");
    return {};
}

// The vault as it will be named: the real folder when the path is a symlink to one, so the
// rename replaces the folder, not the link.
fs::path resolve_vault(const fs::path& vault) {
    std::error_code ec;
    auto abs = fs::absolute(vault, ec).lexically_normal();
    if (!abs.has_filename()) abs = abs.parent_path();
    if (fs::exists(fs::symlink_status(abs, ec))) {
        auto c = fs::canonical(abs, ec);
        if (!ec) return c;
    }
    return abs;
}

// What may be in a vault that counts as empty: daemon.lock and empty folders (left by a daemon
// that never stored anything, or by `mkdir`).
core::Result<std::vector<fs::path>> empty_vault_leftovers(const fs::path& vault) {
    std::error_code ec;
    std::vector<fs::path> leftovers;
    std::vector<std::string> content;
    for (auto it = fs::directory_iterator(vault, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        auto name = it->path().filename().string();
        bool dir = it->is_directory(ec) && !it->is_symlink(ec);
        std::error_code ec2;
        if (name == vault::kDaemonLock || (dir && fs::is_empty(it->path(), ec2) && !ec2))
            leftovers.push_back(it->path());
        else
            content.push_back(name);
    }
    if (ec) return io_error("cannot read the vault", vault.string(), ec.value());
    if (!content.empty()) {
        std::sort(content.begin(), content.end());
        json::array names;
        std::string shown;
        for (std::size_t i = 0; i < content.size(); ++i) {
            names.emplace_back(content[i]);
            if (i < 5) shown += (i ? ", " : "") + content[i];
        }
        if (content.size() > 5) shown += ", …";
        return error(core::code::conflict, reason::vault_not_empty,
                     "the vault " + vault.string() + " is not empty (" + shown +
                         "); restore only into a new or empty vault, e.g. with --home or COFFER_HOME pointing elsewhere",
                     json::object{{"vault", vault.string()}, {"entries", std::move(names)}});
    }
    return leftovers;
}

unsigned restored_mode(const Entry& e) {
    if (e.path == kDatabase || e.path == kMasterKey) return 0600;  // never more open than that
    return e.mode & 0777u;
}

class Staging {
public:
    ~Staging() {
        if (!committed_) remove_quietly(path_);
    }
    core::Result<void> create(const fs::path& parent) {
        std::string tmpl = (parent / ".coffer-restore-XXXXXX").string();
        if (!::mkdtemp(tmpl.data())) return io_error("cannot create a staging folder in", parent.string(), errno);
        path_ = tmpl;
        return {};
    }
    const fs::path& path() const { return path_; }
    void commit() { committed_ = true; }

private:
    fs::path path_;
    bool committed_ = false;
};

core::Result<void> stage(const fs::path& source, const Manifest& m, const fs::path& dir) {
    for (auto& e : m.entries) {
        auto to = dir / e.path;
        switch (e.type) {
            case Entry::Type::dir:
                if (auto r = make_dir(to, 0700); !r) return r;
                break;
            case Entry::Type::symlink:
                if (::symlink(e.target.c_str(), to.c_str()) != 0) return io_error("cannot create the link", to.string(), errno);
                break;
            case Entry::Type::file: {
                auto c = copy_file(source / e.path, to, restored_mode(e), true);
                if (!c) return c.error();
                if (c->size != e.size || c->sha256 != e.sha256)
                    return mismatch(reason::checksum_mismatch, e.path,
                                    "\"" + e.path + "\" changed in the backup while it was being restored; nothing was restored");
                break;
            }
        }
    }
    // Folder modes last (deepest first), so a read-only folder was writable while it was filled.
    for (auto it = m.entries.rbegin(); it != m.entries.rend(); ++it) {
        if (it->type != Entry::Type::dir) continue;
        if (auto r = sync_path(dir / it->path); !r) return r;
        if (::chmod((dir / it->path).c_str(), restored_mode(*it)) != 0)
            return io_error("cannot set the mode of", (dir / it->path).string(), errno);
    }
    auto db = check_database(dir / kDatabase);
    if (!db.ok)
        return error(core::code::bad_request, reason::database,
                     "the backup's coffer.db is not a sound database: " + db.problem + "; nothing was restored");
    if (db.schema_version != m.schema_version)
        return error(core::code::bad_request, reason::manifest_invalid,
                     "the backup's coffer.db has schema version " + std::to_string(db.schema_version) +
                         " but its manifest says " + std::to_string(m.schema_version) + "; nothing was restored");
    if (db.schema_version > store::current_schema_version())
        return error(core::code::unsupported, reason::schema_too_new,
                     "the backup's database schema version " + std::to_string(db.schema_version) +
                         " is newer than this coffer's (" + std::to_string(store::current_schema_version()) + ")");
    return sync_path(dir);
}

}  // namespace

core::Result<RestoreReport> verify_backup(const fs::path& source) {
    auto m = load_manifest(source);
    if (!m) return m.error();
    if (auto r = check_files(source, *m); !r) return r.error();
    return report_of(*m, source);
}

core::Result<RestoreReport> restore(const RestoreRequest& request) {
    std::error_code ec;
    auto source = fs::absolute(request.source, ec).lexically_normal();
    auto m = load_manifest(source);
    if (!m) return m.error();

    // The target: no daemon, nothing in it. The lock is held to the end so none starts meanwhile.
    auto vault = resolve_vault(request.vault);
    auto src_canon = fs::weakly_canonical(source, ec);
    auto [a, b] = std::mismatch(src_canon.begin(), src_canon.end(), vault.begin(), vault.end());
    if (a == src_canon.end())
        return error(core::code::bad_request, reason::destination_invalid,
                     "the vault " + vault.string() + " must not lie inside the backup folder " + source.string());
    std::optional<vault::FileLock> old_lock;
    std::vector<fs::path> leftovers;
    bool vault_exists = fs::exists(fs::symlink_status(vault, ec));
    if (vault_exists) {
        if (!fs::is_directory(fs::symlink_status(vault, ec)))
            return error(core::code::conflict, reason::vault_not_empty,
                         vault.string() + " exists and is not a folder; restore into a new or empty vault");
        auto lock = lock_vault(vault, vault::FileLock::Missing::unheld);  // a refused vault stays untouched
        if (!lock) return lock.error();
        old_lock = std::move(lock).value();
        auto left = empty_vault_leftovers(vault);
        if (!left) return left.error();
        leftovers = std::move(left).value();
    }

    if (auto r = check_files(source, *m); !r) return r.error();

    auto parent = vault.parent_path();
    fs::create_directories(parent, ec);
    if (ec) return io_error("cannot create the folder", parent.string(), ec.value());
    Staging staging;
    if (auto r = staging.create(parent); !r) return r.error();
    if (auto r = stage(source, *m, staging.path()); !r) return r.error();
    // The staged vault carries its own daemon.lock, taken before it becomes the vault.
    auto new_lock = lock_vault(staging.path());
    if (!new_lock) return new_lock.error();

    for (auto& p : leftovers) {
        if (::rmdir(p.c_str()) != 0 && ::unlink(p.c_str()) != 0 && errno != ENOENT)
            return error(core::code::conflict, reason::vault_not_empty,
                         "the vault " + vault.string() + " changed during the restore; nothing was restored");
    }
    // One rename: the new tree appears whole (over an empty folder, which it replaces) or not at all.
    if (::rename(staging.path().c_str(), vault.c_str()) != 0) {
        int e = errno;
        if (e == ENOTEMPTY || e == EEXIST)
            return error(core::code::conflict, reason::vault_not_empty,
                         "the vault " + vault.string() + " gained content during the restore; nothing was restored");
        return io_error("cannot move the restored vault into place at", vault.string(), e);
    }
    staging.commit();
    (void)sync_path(parent);
    auto report = report_of(*m, source);
    report.vault = vault;
    return report;
}

}  // namespace coffer::backup
