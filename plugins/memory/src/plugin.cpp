// The bundled `memory` plugin: one kind, one Store (folder, index, worker, watcher) started in
// init and stopped in shutdown. Name and version must equal memory.plugin.json.
#include "memory_kind.hpp"

namespace coffer::plugins::memory {

class MemoryPlugin : public sdk::Plugin {
public:
    MemoryPlugin() : store_(host()) { add_kind<MemoryKind>(store_); }
    void init(const json::value&) override { store_.start(); }
    void shutdown() override { store_.stop(); }

private:
    Store store_;
};

}  // namespace coffer::plugins::memory

COFFER_PLUGIN(coffer::plugins::memory::MemoryPlugin, "memory", "1.0.0")
