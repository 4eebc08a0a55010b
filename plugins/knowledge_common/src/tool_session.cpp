// The MCP request switch shared by the knowledge kinds (see tool_session.hpp).
#include "tool_session.hpp"

#include "tool_result.hpp"

#include <coffer/jsonrpc_codes.hpp>

namespace coffer::knowledge {

namespace code = jsonrpc::code;

namespace {

bool listed(const json::array& tools, std::string_view name) {
    for (auto& t : tools)
        if (auto* n = t.as_object().if_contains("name"); n && n->is_string() && n->as_string() == name) return true;
    return false;
}

}  // namespace

void ToolSession::request(sdk::McpCall call, std::string_view method, std::string_view params_json) {
    boost::system::error_code ec;
    auto parsed = json::parse(params_json, ec);
    if (ec || !parsed.is_object()) return call.error(code::invalid_params, "Invalid params: not a JSON object");
    auto& params = parsed.as_object();
    if (method == "ping") return call.result("{}");
    if (method == "tools/list") return call.result(json::serialize(json::object{{"tools", tools()}}));
    if (method == "resources/list") return call.result(R"({"resources":[]})");
    if (method == "resources/templates/list") return call.result(R"({"resourceTemplates":[]})");
    if (method == "prompts/list") return call.result(R"({"prompts":[]})");
    if (method == "completion/complete") return call.result(R"({"completion":{"values":[],"hasMore":false}})");
    if (method == "resources/read") return call.error(code::resource_not_found, "Resource not found");
    if (method == "prompts/get") return call.error(code::invalid_params, "Invalid params: no such prompt");
    if (method != "tools/call") return call.error(code::method_not_found, "Method not found: " + std::string(method));

    auto* n = params.if_contains("name");
    if (!n || !n->is_string()) return call.error(code::invalid_params, "Invalid params: tools/call needs a tool name");
    std::string name(n->as_string());
    if (!listed(tools(), name)) return call.error(code::invalid_params, "Unknown tool: " + name);
    json::object args;
    if (auto* a = params.if_contains("arguments"); a && !a->is_null()) {
        if (!a->is_object()) return call.result(tool_error("The arguments must be a JSON object"));
        args = a->as_object();
    }
    try {
        call_tool(call, name, args);
    } catch (const sdk::Error& e) {
        // Thrown before the call was handed to a job (a no-op when it was): answer it here.
        call.result(tool_error(e.what()));
    }
}

void ToolSession::on_worker(Engine& engine, sdk::McpCall call, std::function<std::string(retrieval::Index&)> work,
                            Engine::Access access) {
    auto shared = std::make_shared<sdk::McpCall>(std::move(call));
    bool queued = engine.post([shared, work = std::move(work)](retrieval::Index& index) {
        try {
            shared->result(work(index));
        } catch (const sdk::Error& e) {
            shared->result(tool_error(e.what()));
        } catch (const retrieval::Error& e) {
            shared->result(tool_error(e.what()));
        } catch (const std::exception& e) {
            shared->result(tool_error(std::string("internal error: ") + e.what()));
        }
    }, [shared](const std::string& why) { shared->result(tool_error(why)); }, access);
    if (!queued) shared->result(tool_error("The knowledge index is shutting down; try again once the daemon is back"));
}

std::vector<std::string> peer_uids(const json::object& info) {
    std::vector<std::string> out;
    if (auto* p = info.if_contains("peers"); p && p->is_array())
        for (auto& peer : p->as_array())
            if (auto* o = peer.if_object())
                if (auto* uid = o->if_contains("uid"); uid && uid->is_string()) out.emplace_back(uid->as_string());
    return out;
}

std::string session_string(const json::object& info, std::string_view key) {
    auto* v = info.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace coffer::knowledge

