// OAuth for HTTP upstreams (MCP authorization, lib/oauth): logging in, keeping the tokens, and
// putting them on the upstream's requests.
//
// - `login` (action, blocking: discovery, registration) asks the server unauthenticated, reads its
//   challenge and returns the URL to open; the pending login waits 10 minutes for `login_complete`
//   (action: the query the browser was sent back with), which exchanges the code.
// - The tokens and what a refresh needs live in one credential of the plugin's namespace,
//   `mcp_server.oauth.<server>` (ABI 1.8 credential_store: encrypted with the vault's master key,
//   never in a file of the plugin's), as JSON; `coffer credential delete` logs out.
// - At connect time a stored token becomes `Authorization: Bearer …` (unless the config sets an
//   Authorization header itself). A token within a minute of expiry is refreshed first, on the
//   runtime's blocking thread, never on the I/O thread.
#pragma once

#include "config.hpp"

#include "oauth/authorizer.hpp"

#include <coffer/sdk.hpp>

#include <boost/json.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace coffer::mcp_server {

// The credential that holds a server's OAuth state.
std::string oauth_credential_ref(const std::string& server_name);

struct StoredOAuth {
    oauth::Grant grant;
    oauth::Tokens tokens;
};

// The stored state of `cfg`'s server, when there is one for its current URL.
std::optional<StoredOAuth> load_oauth(const sdk::Host& host, const ServerConfig& cfg);
// Stores it (the host encrypts it); false when the host cannot keep credentials.
bool save_oauth(const sdk::Host& host, const ServerConfig& cfg, const StoredOAuth& state);
// True when the access token expires within a minute and a refresh token exists.
bool needs_refresh(const StoredOAuth& state);
// Blocking: a new access token from the refresh token, stored. Throws oauth::Error.
StoredOAuth refresh_oauth(const sdk::Host& host, const ServerConfig& cfg, StoredOAuth state);

class OAuthLogins {
public:
    // Blocking (discovery and registration, each request bounded by 10 s). `redirect_uri` is the
    // loopback URL the caller listens on. → {authorization_url, expires_in}
    boost::json::object begin(const sdk::Host& host, const ServerConfig& cfg, const std::string& redirect_uri);
    // Blocking (the token request). `query` is the redirect's query string. → {logged_in, scope,
    // expires_at}
    boost::json::object complete(const sdk::Host& host, const ServerConfig& cfg, const std::string& query);

private:
    struct Pending {
        oauth::Grant grant;
        std::chrono::steady_clock::time_point until;
    };
    std::mutex mu_;
    std::map<std::string, Pending> pending_;  // by server name: the newest login only
};

}  // namespace coffer::mcp_server
