// The `memory` kind: config {"embeddings"?, "default_mode"?}; resource actions list, show,
// search, forget; MCP tools remember, recall, forget. Usually one resource, named "memory"
// (`coffer memory …` creates it on first use); every memory resource reaches the same facts.
#pragma once

#include "store.hpp"

namespace coffer::plugins::memory {

class MemoryKind : public sdk::Kind {
public:
    explicit MemoryKind(Store& store) : store_(store) {}

    std::string name() const override { return "memory"; }
    std::string schema() const override;
    std::vector<sdk::ActionInfo> actions() const override;
    bool provides_mcp() const override { return true; }
    void validate(const json::object& config, sdk::Validation& v) override;
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override;

private:
    Store& store_;
};

}  // namespace coffer::plugins::memory
