// The REST surface /api/v1/*: guards, auth, trace ids, routing onto the service thread.
#pragma once

#include "api/router.hpp"
#include "core/error.hpp"
#include "http/message.hpp"
#include "plugin/registry.hpp"
#include "resource/service.hpp"
#include "store/database.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <string>

namespace coffer::api {

// What the daemon itself offers the API.
class DaemonControl {
public:
    virtual ~DaemonControl() = default;
    virtual boost::json::object status() const = 0;
    virtual std::string token() const = 0;  // thread-safe
    virtual core::Result<void> rotate_token(const std::string& actor) = 0;
    virtual void request_stop() = 0;
};

struct Context {
    DaemonControl& daemon;
    resource::Service& resources;
    plugin::Registry& registry;
    store::Database& db;
};

class Api {
public:
    Api(Context ctx, boost::asio::any_io_executor service);
    // Called on the network thread; completes through `respond` from the service thread.
    void handle(http::Request&& req, http::Respond respond);

private:
    void add_routes();
    Context ctx_;
    boost::asio::any_io_executor service_;
    Router router_;
};

// The error envelope {"error":{code,message,details}} with the trace header.
http::Response error_response(const core::Error& e, const std::string& trace);
http::Response error_response(int status, const std::string& code, const std::string& message, const std::string& trace);

}  // namespace coffer::api
