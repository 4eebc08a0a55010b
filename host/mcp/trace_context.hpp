// W3C Trace Context (https://www.w3.org/TR/trace-context/) for calls through the gateway. A
// client's `traceparent` — in params._meta (the MCP convention) or, on POST /mcp, the HTTP header —
// becomes the parent of the gateway's span for the call, and the upstream receives the gateway's
// span as its parent in params._meta.traceparent (`tracestate` passes through unchanged). Without
// an incoming one nothing is added. Pure functions; unit-tested.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::mcp::trace {

struct Parent {
    std::string trace_id;  // 32 lower-case hex, not all zero
    std::string span_id;   // 16 lower-case hex, not all zero (the caller's span)
    std::string flags;     // 2 hex (01 = sampled)
};

// Version 00 exactly, or a later version whose first four fields have the 00 shape (the rule for
// forward compatibility); anything else (ff, upper case, zero ids, wrong lengths) is ignored.
std::optional<Parent> parse(std::string_view header);
// "00-<trace>-<span>-<flags>".
std::string format(std::string_view trace_id, std::string_view span_id, std::string_view flags);

// The span the gateway opens for one routed call.
struct Span {
    std::string trace_id, span_id, parent_span_id, flags = "01";
    std::string traceparent() const { return format(trace_id, span_id, flags); }
};
// A child of `parent`: same trace, a fresh span id.
Span child_of(const Parent& parent);
// The root of a new trace (when spans are exported and the client sent no traceparent).
Span new_root();

// A span the gateway ended: one routed call, for an exporter (OTLP).
struct Finished {
    Span span;
    std::string name;  // "tools/call up__echo"
    std::int64_t start_unix_ns = 0, end_unix_ns = 0;
    std::string server, target, outcome;
    std::optional<std::int64_t> error_code;
};
// Called on the network thread as each span ends; must not block.
using SpanSink = std::function<void(Finished)>;

}  // namespace coffer::mcp::trace
