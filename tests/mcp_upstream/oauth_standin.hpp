// coffer-test-upstream --oauth: the upstream is also its own OAuth 2.1 authorization server, the
// way a remote MCP server with login works (MCP 2025-11-25 authorization): protected-resource
// metadata (RFC 9728), authorization-server metadata (RFC 8414), dynamic client registration,
// an /authorize that approves at once (302 to the redirect URI with code, state and iss), a
// /token that checks PKCE S256, the redirect URI and the resource indicator, and issues access
// tokens that expire after --oauth-ttl seconds with rotating refresh tokens. /mcp then needs a
// valid Bearer token, else 401 with a challenge naming the metadata. Every grant is appended to
// --oauth-log ("register", "authorize", "token authorization_code", "token refresh_token",
// "refused <why>"), the stand-in's own record for the tests.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace coffer::test_upstream {

struct OAuthReply {
    int status = 200;
    std::string reason = "OK";
    std::string content_type = "application/json";
    std::string extra_headers;  // "Name: value\r\n" lines
    std::string body;
};

class OAuthStandIn {
public:
    // `claimed_ttl`: the expires_in announced (0: the real `ttl_seconds`); a shorter real
    // lifetime plays a token the server revoked early.
    OAuthStandIn(std::string base_url, int ttl_seconds, std::string log_path, int claimed_ttl = 0)
        : base_(std::move(base_url)), ttl_(ttl_seconds), claimed_(claimed_ttl ? claimed_ttl : ttl_seconds),
          log_(std::move(log_path)) {}

    // An answer for the OAuth endpoints (`path` without the query); nullopt for anything else.
    std::optional<OAuthReply> handle(const std::string& method, const std::string& path, const std::string& query,
                                     const std::string& body, const std::string& content_type);
    // nullopt when `authorization` (the header's value) carries a live access token; otherwise
    // the 401 to send.
    std::optional<OAuthReply> check(const std::string& authorization);

private:
    void log(const std::string& line) const;
    OAuthReply error(int status, const std::string& code, const std::string& why);

    struct Code {
        std::string client_id, redirect_uri, challenge, resource, scope;
    };
    std::string base_;
    int ttl_, claimed_;
    std::string log_;
    int next_ = 0;
    std::map<std::string, std::string> clients_;  // id → first redirect URI
    std::map<std::string, Code> codes_;
    std::map<std::string, std::chrono::steady_clock::time_point> access_;  // token → expiry
    std::map<std::string, std::string> refresh_;                           // token → client id
};

}  // namespace coffer::test_upstream
