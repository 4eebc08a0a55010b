// The file primitives of backup and restore: a copy hashes exactly what it copied, keeps the
// requested mode, never follows a symlink and never overwrites; folders get their exact mode.
#include <boost/test/unit_test.hpp>

#include "backup/files.hpp"
#include "temp_dir.hpp"

#include <sys/stat.h>

#include <fstream>

using namespace coffer;
using namespace coffer::backup;
namespace fs = std::filesystem;

namespace {
// SHA-256("abc"), FIPS 180-2 appendix B.1.
constexpr const char* kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

unsigned mode_of(const fs::path& p) {
    struct stat st {};
    ::lstat(p.c_str(), &st);
    return st.st_mode & 0777;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(files)

BOOST_AUTO_TEST_CASE(copy_hashes_what_it_copied_with_the_given_mode) {
    test::TempDir dir("backup-files");
    std::ofstream(dir / "src") << "abc";
    auto c = copy_file(dir / "src", dir / "dst", 0640, true);
    BOOST_REQUIRE(c.ok());
    BOOST_TEST(c->size == 3u);
    BOOST_TEST(c->sha256 == kAbc);
    BOOST_TEST(mode_of(dir / "dst") == 0640u);
    BOOST_TEST((fs::last_write_time(dir / "dst") == fs::last_write_time(dir / "src")));
    auto h = hash_file(dir / "dst");
    BOOST_REQUIRE(h.ok());
    BOOST_TEST(h->sha256 == kAbc);
}

BOOST_AUTO_TEST_CASE(copy_never_overwrites_nor_follows_links) {
    test::TempDir dir("backup-files");
    std::ofstream(dir / "src") << "abc";
    std::ofstream(dir / "taken") << "keep";
    BOOST_TEST(!copy_file(dir / "src", dir / "taken", 0600, false).ok());
    std::ifstream kept(dir / "taken");
    std::string text;
    kept >> text;
    BOOST_TEST(text == "keep");
    fs::create_symlink(dir / "src", dir / "link");
    BOOST_TEST(!copy_file(dir / "link", dir / "out", 0600, false).ok());
    BOOST_TEST(!fs::exists(dir / "out"));
    BOOST_TEST(!hash_file(dir / "link").ok());
    BOOST_TEST(!hash_file(dir / "absent").ok());
}

BOOST_AUTO_TEST_CASE(folders_get_their_exact_mode_once) {
    test::TempDir dir("backup-files");
    BOOST_REQUIRE(make_dir(dir / "d", 0750).ok());
    BOOST_TEST(mode_of(dir / "d") == 0750u);
    BOOST_TEST(!make_dir(dir / "d", 0700).ok());  // EEXIST is an error
    BOOST_TEST(sync_path(dir / "d").ok());
    BOOST_TEST(lstat_path(dir / "d").ok());
    BOOST_TEST(!lstat_path(dir / "nothing").ok());
    std::ofstream(dir / "d" / "f") << "x";
    remove_quietly(dir / "d");
    BOOST_TEST(!fs::exists(dir / "d"));
}

BOOST_AUTO_TEST_SUITE_END()
