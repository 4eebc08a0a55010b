#include "cred_support.hpp"

#include <boost/test/unit_test.hpp>

#include <openssl/evp.h>

namespace cred_test {

std::string sha256_hex(const std::string& text) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    EVP_Digest(text.data(), text.size(), md, &n, EVP_sha256(), nullptr);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        out += digits[md[i] >> 4];
        out += digits[md[i] & 15];
    }
    return out;
}

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
