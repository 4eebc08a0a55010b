// The MCP tools of one knowledge base, as tools/list shows them: search, read, list, and write
// when the knowledge base is writable. Names are short (the gateway prefixes "<kb>__");
// descriptions tell an agent when to use each and what comes back.
#pragma once

#include "kb_spec.hpp"

#include <boost/json.hpp>

namespace coffer::plugins::knowledge_base {

boost::json::array kb_tools(const KbSpec& spec);

}  // namespace coffer::plugins::knowledge_base
