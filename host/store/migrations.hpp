// Versioned schema migrations, applied in order at start (PRAGMA user_version).
#pragma once

#include "store/database.hpp"

namespace coffer::store {

// The schema version this binary writes.
int current_schema_version();
// Migrates forward; a database newer than this binary is refused with a clear message.
Result<int> migrate(Database& db);

}  // namespace coffer::store
