#include "stateless.hpp"

#include <coffer/jsonrpc_codes.hpp>
#include <coffer/mcp_stateless.hpp>

#include <boost/json.hpp>

#include <algorithm>

namespace coffer::mcp_server::stateless {

namespace json = boost::json;

namespace {

std::optional<json::value> parse(std::string_view text) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec) return std::nullopt;
    return v;
}

json::object object_or_empty(std::string_view text) {
    auto v = parse(text);
    return v && v->is_object() ? v->as_object() : json::object{};
}

}  // namespace

bool Discovery::speaks(std::string_view version) const {
    return std::find(supported.begin(), supported.end(), version) != supported.end();
}

std::optional<Discovery> read_discovery(std::string_view result) {
    auto v = parse(result);
    if (!v || !v->is_object()) return std::nullopt;
    const auto& o = v->as_object();
    const auto* versions = o.if_contains("supportedVersions");
    if (!versions || !versions->is_array()) return std::nullopt;
    Discovery d;
    for (const auto& s : versions->as_array())
        if (s.is_string()) d.supported.emplace_back(s.as_string());
    const auto* caps = o.if_contains("capabilities");
    d.capabilities = caps && caps->is_object() ? json::serialize(*caps) : "{}";
    if (const auto* in = o.if_contains("instructions"); in && in->is_string()) d.instructions = in->as_string();
    if (const auto* meta = o.if_contains("_meta"); meta && meta->is_object())
        if (const auto* info = meta->as_object().if_contains(mcp_stateless::kServerInfoKey))
            d.server_info = json::serialize(*info);
    return d;
}

std::optional<std::vector<std::string>> unsupported_version(std::string_view error) {
    auto v = parse(error);
    if (!v || !v->is_object()) return std::nullopt;
    const auto* code = v->as_object().if_contains("code");
    if (!code || !code->is_int64() || code->as_int64() != jsonrpc::code::unsupported_version) return std::nullopt;
    std::vector<std::string> out;
    if (const auto* data = v->as_object().if_contains("data"); data && data->is_object())
        if (const auto* list = data->as_object().if_contains("supported"); list && list->is_array())
            for (const auto& s : list->as_array())
                if (s.is_string()) out.emplace_back(s.as_string());
    return out;
}

std::string with_meta(std::string_view params, std::string_view client_capabilities, std::string_view log_level) {
    auto p = object_or_empty(params);
    json::object meta;
    if (auto* m = p.if_contains("_meta"); m && m->is_object()) meta = m->as_object();
    meta[mcp_stateless::kVersionKey] = kVersion;
    meta[mcp_stateless::kCapabilitiesKey] = object_or_empty(client_capabilities);
    meta[mcp_stateless::kClientInfoKey] = {{"name", "coffer"}, {"title", "Coffer MCP gateway"}, {"version", "0.1.0"}};
    if (!log_level.empty()) meta[mcp_stateless::kLogLevelKey] = log_level;
    else meta.erase(mcp_stateless::kLogLevelKey);
    p["_meta"] = std::move(meta);
    return json::serialize(p);
}

HeaderScan scan_headers(std::string_view input_schema) {
    auto v = parse(input_schema);
    return v ? mcp_stateless::scan_headers(*v) : HeaderScan{};
}

std::string filter_tools(std::string_view result, ToolHeaders& learned,
                         std::vector<std::pair<std::string, std::string>>& rejected) {
    auto v = parse(result);
    if (!v || !v->is_object()) return std::string(result);
    auto* tools = v->as_object().if_contains("tools");
    if (!tools || !tools->is_array()) return std::string(result);
    json::array kept;
    bool changed = false;
    for (auto& t : tools->as_array()) {
        const auto* name = t.is_object() ? t.as_object().if_contains("name") : nullptr;
        const auto* schema = t.is_object() ? t.as_object().if_contains("inputSchema") : nullptr;
        if (!name || !name->is_string() || !schema) {
            kept.push_back(t);
            continue;
        }
        auto scan = mcp_stateless::scan_headers(*schema);
        std::string n(name->as_string());
        if (!scan.invalid.empty()) {
            rejected.emplace_back(n, scan.invalid);
            learned.erase(n);
            changed = true;
            continue;
        }
        if (scan.params.empty()) learned.erase(n);
        else learned[n] = std::move(scan.params);
        kept.push_back(t);
    }
    if (!changed) return std::string(result);
    *tools = std::move(kept);
    return json::serialize(*v);
}

std::vector<std::pair<std::string, std::string>> request_headers(std::string_view method, std::string_view params,
                                                                  const ToolHeaders& tools) {
    std::vector<std::pair<std::string, std::string>> out{{"Mcp-Method", std::string(method)}};
    const char* name_key = method == "tools/call" || method == "prompts/get" ? "name"
                           : method == "resources/read"                     ? "uri"
                                                                            : nullptr;
    if (!name_key) return out;
    auto p = object_or_empty(params);
    const auto* name = p.if_contains(name_key);
    if (!name || !name->is_string()) return out;
    out.emplace_back("Mcp-Name", mcp_stateless::encode_header_value(name->as_string()));
    if (method != "tools/call") return out;
    auto it = tools.find(std::string(name->as_string()));
    const auto* args = p.if_contains("arguments");
    if (it == tools.end() || !args || !args->is_object()) return out;
    for (auto& h : mcp_stateless::param_headers(it->second, *args)) out.push_back(std::move(h));
    return out;
}

std::optional<InputRequired> read_input_required(std::string_view result) {
    auto v = parse(result);
    if (!v || !v->is_object()) return std::nullopt;
    const auto& o = v->as_object();
    const auto* type = o.if_contains("resultType");
    if (!type || !type->is_string() || type->as_string() != "input_required") return std::nullopt;
    InputRequired in;
    if (const auto* asks = o.if_contains("inputRequests"); asks && asks->is_object())
        for (const auto& [key, request] : asks->as_object()) in.requests.emplace_back(key, json::serialize(request));
    if (const auto* state = o.if_contains("requestState"); state && state->is_string())
        in.state = json::serialize(*state);
    return in;
}

std::string with_input(std::string_view params, const std::map<std::string, std::string>& responses,
                       const std::optional<std::string>& state) {
    auto p = object_or_empty(params);
    json::object answers;
    for (const auto& [key, text] : responses) {
        auto v = parse(text);
        answers[key] = v ? *v : json::value(json::object{});
    }
    if (answers.empty()) p.erase("inputResponses");
    else p["inputResponses"] = std::move(answers);
    if (state) {
        if (auto s = parse(*state)) p["requestState"] = *s;
    } else {
        p.erase("requestState");
    }
    return json::serialize(p);
}

}  // namespace coffer::mcp_server::stateless
