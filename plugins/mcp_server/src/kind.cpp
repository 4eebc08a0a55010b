#include "kind.hpp"

#include "config.hpp"
#include "instance.hpp"
#include "names.hpp"

namespace coffer::mcp_server {

std::vector<sdk::ActionInfo> ServerKind::actions() const {
    return {{"test",
             "connect once, initialize, list tools/resources/prompts; reports {ok, protocol_version, server_info, "
             "tools, resources, prompts, duration_ms, error}"},
            {"tools", "list the upstream's tools [{name, description}]"},
            {"login", "HTTP servers with OAuth: {redirect_uri} (a loopback URL the caller listens on) → "
                      "{authorization_url, expires_in, issuer}; open the URL, then login_complete"},
            {"login_complete", "{query} (the query string the browser was redirected with) → {logged_in, scope, "
                               "expires_at, refreshable, credential}; the tokens are kept as that credential"}};
}

void ServerKind::validate(const json::object& config, sdk::Validation& v) { validate_config(config, v); }

std::unique_ptr<sdk::Instance> ServerKind::create(const sdk::ResourceInfo& resource) {
    if (auto problem = server_name_problem(resource.name); !problem.empty())
        throw sdk::Error(COFFER_E_INVALID, "invalid mcp_server name \"" + resource.name + "\": " + problem,
                         json::object{{"errors", json::array{json::object{{"pointer", "/name"}, {"message", problem}}}}});
    sdk::Validation v;
    validate_config(resource.config, v);
    if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "config is invalid", json::object{{"errors", v.errors()}});
    auto inst = std::make_unique<ServerInstance>(rt_, parse_config(resource.name, resource.config));
    if (resource.enabled) inst->start();  // the host starts enabled resources anyway; be ready at once
    return inst;
}

}  // namespace coffer::mcp_server
