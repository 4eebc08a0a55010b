// coffer-daemon's command line and environment (see options.hpp); flags override variables.
#include "daemon/options.hpp"

#include "http_client/url.hpp"
#include "vault/home.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <stdexcept>
#include <string>

namespace coffer::daemon {

namespace {
core::Result<std::uint16_t> parse_port(const std::string& s) {
    try {
        std::size_t used = 0;
        long v = std::stol(s, &used);
        if (used == s.size() && v >= 0 && v <= 65535) return static_cast<std::uint16_t>(v);
    } catch (...) {
    }
    return core::Error::make(core::code::bad_request, "invalid port '" + s + "' (expected 0-65535)");
}
core::Result<int> parse_count(const std::string& what, const std::string& s, long min, long max) {
    try {
        std::size_t used = 0;
        long v = std::stol(s, &used);
        if (used == s.size() && v >= min && v <= max) return static_cast<int>(v);
    } catch (...) {
    }
    return core::Error::make(core::code::bad_request, "invalid " + what + " '" + s + "' (expected " +
                                                          std::to_string(min) + "-" + std::to_string(max) + ")");
}
// The HTTP server's limits: each a flag and a variable, in milliseconds or a count.
struct HttpOption {
    const char* flag;
    const char* env;
    const char* what;
    long min, max;
    std::function<void(http::Limits&, int)> set;
};

const std::vector<HttpOption>& http_options() {
    using ms = std::chrono::milliseconds;
    constexpr long kDay = 24L * 3600 * 1000;
    static const std::vector<HttpOption> all{
        {"--http-header-timeout-ms", "COFFER_HTTP_HEADER_TIMEOUT_MS", "HTTP header timeout (ms)", 100, kDay,
         [](http::Limits& l, int v) { l.header_timeout = ms(v); }},
        {"--http-body-timeout-ms", "COFFER_HTTP_BODY_TIMEOUT_MS", "HTTP body timeout (ms)", 100, kDay,
         [](http::Limits& l, int v) { l.body_timeout = ms(v); }},
        {"--http-idle-timeout-ms", "COFFER_HTTP_IDLE_TIMEOUT_MS", "HTTP keep-alive idle timeout (ms)", 100, kDay,
         [](http::Limits& l, int v) { l.idle_timeout = ms(v); }},
        {"--http-max-connections", "COFFER_HTTP_MAX_CONNECTIONS", "HTTP connection cap", 1, 1000000,
         [](http::Limits& l, int v) { l.max_connections = static_cast<std::size_t>(v); }},
    };
    return all;
}

// "R/B": R new sessions per second (> 0), a burst of B (>= 1).
core::Result<SessionRate> parse_rate(const std::string& s) {
    auto bad = core::Error::make(core::code::bad_request,
                                 "invalid MCP session rate '" + s + "' (expected R/B, e.g. 20/100: R per second, burst B)");
    auto slash = s.find('/');
    if (slash == std::string::npos) return bad;
    try {
        std::size_t used = 0;
        SessionRate r;
        auto rate = s.substr(0, slash), burst = s.substr(slash + 1);
        r.per_second = std::stod(rate, &used);
        if (used != rate.size() || !(r.per_second > 0) || r.per_second > 1e6) return bad;
        long b = std::stol(burst, &used);
        if (used != burst.size() || b < 1 || b > 1000000) return bad;
        r.burst = static_cast<double>(b);
        return r;
    } catch (...) {
        return bad;
    }
}

// The MCP settings that have both a flag (--mcp-<key>) and an environment variable (kMcpSettings).
core::Result<void> set_mcp(Options& o, const std::string& key, const std::string& v) {
    auto count = [&v](const char* what, long min, long max, auto& into) -> core::Result<void> {
        auto n = parse_count(what, v, min, max);
        if (!n) return n.error();
        into = *n;
        return {};
    };
    if (key == "idle-timeout") return count("MCP idle timeout", 1, 7 * 24 * 3600, o.mcp_idle_timeout_s);
    if (key == "max-sessions") return count("MCP session limit", 1, 1000000, o.mcp_max_sessions);
    if (key == "session-grace") return count("MCP session grace", 1, 3600, o.mcp_session_grace_s);
    if (key == "list-timeout") return count("MCP list timeout", 100, 600000, o.mcp_list_timeout_ms);
    // What is left is session-rate (keys come from kMcpSettings only).
    if (v == "off" || v == "0") {  // unlimited
        o.mcp_session_rate = o.mcp_connection_rate = SessionRate{};
        return {};
    }
    auto comma = v.find(',');
    auto all = parse_rate(v.substr(0, comma));
    if (!all) return all.error();
    o.mcp_session_rate = *all;
    if (comma != std::string::npos) {
        auto one = parse_rate(v.substr(comma + 1));
        if (!one) return one.error();
        o.mcp_connection_rate = *one;
    }
    return {};
}

struct McpSetting {
    const char* key;
    const char* env;
};
constexpr McpSetting kMcpSettings[] = {{"idle-timeout", "COFFER_MCP_IDLE_TIMEOUT"},
                                       {"max-sessions", "COFFER_MCP_MAX_SESSIONS"},
                                       {"session-grace", "COFFER_MCP_SESSION_GRACE"},
                                       {"session-rate", "COFFER_MCP_SESSION_RATE"},
                                       {"list-timeout", "COFFER_MCP_LIST_TIMEOUT_MS"}};

// $COFFER_TOOLSEARCH_*: hybrid tool search. The URL and the model go together; the key, when the
// endpoint needs one, is a reference to a stored credential, never the secret itself.
core::Result<void> toolsearch_settings(Options& o) {
    auto get = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? std::string(v) : std::string();
    };
    auto bad = [](const std::string& what) { return core::Error::make(core::code::bad_request, what); };
    o.toolsearch_embeddings_url = get("COFFER_TOOLSEARCH_EMBEDDINGS_URL");
    o.toolsearch_embeddings_model = get("COFFER_TOOLSEARCH_EMBEDDINGS_MODEL");
    o.toolsearch_embeddings_key = get("COFFER_TOOLSEARCH_EMBEDDINGS_KEY");
    auto& url = o.toolsearch_embeddings_url;
    if (url.empty() != o.toolsearch_embeddings_model.empty())
        return bad("COFFER_TOOLSEARCH_EMBEDDINGS_URL and COFFER_TOOLSEARCH_EMBEDDINGS_MODEL go together");
    if (!url.empty()) {
        // The project's URL parser (the one the embeddings client uses); its message never
        // repeats the URL, which might hold a secret.
        try {
            (void)http_client::parse_url(url);
        } catch (const http_client::Error& e) {
            return bad(std::string("COFFER_TOOLSEARCH_EMBEDDINGS_URL must be an http:// or https:// URL with a host, such "
                                   "as http://127.0.0.1:11434/v1, and must not carry credentials (store the key and "
                                   "name it in COFFER_TOOLSEARCH_EMBEDDINGS_KEY): ") +
                       e.what());
        }
    }
    if (!o.toolsearch_embeddings_key.empty() && o.toolsearch_embeddings_key.rfind("credref:", 0) != 0)
        return bad("COFFER_TOOLSEARCH_EMBEDDINGS_KEY must name a stored credential (credref:NAME), not hold the key");
    if (auto w = get("COFFER_TOOLSEARCH_VECTOR_WEIGHT"); !w.empty()) {
        try {
            std::size_t used = 0;
            float v = std::stof(w, &used);
            if (used != w.size() || !(v >= 0.0f && v <= 1.0f)) throw std::invalid_argument(w);
            o.toolsearch_vector_weight = v;
        } catch (...) {
            return bad("COFFER_TOOLSEARCH_VECTOR_WEIGHT must be a number from 0 to 1");
        }
    }
    return {};
}

}  // namespace

const char* usage() {
    return "usage: coffer-daemon [--home DIR] [--port N] [--plugin-dir DIR]... [--log-stderr]\n"
           "  Runs the Coffer daemon in the foreground for one vault.\n"
           "  --home DIR        vault directory (default $COFFER_HOME, else ~/.coffer)\n"
           "  --port N          loopback port (default $COFFER_PORT, else 38470 or the next free up to 38479;\n"
           "                    0 = any free port)\n"
           "  --plugin-dir DIR  also load plugins from DIR (also $COFFER_PLUGIN_PATH, colon-separated)\n"
           "  --log-stderr      echo log lines to stderr\n"
           "  --mcp-idle-timeout S  end MCP sessions idle for S seconds (default $COFFER_MCP_IDLE_TIMEOUT, else 1800)\n"
           "  --http-header-timeout-ms MS  close a connection whose request head is incomplete after MS\n"
           "                               (default $COFFER_HTTP_HEADER_TIMEOUT_MS, else 10000)\n"
           "  --http-body-timeout-ms MS    close a connection whose request body is incomplete MS after its head\n"
           "                               (default $COFFER_HTTP_BODY_TIMEOUT_MS, else 30000)\n"
           "  --http-idle-timeout-ms MS    close a keep-alive connection idle for MS between requests\n"
           "                               (default $COFFER_HTTP_IDLE_TIMEOUT_MS, else 60000)\n"
           "  --http-max-connections N     at most N open connections; at the cap the one idle longest is closed\n"
           "                               (default $COFFER_HTTP_MAX_CONNECTIONS, else 512)\n"
           "  --mcp-max-sessions N  at most N MCP sessions; at the limit the least recently used idle one gives\n"
           "                    way (default $COFFER_MCP_MAX_SESSIONS, else 1000)\n"
           "  --mcp-session-grace S end a session when nothing follows its initialize within S seconds\n"
           "                    (default $COFFER_MCP_SESSION_GRACE, else 15)\n"
           "  --mcp-session-rate R/B[,R/B]  new MCP sessions per second and burst over HTTP (the local socket\n"
           "                    has its own bucket of the same size), then per HTTP connection; off = no limit\n"
           "                    (default $COFFER_MCP_SESSION_RATE, else 20/100,5/20)\n"
           "  --mcp-list-timeout MS  leave a server that has not listed within MS out of that list\n"
           "                    (default $COFFER_MCP_LIST_TIMEOUT_MS, else 5000)\n";
}

core::Result<Options> parse_options(int argc, char** argv) {
    Options o;
    o.log_stderr = ::isatty(2) != 0;
    if (const char* p = std::getenv("COFFER_PORT"); p && *p) {
        auto port = parse_port(p);
        if (!port) return port.error();
        o.port = *port;
    }
    if (const char* pp = std::getenv("COFFER_PLUGIN_PATH"); pp && *pp) {
        std::string s = pp;
        std::size_t i = 0;
        while (i <= s.size()) {
            auto j = s.find(':', i);
            if (j == std::string::npos) j = s.size();
            if (j > i) o.plugin_dirs.emplace_back(s.substr(i, j - i));
            i = j + 1;
        }
    }
    if (const char* t = std::getenv("COFFER_MCP_PAGE_SIZE"); t && *t) {
        auto v = parse_count("MCP page size", t, 1, 100000);
        if (!v) return v.error();
        o.mcp_page_size = *v;
    }
    if (const char* t = std::getenv("COFFER_OTLP_ENDPOINT"); t && *t) o.otlp_endpoint = t;
    if (auto r = toolsearch_settings(o); !r) return r.error();
    if (const char* t = std::getenv("COFFER_CHAT_HEARTBEAT_MS"); t && *t) {
        auto v = parse_count("chat heartbeat", t, 50, 3600000);
        if (!v) return v.error();
        o.chat_heartbeat_ms = *v;
    }
    for (auto& h : http_options()) {
        if (const char* t = std::getenv(h.env); t && *t) {
            auto v = parse_count(h.what, t, h.min, h.max);
            if (!v) return v.error();
            h.set(o.http, *v);
        }
    }
    for (auto& m : kMcpSettings)
        if (const char* v = std::getenv(m.env); v && *v)
            if (auto r = set_mcp(o, m.key, v); !r) return r.error();
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        const HttpOption* http_flag = nullptr;
        for (auto& h : http_options())
            if (a == h.flag) http_flag = &h;
        auto value = [&](const char* name) -> core::Result<std::string> {
            if (i + 1 >= argc) return core::Error::make(core::code::bad_request, std::string(name) + " needs a value");
            return std::string(argv[++i]);
        };
        if (a == "--home") {
            auto v = value("--home");
            if (!v) return v.error();
            o.home = *v;
        } else if (a == "--port") {
            auto v = value("--port");
            if (!v) return v.error();
            auto port = parse_port(*v);
            if (!port) return port.error();
            o.port = *port;
        } else if (a == "--plugin-dir") {
            auto v = value("--plugin-dir");
            if (!v) return v.error();
            o.plugin_dirs.emplace_back(*v);
        } else if (a.rfind("--mcp-", 0) == 0 &&
                   std::any_of(std::begin(kMcpSettings), std::end(kMcpSettings),
                               [&](const McpSetting& m) { return a.substr(6) == m.key; })) {
            auto v = value(a.c_str());
            if (!v) return v.error();
            if (auto r = set_mcp(o, a.substr(6), *v); !r) return r.error();
        } else if (http_flag) {
            auto v = value(http_flag->flag);
            if (!v) return v.error();
            auto n = parse_count(http_flag->what, *v, http_flag->min, http_flag->max);
            if (!n) return n.error();
            http_flag->set(o.http, *n);
        } else if (a == "--log-stderr") {
            o.log_stderr = true;
        } else if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (a == "--version") {
            o.version = true;
        } else {
            return core::Error::make(core::code::bad_request, "unknown argument '" + a + "'");
        }
    }
    auto home = vault::resolve_home(o.home);  // --home, else $COFFER_HOME, else ~/.coffer
    if (!home) return home.error();
    o.home = std::move(home).value();
    return o;
}

}  // namespace coffer::daemon
