// Retention policies per log table: days, or keep forever (null). Purges delete in small
// batches so API calls interleave with a large purge.
#pragma once

#include "store/database.hpp"

#include <boost/json/array.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::resource {

// Log tables a policy may name, with their timestamp column (milliseconds since the epoch).
struct RetainedTable {
    std::string name;
    std::string ts_column;
    std::optional<int> default_days;
    std::string sql_table;  // the SQL table when it is not named like the policy
};
void register_retained_table(RetainedTable t);  // plugins' host components add theirs at start
const RetainedTable* find_retained_table(std::string_view name);

core::Result<boost::json::array> list_retention(store::Database& db);
core::Result<std::optional<int>> get_retention(store::Database& db, std::string_view table);
// Sets a policy (writes retention_changed in the same transaction).
core::Result<void> set_retention(store::Database& db, std::string_view table, std::optional<int> days,
                                 std::string_view actor);
// Deletes at most `batch` expired rows of one table; returns how many were deleted.
core::Result<std::int64_t> purge_batch(store::Database& db, std::string_view table, std::int64_t now_ms, int batch);

}  // namespace coffer::resource
