#include "modern.hpp"

#include <coffer/base64.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace coffer::test_upstream {

namespace {

constexpr const char* kSampleState = "sample-state-1";
// Methods this revision removed (subscriptions/listen replaces resources/subscribe; the log
// level rides in _meta).
constexpr const char* kRemoved[] = {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"};
// Results clients may cache (CacheableResult).
constexpr const char* kCacheable[] = {"tools/list", "prompts/list", "resources/list", "resources/templates/list",
                                      "resources/read"};
// Severity, least first (RFC 5424 as MCP names it).
constexpr std::string_view kLevels[] = {"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

template <std::size_t N>
bool among(const std::string& s, const char* const (&list)[N]) {
    return std::any_of(std::begin(list), std::end(list), [&](const char* x) { return s == x; });
}

json::object subscription_meta(const json::value& id) { return json::object{{kSubscriptionIdKey, id}}; }

// --- header checks -------------------------------------------------------------------------

std::string header_text(const json::object& headers, const char* name, bool* present) {
    auto* v = headers.if_contains(name);
    *present = v && v->is_string();
    return *present ? std::string(v->as_string()) : std::string();
}

std::string mismatch(const std::string& header, const std::string& got, const std::string& want) {
    return "Header mismatch: " + header + " header value '" + got + "' does not match body value '" + want + "'";
}

// A header that must equal `want` (after decoding, when `decoded`).
std::optional<std::string> check_equal(const json::object& headers, const char* key, const std::string& shown,
                                       const std::string& want, bool decoded) {
    bool present = false;
    auto raw = header_text(headers, key, &present);
    if (!present) return "Header mismatch: " + shown + " header is missing";
    auto value = decoded ? decode_header_value(raw) : std::optional<std::string>(raw);
    if (!value) return "Header mismatch: " + shown + " header value '" + raw + "' is malformed";
    if (*value != want) return mismatch(shown, *value, want);
    return std::nullopt;
}

// One x-mcp-header annotation: the chain of `properties` keys to the parameter and the header name.
struct Annotated {
    std::vector<std::string> path;
    std::string header;
};

void collect(const json::object& schema, std::vector<std::string>& path, std::vector<Annotated>& out) {
    auto* props = schema.if_contains("properties");
    if (!props || !props->is_object()) return;
    for (auto& [key, sub] : props->as_object()) {
        if (!sub.is_object()) continue;
        path.emplace_back(key);
        if (auto* h = sub.as_object().if_contains("x-mcp-header"); h && h->is_string())
            out.push_back({path, std::string(h->as_string())});
        collect(sub.as_object(), path, out);
        path.pop_back();
    }
}

const json::value* at_path(const json::object& args, const std::vector<std::string>& path) {
    const json::object* o = &args;
    const json::value* v = nullptr;
    for (auto& key : path) {
        if (!o) return nullptr;
        v = o->if_contains(key);
        if (!v) return nullptr;
        o = v->is_object() ? &v->as_object() : nullptr;
    }
    return v;
}

// Whether a header value (decoded) stands for the argument: strings as they are, booleans
// true/false, numbers compared as numbers (42 and 42.0 alike).
bool same_value(const std::string& header, const json::value& arg) {
    if (arg.is_string()) return header == arg.as_string();
    if (arg.is_bool()) return header == (arg.as_bool() ? "true" : "false");
    if (arg.is_int64() && header == std::to_string(arg.as_int64())) return true;
    if (arg.is_uint64() && header == std::to_string(arg.as_uint64())) return true;
    if (!arg.is_number() || header.empty()) return false;
    char* end = nullptr;
    double h = std::strtod(header.c_str(), &end);
    return end == header.c_str() + header.size() && h == arg.to_number<double>();
}

std::optional<std::string> check_params(const json::object& headers, const json::object& params,
                                        const json::object& input_schema) {
    std::vector<Annotated> annotated;
    std::vector<std::string> path;
    collect(input_schema, path, annotated);
    json::object args;
    if (auto* a = params.if_contains("arguments"); a && a->is_object()) args = a->as_object();
    for (auto& [p, name] : annotated) {
        std::string shown = "Mcp-Param-" + name;
        std::string key = "mcp-param-" + name;
        std::transform(key.begin(), key.end(), key.begin(), [](unsigned char c) { return std::tolower(c); });
        bool present = false;
        auto raw = header_text(headers, key.c_str(), &present);
        auto* arg = at_path(args, p);
        if (!arg || arg->is_null()) {
            if (present) return "Header mismatch: " + shown + " header is present but the argument is not";
            continue;
        }
        if (!present) return "Header mismatch: " + shown + " header is missing";
        auto value = decode_header_value(raw);
        if (!value) return "Header mismatch: " + shown + " header value '" + raw + "' is malformed";
        if (!same_value(*value, *arg))
            return mismatch(shown, *value, arg->is_string() ? std::string(arg->as_string()) : json::serialize(*arg));
    }
    return std::nullopt;
}

}  // namespace

// --- free helpers --------------------------------------------------------------------------

json::object sampling_params(const std::string& prompt) {
    return json::object{
        {"messages",
         json::array{json::object{{"role", "user"}, {"content", json::object{{"type", "text"}, {"text", prompt}}}}}},
        {"maxTokens", 50}};
}

json::object meta_of(const json::object& params) {
    auto* m = params.if_contains("_meta");
    return m && m->is_object() ? m->as_object() : json::object{};
}

bool looks_modern(const std::string& method, const json::object& params) {
    return method == "server/discover" || method == "subscriptions/listen" || meta_of(params).contains(kProtocolVersionKey);
}

int http_status_of(std::string_view message) {
    boost::system::error_code ec;
    auto v = json::parse(message, ec);
    if (ec || !v.is_object()) return 200;
    auto* e = v.as_object().if_contains("error");
    if (!e || !e->is_object()) return 200;
    auto* code = e->as_object().if_contains("code");
    if (!code || !code->is_int64()) return 200;
    switch (code->as_int64()) {
    case kUnsupportedProtocolVersion:
    case kHeaderMismatch:
    case -32600:
    case -32700:
        return 400;
    case -32601:
        return 404;
    default:
        return 200;
    }
}

std::optional<std::string> decode_header_value(std::string_view raw) {
    for (unsigned char c : raw)
        if (!(c == '\t' || (c >= 0x20 && c <= 0x7e))) return std::nullopt;
    constexpr std::string_view pre = "=?base64?", post = "?=";
    if (raw.size() < pre.size() + post.size() || raw.substr(0, pre.size()) != pre ||
        raw.substr(raw.size() - post.size()) != post)
        return std::string(raw);
    return coffer::base64_decode(raw.substr(pre.size(), raw.size() - pre.size() - post.size()));
}

std::optional<std::string> header_mismatch(const json::object& headers, const std::string& method,
                                           const json::object& params, const json::object* input_schema) {
    auto meta = meta_of(params);  // a copy: what if_contains points into must outlive the checks
    auto* version = meta.if_contains(kProtocolVersionKey);
    std::string body_version = version && version->is_string() ? std::string(version->as_string()) : "";
    if (auto e = check_equal(headers, "mcp-protocol-version", "MCP-Protocol-Version", body_version, false)) return e;
    if (auto e = check_equal(headers, "mcp-method", "Mcp-Method", method, false)) return e;
    if (method == "tools/call" || method == "prompts/get")
        if (auto e = check_equal(headers, "mcp-name", "Mcp-Name", str_arg(params, "name"), true)) return e;
    if (method == "resources/read")
        if (auto e = check_equal(headers, "mcp-name", "Mcp-Name", str_arg(params, "uri"), true)) return e;
    if (method == "tools/call" && input_schema) return check_params(headers, params, *input_schema);
    return std::nullopt;
}

json::object accepted_filter(const json::object& notifications) {
    json::object f;
    for (const char* flag : {"toolsListChanged", "promptsListChanged", "resourcesListChanged"})
        if (auto* v = notifications.if_contains(flag); v && v->is_bool() && v->as_bool()) f[flag] = true;
    json::array uris;
    if (auto* v = notifications.if_contains("resourceSubscriptions"); v && v->is_array())
        for (auto& u : v->as_array())
            if (u.is_string()) uris.push_back(u);
    if (!uris.empty()) f["resourceSubscriptions"] = std::move(uris);
    return f;
}

bool wants(const json::object& filter, const char* flag) { return filter.contains(flag); }

bool subscribed(const json::object& filter, const std::string& uri) {
    auto* v = filter.if_contains("resourceSubscriptions");
    if (!v) return false;
    auto& a = v->as_array();
    return std::any_of(a.begin(), a.end(), [&](const json::value& u) { return u.as_string() == uri; });
}

bool log_wanted(const json::object& meta, std::string_view level) {
    auto* asked = meta.if_contains(kLogLevelKey);
    if (!asked) return false;
    auto rank = [](std::string_view l) {
        auto it = std::find(std::begin(kLevels), std::end(kLevels), l);
        return it == std::end(kLevels) ? 0 : static_cast<int>(it - std::begin(kLevels));
    };
    return !asked->is_string() || rank(level) >= rank(asked->as_string());
}

// --- Server, the modern side ---------------------------------------------------------------

bool Server::modern_era(Era era, const std::string& method, const json::object& params) const {
    if (era != Era::Auto) return era == Era::Modern;
    if (opts_.modern) return true;
    return opts_.dual_era && method != "initialize" && looks_modern(method, params);
}

void Server::refuse_version(const std::shared_ptr<Peer>& out, const json::value& id, const json::value* requested) {
    error(out, id, kUnsupportedProtocolVersion, "Unsupported protocol version",
          json::object{{"supported", supported_versions()}, {"requested", requested ? *requested : json::value()}});
}

void Server::modern_request(const json::value& id, const std::string& method, const json::object& params,
                            const std::shared_ptr<Peer>& out, const json::object* http_headers) {
    if (method == "initialize") return refuse_version(out, id, params.if_contains("protocolVersion"));
    auto meta = meta_of(params);
    auto* asked = meta.if_contains(kProtocolVersionKey);
    if (!asked || *asked != kModernVersion) return refuse_version(out, id, asked);
    std::string tool = method == "tools/call" ? str_arg(params, "name") : "";
    if (http_headers) {
        const json::object* schema = nullptr;
        auto tools = tool.empty() ? json::array{} : tool_list(true);
        for (auto& t : tools)
            if (t.at("name").as_string() == tool) schema = &t.at("inputSchema").as_object();
        if (auto why = header_mismatch(*http_headers, method, params, schema)) return error(out, id, kHeaderMismatch, *why);
    }
    ++seen_->modern_requests;
    seen_->last_client_info = meta.contains(kClientInfoKey) ? meta.at(kClientInfoKey) : json::value();
    seen_->last_client_capabilities = meta.contains(kClientCapabilitiesKey) ? meta.at(kClientCapabilitiesKey) : json::value();

    if (among(method, kRemoved)) return error(out, id, -32601, "Method not found: " + method);
    if (method == "subscriptions/listen") return listen(id, params, out);
    ModernContext context{json::object{{"resultType", "complete"}}, meta, std::nullopt};
    if (among(method, kCacheable)) {
        context.result_fields["ttlMs"] = kModernTtlMs;
        context.result_fields["cacheScope"] = "private";
    }
    if (http_headers) context.headers = *http_headers;
    auto modern_out = std::make_shared<ModernPeer>(out, std::move(context));
    if (method == "server/discover")
        return reply(modern_out, id,
                     json::object{{"resultType", "complete"},
                                  {"supportedVersions", supported_versions()},
                                  {"capabilities",
                                   json::object{{"tools", json::object{{"listChanged", true}}},
                                                {"resources", json::object{{"subscribe", true}, {"listChanged", true}}},
                                                {"prompts", json::object{{"listChanged", true}}}}},
                                  {"_meta", json::object{{kServerInfoKey, json::object{{"name", "coffer-test-upstream"},
                                                                                       {"version", "1.0.0"}}}}},
                                  {"instructions", "coffer-test-upstream: a test server"},
                                  {"ttlMs", kModernTtlMs},
                                  {"cacheScope", "public"}});
    request(id, method, params, modern_out);
    if (http_headers && method == "tools/call" && tool != "stats") seen_->last_headers = *http_headers;
}

// The stream stays open (no response) until the client cancels it or the server ends it.
void Server::listen(const json::value& id, const json::object& params, const std::shared_ptr<Peer>& out) {
    auto* asked = params.if_contains("notifications");
    if (!asked || !asked->is_object())
        return error(out, id, -32602, "subscriptions/listen needs params.notifications (an object)");
    auto filter = accepted_filter(asked->as_object());
    notify(out, "notifications/subscriptions/acknowledged",
           json::object{{"_meta", subscription_meta(id)}, {"notifications", filter}});
    listens_.push_back({id, std::move(filter), out});
}

bool Server::end_listen(const json::value& id) {
    auto before = listens_.size();
    std::erase_if(listens_, [&](const Listen& l) { return l.id == id; });
    return listens_.size() != before;
}

void Server::end_listens() {
    auto ending = std::move(listens_);
    listens_.clear();
    for (auto& l : ending)
        if (l.out->open())
            reply(l.out, l.id, json::object{{"resultType", "complete"}, {"_meta", subscription_meta(l.id)}});
}

std::size_t Server::open_listens() {
    std::erase_if(listens_, [](const Listen& l) { return !l.out->open(); });
    return listens_.size();
}

int Server::notify_listens(const std::function<bool(const json::object& filter)>& wanted, const std::string& method,
                           json::object params) {
    open_listens();
    int n = 0;
    for (auto& l : listens_) {
        if (!wanted(l.filter)) continue;
        auto p = params;
        p["_meta"] = subscription_meta(l.id);
        notify(l.out, method, p);
        ++n;
    }
    return n;
}

// The tools only a modern request lists and calls; false when `name` is none of them.
bool Server::modern_tool(const json::value& id, const std::string& name, const json::object& args,
                         const json::object& params, const std::shared_ptr<Peer>& out) {
    const ModernContext* m = out->modern();
    if (name == "sample") {
        auto* responses = params.if_contains("inputResponses");
        auto* answer = responses && responses->is_object() ? responses->as_object().if_contains("s1") : nullptr;
        if (!answer) {
            reply(out, id,
                  json::object{{"resultType", "input_required"},
                               {"inputRequests",
                                json::object{{"s1", json::object{{"method", "sampling/createMessage"},
                                                                 {"params", sampling_params(str_arg(args, "prompt"))}}}}},
                               {"requestState", kSampleState}});
        } else if (str_arg(params, "requestState") != kSampleState) {
            error(out, id, -32602, "sample: unknown requestState '" + str_arg(params, "requestState") + "'");
        } else {
            ++seen_->input_rounds;
            reply(out, id, text_result(json::serialize(*answer)));
        }
        return true;
    }
    if (name == "regional") {
        auto* region = args.if_contains("region");
        if (!region || !region->is_string()) {
            reply(out, id, text_result("regional: region (a string) is required", true));
            return true;
        }
        std::string text = "region=" + std::string(region->as_string());
        if (m->headers) {
            auto* h = m->headers->if_contains("mcp-param-region");
            auto decoded = h && h->is_string() ? decode_header_value(h->as_string()) : std::nullopt;
            text += " header=" + decoded.value_or("");
        }
        reply(out, id, text_result(text));
        return true;
    }
    if (name == "bad_header") {
        auto* amount = args.if_contains("amount");
        reply(out, id, text_result("amount=" + (amount ? json::serialize(*amount) : std::string("none"))));
        return true;
    }
    if (name == "touch") {
        auto uri = str_arg(args, "uri");
        int n = notify_listens([&](const json::object& f) { return subscribed(f, uri); }, "notifications/resources/updated",
                               json::object{{"uri", uri}});
        reply(out, id, text_result("touched " + uri + " (" + std::to_string(n) + " listens)"));
        return true;
    }
    return false;
}

json::object Server::modern_stats() {
    return json::object{{"modern_requests", seen_->modern_requests},
                        {"last_client_info", seen_->last_client_info},
                        {"last_client_capabilities", seen_->last_client_capabilities},
                        {"last_headers", seen_->last_headers},
                        {"input_rounds", seen_->input_rounds},
                        {"listens", open_listens()},
                        {"legacy_initializes", seen_->legacy_initializes}};
}

}  // namespace coffer::test_upstream
