// Test support: a tiny blocking HTTP/1.1 client over a plain socket (no Beast in tests).
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace coffer::test {

struct HttpResult {
    int status = 0;  // 0: connection failed
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
};

// Sends one request on a fresh connection. `headers` are sent as given (add Host yourself to
// override the default "127.0.0.1:<port>").
HttpResult http_request(std::uint16_t port, const std::string& method, const std::string& target,
                        const std::string& body = "", const std::map<std::string, std::string>& headers = {});

}  // namespace coffer::test
