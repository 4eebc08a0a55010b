// The event bus: fan-out to every subscriber of a topic, one wake per batch, a bounded queue per
// subscriber with a gap marker instead of blocking, unsubscribe; and the conversation ring's
// replay rules for Last-Event-ID.
#define BOOST_TEST_MODULE unit_events_bus
#include <boost/test/unit_test.hpp>

#include "chat/ring.hpp"
#include "events/bus.hpp"

#include <atomic>
#include <thread>

using namespace coffer;

namespace {
std::shared_ptr<const events::Message> msg(std::string type) {
    auto m = std::make_shared<events::Message>();
    m->type = std::move(type);
    m->json = R"({"type":")" + m->type + R"("})";
    return m;
}
}  // namespace

BOOST_AUTO_TEST_CASE(fan_out_and_one_wake_per_batch) {
    events::Bus bus;
    int wakes_a = 0, wakes_b = 0;
    auto a = bus.subscribe("t", [&] { ++wakes_a; });
    auto b = bus.subscribe("t", [&] { ++wakes_b; });
    auto other = bus.subscribe("u", [] {});
    BOOST_TEST(bus.publish("t", msg("x"), 1) == 2u);
    BOOST_TEST(bus.publish("t", msg("y"), 2) == 2u);
    BOOST_TEST(wakes_a == 1);  // woken once until it takes
    auto batch = a->take();
    BOOST_TEST(batch.missed == 0u);
    BOOST_REQUIRE(batch.events.size() == 2u);
    BOOST_TEST(batch.events[0].id == 1u);
    BOOST_TEST(batch.events[1].message->type == "y");
    BOOST_TEST(batch.events[0].message == b->take().events[0].message);  // shared, not copied
    bus.publish("t", msg("z"), 3);
    BOOST_TEST(wakes_a == 2);
    BOOST_TEST(other->queued() == 0u);
    BOOST_TEST(bus.publish("nobody", msg("x")) == 0u);
}

BOOST_AUTO_TEST_CASE(a_slow_subscriber_gets_a_gap_and_blocks_no_one) {
    events::Bus bus(4);
    auto slow = bus.subscribe("t", [] {});
    auto fast = bus.subscribe("t", [] {}, 100);
    for (std::uint64_t i = 1; i <= 10; ++i) bus.publish("t", msg("e"), i);
    auto b = slow->take();
    BOOST_TEST(b.missed > 0u);
    BOOST_TEST(b.missed + b.events.size() == 10u);
    BOOST_TEST(b.events.back().id == 10u);  // what comes after the gap is the newest
    BOOST_TEST(fast->take().events.size() == 10u);
    BOOST_TEST(slow->missed_total() == b.missed);
}

BOOST_AUTO_TEST_CASE(unsubscribed_gets_nothing_and_publishing_from_threads_is_safe) {
    events::Bus bus;
    std::atomic<int> seen{0};
    std::shared_ptr<events::Subscription> s;
    // Room for every event: under load the waking publisher can be descheduled while the others
    // fill a smaller queue, and the subscriber would then (rightly) get a gap instead.
    s = bus.subscribe("t", [&] { seen += static_cast<int>(s->take().events.size()); }, 4000);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 1000; ++i) bus.publish("t", msg("e"));
        });
    for (auto& t : threads) t.join();
    seen += static_cast<int>(s->take().events.size());
    BOOST_TEST(seen.load() == 4000);
    bus.unsubscribe(s);
    BOOST_TEST(bus.subscribers("t") == 0u);
    BOOST_TEST(bus.publish("t", msg("e")) == 0u);
}

BOOST_AUTO_TEST_CASE(ring_replay_after_an_id) {
    chat::Ring ring(3);
    for (std::uint64_t i = 5; i <= 8; ++i) ring.push(events::Event{i, msg("e")});  // 5 fell out
    auto all = ring.after(std::nullopt, 8);
    BOOST_TEST(!all.resync);
    BOOST_TEST(all.events.size() == 3u);
    auto after6 = ring.after(6, 8);
    BOOST_TEST(!after6.resync);
    BOOST_REQUIRE(after6.events.size() == 2u);
    BOOST_TEST(after6.events[0].id == 7u);
    BOOST_TEST(ring.after(5, 8).events.size() == 3u);  // 5 was the last seen: 6,7,8 follow, nothing lost
    BOOST_TEST(ring.after(4, 8).resync);               // 5 is gone
    BOOST_TEST(ring.after(99, 8).resync);              // an id from another daemon run
    BOOST_TEST(ring.after(8, 8).events.empty());
}
