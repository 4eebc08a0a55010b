// Every JSON-RPC error code Coffer emits, in one table: the host's gateway, the bundled plugins,
// the shim and the CLI all name codes from here, never as bare literals.
//
// The rule (docs/decisions/0028-jsonrpc-error-codes.md): one code, one meaning, across every
// component. JSON-RPC 2.0 reserves -32000…-32099 for implementation-defined server errors; MCP
// 2026-07-28 splits that range into -32000…-32019 (implementation-defined, "legacy") and
// -32020…-32099 (only the codes the MCP specification defines, with their specified meanings).
// Coffer's own codes therefore live in -32000…-32019 and are unique; the test
// tests/unit/sdk/jsonrpc_codes_test.cpp pins that no two names share a value.
#pragma once

namespace coffer::jsonrpc::code {

// JSON-RPC 2.0.
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;

// Coffer's implementation-defined codes (-32000…-32019).
// The request could not be served at the transport level, as the MCP SDKs use it: the HTTP
// endpoint refused it (bad headers, a missing session id, the session ended), or the party that
// should answer cannot be reached (an upstream down, exited or not installed; a daemon the shim
// cannot reach or start). error.data.reason, where present, says which.
inline constexpr int server_error = -32000;
// An Mcp-Session-Id the gateway does not know (with HTTP 404) — the code the official MCP SDK
// servers send, kept so clients that look at it behave as with them.
inline constexpr int session_not_found = -32001;
// An unknown resource URI, as MCP up to 2025-11-25 specifies (2026-07-28 uses invalid_params).
inline constexpr int resource_not_found = -32002;
// The per-call time limit passed before the upstream answered (error.data.reason "timeout").
inline constexpr int request_timeout = -32003;
// The shim lost its connection to the daemon while the request was pending.
inline constexpr int connection_lost = -32004;
// The daemon answered the shim with something that is not a JSON-RPC message.
inline constexpr int bad_gateway = -32005;

// Defined by MCP (-32020…-32099), used only with the specification's meanings.
inline constexpr int header_mismatch = -32020;      // 2026-07-28
inline constexpr int missing_capability = -32021;   // 2026-07-28
inline constexpr int unsupported_version = -32022;  // 2026-07-28
inline constexpr int url_elicitation_required = -32042;  // 2025-11-25

// LSP's RequestCancelled, which MCP SDKs use for a request the client cancelled.
inline constexpr int request_cancelled = -32800;

// Every code above, for the uniqueness test and for documentation generators.
inline constexpr int all[] = {parse_error,        invalid_request,     method_not_found, invalid_params,
                              internal_error,     server_error,        session_not_found, resource_not_found,
                              request_timeout,    connection_lost,     bad_gateway,      header_mismatch,
                              missing_capability, unsupported_version, url_elicitation_required,
                              request_cancelled};

}  // namespace coffer::jsonrpc::code
