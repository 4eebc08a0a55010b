// Session: what each client request does (the method table), and routing to providers (G-3).
#include "mcp/bridge.hpp"
#include "mcp/builtin_search.hpp"
#include "mcp/catalog.hpp"
#include "mcp/curate.hpp"
#include "mcp/names.hpp"
#include "mcp/raw_json.hpp"
#include "mcp/session.hpp"
#include "mcp/tasks.hpp"

#include "core/log.hpp"
#include "curation/invocations.hpp"

#include <coffer/mcp_stateless.hpp>

#include <boost/json.hpp>

#include <algorithm>

namespace coffer::mcp {

namespace json = boost::json;

namespace {

json::object server_capabilities(Version v) {
    json::object caps{{"tools", json::object{{"listChanged", true}}},
                      {"resources", json::object{{"subscribe", true}, {"listChanged", true}}},
                      {"prompts", json::object{{"listChanged", true}}},
                      {"logging", json::object{}}};
    if (has_completions(v)) caps["completions"] = json::object{};
    if (v == Version::v2025_11_25)  // tasks of upstreams that run them (mcp/tasks.hpp)
        caps["tasks"] = json::object{{"list", json::object{}},
                                     {"cancel", json::object{}},
                                     {"requests", json::object{{"tools", json::object{{"call", json::object{}}}}}}};
    return caps;
}

std::string_view str(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

// What a provider sees: the client's params minus 2026-07-28 per-request protocol fields and the
// multi round-trip fields the gateway consumes (providers speak 2025-11-25).
void strip_modern(json::object& params) {
    params.erase("inputResponses");
    params.erase("requestState");
    if (auto* meta = params.if_contains("_meta"); meta && meta->is_object()) {
        auto& m = meta->as_object();
        for (auto it = m.begin(); it != m.end();) {
            std::string_view k = it->key();
            if (k.rfind("io.modelcontextprotocol/", 0) == 0 || k.rfind("coffer/", 0) == 0) it = m.erase(it);
            else ++it;
        }
        if (m.empty()) params.erase("_meta");
    }
}

constexpr std::string_view kInstructions =
    "Coffer aggregates the user's MCP servers. Tool and prompt names are <server>__<name>; resource URIs are "
    "coffer://<server>/<original URI>.";
constexpr std::string_view kChannelInstructions =
    " Messages the user sends from an IM channel (Telegram, SeaTalk, …) arrive as <channel source=\"coffer\" "
    "channel=\"…\" chat_id=\"…\" …> tags. They come from the user's phone, not the terminal: answer each with the "
    "coffer__channel_reply tool, passing its chat_id, and keep the terminal for the local user.";

// params._meta["coffer/channels"]: the channel names a session listens to (strings; at most 16).
std::vector<std::string> channel_names(const json::object& meta) {
    std::vector<std::string> out;
    auto* v = meta.if_contains("coffer/channels");
    if (!v || !v->is_array()) return out;
    for (auto& c : v->as_array())
        if (c.is_string() && !c.as_string().empty() && c.as_string().size() <= 128 && out.size() < 16 &&
            std::find(out.begin(), out.end(), c.as_string()) == out.end())
            out.emplace_back(c.as_string());
    return out;
}

}  // namespace

void Session::answer(const std::shared_ptr<Exchange>& ex, const std::string& message, int http_status) {
    if (ex->done) return;
    ex->done = true;
    untrack(ex);
    if (ex->reply) ex->reply->answer(message, http_status);
}

void Session::fail(const std::shared_ptr<Exchange>& ex, int code, std::string_view message, const json::value& data,
                   int http_status) {
    answer(ex, rpc::error(ex->id, code, message, data), http_status);
}

void Session::on_request(const std::shared_ptr<Exchange>& ex, rpc::Message& m, const RequestContext& ctx) {
    const std::string& method = m.method;
    json::object params = m.params.is_object() ? std::move(m.params.as_object()) : json::object{};
    bool modern = is_modern(ex->version);
    (void)ctx;

    if (method == "initialize") {
        if (modern)  // removed in 2026-07-28: the transport answers 404 for methods a revision lacks
            return fail(ex, rpc::code::method_not_found,
                        "Method not found: initialize (2026-07-28 has no handshake; use server/discover)", nullptr, 404);
        if (initialized_)
            return fail(ex, rpc::code::invalid_request, "Invalid Request: the session is already initialized");
        return initialize(ex, params);
    }
    if (!initialized_ && method != "ping")
        return fail(ex, rpc::code::server_error, "Bad Request: the session is not initialized; send initialize first");
    if (modern && params.contains("requestState") && resume(ex, params)) return;

    if (method == "tools/list" || method == "prompts/list" || method == "resources/list" ||
        method == "resources/templates/list")
        return Catalog::list(*this, ex, method, params);
    if (method == "tools/call") return route_named(ex, method, std::move(params), "tool");
    if (method == "prompts/get") return route_named(ex, method, std::move(params), "prompt");
    if (method == "resources/read") return route_uri(ex, method, std::move(params));
    if (method == "completion/complete") return route_completion(ex, std::move(params));
    if (ex->version == Version::v2025_11_25 &&
        (method == "tasks/get" || method == "tasks/result" || method == "tasks/cancel" || method == "tasks/list"))
        return route_task(ex, method, params);
    if (method == "server/discover") {
        json::object r{{"supportedVersions", json::array()},
                       {"capabilities", server_capabilities(kLatest)},
                       {"instructions", kInstructions},
                       {"_meta", json::object{{"io.modelcontextprotocol/serverInfo",
                                               json::object{{"name", env_.config.server_name},
                                                            {"version", env_.config.server_version}}}}}};
        for (auto v : supported_versions()) r["supportedVersions"].as_array().emplace_back(v);
        if (modern) r["resultType"] = "complete", r["ttlMs"] = 0, r["cacheScope"] = "public";
        return answer(ex, rpc::result(ex->id, json::serialize(r)));
    }
    if (modern && method == "subscriptions/listen") return listen(ex, params);
    if (!modern) {
        if (method == "ping") return answer(ex, rpc::result(ex->id, "{}"));
        if (method == "logging/setLevel") {
            int rank = bridge::log_rank(str(params, "level"));
            if (rank < 0) return fail(ex, rpc::code::invalid_params, "Invalid params: unknown logging level");
            log_level_ = rank;
            return answer(ex, rpc::result(ex->id, "{}"));
        }
        if (method == "resources/subscribe" || method == "resources/unsubscribe") {
            auto uri = std::string(str(params, "uri"));
            if (method == "resources/subscribe") subscribed_.insert(uri);
            else subscribed_.erase(uri);
            return route_uri(ex, method, std::move(params));
        }
    }
    fail(ex, rpc::code::method_not_found, "Method not found: " + method, nullptr, modern ? 404 : 200);
}

void Session::initialize(const std::shared_ptr<Exchange>& ex, const json::object& params) {
    auto requested = str(params, "protocolVersion");
    if (requested.empty())
        return fail(ex, rpc::code::invalid_params, "Invalid params: initialize needs params.protocolVersion");
    version_ = negotiate(requested);
    ex->version = version_;
    if (auto* c = params.if_contains("capabilities"); c && c->is_object()) who_.capabilities = c->as_object();
    if (auto* i = params.if_contains("clientInfo"); i && i->is_object()) who_.client_info = i->as_object();
    if (auto* meta = params.if_contains("_meta"); meta && meta->is_object()) {
        who_.agent = std::string(str(meta->as_object(), "coffer/agent"));
        who_.cwd = std::string(str(meta->as_object(), "coffer/cwd"));
        who_.channels = channel_names(meta->as_object());
    }
    initialized_ = true;
    auto caps = server_capabilities(version_);
    std::string instructions(kInstructions);
    if (!channels().empty()) {  // Claude Code channels: the client may push them into its session
        // Permission relay too: the replier is authenticated (only the paired owner passes the gate).
        caps["experimental"] = json::object{{"claude/channel", json::object{}}, {"claude/channel/permission", json::object{}}};
        instructions += kChannelInstructions;
    }
    json::object r{{"protocolVersion", to_string(version_)},
                   {"capabilities", std::move(caps)},
                   {"serverInfo", json::object{{"name", env_.config.server_name}, {"version", env_.config.server_version}}},
                   {"instructions", std::move(instructions)}};
    core::log::info("mcp session initialized",
                    {{"session", id_}, {"version", to_string(version_)}, {"agent", who_.agent},
                     {"client", json::value(who_.client_info.if_contains("name") ? who_.client_info.at("name")
                                                                                  : json::value(""))}});
    answer(ex, rpc::result(ex->id, json::serialize(r)));
    listen_channels();  // after the answer: what was kept for the channel follows it
}

void Session::route_named(const std::shared_ptr<Exchange>& ex, const std::string& method, json::object params,
                          const char* what) {
    auto name = std::string(str(params, "name"));
    if (name.empty()) return fail(ex, rpc::code::invalid_params, "Invalid params: params.name is required");
    if (method == "tools/call" && builtin::is_builtin(name)) {
        begin_invocation(ex, std::string(builtin::kServer), name);  // logged like any tool call (G-24)
        return Builtins::call(*this, ex, std::move(params));
    }
    // Only names the gateway could have listed are routed: anything else (spaces, dots, other
    // scripts, over 64 bytes) would reach the server as-is, and a server that normalises names
    // could then run a capability under a name curation never saw.
    if (!names::valid_exposed(name)) {
        core::log::debug("mcp call refused: invalid name", {{"method", method}});
        return fail(ex, rpc::code::invalid_params,
                    std::string("Invalid params: ") + what + " name " +
                        (name.size() <= 128 ? "'" + name + "' " : std::string()) +
                        "is not valid: names are <server>__<" + what + "> and match ^[A-Za-z0-9_-]{1,64}$",
                    json::object{{"code", "INVALID_NAME"}});
    }
    auto split = names::split(name);
    if (!split)
        return fail(ex, rpc::code::invalid_params,
                    std::string("Unknown ") + what + " '" + name + "': names have the form <server>__<" + what + ">");
    auto vis = visible();
    auto* p = vis.find(split->server);
    begin_invocation(ex, p ? p->name : std::string(split->server), name);
    if (!p) {
        end_invocation(ex, curation::outcome::unknown, rpc::code::invalid_params);
        return fail(ex, rpc::code::invalid_params,
                    std::string("Unknown ") + what + " '" + name + "': no server named '" + std::string(split->server) +
                        "' is available");
    }
    if (refuse_disabled(ex, *p, method, split->name, name)) return;
    if (method == "tools/call" && is_modern(ex->version) && !param_headers_match(ex, *p, name, params)) return;
    if (method == "tools/call") {
        // Tasks: relayed for a client that negotiated them; a tool that requires them is run as a
        // task for a client that did not ask (mcp/tasks.hpp); otherwise the call is plain.
        bool asked = params.contains("task");
        if (asked && ex->version != Version::v2025_11_25) params.erase("task");
        else if (asked) ex->task = Exchange::TaskUse::augmented;
        else if (auto link = links_.find(p->uid); link != links_.end())
            if (auto* tool = link->second->listed("tools/list", name))
                if (auto exec = raw::member(*tool, "execution"))
                    if (auto support = raw::member(*exec, "taskSupport"); support && *support == R"("required")") {
                        params["task"] = json::object{};
                        ex->task = Exchange::TaskUse::emulated;
                    }
    }
    params["name"] = split->name;
    route(ex, *p, method, std::move(params));
}

// A 2026-07-28 client mirrors a tool's x-mcp-header arguments into Mcp-Param-* headers (SDK
// coffer/mcp_stateless.hpp); the gateway reads the body, so it checks them — for a tool this
// session has listed (whose schema it knows). A header that disagrees with the body is refused;
// an absent one is tolerated (the shim and clients that cached the list before do not mirror),
// as the body is what is routed. The mcp_server plugin mirrors them anew for its upstream.
bool Session::param_headers_match(const std::shared_ptr<Exchange>& ex, const resource::Provider& p,
                                  const std::string& exposed, const json::object& params) {
    auto link = links_.find(p.uid);
    const std::string* tool = link == links_.end() ? nullptr : link->second->listed("tools/list", exposed);
    if (!tool) return true;
    boost::system::error_code ec;
    auto item = json::parse(*tool, ec);
    const auto* schema = !ec && item.is_object() ? item.as_object().if_contains("inputSchema") : nullptr;
    if (!schema) return true;
    auto scan = mcp_stateless::scan_headers(*schema);
    const json::value none = json::object{};
    const auto* args = params.if_contains("arguments");
    auto expected = mcp_stateless::param_headers(scan.params, args ? *args : none);
    std::string problem;
    for (const auto& h : scan.params) {
        std::string header = "Mcp-Param-" + h.name;
        auto want = std::find_if(expected.begin(), expected.end(), [&](const auto& e) { return e.first == header; });
        auto got = ex->param_headers.find(mcp_stateless::detail::lower(header));
        if (got == ex->param_headers.end()) continue;
        if (want == expected.end()) problem = "the " + header + " header is given but its argument is absent";
        else if (mcp_stateless::decode_header_value(got->second) != mcp_stateless::decode_header_value(want->second))
            problem = header + " header value does not match the argument";
        if (!problem.empty()) break;
    }
    if (problem.empty()) return true;
    end_invocation(ex, curation::outcome::error, rpc::code::header_mismatch);
    fail(ex, rpc::code::header_mismatch, "Header mismatch: " + problem, nullptr, 400);
    return false;
}

void Session::route_uri(const std::shared_ptr<Exchange>& ex, const std::string& method, json::object params) {
    auto uri = std::string(str(params, "uri"));
    int not_found = is_modern(ex->version) ? rpc::code::invalid_params : rpc::code::resource_not_found;
    if (uri.empty()) return fail(ex, rpc::code::invalid_params, "Invalid params: params.uri is required");
    auto split = names::unprefix_uri(uri);
    auto vis = visible();
    auto* p = split ? vis.find(split->server) : nullptr;
    begin_invocation(ex, p ? p->name : split ? std::string(split->server) : std::string(), uri);
    if (!p) {
        end_invocation(ex, curation::outcome::unknown, not_found);
        return fail(ex, not_found, "Resource not found: " + uri, json::object{{"uri", uri}});
    }
    if (refuse_disabled(ex, *p, method, split->name, uri)) return;
    params["uri"] = split->name;
    route(ex, *p, method, std::move(params));
}

void Session::route_completion(const std::shared_ptr<Exchange>& ex, json::object params) {
    auto* ref = params.if_contains("ref");
    if (!ref || !ref->is_object()) return fail(ex, rpc::code::invalid_params, "Invalid params: params.ref is required");
    auto& r = ref->as_object();
    auto type = str(r, "type");
    auto vis = visible();
    const resource::Provider* p = nullptr;
    if (type == "ref/prompt") {
        auto name = str(r, "name");
        auto split = names::valid_exposed(name) ? names::split(name) : std::nullopt;
        // The split views into r["name"]'s own string: copy before assigning over it.
        if (split && (p = vis.find(split->server))) r["name"] = std::string(split->name);
    } else if (type == "ref/resource") {
        auto split = names::unprefix_uri(str(r, "uri"));
        if (split && (p = vis.find(split->server))) r["uri"] = std::string(split->name);
    }
    if (!p) return fail(ex, rpc::code::invalid_params, "Invalid params: params.ref names no known prompt or resource");
    route(ex, *p, "completion/complete", std::move(params));
}

void Session::route(const std::shared_ptr<Exchange>& ex, const resource::Provider& p, const std::string& method,
                    json::object params) {
    strip_modern(params);
    // The upstream's parent is the gateway's span for this call (W3C trace context through _meta).
    if (ex->tracked && ex->tracked->span) {
        auto& meta = params["_meta"];
        if (!meta.is_object()) meta = json::object{};
        meta.as_object()["traceparent"] = ex->tracked->span->traceparent();
    }
    std::string error;
    auto link = link_for(p, error);
    if (!link) {  // gone since the snapshot (a refused open surfaces through the call instead)
        end_invocation(ex, curation::outcome::error, rpc::code::internal_error);
        return fail(ex, rpc::code::internal_error, "Server '" + p.name + "' is unavailable: " + error,
                    json::object{{"server", p.name}});
    }
    ex->link = link;
    auto text = json::serialize(params);
    if (method != "tools/call") return send(ex, *link, method, text);
    ex->sent_params = std::move(text);  // kept for the one safe retry (mcp/retry.hpp): no copy per call
    send(ex, *link, method, ex->sent_params);
}

void Session::send(const std::shared_ptr<Exchange>& ex, Link& link, const std::string& method, const std::string& params) {
    ex->call = link.request(method, params, ex,
                            [w = weak_from_this(), wex = std::weak_ptr<Exchange>(ex)](std::string r, std::string e) {
                                auto self = w.lock();
                                auto x = wex.lock();
                                if (self && x) self->complete(x, r, e);
                            });
}

void Session::complete(const std::shared_ptr<Exchange>& ex, const std::string& result, const std::string& error) {
    ex->call = nullptr;
    if (!error.empty() && retry_after_exit(ex, error)) return;
    if (error.empty() && task_created(ex, result)) return;
    if (!error.empty()) cancel_upstream_task(ex);  // tasks/result timed out or failed: stop the task
    end_invocation(ex, result, error);
    if (auto in = ex->input) {  // 2026-07-28: answered input_required already; a retry may be waiting
        if (auto retry = in->waiting) {
            in->waiting.reset();
            parked_.erase(in->state);
            retry->call = nullptr;
            return complete(retry, result, error);
        }
        in->outcome = std::make_pair(result, error);  // the retry gets it (until the wait expires)
        return;
    }
    if (ex->done || closed_) return;
    auto server = ex->link.lock() ? ex->link.lock()->server() : std::string();
    if (!error.empty()) {
        boost::system::error_code ec;
        auto v = json::parse(error, ec);
        auto* o = v.if_object();
        bool ok = !ec && o && o->contains("code") && o->at("code").is_int64() && o->contains("message") &&
                  o->at("message").is_string();
        if (!ok)
            return fail(ex, rpc::code::internal_error, "Server '" + server + "' answered with a malformed error",
                        json::object{{"server", server}});
        return answer(ex, rpc::error_raw(ex->id, bridge::error(ex->version, ex->method, error)));
    }
    if (!raw::is_object(result))
        return fail(ex, rpc::code::internal_error, "Server '" + server + "' answered with a malformed result",
                    json::object{{"server", server}});
    if (ex->task == Exchange::TaskUse::augmented) remember_task(server, result);
    if (ex->task != Exchange::TaskUse::none && ex->task != Exchange::TaskUse::emulated)
        return answer(ex, rpc::result(ex->id, bridge::result(ex->version, ex->method,
                                                             tasks::expose_ids(server, ex->method, result))));
    answer(ex, rpc::result(ex->id, bridge::result(ex->version, ex->method, result)));
}

}  // namespace coffer::mcp
