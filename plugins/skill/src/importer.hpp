// Import: a source folder or archive → a checked skill folder in the library
// ($COFFER_HOME/skills/<name>/). Nothing reaches the library unless every check passed: the
// source is copied or extracted into a staging folder beside the library, checked there
// (path safety, limits, SKILL.md rules), hashed, and only then renamed into place.
#pragma once

#include "record.hpp"
#include "rules.hpp"
#include "tree.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace coffer::plugins::skill {

namespace fs = std::filesystem;

// One reason an import is refused. `about_name`: the skill's name (not its source) is at fault.
struct Issue {
    bool about_name = false;
    std::string message;
    bool ambiguous = false;  // the source holds several skills: the name chooses one
};

// What a source holds, as far as it could be read.
struct Inspection {
    SkillInfo info;
    std::string root;  // where the skill folder is inside the source ("" = the source itself)
    std::size_t files = 0;
    std::uint64_t bytes = 0;
    std::vector<std::string> skipped;
    std::vector<Issue> issues;
    bool ok() const noexcept { return issues.empty(); }
};

// A checked copy of a skill waiting in a staging folder; removed unless installed.
struct Staged {
    fs::path staging;  // the staging folder (removed by the destructor)
    fs::path root;     // the skill folder inside it
    FileMap files;
    SkillInfo info;
    std::vector<std::string> skipped;
    std::vector<Issue> issues;
    bool ok() const noexcept { return issues.empty(); }
    ~Staged();
};

// Why `source` cannot be a source at all (not absolute, missing, neither folder nor archive), or "".
std::string source_problem(const std::string& source);

class Library {
public:
    // `dir`: $COFFER_HOME/skills; `scratch`: a private folder for inspecting archives.
    Library(fs::path dir, fs::path scratch);

    const fs::path& dir() const noexcept { return dir_; }
    fs::path path_of(const std::string& name) const { return dir_ / name; }

    // Reads and checks `source` without writing to the library. `name`: the skill's name if known
    // (chooses among several skills in one source, and must equal the frontmatter name).
    Inspection inspect(const std::string& source, const std::optional<std::string>& name) const;
    // Copies or extracts `source` into a staging folder and checks it as skill `name`.
    std::unique_ptr<Staged> stage(const std::string& source, const std::string& name) const;
    // Checks and hashes the library folder of `name` as it is now (adoption, or after an edit).
    std::unique_ptr<Staged> scan_installed(const std::string& name) const;
    // Moves a staged skill to dir/<name>. Without `replace`, an existing folder there is a
    // conflict (sdk::Error CONFLICT); with it, the old folder is swapped out and removed.
    void install(Staged& staged, const std::string& name, bool replace) const;
    // Removes dir/<name>.
    void remove(const std::string& name) const;
    // Removes staging leftovers of an earlier run (the vault lock makes them ours).
    void cleanup() const;

private:
    fs::path dir_, scratch_;
};

}  // namespace coffer::plugins::skill
