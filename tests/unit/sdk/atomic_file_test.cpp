// coffer/atomic_file.hpp, the one atomic file replacement of host and plugins: whole content,
// the mode asked for whatever the umask, a link at the path replaced rather than followed, no
// temporary left behind, failures as messages.
#define BOOST_TEST_MODULE sdk_atomic_file
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"  // TempDir

#include <coffer/atomic_file.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace fs = std::filesystem;

using coffer::test::TempDir;

namespace {

std::size_t entries(const fs::path& dir) {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(writes_then_replaces_whole_with_the_mode_asked_for) {
    TempDir dir;
    const fs::path& d = dir.path();
    auto file = d / "daemon.json";
    mode_t old = ::umask(077);
    BOOST_TEST(coffer::write_file_atomic(file, "first", 0640).empty());
    ::umask(old);
    struct stat st {};
    BOOST_REQUIRE(::stat(file.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0640u);
    BOOST_TEST(slurp(file) == "first");

    std::string big(3 << 20, 'z');
    BOOST_TEST(coffer::write_file_atomic(file, big).empty());
    BOOST_TEST(slurp(file) == big);
    BOOST_REQUIRE(::stat(file.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    BOOST_TEST(entries(d) == 1u);  // no temporary left
}

BOOST_AUTO_TEST_CASE(a_link_at_the_path_is_replaced_not_followed) {
    TempDir dir;
    const fs::path& d = dir.path();
    auto target = d / "elsewhere";
    { std::ofstream(target) << "keep"; }
    fs::create_symlink(target, d / "daemon.json");
    BOOST_TEST(coffer::write_file_atomic(d / "daemon.json", "new").empty());
    BOOST_TEST(!fs::is_symlink(fs::symlink_status(d / "daemon.json")));
    BOOST_TEST(slurp(d / "daemon.json") == "new");
    BOOST_TEST(slurp(target) == "keep");
}

BOOST_AUTO_TEST_CASE(failures_are_messages_and_leave_nothing) {
    TempDir dir;
    const fs::path& d = dir.path();
    auto missing = d / "no-such-folder" / "file";
    auto failed = coffer::write_file_atomic(missing, "x");
    BOOST_TEST(!failed.empty());
    BOOST_TEST(failed.find("no-such-folder") != std::string::npos);

    fs::create_directory(d / "taken");  // rename over a folder fails
    failed = coffer::write_file_atomic(d / "taken", "x");
    BOOST_TEST(failed.find("cannot replace") != std::string::npos);
    BOOST_TEST(entries(d) == 1u);  // the temporary was removed
}

// What a writer killed before its rename leaves, and what start-up removes: only names of exactly
// write_file_atomic's shape, only when their writer is gone (or is the caller itself).
BOOST_AUTO_TEST_CASE(stale_temporaries_are_recognised_by_their_exact_shape) {
    BOOST_TEST(coffer::atomic_temporary_writer("daemon.json.tmp-1234-0123456789abcdef") == 1234);
    BOOST_TEST(coffer::atomic_temporary_writer("x.tmp-1-ffffffffffffffff") == 1);
    for (auto* not_ours : {"daemon.json", ".tmp-1234-0123456789abcdef", "a.tmp-1234-0123456789abcde",
                           "a.tmp-1234-0123456789abcdef0", "a.tmp-12x4-0123456789abcdef", "a.tmp--0123456789abcdef",
                           "a.tmp-1234-0123456789ABCDEF", "a.tmp-1234", "notes.tmp-backup"})
        BOOST_TEST(coffer::atomic_temporary_writer(not_ours) == -1, not_ours);
    auto made = coffer::atomic_temporary_for("/v/daemon.json").filename().string();
    BOOST_TEST(coffer::atomic_temporary_writer(made) == static_cast<long long>(::getpid()));
}

BOOST_AUTO_TEST_CASE(stale_temporaries_of_gone_writers_are_removed_and_nothing_else) {
    TempDir dir;
    auto touch = [&](const std::string& name) { std::ofstream(dir.path() / name) << "x"; };
    // A pid that is not running: a child that has exited and been reaped.
    pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    int status = 0;
    ::waitpid(gone, &status, 0);
    std::string dead = "daemon.json.tmp-" + std::to_string(gone) + "-0123456789abcdef";
    std::string mine = "rec.json.tmp-" + std::to_string(::getpid()) + "-fedcba9876543210";
    std::string live = "rec.json.tmp-" + std::to_string(::getppid()) + "-fedcba9876543210";  // a running writer
    for (auto& n : {dead, mine, live, std::string("daemon.json"), std::string("notes.tmp-keep")}) touch(n);
    fs::create_directory(dir.path() / ("dir.tmp-" + std::to_string(gone) + "-0123456789abcdef"));
    auto removed = coffer::remove_stale_atomic_temporaries(dir.path());
    BOOST_TEST(removed.size() == 2u);
    BOOST_TEST(!fs::exists(dir.path() / dead));
    BOOST_TEST(!fs::exists(dir.path() / mine));
    BOOST_TEST(fs::exists(dir.path() / live));
    BOOST_TEST(fs::exists(dir.path() / "daemon.json"));
    BOOST_TEST(fs::exists(dir.path() / "notes.tmp-keep"));
    BOOST_TEST(fs::is_directory(dir.path() / ("dir.tmp-" + std::to_string(gone) + "-0123456789abcdef")));
}
