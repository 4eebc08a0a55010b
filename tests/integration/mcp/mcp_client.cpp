#include "mcp_client.hpp"

#include <stdexcept>

#include <thread>

namespace coffer::test {

namespace json = boost::json;

std::map<std::string, std::string> McpClient::headers() const {
    std::map<std::string, std::string> h{{"X-Coffer-Token", d_.token()}};
    if (!session_.empty()) h["Mcp-Session-Id"] = session_;
    if (!version_.empty()) h["MCP-Protocol-Version"] = version_;
    return h;
}

McpReply McpClient::post(const std::string& body, const std::map<std::string, std::string>& extra, bool accept_sse,
                         const std::string& expect_id) {
    auto h = headers();
    h["Accept"] = accept_sse ? "application/json, text/event-stream" : "application/json";
    for (auto& [k, v] : extra) h[k] = v;
    HttpStream s(d_.port(), "POST", "/mcp", body, h);
    McpReply r;
    if (!s.read_head()) return r;
    r.status = s.status();
    for (auto* k : {"mcp-session-id", "content-type", "x-coffer-trace", "retry-after"}) r.headers[k] = s.header(k);
    if (!s.is_event_stream()) {
        r.body = s.body();
        r.json = parse(r.body);
        return r;
    }
    r.streamed = true;
    while (auto ev = s.next_event(std::chrono::seconds(20))) {
        if (ev->data.empty()) continue;  // a 2025-11-25 priming event (an id, no message)
        auto v = parse(ev->data);
        auto* o = v.if_object();
        bool answer = o && o->contains("id") && !o->contains("method") &&
                      (expect_id.empty() || json::serialize(o->at("id")) == expect_id);
        if (answer) {
            r.body = ev->data;
            r.json = v;
            return r;
        }
        r.before.push_back(v);
    }
    return r;
}

McpReply McpClient::initialize(const std::string& version, json::object meta, json::object capabilities) {
    json::object params{{"protocolVersion", version},
                        {"capabilities", capabilities},
                        {"clientInfo", json::object{{"name", "coffer-test"}, {"version", "1.0"}}}};
    if (!meta.empty()) params["_meta"] = meta;
    int id = next_id_++;
    auto body = json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"method", "initialize"}, {"params", params}});
    session_.clear();
    version_.clear();
    auto r = post(body);
    session_ = r.headers["mcp-session-id"];
    if (auto* res = r.json.is_object() ? r.json.as_object().if_contains("result") : nullptr)
        version_ = std::string(res->at("protocolVersion").as_string());
    notify("notifications/initialized");
    return r;
}

McpReply McpClient::request(const std::string& method, json::object params, bool accept_sse) {
    int id = next_id_++;
    json::object msg{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.empty()) msg["params"] = std::move(params);
    return post(json::serialize(msg), {}, accept_sse, std::to_string(id));
}

McpReply McpClient::notify(const std::string& method, json::object params) {
    json::object msg{{"jsonrpc", "2.0"}, {"method", method}};
    if (!params.empty()) msg["params"] = std::move(params);
    return post(json::serialize(msg));
}

json::value McpClient::call_tool(const std::string& name, json::object args) {
    auto r = request("tools/call", json::object{{"name", name}, {"arguments", std::move(args)}});
    return r.json;
}

std::unique_ptr<HttpStream> McpClient::open_stream() {
    auto h = headers();
    h["Accept"] = "text/event-stream";
    auto s = std::make_unique<HttpStream>(d_.port(), "GET", "/mcp", "", h);
    s->read_head();
    return s;
}

int McpClient::end_session() {
    HttpStream s(d_.port(), "DELETE", "/mcp", "", headers());
    if (!s.read_head()) return 0;
    s.body();
    return s.status();
}

std::vector<std::string> names_of(const json::value& reply, const char* member, const char* field) {
    std::vector<std::string> out;
    auto* o = reply.if_object();
    auto* res = o ? o->if_contains("result") : nullptr;
    if (!res || !res->is_object()) return out;
    auto* items = res->as_object().if_contains(member);
    if (!items || !items->is_array()) return out;
    for (auto& it : items->as_array()) out.emplace_back(it.at(field).as_string());
    return out;
}

json::object echo_status(Daemon& d, const std::string& name) {
    auto v = d.call_json("GET", "/api/v1/resources/mcp_echo/" + name);
    auto* st = v.is_object() ? v.as_object().if_contains("resource") : nullptr;
    if (!st) return {};
    auto* p = st->as_object().at("status").as_object().if_contains("plugin");
    return p && p->is_object() ? p->as_object() : json::object{};
}

void add_echo(Daemon& d, const std::string& name, const std::string& config, const std::string& extra) {
    auto body = R"({"kind":"mcp_echo","name":")" + name + R"(","config":)" + config + extra + "}";
    auto r = d.call("POST", "/api/v1/resources", body);
    if (r.status != 201) throw std::runtime_error("cannot create mcp_echo:" + name + ": " + r.body);
}

void add_stdio_server(Daemon& d, const std::string& name, const std::string& command,
                      const std::vector<std::string>& args) {
    boost::json::array a;
    for (auto& s : args) a.emplace_back(s);
    boost::json::object config{{"command", command}, {"args", std::move(a)}};
    auto body = boost::json::serialize(boost::json::object{{"kind", "mcp_server"}, {"name", name}, {"config", config}});
    auto r = d.call("POST", "/api/v1/resources", body);
    if (r.status != 201) throw std::runtime_error("cannot create mcp_server:" + name + ": " + r.body);
}

}  // namespace coffer::test
