// A small method + path-pattern router ("/api/v1/resources/{kind}/{name}").
#pragma once

#include "core/result.hpp"
#include "http/message.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace coffer::api {

using Params = std::map<std::string, std::string>;

struct Reply {
    int status = 200;
    boost::json::value body;
};

// Handlers run on the daemon's service thread.
using RouteFn = std::function<core::Result<Reply>(const http::Request&, const Params&)>;

class Router {
public:
    void add(std::string method, std::string pattern, RouteFn fn);
    // Finds the route; sets `method_allowed` false when the path matches but not the method.
    const RouteFn* match(const std::string& method, const std::string& path, Params& params,
                         bool& path_known) const;

private:
    struct Route {
        std::string method;
        std::vector<std::string> segments;
        RouteFn fn;
    };
    std::vector<Route> routes_;
};

std::vector<std::string> split_path(const std::string& path);

}  // namespace coffer::api
