// shim::LineWriter (shim/stdio.hpp) against a pipe that fills up: lines written in one turn go out
// at once when the pipe has room; when it has not, the rest follows asynchronously — every line
// arrives whole and in order, queued_bytes() comes back to 0 and on_drained runs once, after the
// last byte was written.
#include <boost/test/unit_test.hpp>

#include "pipe_pair.hpp"
#include "shim/stdio.hpp"

#include <boost/asio/io_context.hpp>

#include <signal.h>
#include <unistd.h>

#include <string>

using coffer::test::PipePair;

BOOST_AUTO_TEST_SUITE(line_writer)

BOOST_AUTO_TEST_CASE(lines_of_one_turn_go_out_together_and_nothing_is_left_queued) {
    boost::asio::io_context io;
    PipePair p;
    coffer::shim::LineWriter out(io, p.w, [](const std::string& why) { BOOST_FAIL("write failed: " << why); });
    out.write("{\"id\":1}");
    out.write("{\"id\":2}");
    int drained = 0;
    out.on_drained([&] { ++drained; });
    BOOST_TEST(drained == 0);  // written at the end of the turn, not inside write()
    io.poll();
    BOOST_TEST(p.read_some() == "{\"id\":1}\n{\"id\":2}\n");
    BOOST_TEST(drained == 1);
    BOOST_TEST(out.idle());
    BOOST_TEST(out.queued_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(a_full_pipe_gets_the_rest_later_whole_and_in_order) {
    boost::asio::io_context io;
    PipePair p;
    coffer::shim::LineWriter out(io, p.w, [](const std::string& why) { BOOST_FAIL("write failed: " << why); });
    std::string expected;
    for (int i = 0; i < 400; ++i) {  // ~400 KiB: several times what the pipe holds
        std::string line = "{\"id\":" + std::to_string(i) + ",\"pad\":\"" + std::string(1000, 'a' + i % 26) + "\"}";
        expected += line + "\n";
        out.write(line);
    }
    int drained = 0;
    out.on_drained([&] { ++drained; });
    std::string got;
    for (int spins = 0; got.size() < expected.size() && spins < 100000; ++spins) {
        io.poll();
        io.restart();
        got += p.read_some();
        if (got.size() < expected.size()) BOOST_TEST(drained == 0);
    }
    io.poll();
    BOOST_TEST(got.size() == expected.size());
    BOOST_TEST((got == expected));
    BOOST_TEST(drained == 1);
    BOOST_TEST(out.queued_bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(a_reader_that_went_away_is_reported_once) {
    ::signal(SIGPIPE, SIG_IGN);  // as the shim's main does
    boost::asio::io_context io;
    PipePair p;
    int failures = 0;
    p.close_reader();
    coffer::shim::LineWriter out(io, p.w, [&](const std::string&) { ++failures; });
    out.write("{\"id\":1}");
    out.write("{\"id\":2}");
    io.poll();
    BOOST_TEST(failures == 1);
}

BOOST_AUTO_TEST_SUITE_END()
