// $COFFER_HOME/upstream-pids/ (G-12, D-8): one file per live child a plugin started (an upstream
// MCP server), written when the plugin reports it and removed when it reports it reaped, so the
// next daemon can kill what a crashed one left behind.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace coffer::daemon {

class UpstreamPids {
public:
    explicit UpstreamPids(std::filesystem::path dir) : dir_(std::move(dir)) {}

    // Records a child (its process group, start time and command line, read from /proc now).
    bool record(const std::string& plugin, std::int64_t pid, const std::string& description) const;
    void forget(std::int64_t pid) const;

    struct Swept {
        int killed = 0;   // process groups signalled
        int removed = 0;  // files removed
    };
    // For every file: when the recorded process is still that process (same start time, or same
    // command line), or its process group lives on without a leader, kill the group (TERM, then
    // KILL after `grace_ms`); then remove the file.
    Swept sweep(int grace_ms = 1500) const;

    const std::filesystem::path& dir() const { return dir_; }

private:
    std::filesystem::path dir_;
};

}  // namespace coffer::daemon
