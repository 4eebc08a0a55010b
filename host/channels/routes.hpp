// The REST routes of IM channels (registered from daemon/surfaces.cpp):
//   GET/POST /api/v1/channels                 list; add a channel resource of an adapter kind
//   GET/DELETE /api/v1/channels/{name}        the channel with its owner, health and counters
//   POST /api/v1/channels/{name}/pair         a pairing code {code, expires_at} (CH-2)
//   POST /api/v1/channels/{name}/unpair       forget the owner (everything is dropped again)
// See docs/rest-api.md and docs/channels.md.
#pragma once

#include "api/api.hpp"
#include "channels/service.hpp"
#include "plugin/registry.hpp"
#include "resource/service.hpp"

namespace coffer::channels {

struct ChannelDeps {
    Service& channels;
    resource::Service& resources;
    plugin::Registry& registry;
};

void add_channel_routes(api::Api& api, ChannelDeps deps);

}  // namespace coffer::channels
