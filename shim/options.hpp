// Command line of coffer-mcp-shim.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace coffer::shim {

struct Options {
    std::string agent;       // --agent NAME: reported as params._meta["coffer/agent"]
    // --channel NAME (repeatable): IM channels this session listens to, as params._meta["coffer/channels"]
    // (the gateway then offers them as Claude Code channels, docs/channels.md)
    std::vector<std::string> channels;
    std::string home;        // --home DIR: the vault (else $COFFER_HOME, else ~/.coffer; main resolves it)
    bool no_spawn = false;   // --no-spawn or COFFER_NO_SPAWN: never start a daemon
    bool verbose = false;    // --verbose: progress and per-message notes on stderr
    // --transport auto|local|http (or COFFER_SHIM_TRANSPORT): auto uses the daemon's Unix-domain
    // socket when daemon.json names one and falls back to HTTP; http never uses the socket.
    enum class Transport { auto_, local, http } transport = Transport::auto_;
    std::size_t max_message = 64u * 1024 * 1024; // longer stdin lines are refused
    bool help = false;
    bool version = false;
};

// Parses argv[1..]. Throws std::invalid_argument with a message for a usage error.
Options parse_options(const std::vector<std::string>& args);

std::string usage_text();

}  // namespace coffer::shim
