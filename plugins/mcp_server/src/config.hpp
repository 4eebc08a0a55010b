// The configuration of one mcp_server resource, parsed from its (schema-checked) config object,
// and the checks a JSON Schema cannot express.
#pragma once

#include <coffer/credref.hpp>
#include <coffer/sdk.hpp>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace coffer::mcp_server {

namespace json = boost::json;

enum class TransportKind { stdio, http };

struct ServerConfig {
    std::string name;  // the resource name (prefix of every exposed capability)
    TransportKind transport = TransportKind::stdio;
    // stdio
    std::string command;
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;  // values may be credref:<ref>
    std::string cwd;                                        // "" = the daemon's
    // http
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;  // values may be credref:<ref>
    // http, OAuth (oauth.cpp): a client registered with the authorization server beforehand
    // (its secret may be credref:<ref>), a client ID metadata document URL, a scope to ask for.
    struct OAuth {
        std::string client_id, client_secret, client_metadata_url, scope;
    } oauth;
    // both
    std::chrono::milliseconds timeout{60000};
    bool auto_enable_new = true;

    // A short description for logs and upstream-pids/ (never an argument, env or header value).
    std::string describe() const;
    // The first env/header entry whose value is a credential reference, as "env FOO" /
    // "header Authorization"; "" when none.
    std::string first_credential_reference() const;
};

// The credential-reference rule is the SDK's (coffer/credref.hpp), shared with the host.
using credref::is_credref;

// Parses a config the schema already accepted (missing members take their defaults).
ServerConfig parse_config(std::string name, const json::object& config);

// Rules across fields and facts the schema cannot state; pointers are into the config.
void validate_config(const json::object& config, sdk::Validation& v);

}  // namespace coffer::mcp_server
