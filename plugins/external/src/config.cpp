#include "config.hpp"

#include "channel_common/kind.hpp"

#include <coffer/credref.hpp>

namespace coffer::external {

const char* config_schema() {
    return R"json({"type":"object","additionalProperties":false,"required":["command"],"properties":{
        "agent":{"type":"string","minLength":1,"description":"the agent its messages go to"},
        "deliver":{"enum":["agent","session"],"description":"where its messages go: agent (default) — Coffer's conversations with that agent; session — the agent sessions that listen to the channel (coffer-mcp-shim --channel)"},
        "cwd":{"type":"string","description":"the working folder of its conversations"},
        "command":{"type":"string","minLength":1,"description":"the adapter program (looked up on PATH)"},
        "args":{"type":"array","items":{"type":"string"},"description":"its arguments"},
        "env":{"type":"object","additionalProperties":{"type":"string"},"description":"extra environment; a value may be credref:NAME"},
        "capabilities":{"type":"object","description":"what the platform can do (edit, typing, typing_ttl_ms, max_text, text_units, markdown, threads, ingress)"}}})json";
}

void validate_config(const json::object& config, sdk::Validation& v) {
    auto* command = config.if_contains("command");
    if (!command || !command->is_string() || command->as_string().empty()) v.fail("/command", "the adapter program is required");
    if (auto* args = config.if_contains("args")) {
        if (!args->is_array()) v.fail("/args", "must be an array of strings");
        else
            for (std::size_t i = 0; i < args->as_array().size(); ++i)
                if (!args->as_array()[i].is_string()) v.fail("/args/" + std::to_string(i), "must be a string");
    }
    if (auto* env = config.if_contains("env")) {
        if (!env->is_object()) v.fail("/env", "must be an object of strings");
        else
            for (auto& [k, val] : env->as_object()) {
                auto at = "/env/" + std::string(k);
                if (!val.is_string()) v.fail(at, "must be a string");
                else if (credref::is_credref(val.as_string()))
                    if (auto p = credref::ref_problem(credref::ref_of(val.as_string())); !p.empty()) v.fail(at, p);
            }
    }
    if (auto* caps = config.if_contains("capabilities"); caps && !caps->is_object()) v.fail("/capabilities", "must be an object");
}

Config parse_config(const json::object& config) {
    channel_common::require_valid(validate_config, config);
    Config c;
    c.command = std::string(config.at("command").as_string());
    if (auto* args = config.if_contains("args"))
        for (auto& a : args->as_array()) c.args.emplace_back(a.as_string());
    if (auto* env = config.if_contains("env"))
        for (auto& [k, val] : env->as_object()) c.env.emplace_back(std::string(k), std::string(val.as_string()));
    c.capabilities = channel_common::Capabilities{.ingress = "stream"}.to_json();
    if (auto* caps = config.if_contains("capabilities"))
        for (auto& [k, val] : caps->as_object()) c.capabilities[k] = val;
    return c;
}

}  // namespace coffer::external
