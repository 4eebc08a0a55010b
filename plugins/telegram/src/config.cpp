#include "config.hpp"

#include "channel_common/kind.hpp"

#include "channel_common/http_client.hpp"

#include <coffer/credref.hpp>

namespace coffer::telegram {

const char* config_schema() {
    return R"json({"type":"object","additionalProperties":false,"required":["token"],"properties":{
        "agent":{"type":"string","minLength":1,"description":"the agent its messages go to"},
        "deliver":{"enum":["agent","session"],"description":"where its messages go: agent (default) — Coffer's conversations with that agent; session — the agent sessions that listen to the channel (coffer-mcp-shim --channel)"},
        "cwd":{"type":"string","description":"the working folder of its conversations"},
        "token":{"type":"string","pattern":"^credref:","description":"the bot token from @BotFather, as credref:NAME"},
        "api_base":{"type":"string","minLength":1,"description":"the Bot API base URL (default https://api.telegram.org; http only on loopback, for a stand-in)"}}})json";
}

void validate_config(const json::object& config, sdk::Validation& v) {
    auto* token = config.if_contains("token");
    if (!token || !token->is_string()) {
        v.fail("/token", "the bot token is required, as credref:NAME");
    } else if (!credref::is_credref(token->as_string())) {
        v.fail("/token", "the bot token must be a credential reference (credref:NAME), never the token itself");
    } else if (auto problem = credref::ref_problem(credref::ref_of(token->as_string())); !problem.empty()) {
        v.fail("/token", problem);
    }
    if (auto* base = config.if_contains("api_base"))
        if (auto why = channel_common::api_base_problem(*base); !why.empty()) v.fail("/api_base", why);
}

Config parse_config(const json::object& config) {
    channel_common::require_valid(validate_config, config);
    Config c;
    c.token_ref = std::string(credref::ref_of(config.at("token").as_string()));
    if (auto* base = config.if_contains("api_base")) c.api_base = std::string(base->as_string());
    return c;
}

}  // namespace coffer::telegram
