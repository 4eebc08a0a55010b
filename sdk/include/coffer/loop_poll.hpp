// What loop_watch (ABI 1.9) reports, as poll(2) sees it: the one mapping between the conditions a
// watch asks for (COFFER_LOOP_READABLE / _WRITABLE) and poll's revents, used by the host's loop
// and by coffer/testing.hpp's fake one. Header-only.
#pragma once

#include <coffer/abi.h>

#include <poll.h>

#include <cstdint>

namespace coffer::loop_poll {

// Looks once, without waiting: the conditions of `asked` that hold on `fd` now, plus
// COFFER_LOOP_ERROR for a hang-up or an error (a hang-up also reads as readable: reading gives the
// end of file). 0 when nothing holds.
inline std::uint32_t look(int fd, std::uint32_t asked) {
    pollfd p{fd, 0, 0};
    if (asked & COFFER_LOOP_READABLE) p.events |= POLLIN;
    if (asked & COFFER_LOOP_WRITABLE) p.events |= POLLOUT;
    if (::poll(&p, 1, 0) <= 0) return 0;
    std::uint32_t now = 0;
    if (p.revents & (POLLIN | POLLHUP)) now |= asked & COFFER_LOOP_READABLE;
    if (p.revents & POLLOUT) now |= COFFER_LOOP_WRITABLE;
    if (p.revents & (POLLERR | POLLHUP | POLLNVAL)) now |= COFFER_LOOP_ERROR;
    return now;
}

}  // namespace coffer::loop_poll
