// Connection admission (host/http/admission.hpp): which connection makes room, the accept
// back-off, and how accept() errors are treated.
#include <boost/test/unit_test.hpp>

#include "http/admission.hpp"

#include <cerrno>
#include <memory>
#include <thread>
#include <vector>

using namespace coffer::http;
using std::chrono::milliseconds;

namespace {
struct Conn : Occupant {
    Admission& a;
    Admission::Seat seat;
    bool in_flight = false, closed = false;
    explicit Conn(Admission& adm) : a(adm), seat(adm.enter(*this)) {}
    bool busy() const override { return in_flight; }
    void evict() override {
        closed = true;
        a.leave(seat);
    }
};
}  // namespace

BOOST_AUTO_TEST_SUITE(admission)

BOOST_AUTO_TEST_CASE(the_connection_idle_the_longest_makes_room) {
    Admission a(3);
    std::vector<std::unique_ptr<Conn>> c;
    for (int i = 0; i < 3; ++i) c.push_back(std::make_unique<Conn>(a));
    BOOST_TEST(a.full());
    // 0 is busy (a request in flight), 1 was idle longest, 2 just finished a request.
    c[0]->in_flight = true;
    a.idle(c[1]->seat);
    a.idle(c[2]->seat);
    BOOST_TEST(a.evict_one());
    BOOST_TEST(!c[0]->closed);
    BOOST_TEST(c[1]->closed);
    BOOST_TEST(!c[2]->closed);
    BOOST_TEST(a.size() == 2u);
    BOOST_TEST(!a.full());
}

BOOST_AUTO_TEST_CASE(busy_connections_are_never_closed_for_room) {
    Admission a(2);
    Conn x(a), y(a);
    x.in_flight = y.in_flight = true;
    BOOST_TEST(!a.evict_one());
    BOOST_TEST(!x.closed);
    BOOST_TEST(!y.closed);
    y.in_flight = false;
    BOOST_TEST(a.evict_one());
    BOOST_TEST(y.closed);
}

BOOST_AUTO_TEST_CASE(a_connection_idle_too_briefly_is_not_closed_for_room) {
    Admission a(4);
    Conn old(a);
    std::this_thread::sleep_for(milliseconds(2));
    auto between = Admission::Clock::now();
    std::this_thread::sleep_for(milliseconds(2));
    Conn young(a);
    // Only what went idle before the bound may go, oldest first; then nothing more.
    BOOST_TEST(a.evict_one(between));
    BOOST_TEST(old.closed);
    BOOST_TEST(!a.evict_one(between));
    BOOST_TEST(!young.closed);
    // A busy connection going idle again counts from then.
    young.in_flight = true;
    Conn other(a);
    young.in_flight = false;
    std::this_thread::sleep_for(milliseconds(2));
    a.idle(young.seat);
    auto later = Admission::Clock::now() + milliseconds(1);
    BOOST_TEST(a.evict_one(later));
    BOOST_TEST(other.closed);
    BOOST_TEST(!young.closed);
    BOOST_TEST(a.evict_one(later));
    BOOST_TEST(young.closed);
    BOOST_TEST(!a.evict_one());
}

BOOST_AUTO_TEST_CASE(a_zero_cap_is_one) {
    Admission a(0);
    BOOST_TEST(!a.full());
    Conn x(a);
    BOOST_TEST(a.full());
}

BOOST_AUTO_TEST_CASE(backoff_doubles_to_a_second_and_resets) {
    AcceptBackoff b;
    BOOST_TEST(b.next().count() == 50);
    BOOST_TEST(b.next().count() == 100);
    BOOST_TEST(b.next().count() == 200);
    BOOST_TEST(b.next().count() == 400);
    BOOST_TEST(b.next().count() == 800);
    BOOST_TEST(b.next().count() == 1000);
    BOOST_TEST(b.next().count() == 1000);
    b.reset();
    BOOST_TEST(b.next().count() == 50);
}

BOOST_AUTO_TEST_CASE(accept_errors) {
    for (int e : {EMFILE, ENFILE, ENOBUFS, ENOMEM})
        BOOST_TEST((classify_accept_error(e) == AcceptFailure::exhausted), e);
    for (int e : {ECONNABORTED, EPROTO, EPERM, EINTR, EAGAIN})
        BOOST_TEST((classify_accept_error(e) == AcceptFailure::transient), e);
    for (int e : {EBADF, EINVAL, ENOTSOCK})
        BOOST_TEST((classify_accept_error(e) == AcceptFailure::other), e);
}

BOOST_AUTO_TEST_SUITE_END()
