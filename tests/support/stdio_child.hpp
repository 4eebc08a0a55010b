// Test support: a child speaking newline-delimited JSON on stdio (coffer-mcp-shim, an MCP
// server), driven line by line: send a line, read the next one with a deadline, wait for the
// response to an id, write until the child stops taking input.
#pragma once

#include "process.hpp"

#include <boost/json/value.hpp>

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace coffer::test {

class StdioChild {
public:
    // Starts `argv` (env as for run()) with stderr appended to `err_file`; throws when it cannot.
    StdioChild(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const std::filesystem::path& err_file);
    ~StdioChild();  // closes stdin, waits 3 s, then kills
    StdioChild(const StdioChild&) = delete;
    StdioChild& operator=(const StdioChild&) = delete;

    void send(const std::string& line);  // `line` and a newline; throws when the pipe is gone
    void close_stdin();
    // Writes `data` without blocking until the child has taken nothing for `stall`; returns how
    // many bytes it took.
    std::size_t send_until_stalled(const std::string& data, std::chrono::milliseconds stall);
    int stdin_fd() const { return in_; }

    // The next stdout line, or nullopt after `timeout` (or at end of output).
    std::optional<std::string> line(std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));
    // Lines until one is a response with this id (the others are kept in `seen`); throws on a line
    // that is not a JSON object.
    std::optional<boost::json::value> response(int id, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000),
                                               std::vector<boost::json::value>* seen = nullptr);

    // Its exit code (-1 on a signal, -2 while it still runs after `timeout`).
    int wait(std::chrono::milliseconds timeout);
    pid_t pid() const { return pid_; }
    bool eof() const { return eof_; }

private:
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    std::string buf_;
    bool eof_ = false;
    int exit_ = -1;
};

}  // namespace coffer::test
