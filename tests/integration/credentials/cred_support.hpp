// Shared by the credential integration tests: a daemon with the bundled mcp_server plugin,
// REST helpers, and SHA-256 for coffer-test-upstream's --require-env/--require-header.
#pragma once

#include "daemon_fixture.hpp"
#include <coffer/sha256.hpp>

#include <boost/json.hpp>

#include <string>

namespace cred_test {

namespace json = boost::json;

using coffer::sha256_hex;  // lower-case hex SHA-256 of a text (coffer/sha256.hpp)

struct Vault {
    coffer::test::TempDir dir;
    coffer::test::Daemon d{dir.path() / "vault"};
    Vault();
    // A REST call that must answer `expect`; the parsed body.
    json::value req(const std::string& method, const std::string& target, const std::string& body, int expect);
    json::value set(const std::string& ref, const std::string& value, int expect = 201);
    json::value create_server(const std::string& name, const std::string& config, int expect = 201);
    json::object server_status(const std::string& name);
};

}  // namespace cred_test
