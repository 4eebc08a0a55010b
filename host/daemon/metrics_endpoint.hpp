// GET /metrics: the daemon's numbers in the Prometheus text format, behind the same Host/Origin
// guard and token as the API (an api::Mount). The gateway's series are written on the network
// thread, where the handler starts and where they are recorded; then the service thread adds
// what lives there (resources and their live status, conversations, the invocation log's queue),
// and answers. Series are documented in docs/console-and-metrics.md.
#pragma once

#include "api/api.hpp"
#include "chat/orchestrator.hpp"
#include "curation/invocations.hpp"
#include "mcp/gateway.hpp"
#include "resource/service.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <string>

namespace coffer::daemon {

struct MetricsDeps {
    api::Api& api;
    mcp::Gateway& gateway;
    resource::Service& resources;
    chat::Orchestrator& chat;
    curation::InvocationLog& invocations;
    boost::asio::any_io_executor service;
    std::string version;
    double started_at_s = 0;  // Unix time the daemon started
};

api::Mount metrics_mount(MetricsDeps d);

}  // namespace coffer::daemon
