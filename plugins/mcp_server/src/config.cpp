#include "config.hpp"

#include <boost/url/parse.hpp>

#include <algorithm>
#include <cctype>

namespace coffer::mcp_server {

namespace {

std::string str(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<std::pair<std::string, std::string>> pairs(const json::object& o, std::string_view key) {
    std::vector<std::pair<std::string, std::string>> out;
    if (auto* v = o.if_contains(key); v && v->is_object())
        for (auto& [k, val] : v->as_object())
            if (val.is_string()) out.emplace_back(std::string(k), std::string(val.as_string()));
    return out;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string escape_pointer(std::string_view token) {
    std::string out;
    for (char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

// Headers the HTTP transport sets itself.
bool reserved_header(std::string_view name) {
    static const char* const reserved[] = {"host",           "content-type", "content-length",      "accept",
                                           "mcp-session-id", "connection",   "mcp-protocol-version", "transfer-encoding",
                                           "last-event-id"};
    auto l = lower(name);
    return std::any_of(std::begin(reserved), std::end(reserved), [&](const char* r) { return l == r; });
}


void check_credref(const std::string& pointer, std::string_view value, sdk::Validation& v) {
    if (!is_credref(value)) return;
    auto ref = credref::ref_of(value);
    if (ref.empty()) v.fail(pointer, "a credential reference needs a name after \"credref:\"");
    else if (auto problem = credref::ref_problem(ref); !problem.empty())
        v.fail(pointer, "\"credref:" + std::string(ref) + "\" is not a valid credential reference: " + problem);
}

}  // namespace

std::string ServerConfig::describe() const {
    // Arguments are left out: users sometimes put tokens there.
    if (transport == TransportKind::http) return "mcp_server:" + name + " " + url;
    return "mcp_server:" + name + " " + command;
}

std::string ServerConfig::first_credential_reference() const {
    for (auto& [k, v] : env)
        if (is_credref(v)) return "env " + k;
    for (auto& [k, v] : headers)
        if (is_credref(v)) return "header " + k;
    return {};
}

ServerConfig parse_config(std::string name, const json::object& config) {
    ServerConfig c;
    c.name = std::move(name);
    c.url = str(config, "url");
    c.transport = c.url.empty() ? TransportKind::stdio : TransportKind::http;
    c.command = str(config, "command");
    if (auto* a = config.if_contains("args"); a && a->is_array())
        for (auto& e : a->as_array())
            if (e.is_string()) c.args.emplace_back(e.as_string());
    c.env = pairs(config, "env");
    c.cwd = str(config, "cwd");
    c.headers = pairs(config, "headers");
    if (auto* o = config.if_contains("oauth"); o && o->is_object()) {
        const auto& oa = o->as_object();
        c.oauth = {str(oa, "client_id"), str(oa, "client_secret"), str(oa, "client_metadata_url"), str(oa, "scope")};
    }
    if (auto* t = config.if_contains("timeout_ms"); t && t->is_int64() && t->as_int64() > 0)
        c.timeout = std::chrono::milliseconds(t->as_int64());
    if (auto* b = config.if_contains("auto_enable_new"); b && b->is_bool()) c.auto_enable_new = b->as_bool();
    return c;
}

void validate_config(const json::object& config, sdk::Validation& v) {
    bool has_command = config.contains("command"), has_url = config.contains("url");
    if (has_command == has_url)
        v.fail("", has_command ? "give either command (a stdio server) or url (an HTTP server), not both"
                               : "give command (a stdio server) or url (an HTTP server)");
    if (has_url) {
        auto text = str(config, "url");
        auto u = boost::urls::parse_absolute_uri(text);
        if (!u) {
            v.fail("/url", "is not a valid URL: " + u.error().message());
        } else {
            auto scheme = lower(u->scheme());
            if (scheme != "http" && scheme != "https") v.fail("/url", "must start with http:// or https://");
            if (u->encoded_host().empty()) v.fail("/url", "needs a host");
            if (u->has_fragment()) v.fail("/url", "must not have a #fragment");
        }
        for (auto& [k, val] : pairs(config, "headers")) {
            std::string p = "/headers/" + escape_pointer(k);
            if (reserved_header(k)) v.fail(p, "is set by Coffer itself; remove it");
            if (val.find_first_of("\r\n") != std::string::npos || val.find('\0') != std::string::npos)
                v.fail(p, "must not contain line breaks or NUL");
            check_credref(p, val, v);
        }
        if (auto* o = config.if_contains("oauth"); o && o->is_object()) {
            const auto& oa = o->as_object();
            if (oa.contains("client_secret") && !oa.contains("client_id"))
                v.fail("/oauth/client_secret", "needs oauth.client_id (the client the secret belongs to)");
            check_credref("/oauth/client_secret", str(oa, "client_secret"), v);
            if (auto m = str(oa, "client_metadata_url"); !m.empty() && !m.starts_with("https://"))
                v.fail("/oauth/client_metadata_url", "must be an https:// URL (a client ID metadata document)");
        }
    }
    if (has_command) {
        auto cmd = str(config, "command");
        if (cmd.find('\0') != std::string::npos) v.fail("/command", "must not contain NUL");
        if (!cmd.empty() && (std::isspace(static_cast<unsigned char>(cmd.front())) ||
                             std::isspace(static_cast<unsigned char>(cmd.back()))))
            v.fail("/command", "must not start or end with white space (put arguments in args)");
        if (auto* a = config.if_contains("args"); a && a->is_array())
            for (std::size_t i = 0; i < a->as_array().size(); ++i) {
                auto& e = a->as_array()[i];
                if (e.is_string() && e.as_string().find('\0') != std::string_view::npos)
                    v.fail("/args/" + std::to_string(i), "must not contain NUL");
            }
        for (auto& [k, val] : pairs(config, "env")) {
            std::string p = "/env/" + escape_pointer(k);
            if (val.find('\0') != std::string::npos) v.fail(p, "must not contain NUL");
            check_credref(p, val, v);
        }
        if (config.contains("cwd")) {
            auto cwd = str(config, "cwd");
            if (!(cwd.front() == '/' || cwd == "~" || cwd.rfind("~/", 0) == 0))
                v.fail("/cwd", "must be an absolute path (or start with ~/)");
            if (cwd.find('\0') != std::string::npos) v.fail("/cwd", "must not contain NUL");
        }
    }
}

}  // namespace coffer::mcp_server
