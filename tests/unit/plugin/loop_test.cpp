// The loop the host lends plugins (ABI 1.9, host/plugin/loop.hpp): level-triggered watches,
// one-shot timers, ordered deferred calls, and the cancel guarantee a plugin relies on to free its
// context or be unloaded — after cancel() returns, the callback is not running and never runs.
#include <boost/test/unit_test.hpp>

#include "plugin/loop.hpp"

#include <boost/asio/executor_work_guard.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace coffer::plugin;
using namespace std::chrono_literals;

namespace {

// A network thread of its own, like the daemon's.
struct Running {
    boost::asio::io_context io{1};
    boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work{io.get_executor()};
    Loop loop{io};
    std::thread thread{[this] { io.run(); }};
    ~Running() {
        work.reset();
        io.stop();
        thread.join();
    }
};

struct Pipe {
    int r = -1, w = -1;
    Pipe() {
        int fds[2];
        BOOST_REQUIRE(::pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0);
        r = fds[0];
        w = fds[1];
    }
    ~Pipe() {
        if (r >= 0) ::close(r);
        if (w >= 0) ::close(w);
    }
    void put(std::string_view s) const { BOOST_REQUIRE(::write(w, s.data(), s.size()) == static_cast<ssize_t>(s.size())); }
};

template <typename Pred> bool eventually(Pred p, std::chrono::milliseconds limit = 3000ms) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (p()) return true;
        std::this_thread::sleep_for(1ms);
    }
    return p();
}

// Reads one byte per call, so only level-triggered delivery empties the pipe.
struct OneByteReader {
    int fd = -1;
    std::atomic<int> calls{0};
    std::atomic<int> bytes{0};
    std::atomic<bool> in_loop_seen{true};
    Loop* loop = nullptr;
    static void ready(void* ctx, std::uint32_t events) {
        auto* self = static_cast<OneByteReader*>(ctx);
        ++self->calls;
        if (!self->loop->in_loop()) self->in_loop_seen = false;
        if (!(events & COFFER_LOOP_READABLE)) return;
        char c;
        if (::read(self->fd, &c, 1) == 1) ++self->bytes;
    }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_watch_is_level_triggered_and_runs_on_the_loop_thread) {
    Running rt;
    Pipe p;
    OneByteReader reader;
    reader.fd = p.r;
    reader.loop = &rt.loop;
    p.put("abc");  // already readable before the watch: must still be reported
    std::uint64_t id = 0;
    BOOST_REQUIRE(rt.loop.watch("p", p.r, COFFER_LOOP_READABLE, &OneByteReader::ready, &reader, &id) == COFFER_OK);
    BOOST_TEST(id != 0u);
    BOOST_TEST(eventually([&] { return reader.bytes == 3; }));
    p.put("de");
    BOOST_TEST(eventually([&] { return reader.bytes == 5; }));
    BOOST_TEST(reader.in_loop_seen.load());
    BOOST_TEST(!rt.loop.in_loop());
    BOOST_TEST(rt.loop.cancel("p", id) == COFFER_OK);
    int calls = reader.calls;
    p.put("f");
    std::this_thread::sleep_for(50ms);
    BOOST_TEST(reader.calls == calls);  // cancelled: never called again
    BOOST_TEST(rt.loop.cancel("p", id) == COFFER_E_NOT_FOUND);
}

BOOST_AUTO_TEST_CASE(the_plugin_may_close_its_descriptor_the_host_watches_a_duplicate) {
    Running rt;
    Pipe p;
    OneByteReader reader;
    reader.loop = &rt.loop;
    std::uint64_t id = 0;
    BOOST_REQUIRE(rt.loop.watch("p", p.r, COFFER_LOOP_READABLE, &OneByteReader::ready, &reader, &id) == COFFER_OK);
    ::close(p.r);
    p.r = -1;
    p.put("x");  // the read end is still open through the host's duplicate: no EPIPE
    BOOST_TEST(eventually([&] { return reader.calls > 0; }));
    BOOST_TEST(rt.loop.cancel("p", id) == COFFER_OK);
}

BOOST_AUTO_TEST_CASE(a_writable_watch_and_a_hang_up) {
    Running rt;
    Pipe p;
    struct Seen {
        std::atomic<std::uint32_t> events{0};
        std::atomic<int> calls{0};
        Loop* loop = nullptr;
        std::uint64_t id = 0;
        static void ready(void* ctx, std::uint32_t ev) {
            auto* s = static_cast<Seen*>(ctx);
            s->events |= ev;
            ++s->calls;
            if (ev & COFFER_LOOP_ERROR) (void)s->loop->cancel("p", s->id);  // from inside the callback
        }
    };
    Seen w;
    w.loop = &rt.loop;
    BOOST_REQUIRE(rt.loop.watch("p", p.w, COFFER_LOOP_WRITABLE, &Seen::ready, &w, &w.id) == COFFER_OK);
    BOOST_TEST(eventually([&] { return (w.events & COFFER_LOOP_WRITABLE) != 0; }));
    BOOST_TEST(rt.loop.cancel("p", w.id) == COFFER_OK);

    Seen r;
    r.loop = &rt.loop;
    BOOST_REQUIRE(rt.loop.watch("p", p.r, COFFER_LOOP_READABLE, &Seen::ready, &r, &r.id) == COFFER_OK);
    ::close(p.w);
    p.w = -1;
    BOOST_TEST(eventually([&] { return (r.events & COFFER_LOOP_ERROR) != 0; }));
    BOOST_TEST((r.events & COFFER_LOOP_READABLE) != 0);  // reading now gives the end of file
    int calls = r.calls;
    std::this_thread::sleep_for(30ms);
    BOOST_TEST(r.calls == calls);  // it cancelled itself: the hang-up is not reported forever
    BOOST_TEST(rt.loop.live() == 0u);
}

BOOST_AUTO_TEST_CASE(cancel_waits_for_a_callback_running_on_the_loop) {
    Running rt;
    struct Slow {
        std::atomic<bool> started{false};
        std::atomic<bool> finished{false};
        std::atomic<int> calls{0};
        static void fire(void* ctx) {
            auto* s = static_cast<Slow*>(ctx);
            ++s->calls;
            s->started = true;
            std::this_thread::sleep_for(150ms);
            s->finished = true;
        }
    };
    Slow slow;
    Pipe p;
    p.put("x");
    std::uint64_t id = 0;
    // A watch whose callback takes long and never drains: it would run again and again.
    BOOST_REQUIRE(rt.loop.watch("p", p.r, COFFER_LOOP_READABLE,
                                [](void* ctx, std::uint32_t) { Slow::fire(ctx); }, &slow, &id) == COFFER_OK);
    BOOST_REQUIRE(eventually([&] { return slow.started.load(); }));
    BOOST_TEST(rt.loop.cancel("p", id) == COFFER_OK);
    BOOST_TEST(slow.finished.load());  // cancel returned only after the running call ended
    int calls = slow.calls;
    std::this_thread::sleep_for(200ms);
    BOOST_TEST(slow.calls == calls);
}

BOOST_AUTO_TEST_CASE(timers_fire_once_and_a_cancelled_one_never) {
    Running rt;
    std::atomic<int> a{0}, b{0};
    auto bump = [](void* ctx) { ++*static_cast<std::atomic<int>*>(ctx); };
    std::uint64_t ida = 0, idb = 0;
    auto t0 = std::chrono::steady_clock::now();
    BOOST_REQUIRE(rt.loop.timer("p", 20, bump, &a, &ida) == COFFER_OK);
    BOOST_REQUIRE(rt.loop.timer("p", 80, bump, &b, &idb) == COFFER_OK);
    BOOST_TEST(rt.loop.cancel("p", idb) == COFFER_OK);
    BOOST_TEST(eventually([&] { return a == 1; }));
    BOOST_TEST((std::chrono::steady_clock::now() - t0 >= 20ms));
    std::this_thread::sleep_for(150ms);
    BOOST_TEST(a == 1);
    BOOST_TEST(b == 0);
    BOOST_TEST(rt.loop.cancel("p", ida) == COFFER_E_NOT_FOUND);  // spent
    BOOST_TEST(rt.loop.live() == 0u);
}

BOOST_AUTO_TEST_CASE(deferred_calls_run_in_order_on_the_loop) {
    Running rt;
    struct Log {
        std::mutex mu;
        std::vector<int> order;
        Loop* loop = nullptr;
        bool all_in_loop = true;
    };
    Log log;
    log.loop = &rt.loop;
    struct Item {
        Log* log;
        int n;
    };
    std::vector<Item> items;
    for (int i = 0; i < 200; ++i) items.push_back({&log, i});
    auto fire = [](void* ctx) {
        auto* it = static_cast<Item*>(ctx);
        std::lock_guard<std::mutex> g(it->log->mu);
        it->log->order.push_back(it->n);
        if (!it->log->loop->in_loop()) it->log->all_in_loop = false;
    };
    std::uint64_t cancelled = 0;
    for (auto& it : items) {
        std::uint64_t* id = it.n == 150 ? &cancelled : nullptr;
        BOOST_REQUIRE(rt.loop.defer("p", fire, &it, id) == COFFER_OK);
    }
    (void)rt.loop.cancel("p", cancelled);  // may have run already; if not, it never does
    BOOST_TEST(eventually([&] {
        std::lock_guard<std::mutex> g(log.mu);
        return log.order.size() >= 199;
    }));
    std::this_thread::sleep_for(20ms);
    std::lock_guard<std::mutex> g(log.mu);
    BOOST_TEST(log.all_in_loop);
    BOOST_TEST(std::is_sorted(log.order.begin(), log.order.end()));
    BOOST_TEST(log.order.size() <= 200u);
}

BOOST_AUTO_TEST_CASE(forget_ends_one_plugins_registrations_only) {
    Running rt;
    std::atomic<int> mine{0}, other{0};
    auto bump = [](void* ctx) { ++*static_cast<std::atomic<int>*>(ctx); };
    BOOST_REQUIRE(rt.loop.timer("gone", 40, bump, &mine, nullptr) == COFFER_OK);
    std::uint64_t id = 0;
    BOOST_REQUIRE(rt.loop.timer("stays", 40, bump, &other, &id) == COFFER_OK);
    BOOST_TEST(rt.loop.cancel("gone", id) == COFFER_E_NOT_FOUND);  // not its own
    rt.loop.forget("gone");
    BOOST_TEST(eventually([&] { return other == 1; }));
    std::this_thread::sleep_for(60ms);
    BOOST_TEST(mine == 0);
}

BOOST_AUTO_TEST_CASE(bad_registrations_are_refused) {
    Running rt;
    auto ready = [](void*, std::uint32_t) {};
    std::uint64_t id = 0;
    BOOST_TEST(rt.loop.watch("p", -1, COFFER_LOOP_READABLE, ready, nullptr, &id) == COFFER_E_INVALID);
    Pipe p;
    BOOST_TEST(rt.loop.watch("p", p.r, 0, ready, nullptr, &id) == COFFER_E_INVALID);
    BOOST_TEST(rt.loop.watch("p", p.r, COFFER_LOOP_ERROR, ready, nullptr, &id) == COFFER_E_INVALID);
    BOOST_TEST(rt.loop.watch("p", p.r, COFFER_LOOP_READABLE, nullptr, nullptr, &id) == COFFER_E_INVALID);
    int closed = ::dup(p.r);
    ::close(closed);
    BOOST_TEST(rt.loop.watch("p", closed, COFFER_LOOP_READABLE, ready, nullptr, &id) == COFFER_E_INVALID);
    BOOST_TEST(rt.loop.timer("p", 1, nullptr, nullptr, &id) == COFFER_E_INVALID);
    BOOST_TEST(rt.loop.defer("p", nullptr, nullptr, &id) == COFFER_E_INVALID);
    BOOST_TEST(rt.loop.cancel("p", 0) == COFFER_E_NOT_FOUND);
    BOOST_TEST(rt.loop.cancel("p", 987654) == COFFER_E_NOT_FOUND);
    BOOST_TEST(rt.loop.live() == 0u);
}
