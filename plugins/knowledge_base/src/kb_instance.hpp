// One knowledge_base resource: registers its folder with the Library while enabled, reports its
// status from the Library's snapshot (never waiting on the index), answers the CLI's actions
// (search, reindex, stats, check, read) through the index worker, and opens a KbSession per MCP
// client session.
#pragma once

#include "library.hpp"

#include <coffer/sdk.hpp>

namespace coffer::plugins::knowledge_base {

class KbInstance : public sdk::Instance {
public:
    KbInstance(Library& lib, const sdk::ResourceInfo& resource);

    void start() override;
    void stop() override;
    void update(const json::object& config) override;
    json::value status() override;
    json::value action(std::string_view name, const json::object& args) override;
    void remove() override;
    std::unique_ptr<sdk::McpSessionState> open_mcp(sdk::McpSession session, const json::object& info) override;

private:
    json::value search(const json::object& args);
    json::value reindex(const json::object& args);
    json::value stats();
    json::value check();
    json::value read(const json::object& args);
    // Creates the folder Coffer manages (a folder the user named must exist already).
    void prepare_folder() const;

    Library& lib_;
    SpecPtr spec_;
    bool started_ = false;
};

// SyncStats as JSON: {scanned, added, updated, removed, unchanged, chunks, seconds}.
json::object sync_json(const retrieval::SyncStats& s);

}  // namespace coffer::plugins::knowledge_base
