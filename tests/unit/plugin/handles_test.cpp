// The ABI handle table (host/plugin/handles.hpp): late uses of retired handles are no-ops, handles
// are never reused, and retiring while other threads complete never lets one reach a freed target.
#include <boost/test/unit_test.hpp>

#include "plugin/handles.hpp"

#include <atomic>
#include <memory>
#include <set>
#include <thread>
#include <vector>

using namespace coffer::plugin;

namespace {

struct CountingCall : CallTarget {
    std::atomic<int> completions{0};
    std::atomic<bool> alive{true};
    void complete(std::string_view, std::string_view) noexcept override {
        if (!alive) std::abort();  // reached after retirement: the table broke its promise
        ++completions;
    }
};

struct CountingSession : SessionTarget {
    std::atomic<int> notes{0}, requests{0};
    coffer_status notify(coffer_call*, std::string_view) noexcept override {
        ++notes;
        return COFFER_OK;
    }
    coffer_status request(coffer_call*, std::uint64_t, std::string_view) noexcept override {
        ++requests;
        return COFFER_OK;
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(handles)

BOOST_AUTO_TEST_CASE(a_retired_call_handle_is_ignored) {
    CountingCall c;
    auto* h = register_call(&c);
    BOOST_TEST(h != nullptr);
    BOOST_TEST(complete_call(h, "{}", ""));
    BOOST_TEST(c.completions == 1);
    retire(h);
    BOOST_TEST(!complete_call(h, "{}", ""));
    BOOST_TEST(c.completions == 1);
    retire(h);  // twice: harmless
    BOOST_TEST(!complete_call(nullptr, "{}", ""));
}

BOOST_AUTO_TEST_CASE(a_retired_session_handle_answers_not_found) {
    CountingSession s;
    auto* h = register_session(&s);
    BOOST_TEST(session_notify(h, nullptr, "{}") == COFFER_OK);
    BOOST_TEST(session_request(h, nullptr, 7, "{}") == COFFER_OK);
    retire(h);
    BOOST_TEST(session_notify(h, nullptr, "{}") == COFFER_E_NOT_FOUND);
    BOOST_TEST(session_request(h, nullptr, 7, "{}") == COFFER_E_NOT_FOUND);
    BOOST_TEST(s.notes == 1);
    BOOST_TEST(s.requests == 1);
}

BOOST_AUTO_TEST_CASE(handles_are_never_reused) {
    std::set<coffer_call*> seen;
    for (int i = 0; i < 1000; ++i) {
        CountingCall c;  // same stack address every time
        auto* h = register_call(&c);
        BOOST_TEST(seen.insert(h).second);
        retire(h);
    }
}

BOOST_AUTO_TEST_CASE(retiring_while_other_threads_complete_never_reaches_a_freed_target) {
    // Each round: a target, four threads completing its handle as fast as they can, and the
    // owner retiring it then marking it dead. A completion after retire would abort.
    for (int round = 0; round < 200; ++round) {
        auto c = std::make_unique<CountingCall>();
        auto* h = register_call(c.get());
        std::atomic<bool> go{false}, stop{false};
        std::vector<std::thread> ts;
        for (int t = 0; t < 4; ++t)
            ts.emplace_back([&] {
                while (!go) std::this_thread::yield();
                while (!stop) complete_call(h, "{}", "");
                complete_call(h, "{}", "");  // certainly after retire
            });
        go = true;
        std::this_thread::yield();
        retire(h);
        c->alive = false;
        stop = true;
        for (auto& t : ts) t.join();
    }
    BOOST_TEST(live_calls() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
