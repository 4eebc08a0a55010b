// The gateway's name for the namespacing rules (`<server>__<name>`, `coffer://<server>/<uri>`),
// which live in the SDK (sdk/include/coffer/mcp_names.hpp) because the mcp_server plugin checks
// names with the same rules.
#pragma once

#include <coffer/mcp_names.hpp>

namespace coffer::mcp {
namespace names = ::coffer::mcp_names;
}  // namespace coffer::mcp
