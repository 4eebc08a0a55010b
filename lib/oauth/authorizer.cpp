// The authorization-code flow (see authorizer.hpp).
#include "oauth/authorizer.hpp"

#include <coffer/base64.hpp>
#include <coffer/json_fields.hpp>
#include <coffer/sha256.hpp>

#include <boost/json.hpp>
#include <openssl/rand.h>

#include <algorithm>
#include <ctime>

namespace coffer::oauth {

namespace json = boost::json;

namespace {

bool contains(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

std::string join(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

std::vector<std::string> split(const std::string& scope) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < scope.size()) {
        auto end = scope.find(' ', at);
        if (end == std::string::npos) end = scope.size();
        if (end > at) out.push_back(scope.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

std::vector<std::string> scope_union(std::vector<std::string> a, const std::vector<std::string>& b) {
    for (const auto& s : b)
        if (!contains(a, s)) a.push_back(s);
    return a;
}

std::string without_slash(std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

// RFC 9728 section 3.3 and the MCP canonical server URI: the resource the metadata names must be
// the server the client asked, or a path above it on the same origin.
bool resource_covers(const std::string& resource, const http_client::Url& server) {
    http_client::Url r;
    try {
        r = http_client::parse_url(resource);
    } catch (const http_client::Error&) {
        return false;
    }
    if (r.scheme != server.scheme || r.host != server.host || r.port != server.port) return false;
    auto rp = without_slash(r.path), sp = without_slash(server.path);
    return rp.empty() || sp == rp || sp.starts_with(rp + "/");
}

// An error answer of the token or registration endpoint, for the message (no secrets in it).
std::string oauth_error(const http_client::Reply& r) {
    std::string out = "HTTP " + std::to_string(r.status);
    boost::system::error_code ec;
    auto v = json::parse(r.body, ec);
    if (auto* o = ec ? nullptr : v.if_object()) {
        if (auto e = json_fields::string_at(*o, "error"); !e.empty()) out += ": " + e;
        if (auto d = json_fields::string_at(*o, "error_description"); !d.empty()) out += " (" + d.substr(0, 200) + ")";
    }
    return out;
}

// base64url without '=' padding, as OAuth writes it (RFC 7636 appendix A).
std::string unpadded_base64url(std::string_view bytes) {
    auto out = base64url_encode(bytes);
    while (!out.empty() && out.back() == '=') out.pop_back();
    return out;
}

}  // namespace

std::string random_token(std::size_t bytes) {
    std::string raw(bytes, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(raw.size())) != 1)
        throw Error("no random bytes available");
    return unpadded_base64url(raw);
}

std::string pkce_challenge(std::string_view verifier) {
    Sha256 h;
    h.update(verifier);
    return unpadded_base64url(h.digest());
}

RegisteredClient Authorizer::identify(const ServerMetadata& as) {
    RegisteredClient c;
    if (!settings_.client_id.empty()) {
        c.id = settings_.client_id;
        c.secret = settings_.client_secret;
        const auto& methods = as.token_endpoint_auth_methods_supported;
        if (c.secret.empty()) c.auth_method = "none";
        // RFC 8414: client_secret_basic when the server lists nothing.
        else if (methods.empty() || contains(methods, "client_secret_basic")) c.auth_method = "client_secret_basic";
        else c.auth_method = "client_secret_post";
        return c;
    }
    if (!settings_.client_metadata_url.empty() && as.client_id_metadata_document_supported) {
        c.id = settings_.client_metadata_url;
        c.auth_method = "none";
        return c;
    }
    if (as.registration_endpoint.empty())
        throw Error("the authorization server " + as.issuer +
                    " offers no dynamic client registration; configure a client id registered with it");
    json::object body{{"client_name", settings_.client_name},
                      {"redirect_uris", json::array{json::value(settings_.redirect_uri)}},
                      {"grant_types", json::array{"authorization_code", "refresh_token"}},
                      {"response_types", json::array{"code"}},
                      {"token_endpoint_auth_method", "none"},
                      {"application_type", "native"}};
    http_client::Request req;
    req.method = "POST";
    req.url = http_client::parse_url(as.registration_endpoint);
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    req.body = json::serialize(body);
    auto r = http_.fetch(req, timeout_, 1024 * 1024);
    if (r.status != 200 && r.status != 201) throw Error("client registration at " + as.registration_endpoint + " failed: " + oauth_error(r));
    json::value v;
    try {
        v = json::parse(r.body);
    } catch (...) {
        throw Error("client registration at " + as.registration_endpoint + " answered something that is not JSON");
    }
    auto* o = v.if_object();
    c.id = o ? json_fields::string_at(*o, "client_id") : std::string();
    if (c.id.empty()) throw Error("client registration at " + as.registration_endpoint + " gave no client_id");
    c.secret = json_fields::string_at(*o, "client_secret");
    c.auth_method = json_fields::string_at(*o, "token_endpoint_auth_method");
    if (c.auth_method.empty()) c.auth_method = c.secret.empty() ? "none" : "client_secret_basic";
    c.dynamic = true;
    return c;
}

Started Authorizer::start(const std::string& server_url, const std::optional<Challenge>& challenge,
                          const std::optional<RegisteredClient>& known, const std::string& granted) {
    const auto server = http_client::parse_url(server_url);
    Discovery discovery(http_, timeout_);
    auto prm = discovery.resource(server, challenge);
    ServerMetadata as;
    Grant g;
    g.server_url = server_url;
    if (prm) {
        if (!prm->resource.empty() && !resource_covers(prm->resource, server))
            throw Error("the protected-resource metadata at " + prm->url + " is for '" + prm->resource + "', not for " +
                        server.text() + "; refusing to send a token there");
        g.resource = prm->resource.empty() ? server.origin() + server.path : prm->resource;
        std::optional<ServerMetadata> found;
        std::string tried;
        for (const auto& issuer : prm->authorization_servers) {
            found = discovery.server(issuer);
            if (found) break;
            tried += (tried.empty() ? "" : ", ") + issuer;
        }
        if (!found) throw Error("no authorization server metadata found for " + tried);
        as = *found;
    } else {
        as = discovery.legacy_server(server);  // 2025-03-26: the server is its own authorization server
        g.resource = server.origin() + server.path;
    }
    if (!contains(as.code_challenge_methods_supported, "S256"))
        throw Error("the authorization server " + as.issuer + " does not offer PKCE with S256; refusing to authorize");

    g.issuer = as.issuer;
    g.token_endpoint = as.token_endpoint;
    g.iss_required = as.iss_parameter_supported;
    g.client = known && !known->id.empty() && known->issuer == as.issuer ? *known : identify(as);
    g.client.issuer = as.issuer;
    if (!settings_.scope.empty()) g.scope = settings_.scope;
    else if (auto s = challenge ? challenge->param("scope") : std::nullopt; s && !s->empty()) g.scope = *s;
    else if (prm && !prm->scopes_supported.empty()) g.scope = join(prm->scopes_supported);
    if (!granted.empty()) g.scope = join(scope_union(split(granted), split(g.scope)));
    g.state = random_token();
    g.code_verifier = random_token(48);
    g.redirect_uri = settings_.redirect_uri;

    Fields q = {{"response_type", "code"},
                {"client_id", g.client.id},
                {"redirect_uri", g.redirect_uri},
                {"code_challenge", pkce_challenge(g.code_verifier)},
                {"code_challenge_method", "S256"},
                {"state", g.state}};
    if (!g.scope.empty()) q.emplace_back("scope", g.scope);
    q.emplace_back("resource", g.resource);
    auto url = as.authorization_endpoint + (as.authorization_endpoint.find('?') == std::string::npos ? "?" : "&") + form_encode(q);
    return {std::move(url), std::move(g)};
}

Tokens Authorizer::finish(const Grant& g, std::string_view redirect_query) {
    auto q = parse_form(redirect_query);
    if (auto e = q.find("error"); e != q.end()) {
        auto d = q.find("error_description");
        throw Error("the authorization server refused: " + e->second.substr(0, 100) +
                    (d != q.end() ? " (" + d->second.substr(0, 200) + ")" : ""));
    }
    auto st = q.find("state");
    if (st == q.end() || st->second != g.state)
        throw Error("the authorization response does not carry this login's state; it is ignored");
    // RFC 9207: the response names its issuer, compared exactly.
    auto iss = q.find("iss");
    if (iss != q.end() && iss->second != g.issuer)
        throw Error("the authorization response comes from issuer '" + iss->second.substr(0, 200) + "', not '" + g.issuer + "'");
    if (iss == q.end() && g.iss_required)
        throw Error("the authorization server advertises the iss parameter but its response has none");
    auto code = q.find("code");
    if (code == q.end() || code->second.empty()) throw Error("the authorization response has no code");
    return token_request(g, {{"grant_type", "authorization_code"},
                             {"code", code->second},
                             {"redirect_uri", g.redirect_uri},
                             {"code_verifier", g.code_verifier},
                             {"resource", g.resource}});
}

Tokens Authorizer::refresh(const Grant& g, const std::string& refresh_token) {
    auto t = token_request(g, {{"grant_type", "refresh_token"}, {"refresh_token", refresh_token}, {"resource", g.resource}});
    if (t.refresh_token.empty()) t.refresh_token = refresh_token;
    return t;
}

Tokens Authorizer::token_request(const Grant& g, Fields fields) {
    http_client::Request req;
    req.method = "POST";
    req.url = http_client::parse_url(g.token_endpoint);
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
    const auto& c = g.client;
    if (c.auth_method == "client_secret_basic" && !c.secret.empty()) {
        // RFC 6749 section 2.3.1: both parts form-encoded before base64.
        req.headers.emplace_back("Authorization", "Basic " + base64_encode(percent_encode(c.id) + ":" + percent_encode(c.secret)));
    } else {
        fields.emplace_back("client_id", c.id);
        if (c.auth_method == "client_secret_post" && !c.secret.empty()) fields.emplace_back("client_secret", c.secret);
    }
    req.body = form_encode(fields);
    auto r = http_.fetch(req, timeout_, 1024 * 1024);
    if (r.status != 200) throw Error("the token endpoint " + g.token_endpoint + " refused: " + oauth_error(r));
    json::value v;
    try {
        v = json::parse(r.body);
    } catch (...) {
        throw Error("the token endpoint " + g.token_endpoint + " answered something that is not JSON");
    }
    auto* o = v.if_object();
    if (!o) throw Error("the token endpoint " + g.token_endpoint + " gave no access_token");
    using json_fields::string_at;
    Tokens t{string_at(*o, "access_token"), string_at(*o, "token_type"), string_at(*o, "refresh_token"),
             string_at(*o, "scope"), 0};
    if (t.access_token.empty()) throw Error("the token endpoint " + g.token_endpoint + " gave no access_token");
    if (auto* e = o->if_contains("expires_in"); e && e->is_number())
        t.expires_at = static_cast<std::int64_t>(std::time(nullptr)) + e->to_number<std::int64_t>();
    if (t.scope.empty()) t.scope = g.scope;
    return t;
}

}  // namespace coffer::oauth
