// Connection admission: eviction order, accept back-off, accept errors (see admission.hpp).
#include "http/admission.hpp"

#include <algorithm>
#include <cerrno>

namespace coffer::http {

bool Admission::evict_one(Clock::time_point idle_before) {
    for (auto& place : seats_) {
        if (place.occupant->busy()) continue;
        // Idle seats are in the order they went idle: the first idle one is the oldest.
        if (place.idle_since >= idle_before) return false;
        place.occupant->evict();  // erases its seat: stop iterating
        return true;
    }
    return false;
}

std::chrono::milliseconds AcceptBackoff::next() {
    using std::chrono::milliseconds;
    delay_ = delay_.count() == 0 ? milliseconds(50) : std::min(delay_ * 2, milliseconds(1000));
    return delay_;
}

AcceptFailure classify_accept_error(int e) {
    switch (e) {
        case ECONNABORTED:
        case EPROTO:
        case EPERM:
        case EINTR:
        case EAGAIN:
            return AcceptFailure::transient;
        case EMFILE:
        case ENFILE:
        case ENOBUFS:
        case ENOMEM:
            return AcceptFailure::exhausted;
        default:
            return AcceptFailure::other;
    }
}

}  // namespace coffer::http
