// The gateway's counters (see call_metrics.hpp).
#include "mcp/call_metrics.hpp"

namespace coffer::mcp {

void CallMetrics::record(std::string_view server, curation::Type type, std::string_view name,
                         std::string_view outcome, std::chrono::nanoseconds duration) {
    std::string_view t = curation::to_string(type);
    auto key = std::make_tuple(server, t, name, outcome);
    auto it = calls_.find(key);
    if (it == calls_.end()) {
        if (calls_.size() >= kMaxSeries) name = "_other";
        it = calls_.try_emplace(CallKey{server, t, name, outcome}).first;
    }
    it->second.add();
    auto lt = latency_.find(std::make_tuple(server, t));
    if (lt == latency_.end()) lt = latency_.try_emplace(std::make_tuple(std::string(server), std::string(t))).first;
    lt->second.observe(duration);
}

void CallMetrics::session_opened(std::string_view transport) {
    auto it = opened_.find(transport);
    if (it == opened_.end()) it = opened_.try_emplace(std::string(transport)).first;
    it->second.add();
}

void CallMetrics::write(metrics::Writer& w, const std::map<std::string, std::size_t>& sessions) const {
    w.family("coffer_mcp_calls_total", "counter",
             "Calls through the MCP gateway (tools/call, resources/read, prompts/get) by server, capability and outcome");
    for (auto& [k, c] : calls_)
        w.sample("coffer_mcp_calls_total",
                 {{"server", std::get<0>(k)}, {"type", std::get<1>(k)}, {"tool", std::get<2>(k)}, {"outcome", std::get<3>(k)}},
                 c.value());
    w.family("coffer_mcp_call_duration_seconds", "histogram",
             "Time from a call's arrival at the gateway to its answer, by server and capability type");
    for (auto& [k, h] : latency_) w.histogram("coffer_mcp_call_duration_seconds", {{"server", std::get<0>(k)}, {"type", std::get<1>(k)}}, h);
    w.family("coffer_mcp_sessions", "gauge", "Open MCP sessions by transport");
    for (auto& [t, n] : sessions) w.sample("coffer_mcp_sessions", {{"transport", t}}, static_cast<std::uint64_t>(n));
    w.family("coffer_mcp_sessions_opened_total", "counter", "MCP sessions opened since the daemon started, by transport");
    for (auto& [t, c] : opened_) w.sample("coffer_mcp_sessions_opened_total", {{"transport", t}}, c.value());
}

}  // namespace coffer::mcp
