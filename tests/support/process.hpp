// Test support: run real programs (the daemon, the CLI) as subprocesses.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace coffer::test {

struct RunResult {
    int exit_code = -1;  // -1: killed by a signal or not started
    std::string out, err;
};

// Runs `argv` with `env` added to (or, with an empty value, removed from) this environment;
// waits up to `timeout`; kills it if it overruns.
RunResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env = {},
              std::chrono::milliseconds timeout = std::chrono::seconds(30), const std::string& stdin_data = "");

// Starts a process in the background with stdout/stderr sent to files; returns its pid, or -1
// when it could not be started.
[[nodiscard]] pid_t spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                          const std::filesystem::path& log_file);
// A child with its stdin and stdout on pipes (the parent's ends, close-on-exec); pid -1 when it
// could not be started.
struct PipedChild {
    pid_t pid = -1;
    int in = -1;   // write end: the child's stdin
    int out = -1;  // read end: the child's stdout
};
// Starts `argv` (env as for run()) with stdin/stdout on pipes and stderr appended to `err_file`.
PipedChild spawn_piped(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const std::filesystem::path& err_file);

// Waits for a pid up to `timeout`; returns its exit code (-1 on a signal, -2 on time-out).
int wait_pid(pid_t pid, std::chrono::milliseconds timeout);
bool pid_alive(pid_t pid);  // coffer::process_alive (coffer/process.hpp): exists and not a zombie
// The executable `name` on PATH, or "" when there is none.
std::string find_on_path(const std::string& name);

// Paths of the build under test.
std::filesystem::path bin_dir();
std::filesystem::path test_plugin_dir();

}  // namespace coffer::test
