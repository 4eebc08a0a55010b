// The OAuth stand-in of coffer-test-upstream (see oauth_standin.hpp).
#include "oauth_standin.hpp"

#include "oauth/authorizer.hpp"
#include "oauth/form.hpp"

#include <boost/json.hpp>

#include <fstream>

namespace coffer::test_upstream {

namespace json = boost::json;

namespace {

OAuthReply json_reply(int status, const char* reason, const json::value& v) {
    return OAuthReply{status, reason, "application/json", "Cache-Control: no-store\r\n", json::serialize(v)};
}

}  // namespace

void OAuthStandIn::log(const std::string& line) const {
    if (log_.empty()) return;
    std::ofstream(log_, std::ios::app) << line << '\n';
}

OAuthReply OAuthStandIn::error(int status, const std::string& code, const std::string& why) {
    log("refused " + why);
    return json_reply(status, status == 401 ? "Unauthorized" : "Bad Request",
                      json::object{{"error", code}, {"error_description", why}});
}

std::optional<OAuthReply> OAuthStandIn::handle(const std::string& method, const std::string& path, const std::string& query,
                                               const std::string& body, const std::string& content_type) {
    if (method == "GET" && path == "/.well-known/oauth-protected-resource/mcp")
        return json_reply(200, "OK",
                          json::object{{"resource", base_ + "/mcp"},
                                       {"authorization_servers", json::array{json::value(base_)}},
                                       {"scopes_supported", json::array{"mcp:tools"}}});
    if (method == "GET" && path == "/.well-known/oauth-authorization-server")
        return json_reply(200, "OK",
                          json::object{{"issuer", base_},
                                       {"authorization_endpoint", base_ + "/authorize"},
                                       {"token_endpoint", base_ + "/token"},
                                       {"registration_endpoint", base_ + "/register"},
                                       {"response_types_supported", json::array{"code"}},
                                       {"grant_types_supported", json::array{"authorization_code", "refresh_token"}},
                                       {"code_challenge_methods_supported", json::array{"S256"}},
                                       {"token_endpoint_auth_methods_supported", json::array{"none"}},
                                       {"authorization_response_iss_parameter_supported", true}});
    if (method == "POST" && path == "/register") {
        boost::system::error_code ec;
        auto v = json::parse(body, ec);
        auto* uris = !ec && v.is_object() ? v.as_object().if_contains("redirect_uris") : nullptr;
        if (!uris || !uris->is_array() || uris->as_array().empty() || !uris->as_array()[0].is_string())
            return error(400, "invalid_client_metadata", "registration without redirect_uris");
        std::string id = "client-" + std::to_string(++next_);
        clients_[id] = std::string(uris->as_array()[0].as_string());
        log("register");
        return json_reply(201, "Created", json::object{{"client_id", id}, {"redirect_uris", *uris}, {"token_endpoint_auth_method", "none"}});
    }
    if (method == "GET" && path == "/authorize") {
        auto q = oauth::parse_form(query);
        if (!clients_.count(q["client_id"])) return error(400, "invalid_client", "unknown client_id at /authorize");
        if (q["code_challenge_method"] != "S256" || q["code_challenge"].empty())
            return error(400, "invalid_request", "no PKCE S256 challenge");
        if (q["resource"] != base_ + "/mcp") return error(400, "invalid_target", "resource is not " + base_ + "/mcp");
        std::string code = "code-" + std::to_string(++next_);
        codes_[code] = Code{q["client_id"], q["redirect_uri"], q["code_challenge"], q["resource"], q["scope"]};
        log("authorize");
        std::string location = q["redirect_uri"] + (q["redirect_uri"].find('?') == std::string::npos ? "?" : "&") +
                               oauth::form_encode({{"code", code}, {"state", q["state"]}, {"iss", base_}});
        return OAuthReply{302, "Found", "", "Location: " + location + "\r\n", ""};
    }
    if (method == "POST" && path == "/token") {
        if (content_type.find("application/x-www-form-urlencoded") == std::string::npos)
            return error(400, "invalid_request", "the token request is not form-encoded");
        auto f = oauth::parse_form(body);
        std::string client;
        if (f["grant_type"] == "authorization_code") {
            auto it = codes_.find(f["code"]);
            if (it == codes_.end()) return error(400, "invalid_grant", "unknown or used code");
            Code c = it->second;
            codes_.erase(it);  // one use
            if (f["client_id"] != c.client_id) return error(400, "invalid_grant", "client_id differs");
            if (f["redirect_uri"] != c.redirect_uri) return error(400, "invalid_grant", "redirect_uri differs");
            if (oauth::pkce_challenge(f["code_verifier"]) != c.challenge) return error(400, "invalid_grant", "PKCE verifier does not match");
            if (f["resource"] != c.resource) return error(400, "invalid_target", "resource differs");
            client = c.client_id;
            log("token authorization_code");
        } else if (f["grant_type"] == "refresh_token") {
            auto it = refresh_.find(f["refresh_token"]);
            if (it == refresh_.end()) return error(400, "invalid_grant", "unknown or rotated refresh token");
            client = it->second;
            refresh_.erase(it);  // rotation: a refresh token works once
            log("token refresh_token");
        } else {
            return error(400, "unsupported_grant_type", "grant_type " + f["grant_type"]);
        }
        std::string access = "at-" + std::to_string(++next_), refresh = "rt-" + std::to_string(++next_);
        access_[access] = std::chrono::steady_clock::now() + std::chrono::seconds(ttl_);
        refresh_[refresh] = client;
        return json_reply(200, "OK",
                          json::object{{"access_token", access},
                                       {"token_type", "Bearer"},
                                       {"expires_in", claimed_},
                                       {"refresh_token", refresh},
                                       {"scope", "mcp:tools"}});
    }
    return std::nullopt;
}

std::optional<OAuthReply> OAuthStandIn::check(const std::string& authorization) {
    if (authorization.rfind("Bearer ", 0) == 0) {
        auto it = access_.find(authorization.substr(7));
        if (it != access_.end() && it->second > std::chrono::steady_clock::now()) return std::nullopt;
    }
    OAuthReply r{401, "Unauthorized", "application/json",
                 "WWW-Authenticate: Bearer resource_metadata=\"" + base_ +
                     "/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:tools\"\r\n",
                 R"({"error":"invalid_token"})"};
    return r;
}

}  // namespace coffer::test_upstream
