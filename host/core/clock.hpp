// Wall-clock helpers: ISO-8601 UTC timestamps with milliseconds.
#pragma once

#include <cstdint>
#include <string>

namespace coffer::core {

std::int64_t now_ms();                       // milliseconds since the Unix epoch
std::string iso_time(std::int64_t epoch_ms);  // 2026-11-30T10:00:00.123Z
inline std::string now_iso() { return iso_time(now_ms()); }

}  // namespace coffer::core
