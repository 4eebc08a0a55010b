// ABI case init_fails: BREAKS initialisation. A valid plugin (manifest, symbol, versions) whose
// init() fails with COFFER_E_UNAVAILABLE and a message, as a plugin whose backing service is down
// would. Expected: refused, "init failed: init_fails: backing service unreachable (on purpose)";
// its kind is not offered; the daemon keeps running.
#include <coffer/sdk.hpp>

namespace {

class InitFailsKind : public coffer::sdk::Kind {
public:
    std::string name() const override { return "init_fails"; }
    std::string schema() const override { return R"({"type":"object"})"; }
    std::unique_ptr<coffer::sdk::Instance> create(const coffer::sdk::ResourceInfo&) override {
        return std::make_unique<coffer::sdk::Instance>();
    }
};

class InitFailsPlugin : public coffer::sdk::Plugin {
public:
    InitFailsPlugin() { add_kind<InitFailsKind>(); }
    void init(const boost::json::value&) override {
        throw coffer::sdk::Error(COFFER_E_UNAVAILABLE, "init_fails: backing service unreachable (on purpose)",
                                 boost::json::object{{"retry_after_s", 30}});
    }
};

}  // namespace

COFFER_PLUGIN(InitFailsPlugin, "init_fails", "1.0.0")
