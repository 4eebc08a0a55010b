// coffer-test-upstream: a small, fast MCP server for tests, transport-independent core.
// Tools: echo, search, raw (a byte-exact canned result), slow, progress, log, crash, toggle
// (adds/removes `extra` and sends notifications/tools/list_changed), sample (asks the client for
// sampling/createMessage), pid, grandchild (spawns `sleep` in its process group), big, fail,
// stats; resources (static and a template) and a prompt. Every client notification is recorded
// (stats lists their methods); on notifications/roots/list_changed from a client that declared
// `roots` it asks roots/list (on the stream for unrelated messages) and stats shows the answer.
// With Options::modern or Options::dual_era it also speaks the stateless revision 2026-07-28
// per request (modern.hpp/.cpp): server/discover, subscriptions/listen, input_required rounds
// (sample), and three tools listed to modern requests only: regional (x-mcp-header "Region"),
// bad_header (an invalid x-mcp-header on a number) and touch (notifications/resources/updated).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>

#include <coffer/sha256.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::test_upstream {

namespace asio = boost::asio;
namespace json = boost::json;

struct Options {
    std::string max_version = "2025-11-25";  // newest version this server speaks
    bool strict_version = false;             // refuse a newer version with an error (no counter-offer)
    bool fail_initialize = false;
    int init_delay_ms = 0;
    // Read at every tools/list and tools/call (an "upgrade" without a restart): one tool per line;
    // `NAME` adds a tool that answers "NAME ok", `-NAME` hides a built-in tool.
    std::string tools_file;
    std::string instructions;  // the initialize result's instructions ("" = none)
    // HTTP: every request must carry these headers, each with a value whose SHA-256 (lower-case
    // hex) is given; otherwise 401 (the secret itself never appears on the command line).
    std::vector<std::pair<std::string, std::string>> required_headers;
    // Every tools/call appends its tool name as a line here before it runs (the upstream's own
    // record of what it ran, e.g. to prove a call ran once or twice).
    std::string calls_log;
    // Streamable HTTP: SSE events carry ids and are kept, so a GET with Last-Event-ID resumes a
    // stream on a new connection (after a priming event with an id and no data).
    bool resumable = false;
    // Streamable HTTP: the first connection of every SSE stream (a POST's answer or the GET
    // stream) is closed after this many events — a `retry` field first — without ending the
    // stream (0: never).
    int cut_after = 0;
    int cut_retry_ms = 50;
    // HTTP: the server is its own OAuth authorization server and /mcp needs its Bearer tokens
    // (oauth_standin.hpp); tokens live oauth_ttl seconds; grants are logged to oauth_log.
    bool oauth = false;
    int oauth_ttl = 3600;
    int oauth_claimed_ttl = 0;  // the expires_in announced, when not the real lifetime (0: the same)
    std::string oauth_log;
    // Revision 2026-07-28 ("modern", stateless; modern.hpp): `modern` speaks only it (initialize
    // is refused with -32022 naming the supported versions); `dual_era` serves a request as modern
    // when it carries _meta io.modelcontextprotocol/protocolVersion and keeps the legacy
    // initialize handshake for clients that use it.
    bool modern = false;
    bool dual_era = false;
};

// What `stats` reports about the modern era. One per process: every Server of an HTTP server
// (the modern one and each legacy session) shares it.
struct ModernStats {
    std::int64_t modern_requests = 0;     // modern requests that passed the version and header checks
    std::int64_t input_rounds = 0;        // input_required rounds answered by the client (sample retries)
    std::int64_t legacy_initializes = 0;  // initialize requests answered successfully
    json::value last_client_info;         // _meta clientInfo of the last modern request (null: none)
    json::value last_client_capabilities;
    json::object last_headers;            // Mcp-* headers of the last HTTP tools/call but `stats`
};

// The request a Peer answers is served as 2026-07-28.
struct ModernContext {
    json::object result_fields;          // every result gets those it lacks (resultType, ttlMs, cacheScope)
    json::object meta;                   // the request's params._meta
    std::optional<json::object> headers;  // HTTP: Mcp-Method, Mcp-Name, MCP-Protocol-Version, Mcp-Param-*
                                          // (names lower-cased, values as sent); none on stdio
};

using coffer::sha256_hex;  // lower-case hex SHA-256 of a text (coffer/sha256.hpp)

// A tools/call result with one text block (server.cpp).
json::object text_result(const std::string& text, bool is_error = false);
// args[key] when it is a string, else "".
std::string str_arg(const json::object& args, const char* key);

// Where messages for the client go. `final` marks the response that ends a request's stream.
class Peer {
public:
    virtual ~Peer() = default;
    virtual void send(const std::string& message, bool final) = 0;
    // False once nothing sent here can reach the client any more (an HTTP stream it closed).
    virtual bool open() const { return true; }
    // Set when the request this peer answers is served as 2026-07-28 (modern.hpp: ModernPeer).
    virtual const ModernContext* modern() const { return nullptr; }
};

class Server {
public:
    Server(asio::io_context& io, Options opts) : io_(io), opts_(std::move(opts)) {}

    // Which revision a request is served by. Auto: modern with --modern; with --dual-era when
    // its params._meta names a protocol version (or it is server/discover or subscriptions/listen,
    // which exist only there); legacy otherwise. The HTTP transport decides itself (a session's
    // requests are Legacy, a session-less request it recognizes as modern is Modern).
    enum class Era { Auto, Legacy, Modern };

    // One message from the client; what relates to it goes to `out`. `http_headers`: the Mcp-*
    // headers of a modern HTTP request (names lower-cased), checked against the body.
    void handle(std::string_view text, const std::shared_ptr<Peer>& out, Era era = Era::Auto,
                const json::object* http_headers = nullptr);
    // Where messages unrelated to any request go (stdout for stdio, the GET stream for HTTP).
    void set_broadcast(std::shared_ptr<Peer> p) { broadcast_ = std::move(p); }
    void share_stats(std::shared_ptr<ModernStats> s) { seen_ = std::move(s); }
    bool initialized() const { return initialized_; }
    // Shutdown: every open subscriptions/listen gets its closing (successful) response.
    void end_listens();

private:
    // An open subscriptions/listen: its id, the filter the server agreed to, where it streams.
    struct Listen {
        json::value id;
        json::object filter;
        std::shared_ptr<Peer> out;
    };

    void request(const json::value& id, const std::string& method, const json::object& params,
                 const std::shared_ptr<Peer>& out);
    void call_tool(const json::value& id, const std::string& name, const json::object& args, const json::object& params,
                   const std::shared_ptr<Peer>& out);
    void progress_step(json::value token, json::value id, std::int64_t i, std::int64_t steps, std::int64_t interval,
                       std::shared_ptr<Peer> out);
    void reply(const std::shared_ptr<Peer>& out, const json::value& id, const json::value& result);
    void reply_raw(const std::shared_ptr<Peer>& out, const json::value& id, const std::string& raw_result);
    void error(const std::shared_ptr<Peer>& out, const json::value& id, int code, const std::string& message);
    void notify(const std::shared_ptr<Peer>& out, const std::string& method, const json::value& params);
    void ask_roots(const std::shared_ptr<Peer>& out);
    void error(const std::shared_ptr<Peer>& out, const json::value& id, int code, const std::string& message,
               json::value data);
    json::array tool_list(bool modern) const;
    // modern.cpp: the 2026-07-28 side.
    bool modern_era(Era era, const std::string& method, const json::object& params) const;
    void modern_request(const json::value& id, const std::string& method, const json::object& params,
                        const std::shared_ptr<Peer>& out, const json::object* http_headers);
    void refuse_version(const std::shared_ptr<Peer>& out, const json::value& id, const json::value* requested);
    json::array supported_versions() const;
    void listen(const json::value& id, const json::object& params, const std::shared_ptr<Peer>& out);
    bool end_listen(const json::value& id);
    std::size_t open_listens();
    int notify_listens(const std::function<bool(const json::object& filter)>& wanted, const std::string& method,
                       json::object params);
    bool modern_tool(const json::value& id, const std::string& name, const json::object& args,
                     const json::object& params, const std::shared_ptr<Peer>& out);
    json::object modern_stats();
    std::vector<std::string> tools_file_lines() const;

    asio::io_context& io_;
    Options opts_;
    std::shared_ptr<Peer> broadcast_;
    bool initialized_ = false;
    std::string version_;
    bool extra_ = false;
    std::set<std::string> cancelled_;               // request ids (serialized) the client cancelled
    json::array notifications_;                     // methods of the client's notifications, in order
    bool client_roots_ = false;                     // the client declared `roots` in initialize
    json::value roots_;                             // the last roots/list answer (result or error)
    std::map<std::string, std::function<void(const json::object&)>> waiting_;  // our requests → continuation
    int next_request_ = 1;
    std::shared_ptr<ModernStats> seen_ = std::make_shared<ModernStats>();
    std::vector<Listen> listens_;
};

}  // namespace coffer::test_upstream
