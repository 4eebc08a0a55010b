#include "mcp/retry.hpp"

#include "core/log.hpp"
#include "mcp/exchange.hpp"
#include "mcp/link.hpp"
#include "mcp/names.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/curate.hpp"
#include "mcp/session.hpp"

#include <coffer/mcp_reasons.hpp>

#include <optional>

namespace coffer::mcp::retry {

namespace {

// true / false / absent (anything else counts as absent).
std::optional<bool> hint(std::string_view annotations, std::string_view name) {
    auto v = raw::member(annotations, name);
    if (!v) return std::nullopt;
    if (*v == "true") return true;
    if (*v == "false") return false;
    return std::nullopt;
}

}  // namespace

bool safe_to_repeat(std::string_view raw_tool) {
    auto annotations = raw::member(raw_tool, "annotations");
    if (!annotations || !raw::is_object(*annotations)) return false;
    if (hint(*annotations, "destructiveHint") == true) return false;
    return hint(*annotations, "readOnlyHint") == true || hint(*annotations, "idempotentHint") == true;
}

bool upstream_exited(std::string_view raw_error) {
    auto data = raw::member(raw_error, "data");
    if (!data || !raw::is_object(*data)) return false;
    auto reason = raw::member(*data, "reason");
    auto text = reason ? raw::decode_string(*reason) : std::nullopt;
    return text && *text == mcp_reason::upstream_exited;
}

}  // namespace coffer::mcp::retry


namespace coffer::mcp {

bool Session::retry_after_exit(const std::shared_ptr<Exchange>& ex, const std::string& error) {
    if (ex->method != "tools/call" || ex->sent_params.empty() || ex->retried || ex->done || ex->cancelled || ex->input ||
        ex->task != Exchange::TaskUse::none || closed_ || !retry::upstream_exited(error))
        return false;
    auto link = ex->link.lock();
    if (!link) return false;
    auto name_token = raw::member(ex->sent_params, "name");
    auto name = name_token ? raw::decode_string(*name_token) : std::nullopt;
    if (!name) return false;
    // The tool as this session last listed it: no listing, no annotations, no retry (fail closed).
    auto exposed = names::join(link->server(), *name);
    const std::string* tool = link->listed("tools/list", exposed);
    if (!tool || !retry::safe_to_repeat(*tool)) return false;

    ex->retried = true;
    if (ex->tracked) ex->tracked->retried = true;
    core::log::info("mcp call retried: its upstream exited mid-call and the tool is safe to repeat",
                    {{"session", id_}, {"server", link->server()}, {"tool", exposed}});
    send(ex, *link, ex->method, ex->sent_params);
    return true;
}

}  // namespace coffer::mcp
