#include "claude_parser.hpp"

#include <coffer/json_fields.hpp>

namespace coffer::claude_code {

namespace json = boost::json;

namespace {
constexpr auto obj = json_fields::object_at;
constexpr auto arr = json_fields::array_at;
constexpr auto str = json_fields::string_at;
constexpr auto num = json_fields::number_at;
// A tool result's content: a string, or blocks whose text parts are joined.
std::string result_text(const json::value* c) {
    if (!c) return {};
    if (c->is_string()) return std::string(c->as_string());
    std::string out;
    if (c->is_array())
        for (auto& b : c->as_array())
            if (b.is_object()) out += str(b.as_object(), "text");
    return out;
}
}  // namespace

std::string tool_kind(std::string_view name) {
    if (name == "Bash" || name == "BashOutput" || name == "KillShell") return "command";
    if (name == "Edit" || name == "MultiEdit" || name == "Write" || name == "NotebookEdit") return "file_change";
    if (name.rfind("mcp__", 0) == 0) return "mcp";
    if (name == "WebSearch" || name == "WebFetch") return "web_search";
    if (name == "TodoWrite") return "todo";
    if (name == "Task" || name == "Agent") return "subagent";
    return "other";
}

void ClaudeParser::feed(std::string_view line, std::vector<json::object>& out) {
    json::value v;
    auto* line_object = object_line(line, v, out);
    if (!line_object) return;
    auto& o = *line_object;
    auto type = str(o, "type");
    if (type == "system") system(o, out);
    else if (type == "stream_event") stream_event(o, out);
    else if (type == "assistant") assistant(o, out);
    else if (type == "user") user(o, out);
    else if (type == "result") result(o, out);
    else ignore(type.empty() ? "(no type)" : type);
}

void ClaudeParser::session(const json::object& o, std::vector<json::object>& out) {
    auto id = str(o, "session_id");
    if (id.empty() || id == session_id_) return;
    session_id_ = id;
    out.push_back(json::object{{"type", "session"}, {"agent_session_id", id}});
}

void ClaudeParser::system(const json::object& o, std::vector<json::object>& out) {
    if (str(o, "subtype") != "init") return ignore("system/" + str(o, "subtype"));
    session(o, out);
}

void ClaudeParser::stream_event(const json::object& o, std::vector<json::object>& out) {
    auto* e = obj(o, "event");
    if (!e) return ignore("stream_event");
    auto et = str(*e, "type");
    if (et == "message_start") {
        if (auto* m = obj(*e, "message")) message_id_ = str(*m, "id");
        return;
    }
    auto index = [&] {
        auto* i = e->if_contains("index");
        return i && i->is_int64() ? i->as_int64() : std::int64_t{0};
    };
    if (et == "content_block_start") {  // a text block's index, for the assistant line that repeats it
        if (auto* b = obj(*e, "content_block"); b && str(*b, "type") == "text") text_blocks_[message_id_].push_back(index());
        return;
    }
    if (et != "content_block_delta") return;  // block stop, message delta/stop: nothing to show
    auto* d = obj(*e, "delta");
    if (!d) return;
    auto item = message_id_ + ":" + std::to_string(index());
    auto dt = str(*d, "type");
    if (dt == "text_delta") {
        streamed_.insert(message_id_);
        out.push_back(json::object{{"type", "text.delta"}, {"item_id", item}, {"text", str(*d, "text")}});
    } else if (dt == "thinking_delta") {
        out.push_back(json::object{{"type", "reasoning"}, {"item_id", item}, {"text", str(*d, "thinking")}, {"delta", true}});
    }
}

void ClaudeParser::assistant(const json::object& o, std::vector<json::object>& out) {
    session(o, out);
    auto* m = obj(o, "message");
    auto* content = m ? arr(*m, "content") : nullptr;
    if (!content) return;
    auto mid = str(*m, "id");
    bool streamed = streamed_.count(mid) > 0;
    std::int64_t position = 0;
    for (auto& b : *content) {
        // With partial messages Claude Code repeats each block in an assistant line of its own, so
        // a block's index comes from the stream (content_block_start), not from this array.
        auto item = mid + ":" + std::to_string(position++);
        if (!b.is_object()) continue;
        auto& block = b.as_object();
        auto bt = str(block, "type");
        if (bt == "text") {
            auto text = str(block, "text");
            if (auto& q = text_blocks_[mid]; streamed && !q.empty()) {
                item = mid + ":" + std::to_string(q.front());
                q.pop_front();
            }
            if (!streamed)  // no partial messages: one delta with the whole text
                out.push_back(json::object{{"type", "text.delta"}, {"item_id", item}, {"text", text}});
            out.push_back(json::object{{"type", "message.completed"}, {"item_id", item}, {"text", text}});
            last_text_ = text;
        } else if (bt == "tool_use") {
            auto name = str(block, "name");
            auto* input = block.if_contains("input");
            out.push_back(json::object{{"type", "tool.started"},
                                       {"item_id", str(block, "id")},
                                       {"kind", tool_kind(name)},
                                       {"name", name},
                                       {"input", input ? *input : json::value(json::object{})}});
        } else if (bt == "thinking") {
            out.push_back(json::object{{"type", "reasoning"}, {"item_id", item}, {"text", str(block, "thinking")}});
        }
    }
}

void ClaudeParser::user(const json::object& o, std::vector<json::object>& out) {
    auto* m = obj(o, "message");
    auto* content = m ? arr(*m, "content") : nullptr;
    if (!content) return;
    for (auto& b : *content) {
        if (!b.is_object() || str(b.as_object(), "type") != "tool_result") continue;
        auto& block = b.as_object();
        auto* err = block.if_contains("is_error");
        bool failed = err && err->is_bool() && err->as_bool();
        out.push_back(json::object{{"type", "tool.completed"},
                                   {"item_id", str(block, "tool_use_id")},
                                   {"ok", !failed},
                                   {"output_preview", preview(result_text(block.if_contains("content")))}});
    }
}

void ClaudeParser::result(const json::object& o, std::vector<json::object>& out) {
    session(o, out);
    json::object usage{{"type", "usage"}};
    if (auto* u = obj(o, "usage")) {
        usage["input_tokens"] = num(*u, "input_tokens");
        usage["output_tokens"] = num(*u, "output_tokens");
        usage["cached_input_tokens"] = num(*u, "cache_read_input_tokens");
    }
    usage["cost_usd"] = num(o, "total_cost_usd");
    out.push_back(std::move(usage));
    auto* is_error = o.if_contains("is_error");
    bool failed = (is_error && is_error->is_bool() && is_error->as_bool()) || str(o, "subtype") != "success";
    auto final_text = o.contains("result") ? str(o, "result") : last_text_;  // absent after an interrupt
    json::object t{{"type", "turn.completed"}, {"status", failed ? "error" : "ok"}, {"final_text", final_text}};
    if (failed) t["error"] = final_text.empty() ? "the agent reported " + str(o, "subtype") : final_text;
    terminal_ = std::move(t);
}

}  // namespace coffer::claude_code
