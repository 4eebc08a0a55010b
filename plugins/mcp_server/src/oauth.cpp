// OAuth for HTTP upstreams (see oauth.hpp).
#include "oauth.hpp"

#include "credentials.hpp"

#include <coffer/json_fields.hpp>

#include <openssl/crypto.h>

#include <ctime>

namespace coffer::mcp_server {

namespace json = boost::json;
using coffer::json_fields::string_at;

namespace {

constexpr auto kRequestTimeout = std::chrono::seconds(10);
constexpr auto kLoginValidity = std::chrono::minutes(10);

json::object to_json(const StoredOAuth& s) {
    const auto& g = s.grant;
    return json::object{{"server_url", g.server_url},
                        {"resource", g.resource},
                        {"issuer", g.issuer},
                        {"token_endpoint", g.token_endpoint},
                        {"iss_required", g.iss_required},
                        {"scope", g.scope},
                        {"client", json::object{{"id", g.client.id},
                                                {"secret", g.client.secret},
                                                {"auth_method", g.client.auth_method},
                                                {"dynamic", g.client.dynamic},
                                                {"issuer", g.client.issuer}}},
                        {"access_token", s.tokens.access_token},
                        {"token_type", s.tokens.token_type},
                        {"refresh_token", s.tokens.refresh_token},
                        {"granted_scope", s.tokens.scope},
                        {"expires_at", s.tokens.expires_at}};
}

std::optional<StoredOAuth> from_json(const json::object& o) {
    StoredOAuth s;
    auto& g = s.grant;
    g.server_url = string_at(o, "server_url");
    g.resource = string_at(o, "resource");
    g.issuer = string_at(o, "issuer");
    g.token_endpoint = string_at(o, "token_endpoint");
    if (auto* b = o.if_contains("iss_required"); b && b->is_bool()) g.iss_required = b->get_bool();
    g.scope = string_at(o, "scope");
    if (auto* c = o.if_contains("client"); c && c->is_object()) {
        const auto& co = c->get_object();
        g.client.id = string_at(co, "id");
        g.client.secret = string_at(co, "secret");
        g.client.auth_method = string_at(co, "auth_method");
        g.client.issuer = string_at(co, "issuer");
        if (auto* d = co.if_contains("dynamic"); d && d->is_bool()) g.client.dynamic = d->get_bool();
    }
    s.tokens.access_token = string_at(o, "access_token");
    s.tokens.token_type = string_at(o, "token_type");
    s.tokens.refresh_token = string_at(o, "refresh_token");
    s.tokens.scope = string_at(o, "granted_scope");
    if (auto* e = o.if_contains("expires_at"); e && e->is_number()) s.tokens.expires_at = e->to_number<std::int64_t>();
    if (g.server_url.empty() || s.tokens.access_token.empty()) return std::nullopt;
    return s;
}

// The client settings of `cfg`, its secret resolved when it is a credential reference.
oauth::ClientSettings settings_of(const sdk::Host& host, const ServerConfig& cfg, const std::string& redirect_uri) {
    oauth::ClientSettings s;
    s.client_name = "Coffer";
    s.redirect_uri = redirect_uri;
    s.client_id = cfg.oauth.client_id;
    s.client_metadata_url = cfg.oauth.client_metadata_url;
    s.scope = cfg.oauth.scope;
    s.client_secret = cfg.oauth.client_secret;
    if (is_credref(s.client_secret)) {
        auto c = host.resolve_credential(credref::ref_of(s.client_secret));
        if (!c.ok())
            throw oauth::Error("the credential '" + std::string(credref::ref_of(cfg.oauth.client_secret)) +
                               "' (oauth client_secret) cannot be resolved");
        s.client_secret = std::move(c.value);
    }
    return s;
}

// The server's challenge: what it answers an unauthenticated initialize.
std::optional<oauth::Challenge> probe_challenge(http_client::Client& http, const ServerConfig& cfg, bool& refused) {
    http_client::Request req;
    req.method = "POST";
    req.url = http_client::parse_url(cfg.url);
    req.headers = {{"Content-Type", "application/json"},
                   {"Accept", "application/json, text/event-stream"},
                   {"MCP-Protocol-Version", "2025-11-25"}};
    req.body = R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"coffer","version":"login"}}})";
    auto r = http.fetch(req, kRequestTimeout, 1024 * 1024);
    refused = r.status == 401 || r.status == 403;
    return oauth::bearer_challenge_of(r);
}

}  // namespace

std::string oauth_credential_ref(const std::string& server_name) { return "mcp_server.oauth." + server_name; }

std::optional<StoredOAuth> load_oauth(const sdk::Host& host, const ServerConfig& cfg) {
    auto c = host.resolve_credential(oauth_credential_ref(cfg.name));
    if (!c.ok()) return std::nullopt;
    std::optional<StoredOAuth> out;
    boost::system::error_code ec;
    auto v = json::parse(c.value, ec);
    OPENSSL_cleanse(c.value.data(), c.value.size());
    if (!ec && v.is_object()) out = from_json(v.get_object());
    // Tokens are for the URL they were issued for: a server moved to another URL logs in again.
    if (out && out->grant.server_url != cfg.url) return std::nullopt;
    return out;
}

bool save_oauth(const sdk::Host& host, const ServerConfig& cfg, const StoredOAuth& state) {
    auto text = json::serialize(to_json(state));
    auto st = host.store_credential(oauth_credential_ref(cfg.name), text);
    OPENSSL_cleanse(text.data(), text.size());
    return st == COFFER_OK;
}

bool needs_refresh(const StoredOAuth& s) {
    if (s.tokens.refresh_token.empty() || s.tokens.expires_at == 0) return false;
    return s.tokens.expires_at - 60 <= static_cast<std::int64_t>(std::time(nullptr));
}

StoredOAuth refresh_oauth(const sdk::Host& host, const ServerConfig& cfg, StoredOAuth state) {
    http_client::Client http;
    oauth::Authorizer a(http, settings_of(host, cfg, ""), kRequestTimeout);
    state.tokens = a.refresh(state.grant, state.tokens.refresh_token);
    if (!save_oauth(host, cfg, state)) host.warn("mcp_server:" + cfg.name + ": the refreshed OAuth token could not be stored");
    return state;
}

json::object OAuthLogins::begin(const sdk::Host& host, const ServerConfig& cfg, const std::string& redirect_uri) {
    if (cfg.transport != TransportKind::http) throw oauth::Error("only HTTP servers log in; this one runs a command");
    http_client::Client http;
    bool refused = false;
    auto challenge = probe_challenge(http, cfg, refused);
    if (!refused && !challenge)
        throw oauth::Error("the server answered without asking for authorization; it needs no login");
    oauth::Authorizer a(http, settings_of(host, cfg, redirect_uri), kRequestTimeout);
    // A dynamically registered client is registered again at every login: its redirect URI (a
    // loopback port of that login) is part of the registration. The scope granted before is
    // asked for again with whatever the server now names.
    auto stored = load_oauth(host, cfg);
    auto started = a.start(cfg.url, challenge, std::nullopt, stored ? stored->tokens.scope : std::string());
    {
        std::lock_guard<std::mutex> g(mu_);
        pending_[cfg.name] = Pending{started.grant, std::chrono::steady_clock::now() + kLoginValidity};
    }
    return json::object{{"authorization_url", started.authorization_url},
                        {"expires_in", std::chrono::duration_cast<std::chrono::seconds>(kLoginValidity).count()},
                        {"issuer", started.grant.issuer}};
}

json::object OAuthLogins::complete(const sdk::Host& host, const ServerConfig& cfg, const std::string& query) {
    Pending p;
    {
        std::lock_guard<std::mutex> g(mu_);
        auto it = pending_.find(cfg.name);
        if (it == pending_.end() || it->second.until < std::chrono::steady_clock::now()) {
            if (it != pending_.end()) pending_.erase(it);
            throw oauth::Error("no login is waiting for this server (it expires after 10 minutes); run `coffer mcp login " +
                               cfg.name + "` again");
        }
        p = it->second;
    }
    http_client::Client http;
    oauth::Authorizer a(http, settings_of(host, cfg, p.grant.redirect_uri), kRequestTimeout);
    auto tokens = a.finish(p.grant, query);  // throws on a wrong state: the pending login stays
    {
        std::lock_guard<std::mutex> g(mu_);
        pending_.erase(cfg.name);
    }
    StoredOAuth s{p.grant, tokens};
    s.grant.state.clear();
    s.grant.code_verifier.clear();
    if (!save_oauth(host, cfg, s)) throw oauth::Error("this Coffer host cannot keep credentials for plugins (needs ABI 1.8)");
    return json::object{{"logged_in", true},
                        {"scope", tokens.scope},
                        {"expires_at", tokens.expires_at},
                        {"refreshable", !tokens.refresh_token.empty()},
                        {"credential", oauth_credential_ref(cfg.name)}};
}

}  // namespace coffer::mcp_server
