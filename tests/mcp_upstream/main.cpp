// coffer-test-upstream: a fast MCP server for Coffer's tests. stdio by default (newline-delimited
// JSON-RPC); --http PORT for Streamable HTTP, plus --legacy-sse for the old HTTP+SSE transport.
//
//   --max-version V     newest protocol version to accept (default 2025-11-25)
//   --strict-version    answer a newer version with an error instead of a counter-offer
//   --fail-initialize   answer initialize with an error
//   --init-delay MS     answer initialize after MS milliseconds
//   --tools-file PATH   re-read at every tools/list and call: NAME adds a tool, -NAME hides one
//   --instructions TEXT the initialize result's instructions (the server's own guidance)
//   --calls-log PATH    append each tools/call's tool name as a line (before it runs); the
//                       crash_once_* tools exit the first time they find no earlier line of theirs
//   --stderr TEXT       write TEXT to stderr at start
//   --exit-at-start N   exit with status N at once (after --stderr)
//   --require-env NAME=SHA256     stdio: exit 3 at start unless $NAME is set to a value with that
//                                 SHA-256 (hex); proves a credential arrived without naming it
//   --require-header NAME=SHA256  HTTP: answer 401 unless the request has header NAME with such a value
//   --resumable         HTTP: number and keep SSE events; GET with Last-Event-ID resumes a stream
//   --oauth             HTTP: also its own OAuth authorization server; /mcp needs its Bearer tokens
//                       (--oauth-ttl SECONDS per access token, --oauth-log FILE of grants,
//                       --oauth-claimed-ttl SECONDS announced instead: a token revoked early)
//   --cut-stream-after N  HTTP: close the first connection of every SSE stream after N events,
//                       with a `retry` field first, without ending the stream
//   --cut-retry-ms MS   the `retry` sent before such a cut (default 50)
//   --modern            speak only the stateless revision 2026-07-28: every request carries
//                       _meta io.modelcontextprotocol/protocolVersion "2026-07-28" (else -32022
//                       with data {supported, requested}; HTTP 400); initialize is refused so;
//                       server/discover; results carry resultType (lists and resources/read also
//                       ttlMs 60000 and cacheScope "private"); ping, logging/setLevel and
//                       resources/(un)subscribe are unknown (-32601; HTTP 404); the log tool logs
//                       only with _meta io.modelcontextprotocol/logLevel; sample answers
//                       input_required and takes the client's answer on the retry; the tools
//                       regional, bad_header and touch are listed; subscriptions/listen streams
//                       the list_changed / resources/updated notifications it asked for (HTTP: a
//                       POST answered by an SSE stream that stays open; stdio: until
//                       notifications/cancelled). HTTP: no sessions, GET/DELETE 405, the
//                       MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param-* headers must
//                       match the body (else 400, -32020). See modern.hpp.
//   --dual-era          both: a request is served as 2026-07-28 when its params._meta names a
//                       protocol version (HTTP also: MCP-Protocol-Version 2026-07-28 without
//                       Mcp-Session-Id), otherwise as before (initialize, sessions, GET stream)
#include "http_server.hpp"
#include "server.hpp"

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/read_until.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

using namespace coffer::test_upstream;

namespace {

class StdoutPeer : public Peer {
public:
    void send(const std::string& message, bool) override {
        std::string line = message + "\n";
        const char* p = line.data();
        std::size_t left = line.size();
        while (left > 0) {
            ssize_t n = ::write(1, p, left);
            if (n <= 0) std::_Exit(0);
            p += n;
            left -= static_cast<std::size_t>(n);
        }
    }
};

void read_loop(asio::posix::stream_descriptor& in, std::string& buf, Server& server, const std::shared_ptr<Peer>& out) {
    asio::async_read_until(in, asio::dynamic_buffer(buf), '\n',
                           [&in, &buf, &server, out](boost::system::error_code ec, std::size_t n) {
                               if (ec) {  // stdin closed: the client is gone
                                   server.end_listens();
                                   std::_Exit(0);
                               }
                               std::string line = buf.substr(0, n - 1);
                               buf.erase(0, n);
                               if (!line.empty() && line.back() == '\r') line.pop_back();
                               if (!line.empty()) server.handle(line, out);
                               read_loop(in, buf, server, out);
                           });
}

}  // namespace

int main(int argc, char** argv) {
    Options opts;
    int http_port = -1;
    bool legacy = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) {
                std::cerr << "missing value for " << a << "\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if (a == "--http") http_port = std::atoi(next().c_str());
        else if (a == "--legacy-sse") legacy = true;
        else if (a == "--max-version") opts.max_version = next();
        else if (a == "--strict-version") opts.strict_version = true;
        else if (a == "--fail-initialize") opts.fail_initialize = true;
        else if (a == "--init-delay") opts.init_delay_ms = std::atoi(next().c_str());
        else if (a == "--tools-file") opts.tools_file = next();
        else if (a == "--instructions") opts.instructions = next();
        else if (a == "--calls-log") opts.calls_log = next();
        else if (a == "--resumable") opts.resumable = true;
        else if (a == "--cut-stream-after") opts.cut_after = std::atoi(next().c_str());
        else if (a == "--cut-retry-ms") opts.cut_retry_ms = std::atoi(next().c_str());
        else if (a == "--oauth") opts.oauth = true;
        else if (a == "--modern") opts.modern = true;
        else if (a == "--dual-era") opts.dual_era = true;
        else if (a == "--oauth-ttl") opts.oauth_ttl = std::atoi(next().c_str());
        else if (a == "--oauth-log") opts.oauth_log = next();
        else if (a == "--oauth-claimed-ttl") opts.oauth_claimed_ttl = std::atoi(next().c_str());
        else if (a == "--stderr") std::cerr << next() << std::endl;
        else if (a == "--exit-at-start") std::exit(std::atoi(next().c_str()));
        else if (a == "--require-env" || a == "--require-header") {
            auto spec = next();
            auto eq = spec.find('=');
            if (eq == std::string::npos || eq == 0) {
                std::cerr << a << " wants NAME=SHA256HEX\n";
                return 2;
            }
            auto name = spec.substr(0, eq), digest = spec.substr(eq + 1);
            if (a == "--require-header") {
                opts.required_headers.emplace_back(name, digest);
            } else {
                const char* v = std::getenv(name.c_str());
                if (!v || sha256_hex(v) != digest) {
                    std::cerr << "coffer-test-upstream: environment variable " << name
                              << (v ? " has the wrong value" : " is not set") << std::endl;
                    std::exit(3);
                }
            }
        }
        else {
            std::cerr << "unknown option " << a << "\n";
            return 2;
        }
    }
    if (opts.modern && opts.dual_era) {
        std::cerr << "--modern and --dual-era exclude each other\n";
        return 2;
    }
    asio::io_context io;
    if (http_port >= 0) return run_http(io, opts, static_cast<unsigned short>(http_port), legacy);

    Server server(io, opts);
    auto out = std::make_shared<StdoutPeer>();
    server.set_broadcast(out);
    asio::posix::stream_descriptor in(io, ::dup(0));
    std::string buf;
    read_loop(in, buf, server, out);
    io.run();
    return 0;
}
