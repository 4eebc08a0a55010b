#include "stateless.hpp"

#include <coffer/jsonrpc_codes.hpp>
#include <coffer/mcp_stateless.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <set>

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

bool http_token(std::string_view s) {
    if (s.empty()) return false;
    for (unsigned char c : s) {
        if (std::isalnum(c)) continue;
        if (std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos) return false;
    }
    return true;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Walks a schema; `chain` is set while the node was reached from the root through `properties`
// keys only (`path` names them). An annotation anywhere else makes the tool invalid.
void walk(const json::value& node, bool chain, std::vector<std::string>& path, HeaderScan& out,
          std::set<std::string>& seen, int depth) {
    if (!out.invalid.empty() || depth > 64) return;
    if (const auto* arr = node.if_array()) {
        for (const auto& item : *arr) walk(item, false, path, out, seen, depth + 1);
        return;
    }
    const auto* obj = node.if_object();
    if (!obj) return;
    if (const auto* h = obj->if_contains("x-mcp-header")) {
        if (!chain || path.empty()) {
            out.invalid = "x-mcp-header is only allowed on a property reached through \"properties\" alone";
            return;
        }
        if (!h->is_string() || !http_token(h->as_string())) {
            out.invalid = "x-mcp-header of '" + path.back() + "' is not an HTTP header name";
            return;
        }
        std::string name(h->as_string());
        if (!seen.insert(lower(name)).second) {
            out.invalid = "x-mcp-header '" + name + "' is used twice";
            return;
        }
        const auto* type = obj->if_contains("type");
        std::string_view t = type && type->is_string() ? std::string_view(type->as_string()) : std::string_view();
        if (t != "string" && t != "integer" && t != "boolean") {
            out.invalid = "x-mcp-header '" + name + "' is on a property of type " + (t.empty() ? "(none)" : std::string(t)) +
                          "; only string, integer and boolean are allowed";
            return;
        }
        out.params.push_back({path, std::move(name)});
    }
    for (const auto& [key, value] : *obj) {
        if (key == "properties" && value.is_object()) {
            for (const auto& [prop, schema] : value.as_object()) {
                path.emplace_back(prop);
                walk(schema, chain, path, out, seen, depth + 1);
                path.pop_back();
            }
            continue;
        }
        if (key == "x-mcp-header") continue;
        walk(value, false, path, out, seen, depth + 1);
    }
}

// The header text of an argument value, or nullopt when it is absent or not a primitive.
std::optional<std::string> header_text(const json::value& v) {
    constexpr std::int64_t kSafe = (std::int64_t{1} << 53) - 1;
    if (v.is_string()) return mcp_stateless::encode_header_value(v.as_string());
    if (v.is_bool()) return std::string(v.as_bool() ? "true" : "false");
    if (v.is_int64() && v.as_int64() >= -kSafe && v.as_int64() <= kSafe) return std::to_string(v.as_int64());
    if (v.is_uint64() && v.as_uint64() <= static_cast<std::uint64_t>(kSafe)) return std::to_string(v.as_uint64());
    return std::nullopt;
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
    HeaderScan out;
    auto v = parse(input_schema);
    if (!v) return out;
    std::vector<std::string> path;
    std::set<std::string> seen;
    walk(*v, true, path, out, seen, 0);
    if (!out.invalid.empty()) out.params.clear();
    return out;
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
        auto scan = scan_headers(json::serialize(*schema));
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
    for (const auto& h : it->second) {
        const json::value* at = args;
        for (const auto& key : h.path) {
            const auto* o = at ? at->if_object() : nullptr;
            at = o ? o->if_contains(key) : nullptr;
        }
        if (!at) continue;
        if (auto text = header_text(*at)) out.emplace_back("Mcp-Param-" + h.name, std::move(*text));
    }
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
