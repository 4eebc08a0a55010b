#include "drift.hpp"

#include "fsx.hpp"
#include "tree.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

namespace coffer::plugins::skill {

namespace json = boost::json;

namespace {

enum class FileState { same, changed, missing };

FileState compare(int dirfd, const std::string& rel, const FileRecord& want, bool deep) {
    fsx::Stat now;
    bool regular = false;
    if (!fsx::stat_at(dirfd, rel, now, &regular)) return FileState::missing;
    if (!regular) return FileState::changed;
    if (!deep && now.same_content_signature(want.stat)) return FileState::same;
    if (now.size != want.size) return FileState::changed;
    auto sha = fsx::hash_file_at(dirfd, rel);
    return sha == want.sha256 ? FileState::same : FileState::changed;
}

bool junk(std::string_view name) { return is_junk(name); }

json::array strings(const std::vector<std::string>& v) {
    json::array a;
    for (auto& s : v) a.emplace_back(s);
    return a;
}

}  // namespace

TargetDrift check_delivery(const Delivery& delivery, const std::string& current_library_hash, bool deep, bool with_extra) {
    TargetDrift out;
    fs::path dest(delivery.path);
    fsx::Fd dfd = fsx::open_dir(dest);  // O_NOFOLLOW: a link or file there now is not ours
    if (!dfd) {
        if (errno == ENOENT) {
            out.state = "missing";
            for (auto& [rel, f] : delivery.files) out.missing.push_back(rel);
        } else {
            out.state = "conflict";
        }
        return out;
    }
    for (auto& [rel, f] : delivery.files) {
        switch (compare(dfd.get(), rel, f, deep)) {
            case FileState::same: break;
            case FileState::changed: out.modified.push_back(rel); break;
            case FileState::missing: out.missing.push_back(rel); break;
        }
    }
    if (with_extra)
        for (auto& rel : fsx::list_files(dfd.get()))
            if (!delivery.files.contains(rel) && rel.find(".coffer-tmp-") == std::string::npos) out.extra.push_back(rel);
    out.state = !out.missing.empty()                           ? "missing"
                : !out.modified.empty()                        ? "modified"
                : delivery.library_hash != current_library_hash ? "outdated"
                                                                : "ok";
    return out;
}

LibraryDrift check_library(const fs::path& root, const FileMap& library, bool deep) {
    LibraryDrift out;
    fsx::Fd dfd = fsx::open_dir(root);
    if (!dfd) {
        out.state = "missing";
        return out;
    }
    for (auto& [rel, f] : library) {
        switch (compare(dfd.get(), rel, f, deep)) {
            case FileState::same: break;
            case FileState::changed: out.changed.push_back(rel); break;
            case FileState::missing: out.missing.push_back(rel); break;
        }
    }
    for (auto& rel : fsx::list_files(dfd.get(), &junk))
        if (!library.contains(rel)) out.added.push_back(rel);
    out.state = (out.changed.empty() && out.missing.empty() && out.added.empty()) ? "ok" : "changed";
    return out;
}

std::vector<Unmanaged> find_unmanaged(const std::string& target, const fs::path& root, const std::set<std::string>& managed) {
    std::vector<Unmanaged> out;
    std::error_code ec;
    for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        if (name.empty() || name[0] == '.' || managed.contains(name)) continue;
        auto st = it->symlink_status(ec);
        std::string type;
        if (fs::is_directory(st)) type = "folder";
        else if (fs::is_symlink(st)) type = "link";
        else continue;
        std::error_code e2;
        bool md = fs::is_regular_file(it->path() / "SKILL.md", e2);
        out.push_back({target, name, it->path().string(), type, md});
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
    return out;
}

json::object to_json(const TargetDrift& d) {
    json::object o{{"state", d.state}};
    if (!d.modified.empty()) o["modified"] = strings(d.modified);
    if (!d.missing.empty()) o["missing"] = strings(d.missing);
    if (!d.extra.empty()) o["extra"] = strings(d.extra);
    return o;
}

json::object to_json(const LibraryDrift& d) {
    json::object o{{"state", d.state}};
    if (!d.changed.empty()) o["changed"] = strings(d.changed);
    if (!d.missing.empty()) o["missing"] = strings(d.missing);
    if (!d.added.empty()) o["added"] = strings(d.added);
    return o;
}

json::object to_json(const Unmanaged& u) {
    return json::object{{"target", u.target}, {"name", u.name}, {"path", u.path}, {"type", u.type},
                        {"has_skill_md", u.has_skill_md}};
}

}  // namespace coffer::plugins::skill
