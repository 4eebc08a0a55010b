// Cryptographically secure random identifiers (tokens, uids, trace ids).
#pragma once

#include <cstddef>
#include <string>

namespace coffer::core {

std::string random_hex(std::size_t bytes);  // 2*bytes hex characters from getrandom()
std::string new_uid();                      // UUID v4 text
bool constant_time_equal(const std::string& a, const std::string& b);

}  // namespace coffer::core
