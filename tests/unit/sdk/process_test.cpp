// coffer/process.hpp, the one "is this process alive" of host, plugins, CLI, shim and tests: a
// running process is, a zombie (exited, not reaped) and a reaped one are not, and ids that kill(2)
// would read as groups (≤ 0) or that overflow pid_t never are.
#define BOOST_TEST_MODULE sdk_process
#include <boost/test/unit_test.hpp>

#include "eventually.hpp"

#include <coffer/process.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using coffer::process_alive;
using coffer::process_state;

BOOST_AUTO_TEST_CASE(this_process_is_alive) {
    BOOST_TEST(process_alive(::getpid()));
    BOOST_TEST(process_state(::getpid()) != 0);
}

BOOST_AUTO_TEST_CASE(ids_that_name_no_single_process_are_not) {
    BOOST_TEST(!process_alive(0));
    BOOST_TEST(!process_alive(-1));
    BOOST_TEST(!process_alive(-static_cast<long long>(::getpgrp())));
    BOOST_TEST(!process_alive(1LL << 40));
}

BOOST_AUTO_TEST_CASE(a_zombie_and_a_reaped_child_are_not) {
    int pipefd[2];
    BOOST_REQUIRE(::pipe(pipefd) == 0);
    pid_t child = ::fork();
    BOOST_REQUIRE(child >= 0);
    if (child == 0) {
        char c;
        (void)!::read(pipefd[0], &c, 1);  // runs until the parent writes
        ::_exit(0);
    }
    ::close(pipefd[0]);
    BOOST_TEST(process_alive(child));

    (void)!::write(pipefd[1], "x", 1);
    ::close(pipefd[1]);
    // Exited but not reaped: a zombie.
    BOOST_TEST(coffer::test::eventually([&] { return process_state(child) == 'Z'; }, std::chrono::seconds(10)));
    BOOST_TEST(!process_alive(child));

    int status = 0;
    BOOST_REQUIRE(::waitpid(child, &status, 0) == child);
    BOOST_TEST(!process_alive(child));
    BOOST_TEST(process_state(child) == 0);
}
