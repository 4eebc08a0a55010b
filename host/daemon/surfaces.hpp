// Every HTTP surface the daemon serves, registered in one place. The rule (docs/style.md,
// "Routes"): a component that owns REST routes exposes one `add_<area>_routes(api::Api&, …)`
// (or, for a whole surface with its own envelope, an `api::Mount`), and only add_surfaces() calls
// them — so this file is the daemon's complete route table, in the order docs/rest-api.md lists it.
#pragma once

#include "api/api.hpp"
#include "channels/service.hpp"
#include "chat/orchestrator.hpp"
#include "console/sessions.hpp"
#include "events/bus.hpp"
#include "credential/store.hpp"
#include "curation/curation.hpp"
#include "curation/invocations.hpp"
#include "daemon/backup_endpoint.hpp"
#include "mcp/gateway.hpp"
#include "plugin/registry.hpp"
#include "resource/service.hpp"
#include "store/database.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <string>

namespace coffer::daemon {

struct SurfaceDeps {
    resource::Service& resources;
    plugin::Registry& registry;
    mcp::Gateway& gateway;
    curation::Curation& curator;
    credential::Store& credentials;
    BackupEndpoint& backup;
    store::Database& db;
    boost::asio::any_io_executor service;  // the service thread, where routes read the store
    chat::Orchestrator& chat;
    channels::Service& channels;
    boost::asio::any_io_executor network;  // the network thread, where event streams are written
    std::chrono::milliseconds chat_heartbeat;
    curation::InvocationLog& invocations;
    std::string version;
    events::Bus& bus;               // the live invocations stream publishes here
    console::Sessions& console;     // the web console's codes and sessions
    double started_at_s = 0;        // Unix seconds
};

void add_surfaces(api::Api& api, SurfaceDeps deps);

}  // namespace coffer::daemon
