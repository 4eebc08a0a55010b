#include "archive.hpp"

#include "fsx.hpp"
#include "limits.hpp"
#include "names.hpp"
#include "tree.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <set>

namespace coffer::plugins::skill {

namespace {

std::vector<std::string> split(std::string_view s) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= s.size()) {
        auto slash = s.find('/', pos);
        if (slash == std::string_view::npos) slash = s.size();
        out.emplace_back(s.substr(pos, slash - pos));
        pos = slash + 1;
    }
    return out;
}

std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (auto& p : parts) out += (out.empty() ? "" : "/") + p;
    return out;
}

// Resolves a link target written relative to the link's folder; nothing when it leaves the root.
std::optional<std::string> resolve_relative(const std::string& link_rel, std::string_view target) {
    auto parts = split(parent_of(link_rel));
    if (parts.size() == 1 && parts[0].empty()) parts.clear();
    for (auto& p : split(target)) {
        if (p.empty() || p == ".") continue;
        if (p == "..") {
            if (parts.empty()) return std::nullopt;
            parts.pop_back();
            continue;
        }
        parts.push_back(p);
    }
    return join(parts);
}

struct ArchiveDeleter {
    void operator()(struct archive* a) const {
        archive_read_close(a);
        archive_read_free(a);
    }
};

std::string shown_name(std::string_view raw) {
    std::string s;
    for (unsigned char c : raw.substr(0, 200)) s += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
    return "'" + s + "'";
}

}  // namespace

bool looks_like_archive(const fs::path& path) {
    std::string n = path.filename().string();
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    auto ends = [&](std::string_view suf) { return n.size() > suf.size() && n.compare(n.size() - suf.size(), suf.size(), suf) == 0; };
    return ends(".zip") || ends(".tar.gz") || ends(".tgz") || ends(".tar");
}

std::optional<std::string> normalize_entry_name(std::string_view raw, std::string& problem) {
    if (raw.empty()) {
        problem = "an entry has an empty name";
        return std::nullopt;
    }
    if (!coffer::utf8::valid(raw)) {
        problem = "entry " + shown_name(raw) + " has a name that is not valid UTF-8";
        return std::nullopt;
    }
    if (raw[0] == '/') {
        problem = "entry " + shown_name(raw) + " has an absolute path";
        return std::nullopt;
    }
    if (raw.find('\\') != std::string_view::npos) {
        problem = "entry " + shown_name(raw) + " contains a backslash; archive paths must use '/'";
        return std::nullopt;
    }
    std::vector<std::string> parts;
    for (auto& p : split(raw)) {
        if (p.empty() || p == ".") continue;
        if (p == "..") {
            problem = "entry " + shown_name(raw) + " contains a '..' component (it would land outside the skill folder)";
            return std::nullopt;
        }
        if (auto why = component_problem(p); !why.empty()) {
            problem = "entry " + shown_name(raw) + ": a name " + why;
            return std::nullopt;
        }
        parts.push_back(p);
    }
    auto rel = join(parts);
    // Checked on the normalised name, so "./C:/x" is refused like "C:/x" (and normalising a
    // normalised name never refuses it).
    if (rel.size() >= 2 && std::isalpha(static_cast<unsigned char>(rel[0])) && rel[1] == ':') {
        problem = "entry " + shown_name(raw) + " has an absolute (drive letter) path";
        return std::nullopt;
    }
    if (rel.size() > kMaxPathBytes) {
        problem = "entry " + shown_name(raw) + " has a path longer than " + std::to_string(kMaxPathBytes) + " bytes";
        return std::nullopt;
    }
    if (parts.size() > kMaxDepth) {
        problem = "entry " + shown_name(raw) + " is nested deeper than " + std::to_string(kMaxDepth) + " folders";
        return std::nullopt;
    }
    return rel;
}

void extract_archive(const fs::path& path, const fs::path& dest, std::vector<std::string>& problems) {
    std::unique_ptr<struct archive, ArchiveDeleter> a(archive_read_new());
    // Only decompressors built into libarchive: filter_all would also allow ones that run an
    // external program (lrzip, lzop …) on untrusted input.
    archive_read_support_filter_none(a.get());
    archive_read_support_filter_gzip(a.get());
    archive_read_support_filter_bzip2(a.get());
    archive_read_support_filter_xz(a.get());
    archive_read_support_format_tar(a.get());
    archive_read_support_format_gnutar(a.get());
    archive_read_support_format_zip(a.get());
    if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
        const char* why = archive_error_string(a.get());
        problems.push_back("cannot open " + path.filename().string() + " as a .zip or .tar.gz archive: " +
                           (why ? why : "unknown format"));
        return;
    }
    fsx::Fd root = fsx::open_dir(dest);
    if (!root) {
        problems.push_back("cannot open the staging folder " + dest.string() + ": " + std::strerror(errno));
        return;
    }

    struct Link {
        std::string rel, target;
        bool hard;
    };
    std::vector<Link> links;
    std::set<std::string> files, dirs;
    std::size_t entries = 0;
    std::uint64_t total = 0;
    std::vector<char> buf(1 << 16);
    bool fatal = false;

    struct archive_entry* entry = nullptr;
    for (;;) {
        int r = archive_read_next_header(a.get(), &entry);
        if (r == ARCHIVE_EOF) break;
        if (r < ARCHIVE_WARN) {
            const char* why = archive_error_string(a.get());
            problems.push_back("the archive is damaged or unsupported: " + std::string(why ? why : "read error"));
            break;
        }
        if (++entries > kMaxArchiveEntries) {
            problems.push_back("the archive has more than " + std::to_string(kMaxArchiveEntries) + " entries");
            break;
        }
        const char* raw = archive_entry_pathname_utf8(entry);
        if (!raw) raw = archive_entry_pathname(entry);
        std::string problem;
        auto rel = normalize_entry_name(raw ? raw : "", problem);
        if (!rel) {
            problems.push_back(problem);
            continue;
        }
        if (rel->empty()) continue;  // "./"
        bool junk = false;
        for (auto& p : split(*rel)) junk = junk || is_junk(p);
        if (junk) continue;

        if (const char* hard = archive_entry_hardlink(entry)) {
            std::string hp;
            auto target = normalize_entry_name(hard, hp);
            if (!target) {
                problems.push_back("hard link " + shown_name(*rel) + " is refused: its target is unsafe (" + hp + ")");
                continue;
            }
            links.push_back({*rel, *target, true});
            continue;
        }
        auto type = archive_entry_filetype(entry);
        if (type == AE_IFLNK) {
            const char* t = archive_entry_symlink(entry);
            std::string_view target = t ? t : "";
            if (target.empty()) {
                problems.push_back("link " + shown_name(*rel) + " has no target");
            } else if (target[0] == '/') {
                problems.push_back("link " + shown_name(*rel) + " points to an absolute path (" + std::string(target) +
                                   "); links must stay inside the skill folder");
            } else if (auto resolved = resolve_relative(*rel, target); !resolved || resolved->empty()) {
                problems.push_back("link " + shown_name(*rel) + " points outside the skill folder (" + std::string(target) + ")");
            } else {
                links.push_back({*rel, *resolved, false});
            }
            continue;
        }
        if (type == AE_IFDIR) {
            if (files.contains(*rel)) {
                problems.push_back("entry " + shown_name(*rel) + " appears twice (as a file and as a folder)");
                continue;
            }
            auto d = fsx::open_dir_at(root.get(), *rel, true);
            if (!d) problems.push_back("cannot create folder " + shown_name(*rel) + ": " + std::strerror(errno));
            else dirs.insert(*rel);
            continue;
        }
        if (type != AE_IFREG) {
            problems.push_back("entry " + shown_name(*rel) + " is a special file (device, FIFO or socket); only files, folders and links are allowed");
            continue;
        }
        if (files.contains(*rel) || dirs.contains(*rel)) {
            problems.push_back("entry " + shown_name(*rel) + " appears twice in the archive");
            continue;
        }
        if (files.size() >= kMaxFiles) {
            problems.push_back("the archive holds more than " + std::to_string(kMaxFiles) + " files");
            break;
        }
        if (!problems.empty()) {
            // Already refused: keep reading headers to report every problem, write nothing more.
            files.insert(*rel);
            continue;
        }
        auto parent = fsx::open_dir_at(root.get(), parent_of(*rel), true);
        if (!parent) {
            problems.push_back("cannot create the folder of " + shown_name(*rel) + " (a file is in the way?)");
            continue;
        }
        bool exec = (archive_entry_perm(entry) & 0100) != 0;
        mode_t mode = exec ? 0755 : 0644;
        auto name = base_of(*rel);
        fsx::Fd out(::openat(parent.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
        if (!out) {
            problems.push_back("cannot create " + shown_name(*rel) + ": " + std::strerror(errno));
            continue;
        }
        std::uint64_t size = 0;
        for (;;) {
            auto n = archive_read_data(a.get(), buf.data(), buf.size());
            if (n == 0) break;
            if (n < 0) {
                const char* why = archive_error_string(a.get());
                problems.push_back("cannot read " + shown_name(*rel) + " from the archive: " + (why ? why : "read error"));
                fatal = true;
                break;
            }
            size += static_cast<std::uint64_t>(n);
            total += static_cast<std::uint64_t>(n);
            if (size > kMaxFileBytes) {
                problems.push_back("entry " + shown_name(*rel) + " is larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
                fatal = true;
                break;
            }
            if (total > kMaxTotalBytes) {
                problems.push_back("the archive unpacks to more than " + std::to_string(kMaxTotalBytes >> 20) + " MiB");
                fatal = true;
                break;
            }
            const char* p = buf.data();
            std::size_t left = static_cast<std::size_t>(n);
            while (left) {
                auto w = ::write(out.get(), p, left);
                if (w < 0 && errno == EINTR) continue;
                if (w < 0) {
                    problems.push_back("cannot write " + shown_name(*rel) + ": " + std::strerror(errno));
                    fatal = true;
                    break;
                }
                p += w;
                left -= static_cast<std::size_t>(w);
            }
            if (fatal) break;
        }
        ::fchmod(out.get(), mode);
        files.insert(*rel);
        if (fatal) break;
    }
    if (!problems.empty()) return;

    // Links: follow chains inside the archive to a regular file, then copy it.
    std::map<std::string, const Link*> by_rel;
    for (auto& l : links) {
        if (files.contains(l.rel) || dirs.contains(l.rel) || by_rel.contains(l.rel)) {
            problems.push_back("entry " + shown_name(l.rel) + " appears twice in the archive");
            continue;
        }
        by_rel[l.rel] = &l;
    }
    for (auto& l : links) {
        std::string t = l.target;
        int hops = 0;
        while (by_rel.contains(t) && hops++ < 16) t = by_rel[t]->target;
        std::string kind = l.hard ? "hard link " : "link ";
        if (dirs.contains(t)) {
            problems.push_back(kind + shown_name(l.rel) + " points to a folder (" + t + "); only links to files are supported");
            continue;
        }
        if (!files.contains(t)) {
            problems.push_back(kind + shown_name(l.rel) + " points to '" + t + "', which is not a file in the archive");
            continue;
        }
        auto parent = fsx::open_dir_at(root.get(), parent_of(l.rel), true);
        struct stat st {};
        bool exec = ::fstatat(root.get(), t.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IXUSR);
        try {
            if (!parent) throw std::runtime_error(std::strerror(errno));
            fsx::copy_file(dest / t, parent.get(), base_of(l.rel), exec, false, kMaxFileBytes);
            total += static_cast<std::uint64_t>(st.st_size);
            if (total > kMaxTotalBytes) {
                problems.push_back("the archive unpacks to more than " + std::to_string(kMaxTotalBytes >> 20) + " MiB");
                return;
            }
        } catch (const std::exception& e) {
            problems.push_back("cannot copy the target of " + kind + shown_name(l.rel) + ": " + e.what());
        }
    }
}

}  // namespace coffer::plugins::skill
