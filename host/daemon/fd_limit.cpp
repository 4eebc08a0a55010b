// Raising the soft open-file limit at start-up (see fd_limit.hpp).
#include "daemon/fd_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

namespace coffer::daemon {

namespace {
std::uint64_t value(rlim_t v) {
    return v == RLIM_INFINITY ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(v);
}
}  // namespace

FdLimit raise_fd_limit(std::uint64_t cap) {
    FdLimit out;
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        out.error = std::string("getrlimit(RLIMIT_NOFILE): ") + std::strerror(errno);
        return out;
    }
    out.before = out.soft = value(lim.rlim_cur);
    out.hard = value(lim.rlim_max);
    std::uint64_t target = std::min(out.hard, cap);
    if (out.soft >= target) return out;
    lim.rlim_cur = static_cast<rlim_t>(target);
    if (::setrlimit(RLIMIT_NOFILE, &lim) != 0) {
        out.error = std::string("setrlimit(RLIMIT_NOFILE): ") + std::strerror(errno);
        return out;
    }
    out.soft = target;
    return out;
}

}  // namespace coffer::daemon
