#include "codex_parser.hpp"

#include <coffer/json_fields.hpp>

namespace coffer::codex {

namespace json = boost::json;

namespace {
constexpr auto obj = json_fields::object_at;
constexpr auto str = json_fields::string_at;
constexpr auto field = json_fields::value_at;
// Tool-like items: their kind in the normalised schema ("" = not a tool).
std::string tool_kind(const std::string& t) {
    if (t == "command_execution") return "command";
    if (t == "file_change") return "file_change";
    if (t == "mcp_tool_call") return "mcp";
    if (t == "web_search") return "web_search";
    if (t == "todo_list") return "todo";
    if (t == "collab_tool_call") return "subagent";
    return "";
}
std::string tool_name(const json::object& item, const std::string& t) {
    if (t == "mcp_tool_call") return str(item, "server") + "/" + str(item, "tool");
    if (t == "command_execution") return str(item, "command");
    if (t == "web_search") return str(item, "query");
    return t;
}
json::object tool_input(const json::object& item, const std::string& t) {
    if (t == "command_execution") return json::object{{"command", field(item, "command")}};
    if (t == "mcp_tool_call") return json::object{{"arguments", field(item, "arguments")}};
    if (t == "file_change") return json::object{{"changes", field(item, "changes")}};
    if (t == "web_search") return json::object{{"query", field(item, "query")}};
    if (t == "todo_list") return json::object{{"items", field(item, "items")}};
    return {};
}
}  // namespace

void CodexParser::feed(std::string_view line, std::vector<json::object>& out) {
    json::value v;
    auto* line_object = object_line(line, v, out);
    if (!line_object) return;
    auto& o = *line_object;
    auto type = str(o, "type");
    if (type == "thread.started") {
        out.push_back(json::object{{"type", "session"}, {"agent_session_id", str(o, "thread_id")}});
    } else if (type == "turn.started") {
        // the host announced the turn when the process started
    } else if (type == "item.started" || type == "item.updated" || type == "item.completed") {
        if (auto* it = obj(o, "item")) item(type.substr(5), *it, out);
    } else if (type == "turn.completed") {
        json::object usage{{"type", "usage"}, {"cumulative", true}};  // Codex reports the thread's totals
        if (auto* u = obj(o, "usage")) {
            usage["input_tokens"] = field(*u, "input_tokens");
            usage["output_tokens"] = field(*u, "output_tokens");
            usage["cached_input_tokens"] = field(*u, "cached_input_tokens");
        }
        out.push_back(std::move(usage));
        terminal_ = json::object{{"type", "turn.completed"}, {"status", "ok"}, {"final_text", last_text_}};
    } else if (type == "turn.failed") {
        auto* e = obj(o, "error");
        auto msg = e ? str(*e, "message") : std::string();
        terminal_ = json::object{{"type", "turn.completed"},
                                 {"status", "error"},
                                 {"final_text", last_text_},
                                 {"error", msg.empty() ? std::string("the agent reported a failed turn") : msg}};
    } else if (type == "error") {
        out.push_back(json::object{{"type", "warning"}, {"message", str(o, "message")}});  // may be a transient reconnect
    } else {
        ignore(type.empty() ? "(no type)" : type);
    }
}

void CodexParser::item(const std::string& phase, const json::object& it, std::vector<json::object>& out) {
    auto t = str(it, "type");
    auto id = str(it, "id");
    if (t == "agent_message") {
        if (phase != "completed") return;
        last_text_ = str(it, "text");
        out.push_back(json::object{{"type", "text.delta"}, {"item_id", id}, {"text", last_text_}});
        out.push_back(json::object{{"type", "message.completed"}, {"item_id", id}, {"text", last_text_}});
        return;
    }
    if (t == "reasoning") {
        if (phase == "completed") out.push_back(json::object{{"type", "reasoning"}, {"item_id", id}, {"text", str(it, "text")}});
        return;
    }
    if (t == "error") {
        out.push_back(json::object{{"type", "warning"}, {"message", str(it, "message")}});
        return;
    }
    auto kind = tool_kind(t);
    if (kind.empty()) return ignore("item/" + t);
    if (!started_.count(id)) {  // file_change and web_search arrive completed only
        started_.insert(id);
        out.push_back(json::object{{"type", "tool.started"}, {"item_id", id}, {"kind", kind},
                                   {"name", tool_name(it, t)}, {"input", tool_input(it, t)}});
        if (phase == "started") return;
    }
    if (phase == "updated" || phase == "started") {
        out.push_back(json::object{{"type", "tool.updated"}, {"item_id", id}, {"item", it}});
        return;
    }
    auto status = str(it, "status");
    auto* code = it.if_contains("exit_code");
    bool ok = status != "failed" && !(code && code->is_int64() && code->as_int64() != 0) &&
              !(it.contains("error") && !it.at("error").is_null());
    json::object done{{"type", "tool.completed"}, {"item_id", id}, {"ok", ok}};
    if (t == "command_execution") {
        done["output_preview"] = preview(str(it, "aggregated_output"));
        done["exit_code"] = code ? *code : json::value(nullptr);
    } else if (t == "file_change") {
        done["changes"] = field(it, "changes");
    } else if (t == "mcp_tool_call") {
        auto r = field(it, "result");
        done["output_preview"] = preview(r.is_string() ? std::string(r.as_string()) : json::serialize(r));
    }
    out.push_back(std::move(done));
}

}  // namespace coffer::codex
