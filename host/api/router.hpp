// A small method + path-pattern router ("/api/v1/resources/{kind}/{name}").
#pragma once

#include "core/result.hpp"
#include "http/message.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace coffer::api {

using Params = std::map<std::string, std::string>;

struct Reply {
    Reply() = default;
    Reply(int s, boost::json::value b) : status(s), body(std::move(b)) {}

    int status = 200;
    boost::json::value body;
    std::string json_text;  // the body already serialized: sent instead of `body` when not empty
    // A streamed answer instead of `body` (e.g. text/event-stream): called on the network thread
    // with the open stream once the head is sent.
    std::string content_type;
    std::vector<std::pair<std::string, std::string>> headers;
    std::function<void(std::shared_ptr<http::Stream>)> on_stream;
};

// Handlers run on the daemon's service thread.
using RouteFn = std::function<core::Result<Reply>(const http::Request&, const Params&)>;
// Answers a route: call it once, from any thread.
using Done = std::function<void(core::Result<Reply>)>;
// A route whose answer waits on something other than the store (an upstream server): it starts
// on the service thread and calls `done` when it has the answer, leaving the thread free meanwhile.
using AsyncRouteFn = std::function<void(const http::Request&, const Params&, Done)>;

class Router {
public:
    void add(std::string method, std::string pattern, RouteFn fn);
    void add_async(std::string method, std::string pattern, AsyncRouteFn fn);
    // Finds the route; sets `path_known` when the path matches, whatever the method.
    const AsyncRouteFn* match(const std::string& method, const std::string& path, Params& params,
                         bool& path_known) const;

private:
    struct Route {
        std::string method;
        std::vector<std::string> segments;
        AsyncRouteFn fn;
    };
    std::vector<Route> routes_;
};

std::vector<std::string> split_path(const std::string& path);

}  // namespace coffer::api
