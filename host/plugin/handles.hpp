// The MCP handles that cross the ABI (coffer_call*, coffer_session*) are numbers, not addresses.
//
// A plugin keeps a handle until it completes the call, and its own threads may use it late: a
// session's close fails its pending calls, an I/O thread completes a call the host already
// abandoned. If the handle were the host object's address, such a late use would reach freed
// memory. Instead each handle is a fresh 64-bit number (never reused, never 0) looked up in a
// table; the host object behind it is reached only through the table, under its lock, and
// retiring a handle removes it under the same lock. So a use after retirement — from any
// thread, at any time — finds nothing and is a no-op (COFFER_E_NOT_FOUND for sessions).
//
// Targets' methods run with the table's lock held: they must only hand work to another thread
// (post) and never call back into the table.
#pragma once

#include <coffer/abi.h>

#include <cstdint>
#include <string_view>

namespace coffer::plugin {

class CallTarget {
public:
    virtual ~CallTarget() = default;
    // Exactly-once is the target's business; the table only guarantees it is alive.
    virtual void complete(std::string_view result_json, std::string_view error_json) noexcept = 0;
};

class SessionTarget {
public:
    virtual ~SessionTarget() = default;
    virtual coffer_status notify(coffer_call* related, std::string_view notification_json) noexcept = 0;
    virtual coffer_status request(coffer_call* related, std::uint64_t token, std::string_view request_json) noexcept = 0;
};

// A new handle for `target`, valid until retired. Any thread.
coffer_call* register_call(CallTarget* target);
coffer_session* register_session(SessionTarget* target);
// After it returns no thread is inside the target through this handle, and none will be: the
// target may be destroyed. Retiring an unknown handle does nothing.
void retire(coffer_call* handle);
void retire(coffer_session* handle);

// The host API table's entries. False / COFFER_E_NOT_FOUND when the handle is retired or was
// never issued.
bool complete_call(coffer_call* handle, std::string_view result_json, std::string_view error_json);
coffer_status session_notify(coffer_session* handle, coffer_call* related, std::string_view notification_json);
coffer_status session_request(coffer_session* handle, coffer_call* related, std::uint64_t token,
                              std::string_view request_json);

// Live handles (tests and diagnostics).
std::size_t live_calls();
std::size_t live_sessions();

}  // namespace coffer::plugin
