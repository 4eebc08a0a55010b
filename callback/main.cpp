// coffer-callback --channel NAME [--port N]; the signing secret in COFFER_CALLBACK_SECRET (never
// on the command line). Writes {"type":"listening","port":N} once, then one
// {"type":"event","body":{…}} line per verified event; ends when stdin closes.
#include "server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace asio = boost::asio;
namespace json = boost::json;

int main(int argc, char** argv) {
    coffer::callback::Settings s;
    for (int i = 1; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--channel") s.channel = argv[i + 1];
        else if (a == "--port") s.port = static_cast<std::uint16_t>(std::atoi(argv[i + 1]));
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
    std::uint16_t port = 0;
    try {
        port = coffer::callback::serve(
            io, s, [&](json::object event) { out(json::object{{"type", "event"}, {"body", std::move(event)}}); },
            [](const std::string& m) { std::cerr << "coffer-callback: " << m << std::endl; });
    } catch (const std::exception& e) {
        std::cerr << "coffer-callback: cannot listen on 127.0.0.1:" << s.port << ": " << e.what() << "\n";
        return 1;
    }
    out(json::object{{"type", "listening"}, {"port", port}});
    // The adapter holds our stdin: when it closes (the channel stopped, the daemon died), we end.
    asio::posix::stream_descriptor in(io, ::dup(0));
    char b[256];
    std::function<void(boost::system::error_code, std::size_t)> on_read = [&](boost::system::error_code ec, std::size_t) {
        if (ec) return io.stop();
        in.async_read_some(asio::buffer(b), on_read);
    };
    in.async_read_some(asio::buffer(b), on_read);
    io.run();
    return 0;
}
