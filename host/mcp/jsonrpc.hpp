// JSON-RPC 2.0 messages as MCP uses them: parsing a downstream body into messages (or the error
// to answer with), and building the text of outgoing messages.
#pragma once

#include <coffer/jsonrpc_codes.hpp>

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::mcp::rpc {

// The codes live in the SDK (coffer/jsonrpc_codes.hpp), shared with the plugins and the shim.
namespace code = ::coffer::jsonrpc::code;

inline constexpr std::size_t kMaxMessageBytes = 4u << 20;  // 4 MiB
inline constexpr int kMaxDepth = 64;

enum class Kind { request, notification, response, error_response };

struct Message {
    Kind kind = Kind::request;
    boost::json::value id;      // string or integer; null for notifications (and some error responses)
    std::string method;         // requests and notifications
    boost::json::value params;  // an object, or null when absent
    boost::json::value result;  // responses
    boost::json::value error;   // error responses
};

struct Error {
    int code = code::invalid_request;
    std::string message;
    boost::json::value id;  // the request's id when it could be read, else null
};

// One element of a body: a message or why it is not one.
struct Entry {
    std::optional<Message> message;
    std::optional<Error> error;
};

struct Parsed {
    std::optional<Error> error;  // the body as a whole is unusable (size, UTF-8, JSON syntax, shape)
    bool batch = false;          // the body was an array
    std::vector<Entry> entries;
};

Parsed parse(std::string_view body);
Entry classify(boost::json::value& v);  // moves params, result or error out of `v`

// The key under which a request id is tracked: its JSON text ("7", "\"a\"").
std::string id_key(const boost::json::value& id);

// Outgoing message text.
std::string result(const boost::json::value& id, std::string_view raw_result_object);
std::string error(const boost::json::value& id, int code, std::string_view message,
                  const boost::json::value& data = nullptr);
std::string error_raw(const boost::json::value& id, std::string_view raw_error_object);
std::string request(const boost::json::value& id, std::string_view method, std::string_view raw_params);
std::string notification(std::string_view method, std::string_view raw_params);

}  // namespace coffer::mcp::rpc
