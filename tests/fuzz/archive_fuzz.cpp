// Fuzz target: archive import (plugins/skill/src/archive.*), which unpacks .zip / .tar(.gz) files
// anyone can hand to `coffer skill import`. The first byte chooses how the rest is used:
//   even  the bytes are the archive file itself (libarchive's readers and our entry handling);
//   odd   the bytes describe entries — lines "<type><name>\t<link>\t<data>", type f d l h p — that
//         tests/unit/skill/archive_writer writes as a tar.gz (or, bit 1 set, a zip): the
//         hostile names and links an archiver would refuse to make, reached on every run.
// It extracts into <tmp>/dest beside the archive, then checks that nothing appeared outside
// dest, that dest holds only folders and regular files (links become copies, never links), that
// every path there is a normalised entry name, and, when the archive was accepted, that each
// plain file entry came out with its bytes. normalize_entry_name is checked on every name: what
// it returns is relative, has no '.', '..', empty or backslash part, and normalises to itself
// ("" for "./", the folder itself).
#include "archive.hpp"
#include "archive_writer.hpp"
#include "fuzz_check.hpp"
#include "limits.hpp"
#include "tree.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace coffer::plugins::skill;

const fs::path& scratch() {
    static const fs::path dir = [] {
        std::string tmpl = (fs::temp_directory_path() / "coffer-fuzz-archive-XXXXXX").string();
        FUZZ_CHECK(::mkdtemp(tmpl.data()) != nullptr);
        std::atexit([] { std::error_code ec; fs::remove_all(scratch(), ec); });
        return fs::path(tmpl);
    }();
    return dir;
}

bool junk(const std::string& rel) {
    std::size_t at = 0;
    for (;;) {
        auto slash = rel.find('/', at);
        if (is_junk(std::string_view(rel).substr(at, slash == std::string::npos ? std::string::npos : slash - at))) return true;
        if (slash == std::string::npos) return false;
        at = slash + 1;
    }
}

void check_name(std::string_view raw) {
    std::string why;
    auto n = normalize_entry_name(raw, why);
    if (!n) {
        FUZZ_CHECK(!why.empty());
        return;
    }
    if (n->empty()) return;  // "./": the folder itself, which extraction skips
    FUZZ_CHECK(n->front() != '/' && n->back() != '/');
    FUZZ_CHECK(n->find('\\') == std::string::npos && n->find("//") == std::string::npos);
    std::size_t at = 0;
    while (at <= n->size()) {
        auto slash = n->find('/', at);
        auto part = std::string_view(*n).substr(at, slash == std::string::npos ? std::string::npos : slash - at);
        FUZZ_CHECK(part != "." && part != ".." && !part.empty());
        if (slash == std::string::npos) break;
        at = slash + 1;
    }
    std::string again_why;
    auto again = normalize_entry_name(*n, again_why);
    FUZZ_CHECK(again && *again == *n);
}

std::vector<skill_test::Entry> entries_from(std::string_view text) {
    std::vector<skill_test::Entry> out;
    while (!text.empty() && out.size() < 16) {
        auto nl = text.find('\n');
        auto line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (line.empty()) continue;
        skill_test::Entry e;
        e.type = std::string_view("fdlhp").find(line[0]) != std::string_view::npos ? line[0] : 'f';
        line.remove_prefix(1);
        auto t1 = line.find('\t');
        e.name = std::string(line.substr(0, t1));
        if (e.name.empty()) e.name = "x";
        if (t1 != std::string_view::npos) {
            auto rest = line.substr(t1 + 1);
            auto t2 = rest.find('\t');
            e.link = std::string(rest.substr(0, t2));
            if (t2 != std::string_view::npos) e.data = std::string(rest.substr(t2 + 1));
        }
        // Archive names are C strings: what follows a NUL is never written.
        e.name = e.name.substr(0, e.name.find('\0'));
        e.link = e.link.substr(0, e.link.find('\0'));
        if (e.name.empty()) e.name = "x";
        out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    if (size == 0) return 0;
    std::string_view rest(reinterpret_cast<const char*>(bytes) + 1, size - 1);
    const fs::path& root = scratch();
    const fs::path archive = root / "in.archive", dest = root / "dest";
    std::error_code ec;
    fs::remove_all(dest, ec);
    fs::remove(archive, ec);
    fs::create_directory(dest);

    std::vector<skill_test::Entry> entries;
    if (bytes[0] % 2 == 0) {
        std::ofstream(archive, std::ios::binary).write(rest.data(), static_cast<std::streamsize>(rest.size()));
    } else {
        entries = entries_from(rest);
        for (auto& e : entries) check_name(e.name);
        try {
            skill_test::write_archive(archive, entries, (bytes[0] & 2) != 0);
        } catch (const std::exception&) {
            return 0;  // an entry the format cannot hold (a FIFO in a zip): no archive to read
        }
    }

    std::vector<std::string> problems;
    extract_archive(archive, dest, problems);

    // Nothing outside dest: the scratch folder holds exactly the archive and dest.
    std::size_t outside = 0;
    for (auto& e : fs::directory_iterator(root)) {
        FUZZ_CHECK(e.path() == archive || e.path() == dest);
        ++outside;
    }
    FUZZ_CHECK(outside == 2 && fs::is_directory(fs::symlink_status(dest)));
    // Inside: only folders and regular files, at normalised names within the limits.
    std::map<std::string, std::string> files;
    for (auto it = fs::recursive_directory_iterator(dest); it != fs::recursive_directory_iterator(); ++it) {
        auto st = it->symlink_status();
        FUZZ_CHECK(fs::is_directory(st) || fs::is_regular_file(st));
        auto rel = fs::relative(it->path(), dest).generic_string();
        std::string why;
        auto n = normalize_entry_name(rel, why);
        FUZZ_CHECK(n && *n == rel);
        FUZZ_CHECK(static_cast<std::size_t>(it.depth()) < kMaxDepth + 1);
        if (fs::is_regular_file(st)) {
            std::ifstream in(it->path(), std::ios::binary);
            files[rel].assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        }
    }
    if (problems.empty()) {
        bool zip = (bytes[0] & 2) != 0;
        for (auto& e : entries) {
            // libarchive's zip reader turns '\' into '/' (names written on Windows).
            std::string name = e.name;
            if (zip) std::replace(name.begin(), name.end(), '\\', '/');
            std::string why;
            auto n = normalize_entry_name(name, why);
            FUZZ_CHECK(n.has_value());  // an accepted archive had only acceptable names
            // A "file" whose name ends in '/' is a folder to tar readers (the old tar convention);
            // "./" and junk such as __MACOSX/ or .DS_Store are skipped on purpose.
            if (e.type != 'f' || name.back() == '/' || n->empty() || junk(*n)) continue;
            auto f = files.find(*n);
            FUZZ_CHECK(f != files.end() && f->second == e.data);
        }
    }
    return 0;
}
