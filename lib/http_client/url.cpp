// URLs for requests (see url.hpp).
#include "http_client/url.hpp"

#include <boost/url/parse.hpp>

namespace coffer::http_client {

Url parse_url(std::string_view text) {
    auto r = boost::urls::parse_uri(text);
    if (!r) throw Error("not a URL");
    auto u = *r;
    Url out;
    out.scheme = std::string(u.scheme());
    for (auto& c : out.scheme) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (out.scheme == "https") out.tls = true;
    else if (out.scheme != "http") throw Error("the scheme must be http or https");
    if (u.has_userinfo()) throw Error("credentials in the URL are not supported");
    out.host = u.host_address();
    if (out.host.empty()) throw Error("the URL has no host");
    out.port = u.has_port() ? std::string(u.port()) : (out.tls ? "443" : "80");
    out.host_header = std::string(u.encoded_host_and_port());
    out.path = std::string(u.encoded_path());
    if (out.path.empty()) out.path = "/";
    if (u.has_query()) out.query = std::string(u.encoded_query());
    return out;
}

Url resolve(const Url& base, std::string_view relative) {
    if (relative.starts_with("http://") || relative.starts_with("https://") || relative.starts_with("HTTP"))
        return parse_url(relative);
    if (!relative.starts_with("/")) throw Error("a relative location must start with '/'");
    return parse_url(base.origin() + std::string(relative));
}

}  // namespace coffer::http_client
