// Test helper: writes .tar.gz and .zip archives entry by entry with libarchive, so tests can
// build exactly the hostile entries an archiver program would refuse to produce.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace skill_test {

struct Entry {
    std::string name;
    std::string data;        // file contents
    char type = 'f';         // f file, d folder, l symbolic link, h hard link, p FIFO
    std::string link;        // target of l / h
    int mode = 0644;
};

// Writes `entries` to `out` as a gzip-compressed tar (zip = false) or a zip.
void write_archive(const std::filesystem::path& out, const std::vector<Entry>& entries, bool zip);

}  // namespace skill_test
