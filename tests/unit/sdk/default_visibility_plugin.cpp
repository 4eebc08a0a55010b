// A wrapper-based plugin built WITHOUT -fvisibility=hidden (plain add_library(MODULE)), as a
// third-party author might. Compiled twice, as libsdk_default_vis_a.so and ..._b.so, with a
// different VIS_NAME each. See visibility_test.cpp.
#include <coffer/sdk.hpp>

namespace {

struct VisKind : coffer::sdk::Kind {
    std::string name() const override { return VIS_NAME; }
    std::string schema() const override { return R"({"type":"object"})"; }
    std::unique_ptr<coffer::sdk::Instance> create(const coffer::sdk::ResourceInfo&) override {
        return std::make_unique<coffer::sdk::Instance>();
    }
};

struct VisPlugin : coffer::sdk::Plugin {
    VisPlugin() { add_kind<VisKind>(); }
};

}  // namespace

COFFER_PLUGIN(VisPlugin, VIS_NAME, "1.0.0")
