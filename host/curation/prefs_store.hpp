// Capability preferences in SQLite (table mcp_capability_prefs); service thread only. Every
// write and its audit row commit together.
#pragma once

#include "curation/prefs.hpp"
#include "store/database.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::curation {

core::Result<std::vector<Row>> load_rows(store::Database& db);
// Never-seen capabilities and the policy's decision (audited as capabilities_discovered, one
// event per server and type). A row the user wrote meanwhile is kept.
core::Result<void> write_observed(store::Database& db, const std::string& server, Type type,
                                  const std::vector<std::string>& names, bool enabled, std::int64_t now_ms);
// A user's choice (audited as capability_enabled / capability_disabled with the previous state).
core::Result<void> write_choice(store::Database& db, const Row& row, std::optional<bool> before,
                                std::string_view actor);
}  // namespace coffer::curation
