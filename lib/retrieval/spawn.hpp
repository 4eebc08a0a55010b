// Running a helper program (ripgrep) safely: argv only (posix_spawnp, never a shell), stdin from
// /dev/null, stdout read line by line with a deadline and a byte budget, stderr kept (bounded)
// for the error message. The caller can stop early; the child is then killed and reaped.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::retrieval {

struct SpawnResult {
    int exit_code = -1;       // -1 when killed (timeout, budget, or stopped by the caller)
    bool timed_out = false;
    bool truncated = false;   // the byte budget ran out
    std::string stderr_text;  // the first few KB
};

// `on_line` gets each stdout line without its '\n' and returns false to stop. Throws
// Error(unavailable) when the program cannot be started (not installed).
SpawnResult spawn_lines(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                        std::size_t max_stdout_bytes, const std::function<bool(std::string_view)>& on_line);

}  // namespace coffer::retrieval
