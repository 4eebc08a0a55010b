// The memory kind (see memory_kind.hpp).
#include "memory_kind.hpp"

#include "memory_instance.hpp"
#include "schema_text.hpp"

#include <coffer/mcp_names.hpp>

namespace coffer::plugins::memory {

std::string MemoryKind::schema() const { return kSchemaText; }

std::vector<sdk::ActionInfo> MemoryKind::actions() const {
    return {{"list", "remembered facts: {project?: absolute folder} → {facts:[{id, scope, path, created, updated, tags, "
                     "source, project, text}]} (that project's and the global ones; every scope when absent)"},
            {"show", "one fact: {id}"},
            {"search", "search facts: {query, project?, mode?, top_k?} → {results:[{kb (the scope), path, heading, "
                       "lines, score, engine, snippet}], degraded}"},
            {"forget", "delete a fact: {id} → {forgotten}"}};
}

void MemoryKind::validate(const json::object& config, sdk::Validation& v) {
    knowledge::validate_embeddings(config, v);
    if (auto* m = config.if_contains("default_mode"); m && m->is_string()) {
        std::string_view mode = m->as_string();
        if ((mode == "vector" || mode == "hybrid") && !config.contains("embeddings"))
            v.fail("/default_mode", "\"" + std::string(mode) + "\" needs embeddings; configure /embeddings or use keyword");
    }
}

std::unique_ptr<sdk::Instance> MemoryKind::create(const sdk::ResourceInfo& resource) {
    if (!mcp_names::addressable_server(resource.name) || resource.name.size() > 56)
        throw sdk::Error(COFFER_E_INVALID, "invalid memory name \"" + resource.name + "\"",
                         json::object{{"errors", json::array{json::object{
                                                     {"pointer", "/name"},
                                                     {"message", "at most 56 of [A-Za-z0-9_-], no \"__\", not ending in '_' "
                                                                 "(its tools are named \"<name>__remember\")"}}}}});
    sdk::Validation v;
    validate(resource.config, v);
    if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "config is invalid", json::object{{"errors", v.errors()}});
    auto inst = std::make_unique<MemoryInstance>(store_, resource);
    inst->set_info(resource);
    if (resource.enabled) inst->start();
    return inst;
}

}  // namespace coffer::plugins::memory
