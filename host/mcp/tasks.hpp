// Tasks (MCP 2025-11-25, SEP-1686) across the gateway: a task-augmented tools/call is relayed to
// its upstream and the task it creates is named `<server>__<upstream task id>` to the client, so
// tasks/get, tasks/result and tasks/cancel route back to the upstream that owns it and tasks/list
// gathers every upstream's tasks of the session. A client that does not use tasks still gets a
// plain result from a tool that requires them: the gateway asks for the task itself and waits for
// its result (Session methods in tasks.cpp). These helpers rewrite ids in raw results.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace coffer::mcp::tasks {

// The task id a client sees for an upstream's task.
std::string expose(std::string_view server, std::string_view task_id);
// {server, upstream task id} of an exposed task id; nullopt when it is not one.
std::optional<std::pair<std::string, std::string>> split(std::string_view exposed);

// `raw_result` of `method` with every task id the client will see exposed for `server`:
// CreateTaskResult's task.taskId (tools/call), a Task's taskId (tasks/get, tasks/cancel),
// tasks[].taskId (tasks/list) and _meta["io.modelcontextprotocol/related-task"].taskId
// (tasks/result). Unchanged when it has none.
std::string expose_ids(std::string_view server, std::string_view method, std::string_view raw_result);

// The upstream task id of a CreateTaskResult, if `raw_result` is one.
std::optional<std::string> created_task(std::string_view raw_result);

inline constexpr std::string_view kRelatedTaskKey = "io.modelcontextprotocol/related-task";

}  // namespace coffer::mcp::tasks
