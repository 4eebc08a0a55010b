// The library's one exported symbol: the telegram channel-adapter kind.
#include "channel.hpp"
#include "config.hpp"

#include <coffer/sdk.hpp>

namespace coffer::telegram {

class TelegramKind : public sdk::Kind {
public:
    explicit TelegramKind(const sdk::Host& host) : host_(host) {}
    std::string name() const override { return "telegram"; }
    std::string schema() const override { return config_schema(); }
    bool is_channel() const override { return true; }
    void validate(const json::object& config, sdk::Validation& v) override { validate_config(config, v); }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override {
        (void)parse_config(resource.config);
        return std::make_unique<TelegramChannel>(host_);
    }

private:
    const sdk::Host& host_;
};

class TelegramPlugin : public sdk::Plugin {
public:
    TelegramPlugin() { add_kind<TelegramKind>(host()); }
};

}  // namespace coffer::telegram

COFFER_PLUGIN(coffer::telegram::TelegramPlugin, "telegram", "0.1.0")
