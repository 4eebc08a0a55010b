// The kind of a bundled channel adapter: its name, config schema and validation; instances are
// `Instance(host)`, and a config that does not validate creates none.
#pragma once

#include <coffer/sdk.hpp>

#include <memory>
#include <string>

namespace coffer::channel_common {

template <typename Instance> class ChannelKind : public sdk::Kind {
public:
    using Validate = void (*)(const boost::json::object&, sdk::Validation&);
    ChannelKind(const sdk::Host& host, std::string name, std::string schema, Validate validate)
        : host_(host), name_(std::move(name)), schema_(std::move(schema)), validate_(validate) {}
    std::string name() const override { return name_; }
    std::string schema() const override { return schema_; }
    bool is_channel() const override { return true; }
    void validate(const boost::json::object& config, sdk::Validation& v) override { validate_(config, v); }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override {
        sdk::Validation v;
        validate_(resource.config, v);
        if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "config is invalid", boost::json::object{{"errors", v.errors()}});
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
