// The codex plugin: one agent-driver kind (ABI 1.5) and the library's entry symbol.
#include "codex_driver.hpp"

namespace coffer::codex {

class CodexPlugin : public sdk::Plugin {
public:
    CodexPlugin() { add_kind<agent::DriverKind>(*this, std::make_shared<CodexDriver>()); }
    void shutdown() override { agent::DriverKind::shutdown_all(*this); }
};

}  // namespace coffer::codex

COFFER_PLUGIN(coffer::codex::CodexPlugin, "codex", "0.1.0")
