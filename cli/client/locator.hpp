// Detect-or-spawn (SPEC D-5): find the vault's live daemon through daemon.json, or start one.
#pragma once

#include "client/vault.hpp"
#include "core/result.hpp"

#include <boost/json/value.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace coffer::client {

struct LiveDaemon {
    DaemonInfo info;
    boost::json::value status; // the body of GET /api/v1/daemon/status
};

struct Probe {
    enum class State {
        live,         // daemon.json present, pid alive, status answered 200
        absent,       // no daemon.json, or its pid is gone
        unresponsive, // daemon.json and a live pid, but the status call failed
    };
    State state = State::absent;
    std::optional<DaemonInfo> info; // what daemon.json said, when readable
    boost::json::value status;      // set when live
    std::string reason;             // why it is not live
};

// One look, never spawns. A 401 re-reads daemon.json once (the token may have been rotated).
Probe probe_daemon(const std::filesystem::path& vault);

struct EnsureOptions {
    bool allow_spawn = true;
    std::chrono::milliseconds ready_timeout{10000};  // wait for a spawned daemon to be live
    std::chrono::milliseconds lock_timeout{20000};   // wait for another spawner's spawn.lock
    std::function<void(const std::string&)> note;    // progress messages (verbose output)
};

struct Located {
    LiveDaemon daemon;
    bool spawned = false; // true when this call started the daemon
};

// Returns the live daemon, starting `coffer-daemon --home <vault>` when there is none (under an
// exclusive flock on <vault>/spawn.lock, re-checking after taking it, so two racing callers end
// with one daemon). Failures are DAEMON_UNREACHABLE errors whose message says why.
core::Result<Located> ensure_daemon(const std::filesystem::path& vault,
                                    const EnsureOptions& options = {});

}  // namespace coffer::client
