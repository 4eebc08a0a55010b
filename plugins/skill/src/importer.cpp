#include "importer.hpp"

#include "archive.hpp"
#include "fsx.hpp"
#include "limits.hpp"
#include "tree.hpp"

#include <coffer/sdk.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>

namespace coffer::plugins::skill {

namespace {

void add(std::vector<Issue>& issues, std::vector<std::string>& problems) {
    for (auto& p : problems) issues.push_back({false, std::move(p)});
    problems.clear();
}

bool has_skill_md(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "SKILL.md", ec);
}

// Where the skill folder is inside `dir`: `dir` itself when it has SKILL.md; else the folder
// named `name`; else its only top-level folder with a SKILL.md.
std::optional<fs::path> find_root(const fs::path& dir, const std::optional<std::string>& name, const std::string& what,
                                  std::vector<Issue>& issues) {
    if (has_skill_md(dir)) return dir;
    std::error_code ec;
    if (name && has_skill_md(dir / *name)) return dir / *name;
    std::vector<std::string> candidates;
    bool lowercase = fs::exists(dir / "skill.md", ec);
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        auto st = it->symlink_status(ec);
        auto n = it->path().filename().string();
        if (!fs::is_directory(st) || is_junk(n)) continue;
        if (has_skill_md(it->path())) candidates.push_back(n);
    }
    std::sort(candidates.begin(), candidates.end());
    if (candidates.size() == 1) return dir / candidates[0];
    if (candidates.empty()) {
        issues.push_back({false, lowercase ? what + " has 'skill.md'; the file must be named SKILL.md (upper case)"
                                           : "no SKILL.md found: " + what +
                                                 " must hold SKILL.md at its top, or exactly one folder that does"});
        return std::nullopt;
    }
    std::string list;
    for (auto& c : candidates) list += (list.empty() ? "" : ", ") + c;
    issues.push_back({false,
                      what + " holds several skills (" + list + "); import one of them by its name" +
                          (name ? " (none is called \"" + *name + "\")" : std::string()),
                      true});
    return std::nullopt;
}

// Reads SKILL.md from a scanned skill folder and applies the rules.
void check_root(const Tree& tree, const std::optional<std::string>& name, SkillInfo& info, std::vector<Issue>& issues) {
    auto* md = tree.find("SKILL.md");
    if (!md) {
        issues.push_back({false, "SKILL.md is missing"});
        return;
    }
    std::string text;
    try {
        text = fsx::read_file(md->src, kMaxSkillMdBytes);
    } catch (const std::exception& e) {
        issues.push_back({false, std::string("cannot read SKILL.md: ") + e.what()});
        return;
    }
    for (auto& p : check_skill_md(text, std::nullopt, info)) issues.push_back({false, std::move(p)});
    if (name && !info.name.empty() && info.name != *name)
        issues.push_back({true, "SKILL.md frontmatter: name \"" + info.name + "\" must equal the skill's name \"" + *name +
                                    "\" (its folder in the library); import it as \"" + info.name +
                                    "\" or change the frontmatter"});
}

std::string describe(const fs::path& source) { return "'" + source.filename().string() + "'"; }

}  // namespace

Staged::~Staged() {
    if (!staging.empty()) {
        try {
            fsx::remove_tree(staging);
        } catch (...) {
        }
    }
}

std::string source_problem(const std::string& source) {
    if (source.empty()) return "is empty; give the absolute path of a skill folder or a .zip/.tar.gz archive";
    fs::path p(source);
    if (!p.is_absolute())
        return "must be an absolute path (the daemon does not know your working directory): " + source;
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) return "does not exist: " + source;
    if (fs::is_directory(st)) return {};
    if (fs::is_regular_file(st)) {
        if (looks_like_archive(p)) return {};
        return "is a file but not a .zip, .tar.gz, .tgz or .tar archive: " + source;
    }
    return "is neither a folder nor an archive: " + source;
}

Library::Library(fs::path dir, fs::path scratch) : dir_(std::move(dir)), scratch_(std::move(scratch)) {}

Inspection Library::inspect(const std::string& source, const std::optional<std::string>& name) const {
    Inspection out;
    if (auto p = source_problem(source); !p.empty()) {
        out.issues.push_back({false, p});
        return out;
    }
    fs::path src(source);
    std::unique_ptr<Staged> scratch;  // removes the extraction on return
    fs::path dir = src;
    std::string what = "the folder " + describe(src);
    std::vector<std::string> problems;
    if (!fs::is_directory(src)) {
        scratch = std::make_unique<Staged>();
        std::error_code ec;
        fs::create_directories(scratch_, ec);
        scratch->staging = scratch_ / (".inspect-" + fsx::random_suffix());
        fs::create_directory(scratch->staging, ec);
        if (ec) {
            out.issues.push_back({false, "cannot create a scratch folder " + scratch->staging.string() + ": " + ec.message()});
            return out;
        }
        extract_archive(src, scratch->staging, problems);
        add(out.issues, problems);
        if (!out.ok()) return out;
        dir = scratch->staging;
        what = "the archive " + describe(src);
    }
    auto root = find_root(dir, name, what, out.issues);
    if (!root) return out;
    out.root = root->lexically_relative(dir).string();
    if (out.root == ".") out.root.clear();
    Tree tree = scan_folder(*root, problems);
    add(out.issues, problems);
    out.files = tree.files.size();
    out.bytes = tree.bytes;
    out.skipped = tree.skipped;
    check_root(tree, name, out.info, out.issues);
    return out;
}

std::unique_ptr<Staged> Library::stage(const std::string& source, const std::string& name) const {
    auto out = std::make_unique<Staged>();
    if (auto p = source_problem(source); !p.empty()) {
        out->issues.push_back({false, p});
        return out;
    }
    fs::path src(source);
    std::error_code ec;
    fs::create_directories(dir_, ec);
    out->staging = dir_ / (".staging-" + fsx::random_suffix());
    if (!fs::create_directory(out->staging, ec) || ec)
        throw std::runtime_error("cannot create the staging folder " + out->staging.string() + ": " + ec.message());
    std::vector<std::string> problems;

    if (fs::is_directory(src)) {
        // A folder: check it where it is, then copy exactly the checked files.
        auto root = find_root(src, name, "the folder " + describe(src), out->issues);
        if (!root) return out;
        Tree tree = scan_folder(*root, problems);
        add(out->issues, problems);
        check_root(tree, name, out->info, out->issues);
        out->skipped = tree.skipped;
        if (!out->ok()) return out;
        out->root = out->staging;  // renamed into place as it is: nothing left to delete
        ::chmod(out->root.c_str(), 0755);
        fsx::Fd rootfd = fsx::open_dir(out->root);
        if (!rootfd) throw fsx::sys_error("cannot open", out->root, errno);
        for (auto& d : tree.dirs)
            if (!fsx::open_dir_at(rootfd.get(), d, true)) throw fsx::sys_error("cannot create", out->root / d, errno);
        std::map<std::string, fsx::Fd> parents;
        for (auto& f : tree.files) {
            auto parent = parent_of(f.rel);
            auto it = parents.find(parent);
            if (it == parents.end()) {
                auto fd = fsx::open_dir_at(rootfd.get(), parent, false);
                if (!fd) throw fsx::sys_error("cannot open", out->root / parent, errno);
                it = parents.emplace(parent, std::move(fd)).first;
            }
            auto c = fsx::copy_file(f.src, it->second.get(), base_of(f.rel), f.exec, false, kMaxFileBytes);
            out->files[f.rel] = FileRecord{c.sha256, c.stat.size, f.exec, c.stat};
        }
        return out;
    }

    // An archive: extract (refusing unsafe entries), then check the result like a folder.
    auto raw = out->staging / "raw";
    fs::create_directory(raw, ec);
    extract_archive(src, raw, problems);
    add(out->issues, problems);
    if (!out->ok()) return out;
    auto root = find_root(raw, name, "the archive " + describe(src), out->issues);
    if (!root) return out;
    Tree tree = scan_folder(*root, problems);
    add(out->issues, problems);
    check_root(tree, name, out->info, out->issues);
    out->skipped = tree.skipped;
    if (!out->ok()) return out;
    out->root = *root;
    fsx::Fd rootfd = fsx::open_dir(out->root);
    if (!rootfd) throw fsx::sys_error("cannot open", out->root, errno);
    for (auto& f : tree.files) {
        fsx::Stat st;
        auto sha = fsx::hash_file_at(rootfd.get(), f.rel, &st);
        if (sha.empty()) throw std::runtime_error("cannot read back " + f.rel + " after extracting it");
        out->files[f.rel] = FileRecord{sha, st.size, st.exec, st};
    }
    return out;
}

std::unique_ptr<Staged> Library::scan_installed(const std::string& name) const {
    auto out = std::make_unique<Staged>();
    out->root = path_of(name);
    std::error_code ec;
    if (!fs::is_directory(fs::symlink_status(out->root, ec))) {
        out->issues.push_back({false, "the library has no folder " + out->root.string()});
        return out;
    }
    std::vector<std::string> problems;
    Tree tree = scan_folder(out->root, problems);
    add(out->issues, problems);
    check_root(tree, name, out->info, out->issues);
    out->skipped = tree.skipped;
    if (!out->ok()) return out;
    fsx::Fd rootfd = fsx::open_dir(out->root);
    if (!rootfd) throw fsx::sys_error("cannot open", out->root, errno);
    for (auto& f : tree.files) {
        if (f.src != out->root / f.rel) {
            out->issues.push_back({false, "the library copy has a link at '" + f.rel +
                                              "'; Coffer keeps plain files there (re-import the skill)"});
            continue;
        }
        fsx::Stat st;
        auto sha = fsx::hash_file_at(rootfd.get(), f.rel, &st);
        if (sha.empty()) {
            out->issues.push_back({false, "cannot read " + (out->root / f.rel).string()});
            continue;
        }
        out->files[f.rel] = FileRecord{sha, st.size, st.exec, st};
    }
    return out;
}

void Library::install(Staged& staged, const std::string& name, bool replace) const {
    auto dest = path_of(name);
    if (!replace) {
        if (::renameat2(AT_FDCWD, staged.root.c_str(), AT_FDCWD, dest.c_str(), RENAME_NOREPLACE) != 0) {
            int err = errno;
            if (err == EEXIST || err == ENOTEMPTY)
                throw coffer::sdk::Error(COFFER_E_CONFLICT,
                                         "the library already has a folder " + dest.string() +
                                             " that no skill owns; remove it, or create the skill without \"source\" "
                                             "to adopt that folder as it is");
            throw fsx::sys_error("cannot move the imported skill to", dest, err);
        }
        staged.root = dest;
        return;
    }
    std::error_code ec;
    fs::path old;
    if (fs::exists(fs::symlink_status(dest, ec))) {
        old = dir_ / (".old-" + name + "-" + fsx::random_suffix());
        if (::rename(dest.c_str(), old.c_str()) != 0) throw fsx::sys_error("cannot move aside", dest, errno);
    }
    if (::rename(staged.root.c_str(), dest.c_str()) != 0) {
        int err = errno;
        if (!old.empty()) ::rename(old.c_str(), dest.c_str());
        throw fsx::sys_error("cannot move the imported skill to", dest, err);
    }
    staged.root = dest;
    if (!old.empty()) fsx::remove_tree(old);
}

void Library::remove(const std::string& name) const { fsx::remove_tree(path_of(name)); }

void Library::cleanup() const {
    std::error_code ec;
    for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
        auto n = it->path().filename().string();
        if (n.rfind(".staging-", 0) == 0 || n.rfind(".old-", 0) == 0) {
            try {
                fsx::remove_tree(it->path());
            } catch (...) {
            }
        }
    }
    try {
        fsx::remove_tree(scratch_);
    } catch (...) {
    }
}

}  // namespace coffer::plugins::skill
