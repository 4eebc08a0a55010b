// ABI case bad_manifest: BREAKS the sidecar manifest. bad_manifest.plugin.json is malformed JSON
// (a trailing comma and no closing brace); it is copied as is, never parsed by the build. The
// library itself is a perfectly good plugin, so the refusal can only come from the manifest.
// Expected: refused, "malformed manifest bad_manifest.plugin.json: …"; the library is never loaded.
#include <coffer/sdk.hpp>

namespace {

class BadManifestKind : public coffer::sdk::Kind {
public:
    std::string name() const override { return "bad_manifest"; }
    std::string schema() const override { return R"({"type":"object"})"; }
    std::unique_ptr<coffer::sdk::Instance> create(const coffer::sdk::ResourceInfo&) override {
        return std::make_unique<coffer::sdk::Instance>();
    }
};

class BadManifestPlugin : public coffer::sdk::Plugin {
public:
    BadManifestPlugin() { add_kind<BadManifestKind>(); }
};

}  // namespace

COFFER_PLUGIN(BadManifestPlugin, "bad_manifest", "1.0.0")
