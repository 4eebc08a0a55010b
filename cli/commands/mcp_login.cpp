// `coffer mcp login <name>`: OAuth for an HTTP server that requires authorization. The CLI listens
// on a loopback port for the browser's redirect (RFC 8252 section 7.3), asks the daemon to start
// the login with that redirect URI (the mcp_server plugin discovers the authorization server and
// registers Coffer with it), prints the URL to open, waits for the redirect, answers the browser
// with a short page, and hands the redirect's query to the daemon, which exchanges the code and
// keeps the tokens as an encrypted credential.
#include "commands/mcp.hpp"

#include "app/args.hpp"
#include "app/command.hpp"
#include "app/context.hpp"
#include "app/format.hpp"
#include "client/url.hpp"

#include <boost/json/object.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <ostream>
#include <string>

namespace coffer::cli {
namespace json = boost::json;

namespace {

constexpr const char* kKind = "mcp_server";

// A listening loopback socket on a port the kernel picks; closed on destruction.
struct Listener {
    int fd = -1;
    int port = 0;
    Listener() {
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) return;
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 4) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
            ::close(fd);
            fd = -1;
            return;
        }
        port = ntohs(a.sin_port);
    }
    ~Listener() {
        if (fd >= 0) ::close(fd);
    }
};

void answer(int c, int status, const std::string& text) {
    std::string body = "<!doctype html><meta charset=utf-8><title>Coffer</title><p>" + text + "</p>\n";
    std::string head = "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Not Found") +
                       "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + std::to_string(body.size()) +
                       "\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n";
    auto all = head + body;
    (void)!::send(c, all.data(), all.size(), MSG_NOSIGNAL);
}

// Waits for `GET /callback?…` and returns its query; "" on timeout. Other requests (a browser's
// favicon) get a 404 and the wait goes on.
std::string wait_for_redirect(const Listener& l, std::chrono::seconds limit, const std::string& name) {
    auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        if (left.count() <= 0) return {};
        pollfd p{l.fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        int c = ::accept4(l.fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) continue;
        std::string req;
        char buf[4096];
        pollfd q{c, POLLIN, 0};
        while (req.find("\r\n") == std::string::npos && req.size() < 16384 && ::poll(&q, 1, 5000) > 0) {
            auto n = ::recv(c, buf, sizeof buf, 0);
            if (n <= 0) break;
            req.append(buf, static_cast<std::size_t>(n));
        }
        // "GET /callback?query HTTP/1.1"
        auto line = req.substr(0, req.find("\r\n"));
        const std::string prefix = "GET /callback?";
        if (line.rfind(prefix, 0) == 0) {
            auto end = line.find(' ', prefix.size());
            auto query = line.substr(prefix.size(), end == std::string::npos ? std::string::npos : end - prefix.size());
            answer(c, 200, "Coffer received the answer for <b>" + name + "</b>; you can close this window.");
            ::close(c);
            return query;
        }
        answer(c, 404, "Not found.");
        ::close(c);
    }
}

int login(Context& ctx, const Invocation& inv) {
    const auto& name = inv.args[0];
    long seconds = 600;
    if (auto t = inv.value("timeout")) {
        try {
            seconds = std::stol(*t);
        } catch (...) {
            seconds = -1;
        }
        if (seconds < 1 || seconds > 3600) return ctx.usage_error("--timeout must be 1..3600 seconds", "coffer mcp login <name>");
    }
    Listener l;
    if (l.fd < 0) return ctx.fail(core::Error::make(core::code::internal, "cannot listen on a loopback port for the redirect"));
    const std::string redirect = "http://127.0.0.1:" + std::to_string(l.port) + "/callback";
    auto started = ctx.call("POST", client::api_path({"resources", kKind, name, "actions", "login"}),
                            json::value(json::object{{"redirect_uri", redirect}}));
    if (!started.ok()) return ctx.report(started);
    const auto& r = field(started.body(), "result");
    auto url = text_field(r, "authorization_url");
    ctx.err() << "Open this URL in a browser to log in to mcp_server:" << name << " (" << text_field(r, "issuer") << "):\n\n  "
              << url << "\n\nWaiting for the browser to come back to " << redirect << " …\n" << std::flush;
    if (!ctx.json()) ctx.out() << url << '\n' << std::flush;
    auto query = wait_for_redirect(l, std::chrono::seconds(seconds), name);
    if (query.empty())
        return ctx.fail(core::Error::make(core::code::unavailable, "no answer from the browser within " + std::to_string(seconds) +
                                                                       " s; run `coffer mcp login " + name + "` again"));
    auto done = ctx.call("POST", client::api_path({"resources", kKind, name, "actions", "login_complete"}),
                         json::value(json::object{{"query", query}}));
    if (!done.ok()) return ctx.report(done);
    const auto& d = field(done.body(), "result");
    if (ctx.json()) {
        ctx.print_json(d);
        return exit_code::ok;
    }
    ctx.err() << "logged in to mcp_server:" << name;
    if (auto s = text_field(d, "scope"); !s.empty()) ctx.err() << " (scope: " << s << ")";
    ctx.err() << "; the tokens are kept as credential " << text_field(d, "credential") << '\n';
    return exit_code::ok;
}

}  // namespace

void register_mcp_login_command(Registry& r) {
    r.add({"mcp", "login", "<name> [--timeout SECONDS]",
           "log in to an HTTP server that requires OAuth: prints the URL to open, waits for the browser (default "
           "600 s), keeps the tokens encrypted",
           {{"timeout", "SECONDS", "how long to wait for the browser (default 600)"}}, 1, 1, login});
}

}  // namespace coffer::cli
