// vault::FileLock — the one flock(2) wrapper (daemon.lock, spawn.lock): exclusive, non-blocking
// or waiting with a deadline, 0600, never through a link, released on destruction.
#include <boost/test/unit_test.hpp>

#include "daemon_fixture.hpp"  // TempDir
#include "vault/file_lock.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace fs = std::filesystem;
using coffer::vault::FileLock;
using namespace std::chrono_literals;

using coffer::test::TempDir;

BOOST_AUTO_TEST_CASE(exclusive_until_released) {
    TempDir dir;
    auto file = dir.path() / "daemon.lock";
    auto first = FileLock::try_take(file);
    BOOST_REQUIRE(first);
    BOOST_TEST(first->held());
    struct stat st {};
    BOOST_REQUIRE(::stat(file.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);

    auto second = FileLock::try_take(file);  // another open file description: refused
    BOOST_REQUIRE(!second);
    BOOST_TEST(second.error().code == "CONFLICT");

    FileLock moved = std::move(first).value();
    BOOST_TEST(!FileLock::try_take(file));  // a moved lock is still held
    moved.release();
    BOOST_TEST(!moved.held());
    BOOST_TEST(FileLock::try_take(file).ok());
}

BOOST_AUTO_TEST_CASE(a_missing_file_may_stay_missing) {
    TempDir dir;
    auto file = dir.path() / "daemon.lock";
    auto lock = FileLock::try_take(file, FileLock::Missing::unheld);
    BOOST_REQUIRE(lock);
    BOOST_TEST(!lock->held());
    BOOST_TEST(!fs::exists(file));
}

BOOST_AUTO_TEST_CASE(never_through_a_link) {
    TempDir dir;
    fs::create_symlink(dir.path() / "target", dir.path() / "daemon.lock");
    auto lock = FileLock::try_take(dir.path() / "daemon.lock");
    BOOST_REQUIRE(!lock);
    BOOST_TEST(lock.error().code == "INTERNAL");
    BOOST_TEST(!fs::exists(dir.path() / "target"));
}

BOOST_AUTO_TEST_CASE(waiting_ends_at_the_deadline_or_when_released) {
    TempDir dir;
    auto file = dir.path() / "spawn.lock";
    auto held = FileLock::try_take(file);
    BOOST_REQUIRE(held);

    auto start = std::chrono::steady_clock::now();
    auto timed_out = FileLock::take_waiting(file, 200ms);
    BOOST_REQUIRE(!timed_out);
    BOOST_TEST(timed_out.error().code == "UNAVAILABLE");
    BOOST_TEST((std::chrono::steady_clock::now() - start >= 200ms));

    std::thread releaser([&] {
        std::this_thread::sleep_for(150ms);
        held->release();
    });
    auto waited = FileLock::take_waiting(file, 5000ms);
    releaser.join();
    BOOST_REQUIRE(waited);
    BOOST_TEST(waited->held());
}
