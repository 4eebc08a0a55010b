// The daemon's complete route table: each area's routes and each mounted surface, in one place.
#include "daemon/surfaces.hpp"

#include "api/credential_routes.hpp"
#include "channels/routes.hpp"
#include "chat/routes.hpp"
#include "console/endpoint.hpp"
#include "daemon/invocation_stream.hpp"
#include "daemon/curation_routes.hpp"
#include "daemon/metrics_endpoint.hpp"

#include <boost/json.hpp>

namespace coffer::daemon {

namespace json = boost::json;

namespace {

// POST /api/v1/mcp/refresh: every session re-lists its servers' capabilities.
void add_gateway_routes(api::Api& api, mcp::Gateway& gateway) {
    api.add_route("POST", "/api/v1/mcp/refresh", [&gateway](const http::Request&, const api::Params&) -> core::Result<api::Reply> {
        gateway.refresh();
        return api::Reply{200, json::object{{"refreshed", true},
                                            {"sessions", static_cast<std::int64_t>(gateway.session_count())}}};
    });
}

// /mcp and /sse: the MCP gateway, whose refusals are JSON-RPC errors rather than the REST envelope.
api::Mount gateway_mount(mcp::Gateway& gateway) {
    return api::Mount{
        mcp::Gateway::paths(),
        [&gateway](http::Request&& r, http::Respond respond) { gateway.handle(std::move(r), std::move(respond)); },
        [](int status, const std::string&, const std::string& message, const std::string& trace) {
            auto res = mcp::Gateway::http_error(status, mcp::rpc::code::server_error, message);
            res.headers.emplace_back("X-Coffer-Trace", trace);
            return res;
        },
        false,
        true};  // quiet: every call is in the invocation log
}

}  // namespace

void add_surfaces(api::Api& api, SurfaceDeps d) {
    // /api/v1: daemon, plugins, kinds, resources, actions, audit, retention.
    api.add_core_routes();
    // /api/v1/credentials.
    api::add_credential_routes(api, d.credentials);
    // /api/v1/mcp: curation, invocations, refresh.
    add_curation_routes(api, CurationDeps{d.resources, d.registry, d.gateway, d.curator, d.db, d.service});
    add_gateway_routes(api, d.gateway);
    // /api/v1/mcp/invocations/events: every recorded call, live.
    add_invocation_stream(api, d.invocations, d.bus, d.network, d.chat_heartbeat);
    // /api/v1/agents, /api/v1/conversations: managed agents and the turn orchestrator (SSE included).
    chat::ChatDeps chat{d.chat, d.resources, d.registry, d.network, d.chat_heartbeat};
    chat::add_agent_routes(api, chat);
    chat::add_conversation_routes(api, chat);
    // /api/v1/channels: IM channels, their owner pairing and health.
    channels::add_channel_routes(api, channels::ChannelDeps{d.channels, d.resources, d.registry});
    // /mcp, /sse: the gateway; /api/v1/backup: a streamed archive.
    api.mount(gateway_mount(d.gateway));
    api.mount(d.backup.mount());
    // /api/v1/console/codes, and /console/…: the web console, whose session cookie the REST
    // surface accepts in place of the token (same origin; CSRF token for changes).
    console::add_console_routes(api, d.console);
    api.mount(console::console_mount(d.console));
    api.accept_sessions(console::session_checker(d.console));
    // /metrics: Prometheus text, token-protected like the API.
    api.mount(metrics_mount(MetricsDeps{api, d.gateway, d.resources, d.chat, d.invocations, d.service, d.version,
                                        d.started_at_s}));
}

}  // namespace coffer::daemon
