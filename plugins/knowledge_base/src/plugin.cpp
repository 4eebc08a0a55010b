// The bundled `knowledge_base` plugin: one kind, one Library (index, worker, watcher) started in
// init and stopped in shutdown. Name and version must equal knowledge_base.plugin.json.
#include "kb_kind.hpp"

namespace coffer::plugins::knowledge_base {

class KnowledgeBasePlugin : public sdk::Plugin {
public:
    KnowledgeBasePlugin() : lib_(host()) { add_kind<KbKind>(lib_); }
    void init(const json::value&) override { lib_.start(); }
    void shutdown() override { lib_.stop(); }

private:
    Library lib_;
};

}  // namespace coffer::plugins::knowledge_base

COFFER_PLUGIN(coffer::plugins::knowledge_base::KnowledgeBasePlugin, "knowledge_base", "1.0.0")
