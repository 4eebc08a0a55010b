// The audit log: lifecycle changes with actor, time, target, event type and a JSON payload.
// Writes happen inside the caller's transaction so a change and its audit row commit together.
#pragma once

#include "store/database.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string_view>

namespace coffer::resource {

// An audit row that belongs to a change: call it inside the change's transaction and fail the
// change when it fails, so a change never commits without its row.
core::Result<void> write_audit(store::Database& db, std::string_view actor, std::string_view event_type,
                               std::string_view target, const boost::json::object& payload);
// An audit row for something that has already happened and cannot be undone (the daemon started,
// a plugin ran an action, a credential was resolved, a backup finished). When the row cannot be
// written the failure is logged as an error with the whole event, never dropped silently
// (docs/style.md, "Errors").
void record_audit(store::Database& db, std::string_view actor, std::string_view event_type, std::string_view target,
                  const boost::json::object& payload);
core::Result<boost::json::array> list_audit(store::Database& db, int limit);

}  // namespace coffer::resource
