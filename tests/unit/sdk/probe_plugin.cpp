// The probe plugin: two kinds ("probe" and "probe_quiet") written with the C++ wrapper.
//
// Config of "probe": {"level": int, "mode": "a"|"b", "explode": bool, "throw_in_validate": bool}.
// Validator: level must be > 0 (pointer /level); mode "b" needs level >= 10 (pointer /mode).
// Actions of "probe":
//   echo          → {"args": <args>}
//   info          → the ResourceInfo the instance holds
//   fail_error    → throws coffer::sdk::Error(CONFLICT, "already there", {"which": args.which})
//   fail_std      → throws std::runtime_error("std failure")
//   fail_other    → throws 42 (not an exception class)
//   services      → logs, emits, audits, returns {"data_dir", "vault_dir"}
#include "probe_plugin.hpp"

#include <coffer/sdk.hpp>

#include <stdexcept>

namespace sdk = coffer::sdk;
namespace json = boost::json;

namespace probe {

Counters& counters() {
    static Counters c;
    return c;
}

namespace {

class ProbeInstance : public sdk::Instance {
public:
    ProbeInstance() {
        ++counters().live;
        ++counters().created;
    }
    ~ProbeInstance() override {
        --counters().live;
        ++counters().destroyed;
    }
    void update(const json::object& config) override {
        if (config.contains("reject_update")) throw sdk::Error(COFFER_E_CONFLICT, "update refused");
        info_.config = config;
    }
    void start() override { ++counters().starts; }
    void stop() override { ++counters().stops; }
    void remove() override { ++counters().removes; }
    json::value status() override {
        return json::object{{"health", "ok"}, {"name", info_.name}};
    }
    json::value action(std::string_view name, const json::object& args) override {
        if (name == "echo") return json::object{{"args", args}};
        if (name == "info")
            return json::object{{"uid", info_.uid},   {"kind", info_.kind},       {"name", info_.name},
                                {"config", info_.config}, {"enabled", info_.enabled},
                                {"description", info_.description}};
        if (name == "fail_error") {
            json::value which = args.contains("which") ? args.at("which") : json::value(nullptr);
            throw sdk::Error(COFFER_E_CONFLICT, "already there", json::object{{"which", which}});
        }
        if (name == "fail_std") throw std::runtime_error("std failure");
        if (name == "fail_other") throw 42;
        if (name == "services") {
            host_->info("probe says hi");
            host_->warn("probe warns");
            bool emitted = host_->emit("probe.poked", json::object{{"name", info_.name}});
            bool audited = host_->audit("probe_poked", "probe:" + info_.name, json::object{{"n", 1}});
            return json::object{{"data_dir", host_->data_dir()}, {"vault_dir", host_->vault_dir()},
                                {"emitted", emitted},          {"audited", audited}};
        }
        return Instance::action(name, args);  // UNSUPPORTED
    }

    const sdk::Host* host_ = nullptr;
};

class ProbeKind : public sdk::Kind {
public:
    explicit ProbeKind(const sdk::Host& host) : host_(host) {}
    std::string name() const override { return "probe"; }
    std::string schema() const override {
        return R"({"type":"object","properties":{"level":{"type":"integer"},"mode":{"enum":["a","b"]}},)"
               R"("additionalProperties":true})";
    }
    std::vector<sdk::ActionInfo> actions() const override {
        return {{"echo", "returns its arguments"}, {"info", "returns the resource info"},
                {"fail_error", "throws a coffer::sdk::Error"}, {"fail_std", "throws std::runtime_error"},
                {"fail_other", "throws an int"}, {"services", "uses every host service"}};
    }
    void validate(const json::object& config, sdk::Validation& v) override {
        if (config.contains("throw_in_validate")) throw std::runtime_error("validator blew up");
        std::int64_t level = 0;
        if (auto* l = config.if_contains("level"); l && l->is_int64()) level = l->as_int64();
        if (level <= 0) v.fail("/level", "must be greater than 0");
        if (auto* m = config.if_contains("mode"); m && m->is_string() && m->as_string() == "b" && level < 10)
            v.fail("/mode", "mode \"b\" needs level >= 10");
    }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& r) override {
        if (auto* e = r.config.if_contains("explode"); e && e->is_bool() && e->as_bool())
            throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot create: exploded");
        auto inst = std::make_unique<ProbeInstance>();
        inst->host_ = &host_;
        return inst;
    }

private:
    const sdk::Host& host_;
};

// A second kind that overrides nothing optional: default validate/actions/status.
class QuietKind : public sdk::Kind {
public:
    std::string name() const override { return "probe_quiet"; }
    std::string schema() const override { return R"({"type":"object"})"; }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo&) override {
        return std::make_unique<sdk::Instance>();
    }
};

class ProbePlugin : public sdk::Plugin {
public:
    ProbePlugin() {
        add_kind<ProbeKind>(host());
        add_kind<QuietKind>();
    }
    void init(const json::value& config) override {
        ++counters().inits;
        if (config.is_object() && config.as_object().contains("fail_init"))
            throw sdk::Error(COFFER_E_UNAVAILABLE, "init refused on purpose");
    }
    void shutdown() override { ++counters().shutdowns; }
};

}  // namespace
}  // namespace probe

COFFER_PLUGIN(probe::ProbePlugin, "probe_plugin", "0.3.1")
