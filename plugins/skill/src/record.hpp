// The content-hash manifest: per skill (keyed by resource uid, in the plugin's data folder
// $COFFER_HOME/data/skill/<uid>.json) what the library copy holds and, per agent target, exactly
// which files Coffer delivered there with their SHA-256. Delivery, removal and the drift check
// all work from it: Coffer only ever removes or repairs files listed here.
#pragma once

#include "fsx.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace coffer::plugins::skill {

namespace fs = std::filesystem;

struct FileRecord {
    std::string sha256;
    std::uint64_t size = 0;
    bool exec = false;
    fsx::Stat stat;  // as last written or hashed by Coffer (the stat cache)
};
using FileMap = std::map<std::string, FileRecord>;  // relative path → record

// One hash for a whole file set: SHA-256 over "path\0sha256\0x|-\n" lines in path order.
std::string tree_hash(const FileMap& files);

struct Delivery {
    std::string path;          // the delivered folder, e.g. /home/me/.claude/skills/pdf
    std::string library_hash;  // tree_hash of the library version delivered
    std::string delivered_at;
    FileMap files;             // exactly the files Coffer wrote there
};

struct Record {
    std::string uid, name;
    std::string source;       // where the library copy was imported from ("" when adopted)
    std::string imported_at;
    std::string library_hash;
    FileMap library;
    std::map<std::string, Delivery> deliveries;  // by target id ("claude_code", "codex")

    boost::json::object to_json() const;
    static std::optional<Record> from_json(const boost::json::value& v);

    // $data_dir/<uid>.json; load returns nothing when absent or unreadable.
    static std::optional<Record> load(const fs::path& file);
    void save(const fs::path& file) const;
};

}  // namespace coffer::plugins::skill
