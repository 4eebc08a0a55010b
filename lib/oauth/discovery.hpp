// Finding who protects an MCP server and how to talk to them (MCP 2025-11-25 authorization):
// the protected-resource metadata (RFC 9728) — from the `resource_metadata` URL of the server's
// challenge, else the path-aware then the root well-known URL — names the authorization server;
// its metadata (RFC 8414, or OpenID Connect discovery) is tried at the well-known URLs the
// specification lists, in its order. A server without protected-resource metadata (the
// 2025-03-26 revision) is its own authorization server.
#pragma once

#include "oauth/challenge.hpp"

#include "http_client/fetch.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace coffer::oauth {

// What went wrong in an OAuth step; the message says what and where, never a token or secret.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ResourceMetadata {
    std::string url;                           // where it was read ("" when the server has none)
    std::string resource;                      // the resource identifier, exactly as published
    std::vector<std::string> authorization_servers;
    std::vector<std::string> scopes_supported;
};

struct ServerMetadata {
    std::string url;  // where it was read ("" when the endpoints are the 2025-03-26 defaults)
    std::string issuer;
    std::string authorization_endpoint;
    std::string token_endpoint;
    std::string registration_endpoint;  // "" when dynamic registration is not offered
    std::vector<std::string> scopes_supported;
    std::vector<std::string> grant_types_supported;
    std::vector<std::string> code_challenge_methods_supported;
    std::vector<std::string> token_endpoint_auth_methods_supported;
    bool client_id_metadata_document_supported = false;
    bool iss_parameter_supported = false;  // RFC 9207 authorization_response_iss_parameter_supported
};

// The URLs to try for the protected-resource metadata of `server`, best first.
std::vector<std::string> resource_metadata_urls(const http_client::Url& server, const std::optional<Challenge>& challenge);
// The URLs to try for an authorization server's metadata, in the specification's order.
std::vector<std::string> server_metadata_urls(const std::string& issuer);

class Discovery {
public:
    Discovery(http_client::Client& client, std::chrono::milliseconds timeout) : client_(client), timeout_(timeout) {}

    // The first URL that answers 200 with a usable document; nullopt when none does. Throws Error
    // when a document is there but wrong (no authorization server; issuer not the one asked for).
    std::optional<ResourceMetadata> resource(const http_client::Url& server, const std::optional<Challenge>& challenge);
    std::optional<ServerMetadata> server(const std::string& issuer);
    // The 2025-03-26 fallback: the server's origin is the authorization server, its metadata at
    // the root well-known URL, else /authorize, /token and /register there.
    ServerMetadata legacy_server(const http_client::Url& server);

private:
    // The JSON object at `url` when it answers 200 with one; nullopt for anything else.
    std::optional<boost::json::object> document(const std::string& url);

    http_client::Client& client_;
    std::chrono::milliseconds timeout_;
};

}  // namespace coffer::oauth
