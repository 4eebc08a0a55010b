// Retry only what is safe (issue: gateway complete, item 4; docs/decisions/0037-safe-retry.md):
// when a provider reports that the upstream exited with a tools/call in flight, the gateway sends
// the call once more — to the respawned upstream — only for a tool annotated `readOnlyHint: true`
// or `idempotentHint: true`, and never for one annotated `destructiveHint: true`. Anything else
// fails with the provider's error, as before. The invocation log row and the audit say "retried".
#pragma once

#include <string_view>

namespace coffer::mcp::retry {

// The tool's listing (raw JSON of one tools/list item) allows repeating a call.
bool safe_to_repeat(std::string_view raw_tool);

// The provider's error (raw JSON-RPC error object) says the upstream exited mid-call.
bool upstream_exited(std::string_view raw_error);

}  // namespace coffer::mcp::retry
