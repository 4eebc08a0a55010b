#include "cred_support.hpp"

#include <boost/test/unit_test.hpp>


namespace cred_test {

Vault::Vault() { BOOST_REQUIRE_MESSAGE(d.start(), d.log()); }

json::value Vault::req(const std::string& method, const std::string& target, const std::string& body, int expect) {
    int status = 0;
    auto v = d.call_json(method, target, body, &status);
    BOOST_TEST(status == expect, method << " " << target << " -> " << status << " " << json::serialize(v));
    return v;
}

json::value Vault::set(const std::string& ref, const std::string& value, int expect) {
    return req("POST", "/api/v1/credentials", json::serialize(json::object{{"ref", ref}, {"value", value}}), expect);
}

json::value Vault::create_server(const std::string& name, const std::string& config, int expect) {
    return req("POST", "/api/v1/resources", R"({"kind":"mcp_server","name":")" + name + R"(","config":)" + config + "}",
               expect);
}

json::object Vault::server_status(const std::string& name) {
    auto v = req("GET", "/api/v1/resources/mcp_server/" + name, "", 200);
    return v.at("resource").at("status").at("plugin").as_object();
}

}  // namespace cred_test
