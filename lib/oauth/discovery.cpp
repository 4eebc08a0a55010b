// Protected-resource and authorization-server metadata discovery (see discovery.hpp).
#include "oauth/discovery.hpp"

#include <coffer/json_fields.hpp>

#include <boost/json.hpp>

namespace coffer::oauth {

namespace json = boost::json;
using coffer::json_fields::string_at;

namespace {

std::vector<std::string> texts(const json::object& o, const char* key) {
    std::vector<std::string> out;
    if (auto* v = o.if_contains(key); v && v->is_array())
        for (auto& x : v->get_array())
            if (x.is_string()) out.emplace_back(x.get_string());
    return out;
}

bool flag(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_bool() && v->get_bool();
}

// The path of a URL without a trailing slash ("" for the root).
std::string trimmed_path(const http_client::Url& u) {
    std::string p = u.path;
    while (!p.empty() && p.back() == '/') p.pop_back();
    return p;
}

// Issuers compare as written, except that a trailing slash does not count.
std::string without_slash(std::string s) {
    while (!s.empty() && s.back() == '/') s.pop_back();
    return s;
}

}  // namespace

std::vector<std::string> resource_metadata_urls(const http_client::Url& server, const std::optional<Challenge>& challenge) {
    std::vector<std::string> out;
    if (challenge)
        if (auto u = challenge->param("resource_metadata"); u && !u->empty()) out.push_back(*u);
    auto path = trimmed_path(server);
    if (!path.empty()) out.push_back(server.origin() + "/.well-known/oauth-protected-resource" + path);
    out.push_back(server.origin() + "/.well-known/oauth-protected-resource");
    return out;
}

std::vector<std::string> server_metadata_urls(const std::string& issuer) {
    auto u = http_client::parse_url(issuer);
    auto path = trimmed_path(u);
    if (path.empty())
        return {u.origin() + "/.well-known/oauth-authorization-server", u.origin() + "/.well-known/openid-configuration"};
    return {u.origin() + "/.well-known/oauth-authorization-server" + path,
            u.origin() + "/.well-known/openid-configuration" + path, u.origin() + path + "/.well-known/openid-configuration"};
}

std::optional<json::object> Discovery::document(const std::string& url) {
    try {
        http_client::Request req;
        req.url = http_client::parse_url(url);
        req.headers = {{"Accept", "application/json"}, {"MCP-Protocol-Version", "2025-11-25"}};
        auto r = client_.fetch(req, timeout_, 1024 * 1024);
        if (r.status != 200) return std::nullopt;
        boost::system::error_code ec;
        auto v = json::parse(r.body, ec);
        if (ec || !v.is_object()) return std::nullopt;
        return std::move(v.get_object());
    } catch (const http_client::Error&) {
        return std::nullopt;  // not there: the next URL is tried
    }
}

std::optional<ResourceMetadata> Discovery::resource(const http_client::Url& server, const std::optional<Challenge>& challenge) {
    for (const auto& url : resource_metadata_urls(server, challenge)) {
        auto doc = document(url);
        if (!doc) continue;
        const auto& o = *doc;
        ResourceMetadata m{url, string_at(o, "resource"), texts(o, "authorization_servers"), texts(o, "scopes_supported")};
        if (m.authorization_servers.empty())
            throw Error("the protected-resource metadata at " + url + " names no authorization server");
        return m;
    }
    return std::nullopt;
}

std::optional<ServerMetadata> Discovery::server(const std::string& issuer) {
    for (const auto& url : server_metadata_urls(issuer)) {
        auto doc = document(url);
        if (!doc) continue;
        const auto& o = *doc;
        ServerMetadata m;
        m.url = url;
        m.issuer = string_at(o, "issuer");
        m.authorization_endpoint = string_at(o, "authorization_endpoint");
        m.token_endpoint = string_at(o, "token_endpoint");
        m.registration_endpoint = string_at(o, "registration_endpoint");
        m.scopes_supported = texts(o, "scopes_supported");
        m.grant_types_supported = texts(o, "grant_types_supported");
        m.code_challenge_methods_supported = texts(o, "code_challenge_methods_supported");
        m.token_endpoint_auth_methods_supported = texts(o, "token_endpoint_auth_methods_supported");
        m.client_id_metadata_document_supported = flag(o, "client_id_metadata_document_supported");
        m.iss_parameter_supported = flag(o, "authorization_response_iss_parameter_supported");
        // RFC 8414 section 3.3: the issuer in the document must be the one it was looked up for.
        if (without_slash(m.issuer) != without_slash(issuer))
            throw Error("the authorization server metadata at " + url + " is for issuer '" + m.issuer + "', not '" + issuer + "'");
        if (m.authorization_endpoint.empty() || m.token_endpoint.empty())
            throw Error("the authorization server metadata at " + url + " has no authorization or token endpoint");
        return m;
    }
    return std::nullopt;
}

ServerMetadata Discovery::legacy_server(const http_client::Url& server) {
    auto origin = server.origin();
    try {
        if (auto found = this->server(origin)) return *found;
    } catch (const Error&) {
    }
    ServerMetadata m;
    m.issuer = origin;
    m.authorization_endpoint = origin + "/authorize";
    m.token_endpoint = origin + "/token";
    m.registration_endpoint = origin + "/register";
    m.code_challenge_methods_supported = {"S256"};
    return m;
}

}  // namespace coffer::oauth
