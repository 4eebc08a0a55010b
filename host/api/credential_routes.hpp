// The credential routes of /api/v1 (G-41, docs/rest-api.md):
//   POST   /api/v1/credentials               {ref, value}  → 201 created / 200 replaced
//   GET    /api/v1/credentials                             → {credentials:[{ref, created_at, updated_at, used_by}]}
//   GET    /api/v1/credentials/{ref}/exists                → {ref, exists}
//   GET    /api/v1/credentials/{ref}                       → {credential:{ref, value}} (audited: credential_read)
//   DELETE /api/v1/credentials/{ref}                       → {deleted:{ref}}; CONFLICT while a resource uses it
#pragma once

#include "api/api.hpp"
#include "credential/store.hpp"

namespace coffer::api {

void add_credential_routes(Api& api, credential::Store& store);

}  // namespace coffer::api
