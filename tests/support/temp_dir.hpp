// Test support: the one temporary directory (or vault) a test works in. A fresh, private folder
// under the system's temporary directory, removed with everything in it when the object goes.
#pragma once

#include <filesystem>
#include <string>

namespace coffer::test {

class TempDir {
public:
    // `tag` names the folder (coffer-<tag>-XXXXXX) so a leftover can be traced to its test.
    explicit TempDir(const std::string& tag = "test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

// A whole file's bytes ("" when it cannot be read).
std::string read_text(const std::filesystem::path& path);

}  // namespace coffer::test
