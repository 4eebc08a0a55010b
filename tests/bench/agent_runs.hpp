// Benchmarks: when coffer-fake-agent runs began, from its FAKE_AGENT_LOG (one JSON line per run
// with started_us, CLOCK_REALTIME µs), to time "message in → the agent's main() begins".
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace coffer::test {

inline long long now_us() {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// started_us of the last run logged (0 when none).
inline long long last_start_us(const std::filesystem::path& log) {
    std::ifstream in(log);
    std::string line, last;
    while (std::getline(in, line))
        if (!line.empty()) last = line;
    if (last.empty()) return 0;
    return boost::json::parse(last).at("started_us").as_int64();
}

}  // namespace coffer::test
