// The plugin: one library, one kind. COFFER_PLUGIN turns the class into the library's single
// exported symbol, coffer_plugin_entry_v1, and catches every exception at the C boundary.
#include "greeter.hpp"

namespace hello {

class HelloPlugin : public sdk::Plugin {
public:
    // Kinds are registered in the constructor: the host reads them before init().
    HelloPlugin() { add_kind<GreeterKind>(host(), settings_); }

    // config is this plugin's section of the host config, or {} — e.g. {"default_who": "team"}.
    void init(const json::value& config) override {
        settings_ = Settings{};
        if (auto* o = config.if_object()) {
            if (auto* w = o->if_contains("default_who")) {
                if (!w->is_string() || w->as_string().empty())
                    throw sdk::Error(COFFER_E_INVALID, "hello_kind: default_who must be a non-empty string");
                settings_.default_who = std::string(w->as_string());
            }
        }
        host().info("hello_kind ready; greeting \"" + settings_.default_who + "\" by default");
    }

private:
    Settings settings_;
};

}  // namespace hello

// Name and version must equal hello_kind.plugin.json: the daemon refuses a mismatch.
COFFER_PLUGIN(hello::HelloPlugin, "hello_kind", "1.0.0")
