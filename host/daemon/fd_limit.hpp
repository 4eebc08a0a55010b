// The open-file limit at start-up: the soft RLIMIT_NOFILE raised to the hard one (at most 65536),
// so connections, upstream pipes and the store do not run out of descriptors at the default 1024.
#pragma once

#include <cstdint>
#include <string>

namespace coffer::daemon {

struct FdLimit {
    std::uint64_t before = 0;  // soft limit found
    std::uint64_t soft = 0;    // soft limit now
    std::uint64_t hard = 0;    // hard limit (UINT64_MAX: unlimited)
    std::string error;         // why it could not be read or raised; empty on success
};

inline constexpr std::uint64_t kMaxSoftFdLimit = 65536;

// Raises the soft limit towards min(hard, `cap`); never lowers it.
FdLimit raise_fd_limit(std::uint64_t cap = kMaxSoftFdLimit);

}  // namespace coffer::daemon
