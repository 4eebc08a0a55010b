// Drift: how a delivered copy (or the library copy) differs from what the manifest recorded.
// A file whose size, mtime, ctime and inode are as recorded is taken as unchanged without
// reading it (the stat cache; ctime cannot be set back by a user); any other file is hashed.
// `deep` hashes every file.
#pragma once

#include "record.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace coffer::plugins::skill {

namespace fs = std::filesystem;

// Per target: ok | modified | missing | outdated (the library changed since) | conflict (not a
// folder any more).
struct TargetDrift {
    std::string state;
    std::vector<std::string> modified, missing, extra;  // relative paths
};
// `with_extra`: also list files in the folder that Coffer did not deliver (costs a directory walk).
TargetDrift check_delivery(const Delivery& delivery, const std::string& current_library_hash, bool deep,
                           bool with_extra = true);

// The library copy: ok | changed (edited since import or last delivery) | missing.
struct LibraryDrift {
    std::string state;
    std::vector<std::string> changed, missing, added;
};
LibraryDrift check_library(const fs::path& root, const FileMap& library, bool deep);

struct Unmanaged {
    std::string target, name, path, type;  // type: folder | link
    bool has_skill_md = false;
};
// Folders (and links) in an agent's skills folder whose names are not in `managed`.
std::vector<Unmanaged> find_unmanaged(const std::string& target, const fs::path& root, const std::set<std::string>& managed);

boost::json::object to_json(const TargetDrift& d);
boost::json::object to_json(const LibraryDrift& d);
boost::json::object to_json(const Unmanaged& u);

}  // namespace coffer::plugins::skill
