// coffer::Handoff (coffer/handoff.hpp): functions posted from other threads run on the thread that
// runs the io_context, each exactly once, in posting order per poster; after close() they are
// dropped and post() says so; a Sender may outlive its Handoff.
#define BOOST_TEST_MODULE handoff
#include <boost/test/unit_test.hpp>

#include "eventually.hpp"

#include <coffer/handoff.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace asio = boost::asio;

namespace {
// Runs `io` on a thread of its own until stop().
struct Loop {
    asio::io_context io{1};
    asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
    std::thread thread{[this] { io.run(); }};
    void stop() {
        io.stop();
        if (thread.joinable()) thread.join();
    }
    ~Loop() { stop(); }
};

bool wait_for(const std::function<bool()>& fn) {
    return coffer::test::eventually(fn, std::chrono::seconds(10), std::chrono::milliseconds(1));
}
}  // namespace

BOOST_AUTO_TEST_CASE(runs_on_the_loop_thread_in_order) {
    Loop loop;
    coffer::Handoff handoff(loop.io);
    std::vector<int> seen;  // touched only on the loop thread
    std::atomic<int> done{0};
    std::atomic<bool> wrong_thread{false};
    auto loop_id = loop.thread.get_id();
    for (int i = 0; i < 1000; ++i)
        BOOST_TEST(handoff.post([&, i] {
            if (std::this_thread::get_id() != loop_id) wrong_thread = true;
            seen.push_back(i);
            ++done;
        }));
    BOOST_REQUIRE(wait_for([&] { return done.load() == 1000; }));
    BOOST_TEST(!wrong_thread.load());
    loop.stop();
    for (int i = 0; i < 1000; ++i) BOOST_TEST(seen[static_cast<std::size_t>(i)] == i);
}

BOOST_AUTO_TEST_CASE(many_posters_each_function_once_in_each_posters_order) {
    Loop loop;
    coffer::Handoff handoff(loop.io);
    constexpr int kThreads = 8, kEach = 2000;
    std::vector<std::vector<int>> seen(kThreads);  // loop thread only
    std::atomic<int> done{0};
    std::vector<std::thread> posters;
    for (int t = 0; t < kThreads; ++t)
        posters.emplace_back([&, t, sender = handoff.sender()] {
            for (int i = 0; i < kEach; ++i)
                sender.post([&, t, i] {
                    seen[static_cast<std::size_t>(t)].push_back(i);
                    ++done;
                });
        });
    for (auto& p : posters) p.join();
    BOOST_REQUIRE(wait_for([&] { return done.load() == kThreads * kEach; }));
    loop.stop();
    for (auto& s : seen) {
        BOOST_REQUIRE(s.size() == static_cast<std::size_t>(kEach));
        for (int i = 0; i < kEach; ++i) BOOST_TEST(s[static_cast<std::size_t>(i)] == i);
    }
}

BOOST_AUTO_TEST_CASE(closed_drops_and_says_so) {
    Loop loop;
    auto handoff = std::make_unique<coffer::Handoff>(loop.io);
    auto sender = handoff->sender();
    std::atomic<int> ran{0};
    BOOST_TEST(sender.post([&] { ++ran; }));
    BOOST_REQUIRE(wait_for([&] { return ran.load() == 1; }));
    loop.stop();  // closed once the loop has ended, as its owners do
    handoff.reset();
    // The sender outlives it: posting is refused, the function is destroyed without running.
    auto token = std::make_shared<int>(7);
    std::weak_ptr<int> watch = token;
    BOOST_TEST(!sender.post([&ran, token] { ++ran; }));
    token.reset();
    BOOST_TEST(watch.expired());
    BOOST_TEST(ran.load() == 1);
    BOOST_TEST(!coffer::Handoff::Sender().post([] {}));  // an empty sender refuses too
}

BOOST_AUTO_TEST_CASE(knows_the_target_thread) {
    Loop loop;
    coffer::Handoff handoff(loop.io);
    auto sender = handoff.sender();
    BOOST_TEST(!sender.on_target_thread());
    std::atomic<int> answer{-1};
    sender.post([&] { answer = sender.on_target_thread() ? 1 : 0; });
    BOOST_REQUIRE(wait_for([&] { return answer.load() >= 0; }));
    BOOST_TEST(answer.load() == 1);
}
