// The `knowledge_base` kind: its schema and validation, its resources, the kind-level actions
// (search over several knowledge bases, list them) and the MCP provider flag.
//
// Config: {"path"?: absolute folder, "writable"?: bool, "embeddings"?: {base_url, model,
// api_key?: "credref:<name>", dimensions?, batch?}, "default_mode"?: keyword|hybrid|vector|grep}.
// Resource actions: search, reindex, stats, check, read. Kind actions: search, list.
#pragma once

#include "library.hpp"

#include <coffer/sdk.hpp>

namespace coffer::plugins::knowledge_base {

class KbKind : public sdk::Kind {
public:
    explicit KbKind(Library& lib) : lib_(lib) {}

    std::string name() const override { return "knowledge_base"; }
    std::string schema() const override;
    std::vector<sdk::ActionInfo> actions() const override;
    std::vector<sdk::ActionInfo> kind_actions() const override;
    bool provides_mcp() const override { return true; }
    void validate(const json::object& config, sdk::Validation& v) override;
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo& resource) override;
    json::value kind_action(std::string_view name, const json::object& args) override;

private:
    json::value search(const json::object& args);
    json::value list();

    Library& lib_;
};

}  // namespace coffer::plugins::knowledge_base
