// The kind of a bundled channel adapter: its name, config schema and validation; instances are
// `Instance(host)`, and a config that does not validate creates none.
#pragma once

#include <coffer/sdk.hpp>

#include <memory>
#include <string>

namespace coffer::channel_common {

// Where a channel's messages go (the host's channel core reads it): "agent" (the default) needs
// an `agent`; "session" goes to the MCP sessions that listen to the channel (ADR 0041).
inline void validate_route(const boost::json::object& config, sdk::Validation& v) {
    auto* d = config.if_contains("deliver");
    bool session = d && d->is_string() && d->as_string() == "session";
    if (!session && !config.contains("agent"))
        v.fail("/agent", "the agent its messages go to is required (or deliver \"session\": to the agent sessions "
                         "that listen to the channel)");
}

// Throws sdk::Error(COFFER_E_INVALID) with the errors `validate` finds in `config`.
inline void require_valid(void (*validate)(const boost::json::object&, sdk::Validation&), const boost::json::object& config) {
    sdk::Validation v;
    validate_route(config, v);
    validate(config, v);
    if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "config is invalid", boost::json::object{{"errors", v.errors()}});
}

// What an adapter declares to the host's channel core (abi.h, coffer_channel_adapter).
struct Capabilities {
    bool edit = false, typing = false;
    int typing_ttl_ms = 5000, max_text = 4000;
    const char* text_units = "codepoints";
    const char* markdown = "plain";
    bool threads = false;
    const char* ingress = "polling";
    boost::json::object to_json() const {
        return {{"edit", edit},         {"typing", typing},     {"typing_ttl_ms", typing_ttl_ms}, {"max_text", max_text},
                {"text_units", text_units}, {"markdown", markdown}, {"threads", threads},       {"ingress", ingress}};
    }
};

template <typename Instance> class ChannelKind : public sdk::Kind {
public:
    using Validate = void (*)(const boost::json::object&, sdk::Validation&);
    ChannelKind(const sdk::Host& host, std::string name, std::string schema, Validate validate)
        : host_(host), name_(std::move(name)), schema_(std::move(schema)), validate_(validate) {}
    std::string name() const override { return name_; }
    std::string schema() const override { return schema_; }
    bool is_channel() const override { return true; }
    void validate(const boost::json::object& config, sdk::Validation& v) override {
        validate_route(config, v);
        validate_(config, v);
    }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override {
        require_valid(validate_, resource.config);
        return std::make_unique<Instance>(host_);
    }

private:
    const sdk::Host& host_;
    std::string name_, schema_;
    Validate validate_;
};

}  // namespace coffer::channel_common

// The whole entry of a bundled channel adapter: a plugin with the one ChannelKind of INSTANCE.
#define COFFER_CHANNEL_ADAPTER(INSTANCE, NAME, VERSION, SCHEMA, VALIDATE)                                            \
    namespace {                                                                                                      \
    class ChannelAdapterPlugin : public ::coffer::sdk::Plugin {                                                      \
    public:                                                                                                          \
        ChannelAdapterPlugin() { add_kind<::coffer::channel_common::ChannelKind<INSTANCE>>(host(), NAME, SCHEMA, VALIDATE); } \
    };                                                                                                               \
    }                                                                                                                \
    COFFER_PLUGIN(ChannelAdapterPlugin, NAME, VERSION)
