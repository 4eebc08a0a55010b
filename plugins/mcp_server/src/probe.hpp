// The `test` and `tools` actions: one throw-away connection (outside any session and outside
// the backoff), initialize, list, close. Blocking: they run on the daemon's service thread and
// wait at most about timeout_ms.
#pragma once

#include "upstream.hpp"

#include <boost/json.hpp>

namespace coffer::mcp_server {

struct ProbeOptions {
    bool resources_and_prompts = true;  // false: tools only
};

struct ProbeResult {
    bool ok = false;
    std::string error;
    bool runner_missing = false;
    std::string protocol_version;
    json::value server_info = nullptr;
    json::array tools, resources, prompts;  // the upstream's own items, every page
    long long duration_ms = 0;
};

// Connects with `up`'s current config, lists, disconnects; updates `up`'s health with the outcome.
ProbeResult probe(const std::shared_ptr<Upstream>& up, ProbeOptions opts);

}  // namespace coffer::mcp_server
