#include "core/clock.hpp"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace coffer::core {

std::int64_t now_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string iso_time(std::int64_t epoch_ms) {
    std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(epoch_ms % 1000));
    return buf;
}

}  // namespace coffer::core
