// coffer-test-upstream, revision 2026-07-28 ("modern", stateless): the pieces that do not need a
// Server — the names the revision uses, the wrapper that marks a request as modern, the HTTP
// header checks (Mcp-Method, Mcp-Name, MCP-Protocol-Version, Mcp-Param-* from x-mcp-header) and
// the subscriptions/listen filter. Server's own modern methods live in modern.cpp too.
#pragma once

#include "server.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace coffer::test_upstream {

inline constexpr const char* kModernVersion = "2026-07-28";
inline constexpr const char* kProtocolVersionKey = "io.modelcontextprotocol/protocolVersion";
inline constexpr const char* kClientInfoKey = "io.modelcontextprotocol/clientInfo";
inline constexpr const char* kClientCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";
inline constexpr const char* kLogLevelKey = "io.modelcontextprotocol/logLevel";
inline constexpr const char* kServerInfoKey = "io.modelcontextprotocol/serverInfo";
inline constexpr const char* kSubscriptionIdKey = "io.modelcontextprotocol/subscriptionId";
inline constexpr int kUnsupportedProtocolVersion = -32022;
inline constexpr int kHeaderMismatch = -32020;
inline constexpr int kModernTtlMs = 60000;

// Forwards to the transport's peer and marks the request as modern (Peer::modern()).
class ModernPeer : public Peer {
public:
    ModernPeer(std::shared_ptr<Peer> inner, ModernContext context)
        : inner_(std::move(inner)), context_(std::move(context)) {}
    void send(const std::string& message, bool final) override { inner_->send(message, final); }
    bool open() const override { return inner_->open(); }
    const ModernContext* modern() const override { return &context_; }

private:
    std::shared_ptr<Peer> inner_;
    ModernContext context_;
};

// The params of the sample tool's sampling/createMessage (sent as a request or an input request).
json::object sampling_params(const std::string& prompt);

// params._meta (empty when absent).
json::object meta_of(const json::object& params);

// Whether a request shows it is meant as 2026-07-28: its _meta names a protocol version, or its
// method exists only there (server/discover, subscriptions/listen). How --dual-era tells.
bool looks_modern(const std::string& method, const json::object& params);

// The HTTP status a modern answer goes with: 400 for an unsupported version, a header mismatch, an
// invalid request or a parse error, 404 for an unknown method, 200 otherwise.
int http_status_of(std::string_view message);

// A header value as the client meant it: the `=?base64?…?=` form decoded; nullopt when it holds
// characters a header value may not carry or its base64 is malformed.
std::optional<std::string> decode_header_value(std::string_view raw);

// Why the Mcp-* headers of an HTTP request (names lower-cased) do not describe its body, as the
// message of a -32020 error ("Header mismatch: …"); nullopt when they do. `input_schema`: the
// called tool's, for its x-mcp-header parameters (tools/call only; null: none known).
std::optional<std::string> header_mismatch(const json::object& headers, const std::string& method,
                                           const json::object& params, const json::object* input_schema);

// The part of a subscriptions/listen filter (params.notifications) the server honours: the
// three list-changed flags when true, resourceSubscriptions' strings when any.
json::object accepted_filter(const json::object& notifications);
bool wants(const json::object& filter, const char* flag);
bool subscribed(const json::object& filter, const std::string& uri);

// Whether a message of `level` goes out for a request with this _meta: never without
// io.modelcontextprotocol/logLevel, else when `level` is at least as severe as the one asked.
bool log_wanted(const json::object& meta, std::string_view level);

}  // namespace coffer::test_upstream
