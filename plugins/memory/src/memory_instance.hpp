// A memory resource: a way in to the plugin's one Store. While enabled its config (embeddings,
// default mode) applies to the store; it answers the CLI's actions (list, show, search, forget)
// and opens a MemorySession per MCP client session.
#pragma once

#include "store.hpp"

namespace coffer::plugins::memory {

class MemoryInstance : public sdk::Instance {
public:
    MemoryInstance(Store& store, const sdk::ResourceInfo& resource) : store_(store) { (void)resource; }

    void start() override;
    void stop() override { started_ = false; }
    void update(const json::object& config) override;
    json::value status() override;
    json::value action(std::string_view name, const json::object& args) override;
    std::unique_ptr<sdk::McpSessionState> open_mcp(sdk::McpSession session, const json::object& info) override;

private:
    // The collections an action's optional {project: "<absolute dir>"} selects: that project and
    // global, or every scope when absent.
    std::vector<retrieval::Collection> scopes(const json::object& args) const;
    json::value list(const json::object& args);
    json::value show(const json::object& args);
    json::value search(const json::object& args);
    json::value forget(const json::object& args);

    Store& store_;
    bool started_ = false;
};

// The config's settings for the store.
Settings settings_of(const json::object& config);

}  // namespace coffer::plugins::memory
