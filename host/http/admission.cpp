// Connection admission: eviction order, accept back-off, accept errors (see admission.hpp).
#include "http/admission.hpp"

#include <algorithm>
#include <cerrno>

namespace coffer::http {

bool Admission::evict_one() {
    for (auto* o : seats_) {
        if (o->busy()) continue;
        o->evict();  // erases its seat: stop iterating
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
