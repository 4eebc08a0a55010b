// Cryptographically secure random identifiers (tokens, uids, trace ids).
#pragma once

#include <cstddef>
#include <string>

namespace coffer::core {

std::string random_hex(std::size_t bytes);  // 2*bytes hex characters from getrandom()
// 16 hex characters for a request's trace id: getrandom() bytes too, but drawn from a per-thread
// pool refilled 256 bytes at a time (one system call per 32 requests, not one per request).
// Not for secrets: use random_hex for those.
std::string trace_id();
std::string new_uid();                      // UUID v4 text
bool constant_time_equal(const std::string& a, const std::string& b);

}  // namespace coffer::core
