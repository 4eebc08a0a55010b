// The gateway's name for the one raw-JSON scanner, which lives in the SDK
// (sdk/include/coffer/raw_json.hpp) because the mcp_server plugin and the shim use it too:
// results spliced into the gateway's messages byte for byte, single members rewritten in place.
#pragma once

#include <coffer/raw_json.hpp>

namespace coffer::mcp {
namespace raw = ::coffer::raw_json;
}  // namespace coffer::mcp
