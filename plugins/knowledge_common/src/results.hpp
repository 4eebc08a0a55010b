// Search answers as the surfaces show them: the JSON every surface shares (kind action, instance
// action, CLI --json, MCP structuredContent) —
//   {"results":[{"kb","path","heading","lines":[from,to],"score","engine","snippet"}…],"degraded":bool}
// ("degraded_reason" is added when degraded) — and a compact text for agents.
#pragma once

#include "retrieval/types.hpp"

#include <boost/json.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace coffer::knowledge {

namespace json = boost::json;

// What a hit's "kb" field says: by default its collection (the knowledge base's name, or the
// memory scope).
using HitLabel = std::function<std::string(const retrieval::Hit&)>;

json::object hit_json(const retrieval::Hit& h, const HitLabel& label = {});
json::object answer_json(const retrieval::Answer& a, const HitLabel& label = {});

// Numbered hits, best first, each with its location and snippet; `show_kb` prefixes the label.
// `read_hint` is appended when there are hits (how to open one).
std::string answer_text(const retrieval::Answer& a, std::string_view query, bool show_kb, const HitLabel& label = {},
                        std::string_view read_hint = {});

}  // namespace coffer::knowledge
