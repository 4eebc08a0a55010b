// An http:// or https:// URL taken apart for a request: where to connect (host, port, TLS), what
// to send as Host, and the request target (path and query).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace coffer::http_client {

// What went wrong with a URL or an exchange; the message never repeats a header or a body (they
// may hold secrets), and names a URL only where the caller allowed it.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Url {
    bool tls = false;
    std::string scheme;       // "http" or "https"
    std::string host;         // for DNS, SNI and certificate checks (no brackets)
    std::string port;         // always set ("80"/"443" when the URL has none)
    std::string host_header;  // host[:port] as written in the URL
    std::string path;         // the encoded path ("/" when empty)
    std::string query;        // the encoded query, without '?' ("" when none)

    std::string target() const { return query.empty() ? path : path + "?" + query; }
    // scheme://host[:port], as written.
    std::string origin() const { return scheme + "://" + host_header; }
    std::string text() const { return origin() + target(); }
};

// Throws Error naming what is wrong (not the URL: it may carry a token). No user:password part.
Url parse_url(std::string_view text);

// `relative` (an absolute URL, or a path starting with '/') resolved against `base`.
Url resolve(const Url& base, std::string_view relative);

}  // namespace coffer::http_client
