#include "backup/backup.hpp"

#include "backup/errors.hpp"
#include "backup/files.hpp"
#include "backup/layout.hpp"
#include "backup/snapshot.hpp"
#include "backup/manifest_io.hpp"
#include "core/clock.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace coffer::backup {

namespace fs = std::filesystem;
namespace json = boost::json;

json::object BackupReport::to_json() const {
    json::array skip;
    for (auto& s : skipped) skip.emplace_back(s);
    return json::object{{"destination", destination.string()},
                        {"manifest", (destination / kManifest).string()},
                        {"created_at", created_at},
                        {"coffer_version", coffer_version},
                        {"schema_version", schema_version},
                        {"files", files},
                        {"directories", directories},
                        {"symlinks", symlinks},
                        {"bytes", bytes},
                        {"master_key", master_key},
                        {"master_key_in_vault", master_key_in_vault},
                        {"skipped", std::move(skip)},
                        {"duration_ms", duration_ms}};
}

namespace {

// True when `inner` is `outer` or lies below it (both made canonical as far as they exist).
bool within(const fs::path& inner, const fs::path& outer) {
    std::error_code ec;
    auto i = fs::weakly_canonical(inner, ec);
    if (ec) i = inner.lexically_normal();
    auto o = fs::weakly_canonical(outer, ec);
    if (ec) o = outer.lexically_normal();
    auto [oi, ii] = std::mismatch(o.begin(), o.end(), i.begin(), i.end());
    // A trailing empty component ("…/vault/") counts as the end.
    return oi == o.end() || (std::next(oi) == o.end() && oi->empty());
}

bool folder_is_empty(const fs::path& dir, std::error_code& ec) {
    return fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

// In the backup only the owner can read: files 0600 (0700 when the owner could run them).
unsigned backup_file_mode(unsigned mode) { return (mode & 0100u) ? 0700u : 0600u; }

std::vector<std::string> sorted_names(const fs::path& dir, std::error_code& ec) {
    std::vector<std::string> names;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

core::Result<void> check_destination(const fs::path& vault, const fs::path& destination) {
    if (destination.empty() || !destination.is_absolute())
        return error(core::code::bad_request, reason::destination_invalid,
                     "the backup destination must be an absolute path, not \"" + destination.string() + "\"");
    auto dest = destination.lexically_normal();
    if (within(dest, vault) || within(vault, dest))
        return error(core::code::bad_request, reason::destination_invalid,
                     "the backup destination " + dest.string() + " must lie outside the vault " + vault.string(),
                     json::object{{"destination", dest.string()}});
    std::error_code ec;
    auto st = fs::symlink_status(dest, ec);
    if (fs::exists(st)) {
        if (!fs::is_directory(fs::status(dest, ec)))
            return error(core::code::conflict, reason::destination_not_empty,
                         "the backup destination " + dest.string() + " exists and is not a folder",
                         json::object{{"destination", dest.string()}});
        bool empty = folder_is_empty(dest, ec);
        if (ec)
            return error(core::code::bad_request, reason::destination_invalid,
                         "cannot read the backup destination " + dest.string() + ": " + ec.message());
        if (!empty)
            return error(core::code::conflict, reason::destination_not_empty,
                         "the backup destination " + dest.string() +
                             " is not empty; choose a new folder (it is created) or an empty one",
                         json::object{{"destination", dest.string()}});
        return {};
    }
    auto parent = dest.parent_path();
    if (!fs::is_directory(parent, ec))
        return error(core::code::bad_request, reason::destination_invalid,
                     "the folder " + parent.string() + " that would hold the backup does not exist",
                     json::object{{"destination", dest.string()}});
    return {};
}

struct BackupJob::State {
    fs::path dest;
    bool created_dest = false;
    bool finished = false;
    std::unique_ptr<DatabaseSnapshot> snapshot;
    Manifest manifest;
    std::vector<fs::path> written;  // files and folders to flush in finish()
    BackupReport report;
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

    core::Result<void> copy_tree(const fs::path& vault, const std::string& rel);
    core::Result<void> copy_file_entry(const fs::path& vault, const std::string& rel, unsigned mode);
    void cleanup();
};

void BackupJob::State::cleanup() {
    snapshot.reset();
    if (created_dest) return remove_quietly(dest);
    std::error_code ec;
    for (auto& name : sorted_names(dest, ec)) remove_quietly(dest / name);
}

core::Result<void> BackupJob::State::copy_file_entry(const fs::path& vault, const std::string& rel, unsigned mode) {
    auto copied = copy_file(vault / rel, dest / rel, backup_file_mode(mode), false);
    if (!copied) return copied.error();
    manifest.entries.push_back(Entry{rel, Entry::Type::file, mode & 0777u, copied->size, copied->sha256, {}});
    written.push_back(dest / rel);
    ++report.files;
    report.bytes += copied->size;
    return {};
}

// One vault entry (and below it): folders, regular files and symlinks; nothing is followed.
core::Result<void> BackupJob::State::copy_tree(const fs::path& vault, const std::string& rel) {
    struct stat st {};
    if (::lstat((vault / rel).c_str(), &st) != 0) {
        if (errno == ENOENT) return {};  // gone since it was listed (a plugin tidied up)
        return io_error("cannot stat", (vault / rel).string(), errno);
    }
    unsigned mode = st.st_mode & 0777u;
    if (S_ISREG(st.st_mode)) return copy_file_entry(vault, rel, mode);
    if (S_ISLNK(st.st_mode)) {
        std::error_code ec;
        auto target = fs::read_symlink(vault / rel, ec);
        if (ec) return io_error("cannot read the link", (vault / rel).string(), ec.value());
        if (::symlink(target.c_str(), (dest / rel).c_str()) != 0)
            return io_error("cannot create the link", (dest / rel).string(), errno);
        manifest.entries.push_back(Entry{rel, Entry::Type::symlink, mode, 0, {}, target.string()});
        ++report.symlinks;
        return {};
    }
    if (!S_ISDIR(st.st_mode)) {
        report.skipped.push_back(rel);  // sockets, fifos, devices: not vault content
        return {};
    }
    if (auto r = make_dir(dest / rel, 0700); !r) return r;
    manifest.entries.push_back(Entry{rel, Entry::Type::dir, mode, 0, {}, {}});
    written.push_back(dest / rel);
    ++report.directories;
    std::error_code ec;
    auto names = sorted_names(vault / rel, ec);
    if (ec) return io_error("cannot list", (vault / rel).string(), ec.value());
    for (auto& n : names)
        if (auto r = copy_tree(vault, rel + "/" + n); !r) return r;
    return {};
}

BackupJob::BackupJob(BackupRequest r, std::unique_ptr<State> s) : request_(std::move(r)), state_(std::move(s)) {}

BackupJob::~BackupJob() {
    if (state_ && !state_->finished) state_->cleanup();
}

core::Result<std::unique_ptr<BackupJob>> BackupJob::start(BackupRequest request) {
    if (auto r = check_destination(request.vault, request.destination); !r) return r.error();
    std::error_code ec;
    if (!fs::is_directory(request.vault, ec))
        return error(core::code::not_found, reason::not_a_vault, "there is no vault at " + request.vault.string(),
                     json::object{{"vault", request.vault.string()}});
    auto state = std::make_unique<State>();
    state->dest = request.destination.lexically_normal();
    if (state->dest.has_filename() == false) state->dest = state->dest.parent_path();
    // From here on the job owns the destination: a failure removes what it wrote.
    if (fs::exists(fs::symlink_status(state->dest, ec))) {
        if (::chmod(state->dest.c_str(), 0700) != 0) return io_error("cannot set the mode of", state->dest.string(), errno);
    } else {
        if (auto r = make_dir(state->dest, 0700); !r) return r.error();
        state->created_dest = true;
    }
    std::unique_ptr<BackupJob> job(new BackupJob(request, std::move(state)));
    auto& s = *job->state_;
    auto snap = DatabaseSnapshot::pin(request.vault / kDatabase);
    if (!snap) return snap.error();
    s.snapshot = std::move(snap).value();
    s.report.created_at = core::now_iso();

    auto names = sorted_names(request.vault, ec);
    if (ec) return io_error("cannot list", request.vault.string(), ec.value());
    for (auto& name : names) {
        if (is_runtime_entry(name) || name == kDatabase) continue;
        if (name == kManifest) {
            s.report.skipped.push_back(name);  // the manifest's own name: a vault file cannot take it
            continue;
        }
        if (name == kMasterKey) {
            auto st = lstat_path(request.vault / name);
            if (!st || !S_ISREG(st->st_mode)) continue;
            s.report.master_key_in_vault = true;
            if (!request.include_master_key) continue;
            if (auto r = s.copy_file_entry(request.vault, name, st->st_mode & 0777u); !r) return r.error();
            s.report.master_key = true;
            continue;
        }
        if (auto r = s.copy_tree(request.vault, name); !r) return r.error();
    }
    return job;
}

core::Result<BackupReport> BackupJob::finish(const std::function<bool()>& cancelled) {
    auto& s = *state_;
    if (s.finished || !s.snapshot)
        return error(core::code::internal, reason::io, "this backup job has already finished");
    const auto& req = request_;
    auto db_out = s.dest / kDatabase;
    s.manifest.schema_version = s.snapshot->schema_version();
    if (auto r = s.snapshot->copy_to(db_out, cancelled); !r) return r.error();
    s.snapshot.reset();
    auto db_hash = hash_file(db_out);
    if (!db_hash) return db_hash.error();
    unsigned db_mode = 0600;
    if (auto st = lstat_path(req.vault / kDatabase)) db_mode = st->st_mode & 0777u;
    s.manifest.entries.push_back(Entry{std::string(kDatabase), Entry::Type::file, db_mode, db_hash->size,
                                       db_hash->sha256, {}});
    ++s.report.files;
    s.report.bytes += db_hash->size;

    for (auto& p : s.written)
        if (auto r = sync_path(p); !r) return r.error();

    s.manifest.coffer_version = req.coffer_version;
    s.manifest.created_at = s.report.created_at;
    s.manifest.source_vault = req.vault.string();
    s.manifest.master_key = s.report.master_key;
    std::sort(s.manifest.entries.begin(), s.manifest.entries.end(),
              [](const Entry& a, const Entry& b) { return a.path < b.path; });
    if (auto r = write_manifest(s.dest, s.manifest); !r) return r.error();
    if (auto r = sync_path(s.dest); !r) return r.error();
    if (s.created_dest) (void)sync_path(s.dest.parent_path());
    s.finished = true;

    s.report.destination = s.dest;
    s.report.coffer_version = req.coffer_version;
    s.report.schema_version = s.manifest.schema_version;
    s.report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - s.started)
                               .count();
    return s.report;
}

core::Result<BackupReport> backup_offline(BackupRequest request) {
    if (auto r = check_destination(request.vault, request.destination); !r) return r.error();
    std::error_code ec;
    if (!fs::is_regular_file(request.vault / kDatabase, ec))
        return error(core::code::not_found, reason::not_a_vault,
                     "there is no coffer vault at " + request.vault.string() + " (no coffer.db)",
                     json::object{{"vault", request.vault.string()}});
    auto lock = lock_vault(request.vault);
    if (!lock) return lock.error();
    auto job = BackupJob::start(std::move(request));
    if (!job) return job.error();
    return (*job)->finish();
}

}  // namespace coffer::backup
