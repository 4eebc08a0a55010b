// The claude_code plugin: one agent-driver kind (ABI 1.5) and the library's entry symbol.
#include "claude_driver.hpp"

namespace coffer::claude_code {

class ClaudeCodePlugin : public sdk::Plugin {
public:
    ClaudeCodePlugin() { add_kind<agent::DriverKind>(*this, std::make_shared<ClaudeDriver>()); }
    void shutdown() override { agent::DriverKind::shutdown_all(*this); }
};

}  // namespace coffer::claude_code

COFFER_PLUGIN(coffer::claude_code::ClaudeCodePlugin, "claude_code", "0.1.0")
