// ABI case test_kind: the GOOD plugin (breaks nothing). The integration tests drive the daemon's
// resource framework through it. Written with the C++ wrapper (coffer/sdk.hpp).
//
// Kind "test_kind"; config (schema below): {"value": 0..1000000 (required), "label": ≤64 chars,
// "tags": [string…]}, no other keys. Plugin validator: value must be even when label == "even"
// (pointer /value).
// Actions:
//   echo      → {"echo": <args>}
//   fail      → error COFFER_E_UNAVAILABLE "asked to fail"
//   throw     → throws std::runtime_error inside the wrapper (becomes COFFER_E_INTERNAL)
//   info      → {"uid","kind","name","enabled","description","config","started","stopped"}
//   services  → uses every host service (log, emit "test_kind.poked", audit "test_kind_poked",
//               data_dir, vault_dir) and returns what it saw
// Status: {"health":"ok","value":N} (N from the current config).
#include <coffer/sdk.hpp>

#include <stdexcept>

namespace {

namespace sdk = coffer::sdk;
namespace json = boost::json;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "value": {"type": "integer", "minimum": 0, "maximum": 1000000},
    "label": {"type": "string", "maxLength": 64},
    "tags": {"type": "array", "items": {"type": "string"}}
  },
  "required": ["value"],
  "additionalProperties": false
})json";

class TestInstance : public sdk::Instance {
public:
    explicit TestInstance(const sdk::Host& host) : host_(host) {}

    void start() override { ++started_; }
    void stop() override { ++stopped_; }

    json::value status() override {
        json::value value = 0;
        if (auto* v = info_.config.if_contains("value")) value = *v;
        return json::object{{"health", "ok"}, {"value", value}};
    }

    json::value action(std::string_view name, const json::object& args) override {
        if (name == "echo") return json::object{{"echo", args}};
        if (name == "fail") throw sdk::Error(COFFER_E_UNAVAILABLE, "asked to fail");
        if (name == "throw") throw std::runtime_error("test_kind: thrown on request");
        if (name == "info")
            return json::object{{"uid", info_.uid},         {"kind", info_.kind},
                                {"name", info_.name},       {"enabled", info_.enabled},
                                {"description", info_.description}, {"config", info_.config},
                                {"started", started_},      {"stopped", stopped_}};
        if (name == "services") {
            host_.info("test_kind " + info_.name + " poked");
            bool emitted = host_.emit("test_kind.poked", json::object{{"name", info_.name}});
            bool audited = host_.audit("test_kind_poked", "test_kind:" + info_.name, json::object{{"args", args}});
            return json::object{{"data_dir", host_.data_dir()}, {"vault_dir", host_.vault_dir()},
                                {"emitted", emitted},           {"audited", audited}};
        }
        return Instance::action(name, args);
    }

private:
    const sdk::Host& host_;
    int started_ = 0, stopped_ = 0;
};

class TestKind : public sdk::Kind {
public:
    explicit TestKind(const sdk::Host& host) : host_(host) {}
    std::string name() const override { return "test_kind"; }
    std::string schema() const override { return kSchema; }
    std::vector<sdk::ActionInfo> actions() const override {
        return {{"echo", "returns its arguments under \"echo\""},
                {"fail", "fails with UNAVAILABLE \"asked to fail\""},
                {"throw", "throws std::runtime_error inside the plugin"},
                {"info", "returns what the plugin knows about the resource"},
                {"services", "calls every host service"}};
    }
    void validate(const json::object& config, sdk::Validation& v) override {
        auto* label = config.if_contains("label");
        auto* value = config.if_contains("value");
        if (label && label->is_string() && label->as_string() == "even" && value && value->is_int64() &&
            value->as_int64() % 2 != 0)
            v.fail("/value", "must be even when label is \"even\"");
    }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo&) override {
        ++created_;
        return std::make_unique<TestInstance>(host_);
    }
    std::vector<sdk::ActionInfo> kind_actions() const override {
        return {{"stats", "how many instances this kind created, and the arguments back"}};
    }
    json::value kind_action(std::string_view name, const json::object& args) override {
        if (name == "stats") return json::object{{"created", created_}, {"args", args}};
        return Kind::kind_action(name, args);
    }

private:
    const sdk::Host& host_;
    int created_ = 0;
};

class TestPlugin : public sdk::Plugin {
public:
    TestPlugin() { add_kind<TestKind>(host()); }
};

}  // namespace

COFFER_PLUGIN(TestPlugin, "test_kind", "1.0.0")
