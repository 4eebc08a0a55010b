// W3C traceparent parsing and formatting (see trace_context.hpp).
#include "mcp/trace_context.hpp"

#include "core/random.hpp"

#include <algorithm>

namespace coffer::mcp::trace {

namespace {
bool lower_hex(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
bool all_zero(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c == '0'; });
}
}  // namespace

std::optional<Parent> parse(std::string_view h) {
    // version(2) - trace-id(32) - parent-id(16) - flags(2) = 55 characters
    if (h.size() < 55 || h[2] != '-' || h[35] != '-' || h[52] != '-') return std::nullopt;
    auto version = h.substr(0, 2), trace = h.substr(3, 32), span = h.substr(36, 16), flags = h.substr(53, 2);
    if (!lower_hex(version) || version == "ff") return std::nullopt;
    if (version == "00" ? h.size() != 55 : (h.size() > 55 && h[55] != '-')) return std::nullopt;
    if (!lower_hex(trace) || !lower_hex(span) || !lower_hex(flags) || all_zero(trace) || all_zero(span))
        return std::nullopt;
    return Parent{std::string(trace), std::string(span), std::string(flags)};
}

std::string format(std::string_view trace_id, std::string_view span_id, std::string_view flags) {
    std::string out = "00-";
    out.append(trace_id).append("-").append(span_id).append("-").append(flags);
    return out;
}

namespace {
std::string nonzero_hex(std::size_t bytes) {
    std::string id;
    do id = core::random_hex(bytes);
    while (all_zero(id));
    return id;
}
}  // namespace

Span child_of(const Parent& parent) { return Span{parent.trace_id, nonzero_hex(8), parent.span_id, parent.flags}; }

Span new_root() { return Span{nonzero_hex(16), nonzero_hex(8), {}, "01"}; }

}  // namespace coffer::mcp::trace
