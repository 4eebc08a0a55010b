#include "tree.hpp"

#include "fsx.hpp"
#include "limits.hpp"
#include "names.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

namespace coffer::plugins::skill {

const FileEntry* Tree::find(std::string_view rel) const {
    auto it = std::lower_bound(files.begin(), files.end(), rel, [](const FileEntry& e, std::string_view r) { return e.rel < r; });
    return (it != files.end() && it->rel == rel) ? &*it : nullptr;
}

bool is_junk(std::string_view name) {
    return name == ".git" || name == "__MACOSX" || name == ".DS_Store" || name == ".hg" || name == ".svn" ||
           name.rfind("._", 0) == 0;
}

std::string component_problem(std::string_view name) {
    if (!coffer::utf8::valid(name)) return "is not valid UTF-8";
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f) return "contains a control character";
    return {};
}

namespace {

bool within(const fs::path& inner, const fs::path& outer) {
    auto i = inner.begin(), o = outer.begin();
    for (; o != outer.end(); ++o, ++i)
        if (i == inner.end() || *i != *o) return false;
    return true;
}

}  // namespace

Tree scan_folder(const fs::path& root_in, std::vector<std::string>& problems) {
    Tree tree;
    std::error_code ec;
    fs::path root = fs::canonical(root_in, ec);
    if (ec) {
        problems.push_back("cannot read " + root_in.string() + ": " + ec.message());
        return tree;
    }
    fsx::Fd rootfd = fsx::open_dir(root);
    if (!rootfd) {
        problems.push_back("cannot open " + root.string() + ": " + std::strerror(errno));
        return tree;
    }
    bool stop = false;
    std::function<void(int, const std::string&, std::size_t)> walk = [&](int dirfd, const std::string& prefix,
                                                                         std::size_t depth) {
        if (stop) return;
        if (depth > kMaxDepth) {
            problems.push_back("'" + prefix + "' is nested deeper than " + std::to_string(kMaxDepth) + " folders");
            stop = true;
            return;
        }
        auto entries = fsx::list_dir(dirfd);
        std::sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.name < b.name; });
        for (auto& e : entries) {
            if (stop) return;
            const std::string& name = e.name;
            std::string rel = prefix.empty() ? name : prefix + "/" + name;
            if (is_junk(name)) {
                tree.skipped.push_back(rel);
                continue;
            }
            if (auto p = component_problem(name); !p.empty()) {
                problems.push_back("the name of '" + rel + "' " + p);
                continue;
            }
            if (rel.size() > kMaxPathBytes) {
                problems.push_back("the path '" + rel.substr(0, 80) + "…' is longer than " + std::to_string(kMaxPathBytes) + " bytes");
                continue;
            }
            struct stat st {};
            if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
                problems.push_back("cannot read '" + rel + "': " + std::strerror(errno));
                continue;
            }
            fs::path content = root / rel;
            if (S_ISLNK(st.st_mode)) {
                auto target = fs::read_symlink(content, ec);
                if (ec) {
                    problems.push_back("cannot read the link '" + rel + "': " + ec.message());
                    continue;
                }
                if (target.is_absolute()) {
                    problems.push_back("'" + rel + "' is a link to an absolute path (" + target.string() +
                                       "); links must stay inside the skill folder");
                    continue;
                }
                auto lexical = (fs::path(prefix) / target).lexically_normal();
                if (!lexical.empty() && *lexical.begin() == "..") {
                    problems.push_back("'" + rel + "' is a link that points outside the skill folder (" + target.string() + ")");
                    continue;
                }
                auto real = fs::canonical(content, ec);
                if (ec) {
                    problems.push_back("'" + rel + "' is a link to something that does not exist (" + target.string() + ")");
                    continue;
                }
                if (!within(real, root)) {
                    problems.push_back("'" + rel + "' is a link that leads outside the skill folder (" + real.string() + ")");
                    continue;
                }
                if (::stat(real.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) {
                    problems.push_back("'" + rel + "' is a link to a folder; only links to files are supported");
                    continue;
                }
                if (!S_ISREG(st.st_mode)) {
                    problems.push_back("'" + rel + "' is a link to something that is not a regular file");
                    continue;
                }
                content = real;
            } else if (S_ISDIR(st.st_mode)) {
                tree.dirs.push_back(rel);
                fsx::Fd sub(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
                if (!sub) {
                    problems.push_back("cannot open '" + rel + "': " + std::strerror(errno));
                    continue;
                }
                walk(sub.get(), rel, depth + 1);
                continue;
            } else if (!S_ISREG(st.st_mode)) {
                problems.push_back("'" + rel + "' is a special file (device, FIFO or socket); only files and folders are allowed");
                continue;
            }
            auto size = static_cast<std::uint64_t>(st.st_size);
            if (size > kMaxFileBytes) {
                problems.push_back("'" + rel + "' is larger than " + std::to_string(kMaxFileBytes >> 20) + " MiB");
                continue;
            }
            tree.bytes += size;
            tree.files.push_back(FileEntry{rel, content, size, (st.st_mode & S_IXUSR) != 0});
            if (tree.files.size() > kMaxFiles) {
                problems.push_back("the skill has more than " + std::to_string(kMaxFiles) + " files");
                stop = true;
            } else if (tree.bytes > kMaxTotalBytes) {
                problems.push_back("the skill is larger than " + std::to_string(kMaxTotalBytes >> 20) + " MiB in total");
                stop = true;
            }
        }
    };
    walk(rootfd.get(), "", 0);
    std::sort(tree.files.begin(), tree.files.end(), [](auto& a, auto& b) { return a.rel < b.rel; });
    std::sort(tree.dirs.begin(), tree.dirs.end());
    return tree;
}

}  // namespace coffer::plugins::skill
