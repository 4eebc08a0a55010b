// Tool definitions of a memory resource (see tool_specs.hpp).
#include "tool_specs.hpp"

#include "fact.hpp"

#include "tool_args.hpp"

namespace coffer::plugins::memory {

namespace json = boost::json;

namespace {

json::object prop(const char* type, const char* description) {
    return json::object{{"type", type}, {"description", description}};
}

json::object remember_tool() {
    auto fact = prop("string", "The fact, self-contained: it will be read later without this conversation "
                               "(e.g. \"The integration tests need COFFER_BIN_DIR set to build/bin\").");
    fact["maxLength"] = static_cast<std::int64_t>(kMaxFactBytes);
    auto scope = prop("string", "project (default): only sessions in this project (the git repository of your "
                                "working directory) recall it; global: every session does (user preferences, "
                                "facts about the machine).");
    scope["enum"] = json::array{"project", "global"};
    auto tags = prop("array", "Optional labels, 1-32 of letters, digits, '.', '_', '-'; at most 10.");
    tags["items"] = json::object{{"type", "string"}, {"pattern", "^[A-Za-z0-9._-]{1,32}$"}};
    tags["maxItems"] = static_cast<std::int64_t>(kMaxTags);
    return json::object{
        {"name", "remember"},
        {"title", "Remember a fact"},
        {"description", "Store one fact in long-term memory, to be found later with recall, in this or a later "
                        "session. One fact per call, stated so it makes sense on its own. Returns the fact's id "
                        "(forget takes it)."},
        {"inputSchema", json::object{{"type", "object"},
                                     {"properties", json::object{{"fact", fact}, {"scope", scope}, {"tags", tags}}},
                                     {"required", json::array{"fact"}},
                                     {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", false}, {"destructiveHint", false}, {"openWorldHint", false}}}};
}

json::object recall_tool() {
    auto query = prop("string", "What you want to know, as a question or keywords.");
    query["maxLength"] = static_cast<std::int64_t>(knowledge::kMaxQueryBytes);
    auto top_k = prop("integer", "How many facts, best first (default 10).");
    top_k["minimum"] = 1;
    top_k["maximum"] = knowledge::kMaxTopK;
    auto mode = prop("string", "keyword (default), grep (exact text), vector or hybrid (by meaning, when "
                               "embeddings are configured; otherwise keyword, marked degraded).");
    mode["enum"] = json::array{"keyword", "grep", "vector", "hybrid"};
    return json::object{
        {"name", "recall"},
        {"title", "Recall facts"},
        {"description", "Search long-term memory: the facts remembered for this project and the global ones. Use it "
                        "at the start of a task and whenever earlier decisions, preferences or findings may matter. "
                        "Each result shows the fact, its scope and its id."},
        {"inputSchema", json::object{{"type", "object"},
                                     {"properties", json::object{{"query", query}, {"top_k", top_k}, {"mode", mode}}},
                                     {"required", json::array{"query"}},
                                     {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", true}, {"openWorldHint", false}}}};
}

json::object forget_tool() {
    return json::object{
        {"name", "forget"},
        {"title", "Forget a fact"},
        {"description", "Delete a remembered fact that is wrong or obsolete, by the id recall showed (or its file "
                        "name). Only facts of this project and global facts can be forgotten here."},
        {"inputSchema", json::object{{"type", "object"},
                                     {"properties", json::object{{"id", prop("string", "The fact's id (8 hex digits) "
                                                                                       "or its file name.")}}},
                                     {"required", json::array{"id"}},
                                     {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", true},
                                     {"openWorldHint", false}}}};
}

}  // namespace

json::array memory_tools() { return json::array{remember_tool(), recall_tool(), forget_tool()}; }

}  // namespace coffer::plugins::memory
