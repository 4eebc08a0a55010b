// coffer-conformance-auth-client: the client side of the official conformance suite's auth/*
// scenarios, driving Coffer's OAuth client (lib/oauth) the way the mcp_server plugin does, with
// the person replaced by a GET of the authorization URL whose redirect is read instead of
// followed. The suite runs `coffer-conformance-auth-client <server-url>` with
// MCP_CONFORMANCE_SCENARIO and, for some scenarios, MCP_CONFORMANCE_CONTEXT (a pre-registered
// client's id and secret).
//
// It speaks Streamable HTTP: initialize, notifications/initialized, tools/list, tools/call of the
// scenario's `test-tool`. A 401 starts an authorization; a 403 with insufficient_scope starts a
// new one for the scope the challenge names (step-up), at most three times in a row.
#include "oauth/authorizer.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>

namespace json = boost::json;
namespace oauth = coffer::oauth;
namespace hc = coffer::http_client;

namespace {

constexpr auto kTimeout = std::chrono::seconds(10);

struct Session {
    hc::Client http;
    std::string url;
    oauth::Authorizer authorizer;
    std::optional<oauth::RegisteredClient> client;
    std::string bearer;
    std::string granted;  // the scope of the current token
    std::string session_id;
    std::string protocol = "2025-11-25";
    int id = 0;

    Session(std::string u, oauth::ClientSettings s) : url(std::move(u)), authorizer(http, std::move(s), kTimeout) {}

    hc::Reply post(const json::object& msg) {
        hc::Request req;
        req.method = "POST";
        req.url = hc::parse_url(url);
        req.headers = {{"Content-Type", "application/json"},
                       {"Accept", "application/json, text/event-stream"},
                       {"MCP-Protocol-Version", protocol}};
        if (!bearer.empty()) req.headers.emplace_back("Authorization", "Bearer " + bearer);
        if (!session_id.empty()) req.headers.emplace_back("Mcp-Session-Id", session_id);
        req.body = json::serialize(msg);
        return http.fetch(req, kTimeout);
    }

    // One authorization: the challenge of `refused` → the URL → its redirect → tokens.
    void authorize(const hc::Reply& refused) {
        auto challenge = oauth::bearer_challenge_of(refused);
        auto started = authorizer.start(url, challenge, client, granted);
        client = started.grant.client;
        hc::Request go;
        go.url = hc::parse_url(started.authorization_url);
        auto r = http.fetch(go, kTimeout);
        auto location = r.header("Location");
        if (r.status < 300 || r.status > 399 || !location)
            throw oauth::Error("the authorization endpoint answered " + std::to_string(r.status) + " without a redirect");
        auto back = hc::resolve(go.url, *location);
        auto tokens = authorizer.finish(started.grant, back.query);
        bearer = tokens.access_token;
        granted = tokens.scope;
    }

    bool stateless() const { return protocol >= "2026"; }

    bool needs_authorization(const hc::Reply& r) {
        if (r.status == 401) return true;
        if (r.status != 403) return false;
        auto c = oauth::bearer_challenge_of(r);
        return c && c->param("error") == std::optional<std::string>("insufficient_scope");
    }

    hc::Reply send(const std::string& method, json::object params, bool notification = false) {
        if (stateless())  // 2026-07-28: every request carries what initialize used to
            params["_meta"] = json::object{{"io.modelcontextprotocol/protocolVersion", protocol},
                                           {"io.modelcontextprotocol/clientCapabilities", json::object{}}};
        json::object msg{{"jsonrpc", "2.0"}, {"method", method}};
        if (!params.empty()) msg["params"] = std::move(params);
        if (!notification) msg["id"] = ++id;
        auto r = post(msg);
        for (int attempt = 0; needs_authorization(r); ++attempt) {
            if (attempt == 3) throw oauth::Error("still refused after three authorizations; giving up");
            authorize(r);
            r = post(msg);
        }
        if (r.status >= 400) throw oauth::Error(method + " answered HTTP " + std::to_string(r.status));
        if (auto s = r.header("Mcp-Session-Id")) session_id = *s;
        return r;
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: coffer-conformance-auth-client <server-url>\n");
        return 2;
    }
    oauth::ClientSettings settings;
    settings.client_name = "coffer-conformance-auth-client";
    settings.redirect_uri = "http://127.0.0.1:33418/callback";
    settings.client_metadata_url = "https://conformance-test.local/client-metadata.json";
    if (const char* ctx = std::getenv("MCP_CONFORMANCE_CONTEXT"); ctx && *ctx) {
        try {
            auto v = json::parse(ctx);
            if (auto* o = v.if_object()) {
                if (auto* id = o->if_contains("client_id"); id && id->is_string()) settings.client_id = std::string(id->get_string());
                if (auto* s = o->if_contains("client_secret"); s && s->is_string())
                    settings.client_secret = std::string(s->get_string());
            }
        } catch (...) {
        }
    }
    Session s(argv[argc - 1], settings);
    if (const char* v = std::getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"); v && *v) s.protocol = v;
    try {
        if (!s.stateless()) {
            s.send("initialize", {{"protocolVersion", s.protocol},
                                  {"capabilities", json::object{}},
                                  {"clientInfo", json::object{{"name", "coffer-conformance-auth-client"}, {"version", "1"}}}});
            s.send("notifications/initialized", {}, true);
        }
        s.send("tools/list", {});
        s.send("tools/call", {{"name", "test-tool"}, {"arguments", json::object{}}});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "coffer-conformance-auth-client: %s\n", e.what());
        return 1;
    }
    return 0;
}
