// The plugin: one agent-driver kind and the library's entry symbol.
#include "driver.hpp"

namespace jsonl_agent {

class Plugin : public coffer::sdk::Plugin {
public:
    Plugin() { add_kind<coffer::agent::DriverKind>(*this, std::make_shared<Driver>()); }
    void shutdown() override { coffer::agent::DriverKind::shutdown_all(*this); }
};

}  // namespace jsonl_agent

COFFER_PLUGIN(jsonl_agent::Plugin, "jsonl_agent", "1.0.0")
