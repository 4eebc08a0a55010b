// Session hooks for curation and the invocation log (declared in session.hpp), and the helpers
// the catalog uses to observe and filter provider lists.
#include "mcp/curate.hpp"

#include "mcp/call_metrics.hpp"

#include "core/clock.hpp"
#include "curation/curation.hpp"
#include "curation/invocations.hpp"
#include "curation/uri_template.hpp"
#include "mcp/jsonrpc.hpp"
#include "mcp/names.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/session.hpp"

#include <boost/json.hpp>

namespace coffer::mcp {

namespace json = boost::json;
using curation::Type;

namespace curate {

std::optional<Type> call_type(std::string_view method) {
    if (method == "tools/call") return Type::tool;
    if (method == "resources/read") return Type::resource;
    if (method == "prompts/get") return Type::prompt;
    return std::nullopt;
}

std::optional<Type> list_type(std::string_view method) {
    if (method == "tools/list") return Type::tool;
    if (method == "resources/list") return Type::resource;
    if (method == "prompts/list") return Type::prompt;
    if (method == "resources/templates/list") return Type::resource_template;
    return std::nullopt;
}

std::optional<std::string_view> original(Type t, std::string_view server, std::string_view exposed) {
    if (t == Type::resource || t == Type::resource_template) {
        auto s = names::unprefix_uri(exposed);
        if (!s || s->server != server) return std::nullopt;
        return s->name;
    }
    if (exposed.size() <= server.size() + names::kSeparator.size() || exposed.substr(0, server.size()) != server ||
        exposed.substr(server.size(), names::kSeparator.size()) != names::kSeparator)
        return std::nullopt;
    return exposed.substr(server.size() + names::kSeparator.size());
}

void observe(curation::Curation* c, std::string_view method, const resource::Provider& p,
             const std::vector<std::pair<std::string, std::string>>& items) {
    auto t = list_type(method);
    if (!c || !t) return;
    auto known = c->server(p.name);
    std::vector<std::string> fresh;
    for (auto& [exposed, raw] : items) {
        auto name = original(*t, p.name, exposed);
        if (name && (!known || !known->find(*t, *name))) fresh.emplace_back(*name);
    }
    if (!fresh.empty()) c->observe(p.name, *t, fresh, p.auto_enable_new);
}

Filter::Filter(curation::Curation* c, std::string_view method, const resource::Provider& p)
    : type_(list_type(method)), server_(p.name), auto_enable_(p.auto_enable_new) {
    if (c && type_) prefs_ = c->server(p.name);
}

bool Filter::keep(std::string_view exposed) const {
    if (!type_ || !prefs_) return true;  // nothing stored: everything listed was decided enabled or is new
    auto name = original(*type_, server_, exposed);
    return !name || prefs_->enabled(*type_, *name, auto_enable_);
}

std::string disabled_message(Type t, std::string_view exposed) {
    return std::string(curation::title(t)) + " " + std::string(exposed) + " is disabled";
}

std::string_view disabled_code(Type t) {
    switch (t) {
        case Type::tool: return "TOOL_DISABLED";
        case Type::resource: return "RESOURCE_DISABLED";
        case Type::prompt: return "PROMPT_DISABLED";
        case Type::resource_template: return "TEMPLATE_DISABLED";
    }
    return "TOOL_DISABLED";
}

}  // namespace curate

bool Session::refuse_disabled(const std::shared_ptr<Exchange>& ex, const resource::Provider& p,
                              const std::string& method, std::string_view original, const std::string& exposed) {
    auto t = curate::call_type(method);
    if (!t && method == "resources/subscribe") t = Type::resource;
    if (!t || !env_.curator) return false;
    auto refuse = [&](Type why, std::string_view name, const std::string& shown) {
        end_invocation(ex, curation::outcome::disabled, rpc::code::server_error);
        fail(ex, rpc::code::server_error, curate::disabled_message(why, shown),
             json::object{{"code", curate::disabled_code(why)}, {"server", p.name}, {"name", name}});
        return true;
    };
    if (!env_.curator->enabled(p.name, *t, original, p.auto_enable_new)) return refuse(*t, original, exposed);
    // A URI the user never decided on is refused when a disabled template describes it.
    if (*t == Type::resource)
        if (auto prefs = env_.curator->server(p.name); prefs && !prefs->find(Type::resource, original))
            for (auto& [tmpl, e] : prefs->by_type[static_cast<std::size_t>(Type::resource_template)])
                if (!e.enabled && curation::uri_template_matches(tmpl, original))
                    return refuse(Type::resource_template, tmpl, names::prefix_uri(p.name, tmpl));
    return false;
}

void Session::begin_invocation(const std::shared_ptr<Exchange>& ex, const std::string& server, const std::string& target) {
    auto t = curate::call_type(ex->method);
    if (!t || (!env_.invocations && !env_.metrics && !env_.spans)) return;
    auto tr = std::make_shared<Tracked>();
    tr->server = server;
    tr->target = target;
    tr->type = *t;
    tr->ts_ms = core::now_ms();
    tr->start = std::chrono::steady_clock::now();
    if (ex->trace_parent) tr->span = trace::child_of(*ex->trace_parent);
    else if (env_.spans) tr->span = trace::new_root();
    if (tr->span && env_.spans)
        tr->start_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch()).count();
    ex->tracked = std::move(tr);
}

void Session::end_invocation(const std::shared_ptr<Exchange>& ex, std::string_view outcome,
                             std::optional<std::int64_t> code) {
    auto& tr = ex->tracked;
    if (!tr || tr->logged) return;
    tr->logged = true;
    auto elapsed = std::chrono::steady_clock::now() - tr->start;
    if (env_.metrics) env_.metrics->record(tr->server, tr->type, tr->target, outcome, elapsed);
    if (tr->span && env_.spans)
        env_.spans(trace::Finished{*tr->span, ex->method + " " + tr->target, tr->start_unix_ns,
                                   tr->start_unix_ns + std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count(),
                                   tr->server, tr->target, std::string(outcome), code});
    if (!env_.invocations) return;
    curation::Invocation inv;
    inv.ts_ms = tr->ts_ms;
    inv.session = id_;
    inv.agent = who_.agent;
    inv.server = tr->server;
    inv.type = tr->type;
    inv.target = tr->target;
    inv.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
    inv.outcome = std::string(outcome);
    inv.error_code = code;
    inv.retried = tr->retried;
    env_.invocations->record(std::move(inv));
}

void Session::end_invocation(const std::shared_ptr<Exchange>& ex, const std::string& result, const std::string& error) {
    if (!ex->tracked || ex->tracked->logged) return;
    if (!error.empty()) {
        std::optional<std::int64_t> code;
        if (auto c = raw::member(error, "code")) {
            boost::system::error_code ec;
            auto v = json::parse(*c, ec);
            if (!ec && v.is_int64()) code = v.as_int64();
        }
        auto outcome = code == rpc::code::request_timeout ? curation::outcome::timeout
                       : code == rpc::code::request_cancelled ? curation::outcome::cancelled
                                                              : curation::outcome::error;
        return end_invocation(ex, outcome, code);
    }
    bool tool_error = false;
    if (ex->tracked->type == Type::tool)
        if (auto e = raw::member(result, "isError")) tool_error = *e == "true";
    end_invocation(ex, tool_error ? curation::outcome::tool_error : curation::outcome::ok, std::nullopt);
}

}  // namespace coffer::mcp
