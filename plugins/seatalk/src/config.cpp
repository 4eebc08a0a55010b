#include "config.hpp"

#include "channel_common/kind.hpp"

#include "channel_common/http_client.hpp"

#include <coffer/credref.hpp>

namespace coffer::seatalk {

const char* config_schema() {
    return R"json({"type":"object","additionalProperties":false,"required":["app_id","app_secret","signing_secret"],"properties":{
        "agent":{"type":"string","minLength":1,"description":"the agent its messages go to"},
        "deliver":{"enum":["agent","session"],"description":"where its messages go: agent (default) — Coffer's conversations with that agent; session — the agent sessions that listen to the channel (coffer-mcp-shim --channel)"},
        "cwd":{"type":"string","description":"the working folder of its conversations"},
        "app_id":{"type":"string","minLength":1,"description":"the SeaTalk app id"},
        "app_secret":{"type":"string","pattern":"^credref:","description":"the app secret, as credref:NAME"},
        "signing_secret":{"type":"string","pattern":"^credref:","description":"the event callback signing secret, as credref:NAME"},
        "api_base":{"type":"string","minLength":1,"description":"the Open Platform base URL (default https://openapi.seatalk.io; http only on loopback)"},
        "callback_port":{"type":"integer","minimum":0,"maximum":65535,"description":"the loopback port of coffer-callback (0: any free one)"}}})json";
}

void validate_config(const json::object& config, sdk::Validation& v) {
    for (const char* key : {"app_secret", "signing_secret"}) {
        auto* s = config.if_contains(key);
        auto at = std::string("/") + key;
        if (!s || !s->is_string() || !credref::is_credref(s->as_string())) v.fail(at, "must be a credential reference (credref:NAME)");
        else if (auto p = credref::ref_problem(credref::ref_of(s->as_string())); !p.empty()) v.fail(at, p);
    }
    if (auto* id = config.if_contains("app_id"); !id || !id->is_string() || id->as_string().empty()) v.fail("/app_id", "the app id is required");
    if (auto* base = config.if_contains("api_base"))
        if (auto why = channel_common::api_base_problem(*base); !why.empty()) v.fail("/api_base", why);
}

Config parse_config(const json::object& config) {
    channel_common::require_valid(validate_config, config);
    Config c;
    c.app_id = std::string(config.at("app_id").as_string());
    c.app_secret_ref = std::string(credref::ref_of(config.at("app_secret").as_string()));
    c.signing_secret_ref = std::string(credref::ref_of(config.at("signing_secret").as_string()));
    if (auto* base = config.if_contains("api_base")) c.api_base = std::string(base->as_string());
    if (auto* p = config.if_contains("callback_port"); p && p->is_int64()) c.callback_port = static_cast<std::uint16_t>(p->as_int64());
    return c;
}

}  // namespace coffer::seatalk
