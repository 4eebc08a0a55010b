// The web console's pages, login and session check (see endpoint.hpp).
#include "console/endpoint.hpp"

#include "console/assets.hpp"
#include "core/ascii.hpp"
#include "core/random.hpp"

#include <boost/json.hpp>

namespace coffer::console {

namespace json = boost::json;

namespace {

constexpr std::string_view kCookie = "coffer_console_";  // + the daemon's port: cookies ignore ports

// Every console answer: no framing by other sites, no sniffing, no referrer, scripts and styles
// from this origin only (no inline script, no CDN).
void harden(http::Response& r) {
    r.headers.emplace_back("Content-Security-Policy",
                           "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'");
    r.headers.emplace_back("X-Frame-Options", "DENY");
    r.headers.emplace_back("X-Content-Type-Options", "nosniff");
    r.headers.emplace_back("Referrer-Policy", "no-referrer");
}

std::string port_of(const http::Request& req) {
    auto* host = req.header("host");
    if (!host) return "80";
    auto colon = host->rfind(':');
    if (colon == std::string::npos || host->back() == ']') return "80";
    return host->substr(colon + 1);
}

std::string cookie_name(const http::Request& req) { return std::string(kCookie) + port_of(req); }

// The value of cookie `name` in the Cookie header, or "".
std::string cookie(const http::Request& req, const std::string& name) {
    auto* h = req.header("cookie");
    if (!h) return {};
    std::string_view rest = *h;
    while (!rest.empty()) {
        auto semi = rest.find(';');
        auto part = rest.substr(0, semi);
        while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
        if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=')
            return std::string(part.substr(name.size() + 1));
        if (semi == std::string_view::npos) break;
        rest.remove_prefix(semi + 1);
    }
    return {};
}

// A browser request that a page of another origin could have made: an Origin that is not this
// daemon's own, or Sec-Fetch-Site saying cross-site / same-site (another port of 127.0.0.1).
std::optional<std::string> foreign(const http::Request& req) {
    auto* host = req.header("host");
    if (auto* origin = req.header("origin"))
        if (!host || !core::ascii_iequals(*origin, "http://" + *host))
            return "the console accepts requests from its own origin only; Origin '" + *origin + "' is not http://" +
                   (host ? *host : std::string());
    if (auto* site = req.header("sec-fetch-site"); site && *site != "same-origin" && *site != "none")
        return "the console accepts same-origin requests only (Sec-Fetch-Site: " + *site + ")";
    return std::nullopt;
}

bool changes_state(const std::string& method) { return method != "GET" && method != "HEAD" && method != "OPTIONS"; }

http::Response page(int status, std::string_view type, std::string body) {
    http::Response r;
    r.status = status;
    r.content_type = std::string(type);
    r.body = std::move(body);  // the server marks every answer Cache-Control: no-store
    harden(r);
    return r;
}

http::Response redirect(std::string location) {
    auto r = page(303, "text/plain; charset=utf-8", "see " + location + "\n");
    r.headers.emplace_back("Location", std::move(location));
    return r;
}

http::Response json_page(int status, const json::object& o) {
    return page(status, "application/json", json::serialize(o));
}

const Asset* find_asset(std::string_view name) {
    for (std::size_t i = 0; i < kAssetCount; ++i)
        if (kAssets[i].name == name) return &kAssets[i];
    return nullptr;
}

std::vector<std::string> mount_paths() {
    std::vector<std::string> p{"/", "/console", "/console/", "/console/login", "/console/session", "/console/logout"};
    for (std::size_t i = 0; i < kAssetCount; ++i) p.push_back("/console/" + std::string(kAssets[i].name));
    return p;
}

}  // namespace

api::Mount console_mount(Sessions& sessions) {
    auto handler = [&sessions](http::Request&& req, http::Respond respond) {
        const auto& path = req.path;
        if (path == "/" || path == "/console") return respond(redirect("/console/"));
        if (path == "/console/login") {
            if (req.method != "GET") return respond(page(405, "text/plain; charset=utf-8", "GET only\n"));
            auto it = req.query.find("code");
            auto opened = it == req.query.end() ? std::nullopt : sessions.redeem(it->second);
            if (!opened)
                return respond(page(401, "text/html; charset=utf-8",
                                    "<!doctype html><title>Coffer</title><p>This login link was already used or has "
                                    "expired. Run <code>coffer open</code> for a new one.</p>\n"));
            auto r = redirect("/console/");
            r.headers.emplace_back("Set-Cookie", cookie_name(req) + "=" + opened->id +
                                                     "; Path=/; HttpOnly; SameSite=Strict");
            return respond(std::move(r));
        }
        if (path == "/console/session" || path == "/console/logout") {
            if (auto why = foreign(req)) return respond(json_page(403, {{"error", *why}}));
            auto id = cookie(req, cookie_name(req));
            auto csrf = id.empty() ? std::nullopt : sessions.csrf_of(id);
            if (!csrf) return respond(json_page(401, {{"error", "not logged in: run `coffer open`"}}));
            if (path == "/console/session") {
                if (req.method != "GET") return respond(json_page(405, {{"error", "GET only"}}));
                return respond(json_page(200, {{"csrf", *csrf}}));
            }
            if (req.method != "POST") return respond(json_page(405, {{"error", "POST only"}}));
            auto* sent = req.header("x-coffer-csrf");
            if (!sent || !core::constant_time_equal(*sent, *csrf))
                return respond(json_page(403, {{"error", "missing or wrong X-Coffer-CSRF"}}));
            sessions.end(id);
            auto r = json_page(200, {{"logged_out", true}});
            r.headers.emplace_back("Set-Cookie", cookie_name(req) + "=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict");
            return respond(std::move(r));
        }
        if (req.method != "GET" && req.method != "HEAD") return respond(page(405, "text/plain; charset=utf-8", "GET only\n"));
        auto* a = find_asset(path == "/console/" ? std::string_view("index.html") : std::string_view(path).substr(9));
        if (!a) return respond(page(404, "text/plain; charset=utf-8", "no such page\n"));
        respond(page(200, a->content_type, std::string(a->data)));
    };
    return api::Mount{mount_paths(), std::move(handler), {}, true};
}

api::SessionChecker session_checker(Sessions& sessions) {
    return [&sessions](const http::Request& req) {
        using O = api::SessionCheck::Outcome;
        auto id = cookie(req, cookie_name(req));
        if (id.empty()) return api::SessionCheck{};
        auto csrf = sessions.csrf_of(id);
        if (!csrf) return api::SessionCheck{};  // expired or from an earlier daemon: 401, log in again
        if (auto why = foreign(req)) return api::SessionCheck{O::refused, *why};
        if (changes_state(req.method)) {
            auto* sent = req.header("x-coffer-csrf");
            if (!sent || !core::constant_time_equal(*sent, *csrf))
                return api::SessionCheck{O::refused, "a change through the console needs the X-Coffer-CSRF header of its session"};
        }
        return api::SessionCheck{O::valid, {}};
    };
}

void add_console_routes(api::Api& api, Sessions& sessions) {
    api.add_route("POST", "/api/v1/console/codes", [&sessions](const http::Request&, const api::Params&) -> core::Result<api::Reply> {
        auto code = sessions.issue_code();
        return api::Reply{201,
                          json::object{{"code", code},
                                       {"login_path", "/console/login?code=" + code},
                                       {"expires_in_s", sessions.code_ttl().count()}}};
    });
}

}  // namespace coffer::console
