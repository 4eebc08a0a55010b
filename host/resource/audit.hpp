// The audit log: lifecycle changes with actor, time, target, event type and a JSON payload.
// Writes happen inside the caller's transaction so a change and its audit row commit together.
#pragma once

#include "store/database.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <string_view>

namespace coffer::resource {

core::Result<void> write_audit(store::Database& db, std::string_view actor, std::string_view event_type,
                               std::string_view target, const boost::json::object& payload);
core::Result<boost::json::array> list_audit(store::Database& db, int limit);

}  // namespace coffer::resource
