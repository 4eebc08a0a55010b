#include "mcp/bridge.hpp"

#include "mcp/jsonrpc.hpp"
#include "mcp/raw_json.hpp"

namespace coffer::mcp::bridge {

namespace {
bool cacheable(std::string_view method) {
    return method == "resources/read" || method == "tools/list" || method == "prompts/list" ||
           method == "resources/list" || method == "resources/templates/list" || method == "server/discover";
}
}  // namespace

std::string result(Version downstream, std::string_view method, std::string_view raw_result) {
    if (!is_modern(downstream)) return std::string(raw_result);
    std::vector<raw::Member> ms;
    if (!raw::members(raw_result, ms)) return std::string(raw_result);
    bool has_type = false, has_ttl = false, has_scope = false;
    for (auto& m : ms) {
        has_type |= m.key == "resultType";
        has_ttl |= m.key == "ttlMs";
        has_scope |= m.key == "cacheScope";
    }
    std::string fields;
    auto add = [&](std::string_view f) {
        if (!fields.empty()) fields += ',';
        fields += f;
    };
    if (!has_type) add("\"resultType\":\"complete\"");
    if (cacheable(method)) {
        if (!has_ttl) add("\"ttlMs\":0");
        if (!has_scope) add("\"cacheScope\":\"private\"");
    }
    return raw::prepend_members(raw_result, fields);
}

std::string error(Version downstream, std::string_view method, std::string_view raw_error) {
    if (!is_modern(downstream)) return std::string(raw_error);
    // 2026-07-28 reports an unknown resource as Invalid Params instead of -32002.
    if (method == "resources/read")
        if (auto c = raw::member(raw_error, "code"); c && *c == "-32002")
            if (auto out = raw::replace_member(raw_error, "code", std::to_string(rpc::code::invalid_params))) return *out;
    return std::string(raw_error);
}

int log_rank(std::string_view level) {
    constexpr std::string_view kLevels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};
    for (int i = 0; i < 8; ++i)
        if (kLevels[i] == level) return i;
    return -1;
}

}  // namespace coffer::mcp::bridge
