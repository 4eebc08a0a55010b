// The gateway's counters (see call_metrics.hpp).
#include "mcp/call_metrics.hpp"

#include "curation/invocations.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

namespace coffer::mcp {

namespace {
namespace o = curation::outcome;
constexpr std::array<std::string_view, 8> kOutcomeNames{o::ok,       o::tool_error, o::error,     o::timeout,
                                                        o::disabled, o::unknown,    o::cancelled, "other"};
std::size_t outcome_index(std::string_view outcome) {
    for (std::size_t i = 0; i + 1 < kOutcomeNames.size(); ++i)
        if (kOutcomeNames[i] == outcome) return i;
    return kOutcomeNames.size() - 1;
}
}  // namespace

CallMetrics::Series& CallMetrics::series(std::string_view server, curation::Type type, std::string_view name) {
    std::string_view t = curation::to_string(type);
    key_.assign(server).append(1, '\x1f').append(t).append(1, '\x1f').append(name);
    if (auto it = calls_.find(std::string_view(key_)); it != calls_.end()) return *it->second;
    if (calls_.size() >= kMaxSeries) {
        name = "_other";
        key_.assign(server).append(1, '\x1f').append(t).append(1, '\x1f').append(name);
        if (auto it = calls_.find(std::string_view(key_)); it != calls_.end()) return *it->second;
    }
    auto s = std::make_unique<Series>();
    s->server = server;
    s->type = t;
    s->name = name;
    std::string lkey = std::string(server).append(1, '\x1f').append(t);
    auto lt = latency_.find(lkey);
    if (lt == latency_.end()) lt = latency_.emplace(lkey, std::make_unique<metrics::OwnedDurationHistogram>()).first;
    s->latency = lt->second.get();
    return *calls_.emplace(key_, std::move(s)).first->second;
}

void CallMetrics::record(std::string_view server, curation::Type type, std::string_view name, std::string_view outcome,
                         std::chrono::nanoseconds duration) {
    auto& s = series(server, type, name);
    s.calls[outcome_index(outcome)].add();
    s.latency->observe(duration);
}

void CallMetrics::session_opened(std::string_view transport) {
    auto it = opened_.find(transport);
    if (it == opened_.end()) it = opened_.try_emplace(std::string(transport)).first;
    it->second.add();
}

void CallMetrics::write(metrics::Writer& w, const std::map<std::string, std::size_t>& sessions) const {
    // Sorted, so a scrape lists series in a stable order.
    std::vector<const Series*> all;
    all.reserve(calls_.size());
    for (auto& [k, s] : calls_) all.push_back(s.get());
    std::sort(all.begin(), all.end(), [](const Series* a, const Series* b) {
        return std::tie(a->server, a->type, a->name) < std::tie(b->server, b->type, b->name);
    });
    w.family("coffer_mcp_calls_total", "counter",
             "Calls through the MCP gateway (tools/call, resources/read, prompts/get) by server, capability and outcome");
    for (auto* s : all)
        for (std::size_t i = 0; i < kOutcomes; ++i)
            if (auto n = s->calls[i].value())
                w.sample("coffer_mcp_calls_total",
                         {{"server", s->server}, {"type", s->type}, {"tool", s->name}, {"outcome", kOutcomeNames[i]}}, n);
    w.family("coffer_mcp_call_duration_seconds", "histogram",
             "Time from a call's arrival at the gateway to its answer, by server and capability type");
    for (auto& [k, h] : latency_) {
        auto sep = k.find('\x1f');
        w.histogram("coffer_mcp_call_duration_seconds",
                    {{"server", std::string_view(k).substr(0, sep)}, {"type", std::string_view(k).substr(sep + 1)}}, *h);
    }
    w.family("coffer_mcp_sessions", "gauge", "Open MCP sessions by transport");
    for (auto& [t, n] : sessions) w.sample("coffer_mcp_sessions", {{"transport", t}}, static_cast<std::uint64_t>(n));
    w.family("coffer_mcp_sessions_opened_total", "counter", "MCP sessions opened since the daemon started, by transport");
    for (auto& [t, c] : opened_) w.sample("coffer_mcp_sessions_opened_total", {{"transport", t}}, c.value());
}

}  // namespace coffer::mcp
