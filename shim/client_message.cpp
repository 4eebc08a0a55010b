// The shim's identity added to the client's initialize and to stateless-era messages, and the
// stateless-era metadata headers (see client_message.hpp).
#include "shim/client_message.hpp"

#include "shim/message.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace coffer::shim {
namespace json = boost::json;

namespace {

void add_identity(json::object& meta, const Identity& who) {
    if (!who.agent.empty()) meta["coffer/agent"] = who.agent;
    meta["coffer/cwd"] = who.cwd;
    if (!who.channels.empty()) {
        json::array names;
        for (auto& c : who.channels) names.emplace_back(c);
        meta["coffer/channels"] = std::move(names);
    }
}

// params._meta of a stateless-era message (it names the protocol revision), or null.
json::object* stateless_meta(json::value& v, json::object*& params) {
    params = nullptr;
    if (!v.is_object()) return nullptr;
    if (auto* pv = v.get_object().if_contains("params"); pv && pv->is_object()) params = &pv->get_object();
    if (!params) return nullptr;
    auto* meta = params->if_contains("_meta");
    if (!meta || !meta->is_object()) return nullptr;
    auto* ver = meta->get_object().if_contains(kStatelessVersionKey);
    return ver && ver->is_string() ? &meta->get_object() : nullptr;
}

}  // namespace

std::optional<AnnotatedInitialize> annotate_initialize(std::string_view line, const Identity& who) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec || !v.is_object()) return std::nullopt;
    json::value& params = v.get_object()["params"];
    if (!params.is_object()) params = json::object();
    json::value& meta = params.get_object()["_meta"];
    if (!meta.is_object()) meta = json::object();
    add_identity(meta.get_object(), who);
    AnnotatedInitialize out;
    out.params = json::serialize(params);
    out.body = json::serialize(v);
    return out;
}

std::optional<AnnotatedStateless> annotate_stateless(std::string_view line, std::string_view method,
                                                     const Identity& who, const ToolHeaders& tools) {
    if (line.find(kStatelessVersionKey) == std::string_view::npos) return std::nullopt;  // the cheap test
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    if (ec) return std::nullopt;
    json::object* params = nullptr;
    json::object* meta = stateless_meta(v, params);
    if (!meta) return std::nullopt;
    AnnotatedStateless out;
    out.headers.emplace_back("MCP-Protocol-Version", std::string(meta->at(kStatelessVersionKey).get_string()));
    add_identity(*meta, who);
    bool named = method == "tools/call" || method == "resources/read" || method == "prompts/get";
    for (const char* key : {"name", "uri"}) {
        if (auto* n = params->if_contains(key); named && n && n->is_string()) {
            out.headers.emplace_back("Mcp-Name", header_safe_value(n->get_string()));
            break;
        }
    }
    // The tool's annotated arguments, mirrored (the revision's "Custom Headers from Tool Parameters").
    if (method == "tools/call")
        if (auto* n = params->if_contains("name"); n && n->is_string())
            if (auto it = tools.find(std::string_view(n->get_string())); it != tools.end())
                if (auto* args = params->if_contains("arguments"))
                    for (auto& h : mcp_stateless::param_headers(it->second, *args)) out.headers.push_back(std::move(h));
    out.body = json::serialize(v);
    return out;
}

void learn_tool_headers(std::string_view response, ToolHeaders& tools) {
    boost::system::error_code ec;
    json::value v = json::parse(response, ec);
    const auto* result = !ec && v.is_object() ? v.get_object().if_contains("result") : nullptr;
    const auto* list = result && result->is_object() ? result->get_object().if_contains("tools") : nullptr;
    if (!list || !list->is_array()) return;
    for (const auto& t : list->get_array()) {
        const auto* o = t.if_object();
        const auto* name = o ? o->if_contains("name") : nullptr;
        const auto* schema = o ? o->if_contains("inputSchema") : nullptr;
        if (!name || !name->is_string()) continue;
        auto scan = schema ? mcp_stateless::scan_headers(*schema) : mcp_stateless::HeaderScan{};
        std::string key(name->get_string());
        if (scan.params.empty()) tools.erase(key);
        else tools[key] = std::move(scan.params);
    }
}

}  // namespace coffer::shim
