// Tool definitions of a knowledge base (see tool_specs.hpp).
#include "tool_specs.hpp"

#include "tool_args.hpp"

namespace coffer::plugins::knowledge_base {

namespace {

json::object prop(const char* type, const std::string& description) {
    return json::object{{"type", type}, {"description", description}};
}

std::string about(const KbSpec& s) {
    std::string text = "the knowledge base '" + s.name + "'";
    if (!s.description.empty()) text += " (" + s.description + ")";
    return text;
}

json::object search_tool(const KbSpec& s) {
    auto query = prop("string", "What to look for: a question, keywords, or (mode grep) exact text or a regular "
                                "expression. Chinese and other scripts work.");
    query["maxLength"] = static_cast<std::int64_t>(knowledge::kMaxQueryBytes);
    auto mode = prop("string", std::string("keyword: full-text ranking (BM25), good for names and terms; grep: exact "
                                           "text over the raw files; vector: by meaning; hybrid: keyword and vector "
                                           "fused. Default: ") + retrieval::to_string(s.default_mode) +
                                   ". vector and hybrid fall back to keyword (marked degraded) when no embeddings "
                                   "are configured.");
    mode["enum"] = json::array{"keyword", "grep", "vector", "hybrid"};
    auto top_k = prop("integer", "How many results, best first (default 10).");
    top_k["minimum"] = 1;
    top_k["maximum"] = knowledge::kMaxTopK;
    return json::object{
        {"name", "search"},
        {"title", "Search " + s.name},
        {"description", "Search " + about(s) + " of Markdown documents. Returns the best matching sections, each "
                        "with its file path, line range, heading and a snippet; open one with the read tool (path, "
                        "from_line, to_line). Set all_kbs to search every knowledge base available to you at once."},
        {"inputSchema",
         json::object{{"type", "object"},
                      {"properties", json::object{{"query", query},
                                                  {"mode", mode},
                                                  {"top_k", top_k},
                                                  {"regex", prop("boolean", "grep only: the query is a regular "
                                                                            "expression (default: literal text).")},
                                                  {"all_kbs", prop("boolean", "Search every knowledge base available "
                                                                              "to you, not only this one (default false).")}}},
                      {"required", json::array{"query"}},
                      {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", true}, {"openWorldHint", false}}}};
}

json::object read_tool(const KbSpec& s) {
    auto from = prop("integer", "First line to return, 1-based (default 1).");
    from["minimum"] = 1;
    auto to = prop("integer", "Last line to return, inclusive (default: the end, up to 64 KiB of text).");
    to["minimum"] = 1;
    return json::object{
        {"name", "read"},
        {"title", "Read a document of " + s.name},
        {"description", "Read a Markdown document of " + about(s) + ", whole or a range of lines (as given by "
                        "search results). Each line is prefixed with its number and a tab. Long documents are cut at "
                        "64 KiB; the answer says where to continue."},
        {"inputSchema",
         json::object{{"type", "object"},
                      {"properties", json::object{{"path", prop("string", "The document's path relative to the "
                                                                          "knowledge base, e.g. guides/install.md")},
                                                  {"from_line", from},
                                                  {"to_line", to}}},
                      {"required", json::array{"path"}},
                      {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", true}, {"openWorldHint", false}}}};
}

json::object list_tool(const KbSpec& s) {
    auto limit = prop("integer", "At most this many documents (default 200).");
    limit["minimum"] = 1;
    limit["maximum"] = 1000;
    return json::object{
        {"name", "list"},
        {"title", "List documents of " + s.name},
        {"description", "List the Markdown documents of " + about(s) + " with their titles and sizes, sorted by "
                        "path. Give a prefix (a folder such as guides/) to list part of it."},
        {"inputSchema",
         json::object{{"type", "object"},
                      {"properties", json::object{{"prefix", prop("string", "Only paths starting with this, e.g. guides/")},
                                                  {"limit", limit}}},
                      {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", true}, {"openWorldHint", false}}}};
}

json::object write_tool(const KbSpec& s) {
    auto mode = prop("string", "create (default): a new document, refused when it exists; replace: overwrite it (or "
                               "create it); append: add to its end (or create it).");
    mode["enum"] = json::array{"create", "replace", "append"};
    return json::object{
        {"name", "write"},
        {"title", "Write a document of " + s.name},
        {"description", "Write a Markdown document into " + about(s) + ". The path is relative to the knowledge "
                        "base and must end in .md; folders are created as needed. The document is searchable as soon "
                        "as the call returns. Use it to record knowledge worth finding again (decisions, how-tos, "
                        "findings); use headings so searches find the right section."},
        {"inputSchema",
         json::object{{"type", "object"},
                      {"properties", json::object{{"path", prop("string", "Relative path ending in .md, e.g. "
                                                                          "decisions/2025-caching.md")},
                                                  {"content", prop("string", "The Markdown text (UTF-8, at most 1 MiB).")},
                                                  {"mode", mode}}},
                      {"required", json::array{"path", "content"}},
                      {"additionalProperties", false}}},
        {"annotations", json::object{{"readOnlyHint", false}, {"destructiveHint", true}, {"idempotentHint", false},
                                     {"openWorldHint", false}}}};
}

}  // namespace

json::array kb_tools(const KbSpec& spec) {
    json::array tools{search_tool(spec), read_tool(spec), list_tool(spec)};
    if (spec.writable) tools.push_back(write_tool(spec));
    return tools;
}

}  // namespace coffer::plugins::knowledge_base
