// SQL for the resources table. Callers own transactions.
#pragma once

#include "resource/model.hpp"
#include "store/database.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace coffer::resource::repo {

core::Result<std::optional<Resource>> find(store::Database& db, std::string_view kind, std::string_view name);
core::Result<std::vector<Resource>> list(store::Database& db, std::optional<std::string_view> kind);
core::Result<void> insert(store::Database& db, const Resource& r);
core::Result<void> update(store::Database& db, const Resource& r);
core::Result<void> remove(store::Database& db, std::string_view uid);

}  // namespace coffer::resource::repo
