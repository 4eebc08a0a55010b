// Plain request/response values, so only server.cpp sees Boost.Beast.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace coffer::http {

struct Request {
    std::string method;                         // "GET", "POST", …
    std::string target;                         // raw target: path + query
    std::string path;                           // decoded path without the query
    std::map<std::string, std::string> query;   // decoded query parameters
    std::map<std::string, std::string> headers; // lower-case names
    std::string body;

    const std::string* header(const std::string& lower_name) const {
        auto it = headers.find(lower_name);
        return it == headers.end() ? nullptr : &it->second;
    }
};

struct Response {
    int status = 200;
    std::string content_type = "application/json";
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    bool close = false;  // close the connection after writing
};

// Completes a request; callable from any thread, exactly once.
using Respond = std::function<void(Response)>;
using Handler = std::function<void(Request&&, Respond)>;
// Builds the response for an error the server detects itself (oversized or unparsable request).
using ErrorResponder = std::function<Response(int status, const std::string& code, const std::string& message)>;

}  // namespace coffer::http
