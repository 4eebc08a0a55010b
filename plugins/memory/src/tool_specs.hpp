// The MCP tools of a memory resource, as tools/list shows them: remember, recall, forget.
#pragma once

#include <boost/json.hpp>

namespace coffer::plugins::memory {

boost::json::array memory_tools();

}  // namespace coffer::plugins::memory
