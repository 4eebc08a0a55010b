#include "mcp/modern.hpp"

#include "mcp/bridge.hpp"

#include <boost/json.hpp>

namespace coffer::mcp::modern {

namespace json = boost::json;

namespace {

const json::object* meta_of(const rpc::Message& m) {
    auto* p = m.params.if_object();
    auto* meta = p ? p->if_contains("_meta") : nullptr;
    return meta ? meta->if_object() : nullptr;
}

std::string_view str(const json::object* o, std::string_view key) {
    auto* v = o ? o->if_contains(key) : nullptr;
    return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

Refusal mismatch(std::string message) {
    return Refusal{400, rpc::code::header_mismatch, "Header mismatch: " + std::move(message), nullptr};
}

}  // namespace

bool is_modern_request(const http::Request& req, const rpc::Message& m) {
    if (auto* h = req.header("mcp-protocol-version"))
        if (auto v = parse_version(*h); v && is_modern(*v)) return true;
    auto body = str(meta_of(m), kVersionKey);
    if (auto v = parse_version(body); v && is_modern(*v)) return true;
    return !body.empty() && !parse_version(body);  // an unknown version in modern form
}

std::variant<Meta, Refusal> check(const http::Request& req, const rpc::Message& m) {
    if (m.kind == rpc::Kind::response || m.kind == rpc::Kind::error_response)
        return Refusal{400, rpc::code::invalid_request, "Invalid Request: clients do not send responses in 2026-07-28", nullptr};
    Meta out;
    const json::object* meta = meta_of(m);
    auto body_version = str(meta, kVersionKey);
    if (m.kind == rpc::Kind::notification) return out;  // no header rules for notifications
    if (body_version.empty())
        return Refusal{400, rpc::code::invalid_params,
                       "Invalid params: params._meta[\"" + std::string(kVersionKey) + "\"] is required", nullptr};
    // Header and body must agree before the version itself is judged: a mismatch is a
    // HeaderMismatch even when the body names a version we do not speak.
    auto* header = req.header("mcp-protocol-version");
    if (!header) return mismatch("the MCP-Protocol-Version header is required");
    if (*header != body_version)
        return mismatch("MCP-Protocol-Version header value '" + *header + "' does not match body value '" +
                        std::string(body_version) + "'");
    auto v = parse_version(body_version);
    if (!v || !is_modern(*v)) {
        json::array supported;
        for (auto s : supported_versions()) supported.emplace_back(s);
        return Refusal{400, rpc::code::unsupported_version, "Unsupported protocol version",
                       json::object{{"supported", std::move(supported)}, {"requested", body_version}}};
    }
    out.version = *v;
    auto* caps = meta->if_contains(kCapabilitiesKey);
    if (!caps || !caps->is_object())
        return Refusal{400, rpc::code::invalid_params,
                       "Invalid params: params._meta[\"" + std::string(kCapabilitiesKey) + "\"] is required", nullptr};
    out.capabilities = caps->as_object();
    if (auto* info = meta->if_contains(kClientInfoKey); info && info->is_object()) out.client_info = info->as_object();
    if (auto level = str(meta, kLogLevelKey); !level.empty()) out.log_level = bridge::log_rank(level);
    out.agent = std::string(str(meta, "coffer/agent"));
    out.cwd = std::string(str(meta, "coffer/cwd"));

    auto* method = req.header("mcp-method");
    if (!method) return mismatch("the Mcp-Method header is required");
    if (*method != m.method)
        return mismatch("Mcp-Method header value '" + *method + "' does not match body value '" + m.method + "'");
    std::string_view name_field = m.method == "resources/read" ? "uri"
                                  : (m.method == "tools/call" || m.method == "prompts/get") ? "name"
                                                                                            : "";
    if (!name_field.empty()) {
        auto body_name = str(m.params.if_object(), name_field);
        auto* name = req.header("mcp-name");
        if (!name) return mismatch("the Mcp-Name header is required for " + m.method);
        auto decoded = decode_header(*name);
        if (!decoded) return mismatch("the Mcp-Name header value is malformed");
        if (*decoded != body_name)
            return mismatch("Mcp-Name header value '" + *decoded + "' does not match body value '" +
                            std::string(body_name) + "'");
    }
    return out;
}

}  // namespace coffer::mcp::modern
