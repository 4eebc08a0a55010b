// REST routes of capability curation and the invocation log (docs/rest-api.md, "MCP curation"):
//   GET  /api/v1/mcp/servers/{server}/capabilities[?live=false]
//   POST /api/v1/mcp/servers/{server}/{tools|resources|prompts}/{enable|disable}   {"name": …}
//   GET  /api/v1/mcp/invocations[?server=S&limit=N]
#pragma once

#include "api/api.hpp"
#include "curation/curation.hpp"
#include "mcp/gateway.hpp"
#include "plugin/registry.hpp"
#include "resource/service.hpp"
#include "store/database.hpp"

#include <boost/asio/any_io_executor.hpp>

namespace coffer::daemon {

struct CurationDeps {
    resource::Service& resources;
    plugin::Registry& registry;
    mcp::Gateway& gateway;
    curation::Curation& curator;
    store::Database& db;
    boost::asio::any_io_executor service;  // the service thread, where routes read the store
};

void add_curation_routes(api::Api& api, CurationDeps deps);

}  // namespace coffer::daemon
