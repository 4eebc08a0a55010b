#include "http_client.hpp"
#include "socket.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace coffer::test {

HttpResult http_request(std::uint16_t port, const std::string& method, const std::string& target,
                        const std::string& body, const std::map<std::string, std::string>& headers) {
    HttpResult out;
    int fd = connect_loopback(port, 30);
    if (fd < 0) return out;
    std::string req = method + " " + target + " HTTP/1.1\r\n";
    bool has_host = false;
    for (auto& [k, v] : headers) {
        std::string lk = k;
        std::transform(lk.begin(), lk.end(), lk.begin(), [](unsigned char c) { return std::tolower(c); });
        if (lk == "host") has_host = true;
        req += k + ": " + v + "\r\n";
    }
    if (!has_host) req += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
    req += "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n";
    req += body;
    std::size_t sent = 0;
    while (sent < req.size()) {
        auto n = send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;  // the server may answer early (e.g. 413) and close
        sent += static_cast<std::size_t>(n);
    }
    std::string raw;
    char buf[65536];
    for (;;) {
        auto n = recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        raw.append(buf, static_cast<std::size_t>(n));
    }
    close(fd);
    auto head_end = raw.find("\r\n\r\n");
    if (head_end == std::string::npos) return out;
    auto status_line_end = raw.find("\r\n");
    auto sp = raw.find(' ');
    if (sp == std::string::npos || sp > status_line_end) return out;
    out.status = std::atoi(raw.c_str() + sp + 1);
    std::size_t pos = status_line_end + 2;
    while (pos < head_end) {
        auto eol = raw.find("\r\n", pos);
        auto line = raw.substr(pos, eol - pos);
        auto colon = line.find(':');
        if (colon != std::string::npos) {
            std::string k = line.substr(0, colon);
            std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
            auto v = line.substr(colon + 1);
            while (!v.empty() && v.front() == ' ') v.erase(v.begin());
            out.headers[k] = v;
        }
        pos = eol + 2;
    }
    out.body = raw.substr(head_end + 4);
    return out;
}

}  // namespace coffer::test
