// The REST routes of agents and conversations (registered from daemon/surfaces.cpp):
//   /api/v1/agents[/{name}]                       agent resources of any agent-driver kind
//   /api/v1/conversations[/{id}]                  conversations (T-1)
//   /api/v1/conversations/{id}/messages           send (T-2) and the committed messages
//   /api/v1/conversations/{id}/events             the SSE stream (T-2)
//   /api/v1/conversations/{id}/interrupt          (T-4)
//   /api/v1/conversations/{id}/queue[/resume|/clear|/{item}]
// See docs/rest-api.md and docs/agents-and-chat.md.
#pragma once

#include "api/api.hpp"
#include "chat/orchestrator.hpp"
#include "plugin/registry.hpp"
#include "resource/service.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <chrono>

namespace coffer::chat {

struct ChatDeps {
    Orchestrator& orchestrator;
    resource::Service& resources;
    plugin::Registry& registry;
    boost::asio::any_io_executor network;   // where event streams are written
    std::chrono::milliseconds heartbeat{15000};
};

void add_agent_routes(api::Api& api, ChatDeps deps);
void add_conversation_routes(api::Api& api, ChatDeps deps);

}  // namespace coffer::chat
