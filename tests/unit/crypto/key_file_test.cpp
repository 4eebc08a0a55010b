#include <boost/test/unit_test.hpp>

#include "temp_dir.hpp"
#include "crypto/key_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace coffer::crypto;
namespace fs = std::filesystem;

namespace {
struct TmpDir {
    coffer::test::TempDir dir{"keyfile"};
    const fs::path& path = dir.path();
};
unsigned mode_of(const fs::path& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return st.st_mode & 0777;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(key_file)

BOOST_AUTO_TEST_CASE(missing_file_is_no_key) {
    TmpDir d;
    auto r = load_key_file(d.path / "master.key");
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(!r->key.has_value());
}

BOOST_AUTO_TEST_CASE(created_0600_loaded_back_and_never_overwritten) {
    TmpDir d;
    auto p = d.path / "master.key";
    auto k = create_key_file(p);
    BOOST_REQUIRE(k.ok());
    BOOST_TEST(mode_of(p) == 0600u);
    std::ifstream in(p);
    std::string line;
    std::getline(in, line);
    BOOST_TEST(line == k->encoded());
    auto again = load_key_file(p);
    BOOST_REQUIRE(again.ok());
    BOOST_REQUIRE(again->key.has_value());
    BOOST_TEST(again->key->encoded() == k->encoded());
    BOOST_TEST(!again->loosened);
    auto second = create_key_file(p);
    BOOST_TEST(!second.ok());
    BOOST_TEST(load_key_file(p)->key->encoded() == k->encoded());  // untouched
    // No temp file is left behind.
    int files = 0;
    for (auto& e : fs::directory_iterator(d.path)) (void)e, ++files;
    BOOST_TEST(files == 1);
}

BOOST_AUTO_TEST_CASE(a_loose_mode_is_tightened_and_garbage_is_refused) {
    TmpDir d;
    auto p = d.path / "master.key";
    auto k = create_key_file(p);
    BOOST_REQUIRE(k.ok());
    ::chmod(p.c_str(), 0644);
    auto r = load_key_file(p);
    BOOST_REQUIRE(r.ok());
    BOOST_TEST(r->loosened);
    BOOST_TEST(mode_of(p) == 0600u);
    std::ofstream(p, std::ios::trunc) << "not a key\n";
    auto bad = load_key_file(p);
    BOOST_REQUIRE(!bad.ok());
    BOOST_TEST(bad.error().message.find("MasterKeyInvalid") == 0u);
    BOOST_TEST(bad.error().message.find("not a key") == std::string::npos);  // the content is never echoed
}

BOOST_AUTO_TEST_SUITE_END()
