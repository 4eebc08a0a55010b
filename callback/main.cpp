// coffer-callback --channel NAME [--port N] [--spool DIR]; the signing secret in
// COFFER_CALLBACK_SECRET (never on the command line). Writes one {"type":"event","body":{…},
// "spool":NAME} line per event left in the spool, then {"type":"listening","port":N}, then one
// event line per verified event. Reads {"type":"done","spool":NAME} lines on stdin (the host
// keeps that event: its spool file goes); ends when stdin closes.
#include "server.hpp"
#include "spool.hpp"

#include <coffer/json_fields.hpp>
#include <coffer/lines.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <cstdlib>
#include <iostream>
#include <string>

namespace asio = boost::asio;
namespace json = boost::json;

int main(int argc, char** argv) {
    coffer::callback::Settings s;
    std::string spool_dir;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--channel") s.channel = argv[i + 1];
        else if (a == "--port") s.port = static_cast<std::uint16_t>(std::atoi(argv[i + 1]));
        else if (a == "--spool") spool_dir = argv[i + 1];
    }
    const char* secret = std::getenv("COFFER_CALLBACK_SECRET");
    s.secret = secret ? secret : "";
    ::unsetenv("COFFER_CALLBACK_SECRET");
    if (s.channel.empty()) {
        std::cerr << "coffer-callback: configuration error: --channel is required\n";
        return 2;
    }
    if (s.secret.empty()) {
        std::cerr << "coffer-callback: configuration error: the signing secret is empty\n";
        return 2;
    }
    asio::io_context io(1);
    auto out = [](const json::object& line) {
        auto text = json::serialize(line) + "\n";
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    };
    auto event_line = [&](json::object event, const std::string& spooled) {
        json::object line{{"type", "event"}, {"body", std::move(event)}};
        if (!spooled.empty()) line["spool"] = spooled;
        out(line);
    };
    std::optional<coffer::callback::Spool> spool;
    if (!spool_dir.empty()) {
        spool.emplace(spool_dir);
        if (auto why = spool->open(); !why.empty()) {
            std::cerr << "coffer-callback: " << why << "\n";
            return 1;
        }
        s.spool = &*spool;
        for (auto& [name, event] : spool->pending()) event_line(std::move(event), name);  // left by the last run
    }
    std::uint16_t port = 0;
    try {
        port = coffer::callback::serve(io, s, event_line,
                                       [](const std::string& m) { std::cerr << "coffer-callback: " << m << std::endl; });
    } catch (const std::exception& e) {
        std::cerr << "coffer-callback: cannot listen on 127.0.0.1:" << s.port << ": " << e.what() << "\n";
        return 1;
    }
    out(json::object{{"type", "listening"}, {"port", port}});
    // The adapter holds our stdin: it says which events the host keeps, and when it closes (the
    // channel stopped, the daemon died), we end.
    asio::posix::stream_descriptor in(io, ::dup(0));
    char b[4096];
    coffer::LineSplitter lines(64 * 1024);
    std::function<void(boost::system::error_code, std::size_t)> on_read = [&](boost::system::error_code ec, std::size_t n) {
        if (ec) return io.stop();
        lines.feed(
            b, n,
            [&](std::string_view line) {
                boost::system::error_code pe;
                auto v = json::parse(line, pe);
                if (pe || !v.is_object() || coffer::json_fields::string_at(v.as_object(), "type") != "done" || !spool) return;
                spool->done(coffer::json_fields::string_at(v.as_object(), "spool"));
            },
            [](std::size_t) {});
        in.async_read_some(asio::buffer(b), on_read);
    };
    in.async_read_some(asio::buffer(b), on_read);
    io.run();
    return 0;
}
