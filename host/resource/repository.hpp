// SQL for the resources table. Callers own transactions.
#pragma once

#include "resource/model.hpp"
#include "store/database.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::resource::repo {

core::Result<std::optional<Resource>> find(store::Database& db, std::string_view kind, std::string_view name);
core::Result<std::vector<Resource>> list(store::Database& db, std::optional<std::string_view> kind);
// The rows list() reads, as the JSON text of a `{"resources":[…]}` document whose items are
// Resource::to_json() objects (same members, same order), written straight from the rows: the
// stored config is spliced in as the text it is kept as, never parsed and re-serialized. `place`
// sees each row's scope and says whether the row is listed (nullopt: left out) and whether it is
// in scope (false adds "in_scope": false). For listing many resources (issue 15, item 8).
core::Result<std::string> list_document(store::Database& db, std::optional<std::string_view> kind,
                                        const std::function<std::optional<bool>(const boost::json::array& scope)>& place);
core::Result<void> insert(store::Database& db, const Resource& r);
core::Result<void> update(store::Database& db, const Resource& r);
core::Result<void> remove(store::Database& db, std::string_view uid);

}  // namespace coffer::resource::repo
