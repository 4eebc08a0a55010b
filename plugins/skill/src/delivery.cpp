#include "delivery.hpp"

#include "fsx.hpp"
#include "limits.hpp"
#include "tree.hpp"

#include <coffer/process.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>

namespace coffer::plugins::skill {

namespace {

// Every folder that holds a file of `files` (and their parents), deepest first.
std::vector<std::string> folders_of(const FileMap& files) {
    std::set<std::string> dirs;
    for (auto& [rel, f] : files)
        for (auto p = parent_of(rel); !p.empty(); p = parent_of(p)) dirs.insert(p);
    std::vector<std::string> out(dirs.begin(), dirs.end());
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) {
        return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
    });
    return out;
}

// Opens (and caches) the folder `rel` below `root`, creating it without following links.
class Folders {
public:
    Folders(int root, bool create) : root_(root), create_(create) {}
    int get(const std::string& rel, const fs::path& shown) {
        if (rel.empty()) return root_;
        auto it = cache_.find(rel);
        if (it != cache_.end()) return it->second.get();
        auto fd = fsx::open_dir_at(root_, rel, create_);
        if (!fd) {
            if (!create_) return -1;
            throw fsx::sys_error("cannot create the folder (a file or link is in the way?)", shown / rel, errno);
        }
        return cache_.emplace(rel, std::move(fd)).first->second.get();
    }

private:
    int root_;
    bool create_;
    std::map<std::string, fsx::Fd> cache_;
};

// Removes folder `rel` if it is empty (fails harmlessly when not), opening its parent without
// following links.
void remove_empty(Folders& folders, const std::string& rel, const fs::path& shown) {
    int fd = folders.get(parent_of(rel), shown);
    if (fd >= 0) ::unlinkat(fd, base_of(rel).c_str(), AT_REMOVEDIR);
}

FileRecord copy_one(const fs::path& library_root, const std::string& rel, const FileRecord& want, int dirfd, bool atomic) {
    auto c = fsx::copy_file(library_root / rel, dirfd, base_of(rel), want.exec, atomic, kMaxFileBytes);
    return FileRecord{c.sha256, c.stat.size, want.exec, c.stat};
}

// A re-delivery cut short (the daemon killed between writing a file's temporary and renaming it
// over the file, fsx::copy_file) leaves ".<file>.coffer-tmp-<12 hex>" beside the file. Only this
// plugin makes such names, only in folders it delivered, one delivery at a time: they are removed
// from the delivered folder and its subfolders `dirs` before it is brought up to date.
bool abandoned_temporary(const std::string& name) {
    auto at = name.rfind(".coffer-tmp-");
    if (name.empty() || name[0] != '.' || at == std::string::npos || at < 2) return false;
    auto tail = name.substr(at + 12);
    return tail.size() == 12 && tail.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::size_t remove_abandoned_temporaries(Folders& folders, const std::vector<std::string>& dirs, const fs::path& shown) {
    std::size_t removed = 0;
    std::set<std::string> seen;
    for (auto& d : dirs) {
        if (!seen.insert(d).second) continue;
        int fd = folders.get(d, shown);
        if (fd < 0) continue;
        for (auto& e : fsx::list_dir(fd)) {
            struct stat st {};
            if (!abandoned_temporary(e.name) || ::fstatat(fd, e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
                !S_ISREG(st.st_mode))
                continue;
            if (::unlinkat(fd, e.name.c_str(), 0) == 0) ++removed;
        }
    }
    return removed;
}

}  // namespace

DeliverResult deliver(const fs::path& library_root, const FileMap& library, const std::string& library_hash,
                      const fs::path& dest, const Delivery* previous,
                      const std::function<void(const Delivery&)>& before_publish) {
    DeliverResult out;
    auto parent = dest.parent_path();
    auto name = dest.filename().string();
    // The agent's skills folder (links on the way to it are the user's choice), made if missing.
    fsx::Fd pfd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!pfd && errno == ENOENT) {
        std::error_code ec;
        fs::create_directories(parent, ec);
        pfd = fsx::Fd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    }
    if (!pfd) throw fsx::sys_error("cannot open the agent's skills folder", parent, errno);

    struct stat st {};
    bool exists = ::fstatat(pfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    bool ours = previous && previous->path == dest.string();
    if (exists && (!S_ISDIR(st.st_mode) || !ours)) {
        out.conflict = true;
        out.conflict_reason = S_ISLNK(st.st_mode) ? "a link Coffer did not create is at " + dest.string()
                              : !S_ISDIR(st.st_mode) ? "a file Coffer did not create is at " + dest.string()
                                                     : "a folder Coffer did not deliver is at " + dest.string() +
                                                           " (your own skill of the same name?); Coffer leaves it alone";
        return out;
    }
    out.delivery.path = dest.string();
    out.delivery.library_hash = library_hash;
    out.delivery.delivered_at = fsx::now_iso();

    if (!exists) {
        // Fresh: build the folder under a hidden name, then rename it into place in one step, so
        // an agent never sees half a skill.
        std::string tmp = ".coffer-staging-" + name + "-" + std::to_string(::getpid()) + "-" + fsx::random_suffix();
        if (::mkdirat(pfd.get(), tmp.c_str(), 0755) != 0) throw fsx::sys_error("cannot create", parent / tmp, errno);
        try {
            fsx::Fd tfd = fsx::open_dir_at(pfd.get(), tmp, false);
            if (!tfd) throw fsx::sys_error("cannot open", parent / tmp, errno);
            Folders folders(tfd.get(), true);
            for (auto& [rel, want] : library) {
                out.delivery.files[rel] = copy_one(library_root, rel, want, folders.get(parent_of(rel), parent / tmp), false);
                ++out.written;
            }
            if (before_publish) before_publish(out.delivery);
            if (::renameat2(pfd.get(), tmp.c_str(), pfd.get(), name.c_str(), RENAME_NOREPLACE) != 0) {
                int err = errno;
                fsx::remove_tree(parent / tmp);
                if (err == EEXIST || err == ENOTEMPTY) {
                    out = DeliverResult{};
                    out.conflict = true;
                    out.conflict_reason = "something appeared at " + dest.string() + " while Coffer was delivering; left alone";
                    return out;
                }
                throw fsx::sys_error("cannot move the delivered skill to", dest, err);
            }
        } catch (...) {
            try {
                fsx::remove_tree(parent / tmp);
            } catch (...) {
            }
            throw;
        }
        return out;
    }

    // Ours already: bring it up to date file by file (each write is a rename over the old file).
    fsx::Fd dfd = fsx::open_dir_at(pfd.get(), name, false);
    if (!dfd) throw fsx::sys_error("cannot open", dest, errno);
    {
        Folders existing(dfd.get(), false);
        auto dirs = folders_of(previous->files);
        dirs.push_back("");
        remove_abandoned_temporaries(existing, dirs, dest);
    }
    Folders folders(dfd.get(), true);
    for (auto& [rel, want] : library) {
        if (auto it = previous->files.find(rel); it != previous->files.end() && it->second.sha256 == want.sha256 &&
                                                 it->second.exec == want.exec) {
            fsx::Stat now;
            bool regular = false;
            if (fsx::stat_at(dfd.get(), rel, now, &regular) && regular && now.same_content_signature(it->second.stat)) {
                out.delivery.files[rel] = it->second;  // untouched since Coffer wrote it
                continue;
            }
        }
        out.delivery.files[rel] = copy_one(library_root, rel, want, folders.get(parent_of(rel), dest), true);
        ++out.written;
    }
    // Files Coffer delivered before that the library no longer has.
    Folders existing_files(dfd.get(), false);
    for (auto& [rel, f] : previous->files) {
        if (library.contains(rel)) continue;
        int fd = existing_files.get(parent_of(rel), dest);
        struct stat fst {};
        if (fd >= 0 && ::fstatat(fd, base_of(rel).c_str(), &fst, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(fst.st_mode) &&
            ::unlinkat(fd, base_of(rel).c_str(), 0) == 0)
            ++out.removed;
    }
    Folders existing(dfd.get(), false);
    for (auto& d : folders_of(previous->files))
        if (!std::any_of(library.begin(), library.end(), [&](auto& kv) { return kv.first.rfind(d + "/", 0) == 0; }))
            remove_empty(existing, d, dest);
    return out;
}

RemoveResult undeliver(const Delivery& delivery) {
    RemoveResult out;
    fs::path dest(delivery.path);
    auto parent = dest.parent_path();
    auto name = dest.filename().string();
    fsx::Fd pfd(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!pfd) {
        out.folder_removed = true;  // the whole agent folder is gone
        return out;
    }
    struct stat st {};
    if (::fstatat(pfd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        out.folder_removed = true;
        return out;
    }
    if (!S_ISDIR(st.st_mode)) {
        out.left_alone = true;
        return out;
    }
    fsx::Fd dfd = fsx::open_dir_at(pfd.get(), name, false);
    if (!dfd) {
        out.left_alone = true;
        return out;
    }
    Folders folders(dfd.get(), false);
    for (auto& [rel, f] : delivery.files) {
        int fd = folders.get(parent_of(rel), dest);
        if (fd < 0) continue;
        struct stat fst {};
        if (::fstatat(fd, base_of(rel).c_str(), &fst, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(fst.st_mode)) continue;
        if (::unlinkat(fd, base_of(rel).c_str(), 0) == 0) ++out.removed;
    }
    auto dirs = folders_of(delivery.files);
    dirs.push_back("");
    remove_abandoned_temporaries(folders, dirs, dest);
    for (auto& d : folders_of(delivery.files)) remove_empty(folders, d, dest);
    dfd = fsx::Fd();
    out.folder_removed = ::unlinkat(pfd.get(), name.c_str(), AT_REMOVEDIR) == 0;
    return out;
}

std::vector<std::string> remove_abandoned_staging(const fs::path& agent_root) {
    std::vector<std::string> out;
    fsx::Fd root = fsx::open_dir(agent_root);
    if (!root) return out;
    const std::string prefix = ".coffer-staging-";
    for (auto& e : fsx::list_dir(root.get())) {
        if (e.type != DT_DIR || e.name.rfind(prefix, 0) != 0) continue;
        // .coffer-staging-<name>-<pid>-<random>: the pid is the second-to-last field.
        auto last = e.name.rfind('-');
        auto before = last == std::string::npos ? std::string::npos : e.name.rfind('-', last - 1);
        if (before == std::string::npos || before < prefix.size()) continue;
        long pid = std::strtol(e.name.substr(before + 1, last - before - 1).c_str(), nullptr, 10);
        if (pid <= 0) continue;
        if (coffer::process_alive(pid)) continue;  // its owner still works on it
        try {
            fsx::remove_tree(agent_root / e.name);
            out.push_back((agent_root / e.name).string());
        } catch (...) {
        }
    }
    return out;
}

}  // namespace coffer::plugins::skill
