// The OAuth 2.1 authorization-code flow of an MCP client towards a protected MCP server (MCP
// 2025-11-25 authorization): discovery (discovery.hpp), the client's identity (pre-registered, a
// client ID metadata document URL when the authorization server accepts one, else dynamic client
// registration, RFC 7591), PKCE with S256 (refused when the server does not offer it), the
// resource indicator (RFC 8707) exactly as the protected-resource metadata publishes it, the
// scope the challenge asks for (else what the resource supports, else none), the authorization
// response's `state` and `iss` (RFC 9207) checked, the token request with the client
// authentication the server supports, and refresh.
//
// It is split in two halves because a person sits between them: start() gives the URL to open and
// a Grant to keep; finish() takes the query the browser was redirected with.
#pragma once

#include "oauth/challenge.hpp"
#include "oauth/discovery.hpp"
#include "oauth/form.hpp"

#include "http_client/fetch.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace coffer::oauth {

struct ClientSettings {
    std::string client_name = "Coffer";
    std::string redirect_uri;         // a loopback URL (RFC 8252 section 7.3)
    std::string client_id;            // pre-registered ("" when none)
    std::string client_secret;        // with client_id, when the client is confidential
    std::string client_metadata_url;  // a client ID metadata document's HTTPS URL ("" when none)
    std::string scope;                // asked for instead of the chosen scope ("" → chosen)
};

// The client as the authorization server knows it.
struct RegisteredClient {
    std::string id;
    std::string secret;       // "" for a public client
    std::string auth_method;  // none, client_secret_basic or client_secret_post
    bool dynamic = false;     // registered by start()
    std::string issuer;       // the authorization server it is registered with
};

struct Tokens {
    std::string access_token;
    std::string token_type;
    std::string refresh_token;  // "" when none was issued
    std::string scope;
    std::int64_t expires_at = 0;  // Unix seconds; 0 when the server did not say
};

// What ties the two halves together and what a refresh needs later.
struct Grant {
    std::string server_url;
    std::string resource;        // RFC 8707 resource indicator
    std::string issuer;
    std::string token_endpoint;
    bool iss_required = false;   // the server advertises RFC 9207
    RegisteredClient client;
    std::string scope;           // "" when none was asked for
    // Only until finish():
    std::string state;
    std::string code_verifier;
    std::string redirect_uri;
};

struct Started {
    std::string authorization_url;
    Grant grant;
};

class Authorizer {
public:
    Authorizer(http_client::Client& client, ClientSettings settings, std::chrono::milliseconds timeout)
        : http_(client), settings_(std::move(settings)), timeout_(timeout) {}

    // Discovers, registers when needed, and makes the authorization URL. `challenge` is the
    // server's Bearer challenge (from a 401, or a 403 insufficient_scope: step-up), if any;
    // `known` a client registered by an earlier start(), reused while the server still names the
    // same authorization server (a new one gets a new registration); `granted` the scope granted
    // before, so a step-up asks for the union and loses nothing.
    Started start(const std::string& server_url, const std::optional<Challenge>& challenge,
                  const std::optional<RegisteredClient>& known = std::nullopt, const std::string& granted = "");
    // The query of the redirect (code, state, iss — or error): checked, then exchanged for tokens.
    Tokens finish(const Grant& grant, std::string_view redirect_query);
    // A new access token from a refresh token (kept when the server does not rotate it).
    Tokens refresh(const Grant& grant, const std::string& refresh_token);

private:
    RegisteredClient identify(const ServerMetadata& as);
    Tokens token_request(const Grant& grant, Fields fields);

    http_client::Client& http_;
    ClientSettings settings_;
    std::chrono::milliseconds timeout_;
};

// A random URL-safe string of `bytes` random bytes (state, PKCE verifier).
std::string random_token(std::size_t bytes = 32);
// base64url(SHA-256(verifier)) without padding (RFC 7636 S256).
std::string pkce_challenge(std::string_view verifier);

}  // namespace coffer::oauth
