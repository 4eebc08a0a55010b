// coffer::eager_io::write_now (coffer/eager_io.hpp): writes what a pipe takes at once without
// blocking or posting anything; a full pipe gives a short count and no error, a pipe whose reader
// is gone gives the error; the stream is left non-blocking.
#define BOOST_TEST_MODULE eager_io
#include <boost/test/unit_test.hpp>

#include "pipe_pair.hpp"

#include <coffer/eager_io.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/write.hpp>

#include <signal.h>
#include <unistd.h>

#include <array>
#include <string>

namespace asio = boost::asio;

using coffer::test::PipePair;

BOOST_AUTO_TEST_CASE(a_pipe_with_room_takes_everything_and_nothing_is_posted) {
    asio::io_context io;
    PipePair p;
    asio::posix::stream_descriptor out(io, ::dup(p.w));
    std::array<asio::const_buffer, 2> bufs{asio::buffer(std::string_view("one\n")), asio::buffer(std::string_view("two\n"))};
    boost::system::error_code ec;
    BOOST_TEST(coffer::eager_io::write_now(out, bufs, ec) == 8u);
    BOOST_TEST(!ec);
    BOOST_TEST(out.non_blocking());
    BOOST_TEST(io.poll() == 0u);  // no completion handler was queued
    BOOST_TEST(p.drain() == "one\ntwo\n");
}

BOOST_AUTO_TEST_CASE(a_full_pipe_gives_a_short_count_not_an_error_and_never_blocks) {
    asio::io_context io;
    PipePair p;
    asio::posix::stream_descriptor out(io, ::dup(p.w));
    std::string big(1 << 20, 'x');  // more than a pipe holds (64 KiB by default)
    boost::system::error_code ec;
    auto first = coffer::eager_io::write_now(out, asio::buffer(big), ec);
    BOOST_TEST(!ec);
    BOOST_TEST(first > 0u);
    BOOST_TEST(first < big.size());
    auto second = coffer::eager_io::write_now(out, asio::buffer(big), ec);  // the pipe is full now
    BOOST_TEST(!ec);
    BOOST_TEST(second == 0u);
    // The rest goes through async_write once the reader makes room: every byte arrives, in order.
    std::string got;
    bool done = false;
    asio::async_write(out, asio::buffer(big) + first, [&](boost::system::error_code e, std::size_t) {
        BOOST_TEST(!e);
        done = true;
    });
    while (!done || got.size() < big.size()) {
        io.poll();
        auto some = p.read_some();
        got += some;
        if (done && some.empty()) break;
    }
    got += p.drain();
    BOOST_TEST(got.size() == big.size());
    BOOST_TEST((got == big));
}

BOOST_AUTO_TEST_CASE(a_pipe_without_a_reader_is_an_error) {
    ::signal(SIGPIPE, SIG_IGN);
    asio::io_context io;
    PipePair p;
    p.close_reader();
    asio::posix::stream_descriptor out(io, ::dup(p.w));
    boost::system::error_code ec;
    BOOST_TEST(coffer::eager_io::write_now(out, asio::buffer(std::string_view("lost\n")), ec) == 0u);
    BOOST_TEST(ec == asio::error::broken_pipe);
}
