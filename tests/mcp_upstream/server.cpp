#include "server.hpp"

#include "modern.hpp"

#include <boost/asio/steady_timer.hpp>

#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

extern char** environ;


namespace coffer::test_upstream {

namespace {

// Returned verbatim by the `raw` tool: a client that re-serializes it would change the numbers,
// the escapes or the key order.
constexpr const char* kRawResult =
    R"({"content":[{"type":"text","text":"raw \u00e9 result"}],"structuredContent":{"z":1.50,"a":[1e2,-0.0,12345678901234567890123,1E-7],"nested":{"b":true,"a":null}},"isError":false})";

json::object schema(std::initializer_list<std::pair<const char*, const char*>> props) {
    json::object p;
    for (auto& [name, type] : props) p[name] = json::object{{"type", type}};
    return json::object{{"type", "object"}, {"properties", p}};
}

std::int64_t int_arg(const json::object& args, const char* key, std::int64_t dflt) {
    auto* v = args.if_contains(key);
    return v && v->is_int64() ? v->as_int64() : dflt;
}
const char* const kVersions[] = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};

}  // namespace

json::object text_result(const std::string& text, bool is_error) {
    json::object r{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}};
    if (is_error) r["isError"] = true;
    return r;
}

std::string str_arg(const json::object& args, const char* key) {
    auto* v = args.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// 2026-07-28, then (with --dual-era) the legacy versions up to --max-version, newest first.
json::array Server::supported_versions() const {
    json::array v{kModernVersion};
    if (opts_.dual_era)
        for (auto it = std::rbegin(kVersions); it != std::rend(kVersions); ++it)
            if (std::string(*it) <= opts_.max_version) v.push_back(json::string(*it));
    return v;
}

json::array Server::tool_list(bool modern) const {
    json::array t;
    auto add = [&](const char* name, const char* description, json::object input) {
        t.push_back(json::object{{"name", name}, {"description", description}, {"inputSchema", std::move(input)}});
    };
    add("echo", "Echoes the text back", schema({{"text", "string"}}));
    add("search", "Searches the test corpus for a query", schema({{"query", "string"}}));
    add("raw", "Returns a canned result whose bytes must survive unchanged", schema({}));
    add("slow", "Answers after ms milliseconds", schema({{"ms", "integer"}}));
    add("progress", "Sends steps progress notifications, then answers", schema({{"steps", "integer"}, {"interval_ms", "integer"}}));
    add("log", "Sends a notifications/message, then answers", schema({{"message", "string"}}));
    add("crash", "Exits the process at once without answering", schema({{"signal", "integer"}}));
    add("toggle", "Adds or removes the tool `extra` and sends tools/list_changed", schema({}));
    add("sample", "Asks the client for sampling/createMessage and returns its answer", schema({{"prompt", "string"}}));
    add("pid", "Returns the server's process id", schema({}));
    add("grandchild", "Starts `sleep 300` in the server's process group and returns its pid", schema({}));
    add("big", "Returns a text of `bytes` bytes", schema({{"bytes", "integer"}}));
    add("fail", "Returns a tool error (isError)", schema({}));
    add("stats", "Returns what the server saw: initialized, protocol version, cancelled requests, notifications, roots", schema({}));
    if (modern) {  // listed to modern requests only (legacy lists other tests compare stay as they were)
        auto with_header = [](const char* type, const char* header) {
            return json::object{{"type", type}, {"x-mcp-header", header}};
        };
        add("regional", "Returns region=<region> and, over HTTP, the Mcp-Param-Region header it got",
            json::object{{"type", "object"},
                         {"properties", json::object{{"region", with_header("string", "Region")},
                                                     {"text", json::object{{"type", "string"}}}}},
                         {"required", json::array{"region"}}});
        add("bad_header", "Invalid: x-mcp-header on a number parameter (a client must drop this tool)",
            json::object{{"type", "object"}, {"properties", json::object{{"amount", with_header("number", "Amount")}}}});
        add("touch", "Sends notifications/resources/updated for uri to the subscriptions/listen streams that asked",
            schema({{"uri", "string"}}));
    }
    // Listed with --calls-log only: exit without answering on the first call, answer on the next (after a
    // restart). Their annotations decide whether a gateway may retry them.
    auto crash_once = [&](const char* name, json::object annotations) {
        add(name, "Exits on its first call (with --calls-log), answers afterwards", schema({}));
        t.back().as_object()["annotations"] = std::move(annotations);
    };
    if (!opts_.calls_log.empty()) {
        crash_once("crash_once_readonly", json::object{{"readOnlyHint", true}});
        crash_once("crash_once_idempotent", json::object{{"readOnlyHint", false}, {"idempotentHint", true}, {"destructiveHint", false}});
        crash_once("crash_once_destructive", json::object{{"readOnlyHint", false}, {"destructiveHint", true}});
        crash_once("crash_once_plain", json::object{});
    }
    if (extra_) add("extra", "Exists only after toggle", schema({}));
    auto lines = tools_file_lines();
    auto hidden = [&](const json::value& v) {
        for (auto& l : lines)
            if (l[0] == '-' && v.at("name").as_string() == l.substr(1)) return true;
        return false;
    };
    json::array kept;
    for (auto& v : t)
        if (!hidden(v)) kept.push_back(v);
    t = std::move(kept);
    for (auto& l : lines)
        if (l[0] != '-') t.push_back(json::object{{"name", l}, {"description", "Listed in the tools file"}, {"inputSchema", schema({})}});
    return t;
}

std::vector<std::string> Server::tools_file_lines() const {
    std::vector<std::string> out;
    if (opts_.tools_file.empty()) return out;
    std::ifstream in(opts_.tools_file);
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (!line.empty() && line != "-") out.push_back(line);
    }
    return out;
}

// A modern request's result also gets the fields its context adds (resultType and, where
// cacheable, ttlMs/cacheScope) unless it has them.
void Server::reply(const std::shared_ptr<Peer>& out, const json::value& id, const json::value& result) {
    json::value r = result;
    if (auto* m = out->modern(); m && r.is_object())
        for (auto& [k, v] : m->result_fields)
            if (!r.as_object().contains(k)) r.as_object()[k] = v;
    out->send(json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"result", r}}), true);
}

// The modern fields go in front, so the canned bytes still follow unchanged.
void Server::reply_raw(const std::shared_ptr<Peer>& out, const json::value& id, const std::string& raw_result) {
    std::string result = raw_result;
    if (auto* m = out->modern(); m && !m->result_fields.empty()) {
        auto fields = json::serialize(m->result_fields);
        result = fields.substr(0, fields.size() - 1) + "," + raw_result.substr(1);
    }
    out->send(R"({"jsonrpc":"2.0","id":)" + json::serialize(id) + R"(,"result":)" + result + "}", true);
}

void Server::error(const std::shared_ptr<Peer>& out, const json::value& id, int code, const std::string& message) {
    out->send(json::serialize(json::object{
                  {"jsonrpc", "2.0"}, {"id", id}, {"error", json::object{{"code", code}, {"message", message}}}}),
              true);
}

void Server::error(const std::shared_ptr<Peer>& out, const json::value& id, int code, const std::string& message,
                   json::value data) {
    out->send(json::serialize(json::object{{"jsonrpc", "2.0"},
                                           {"id", id},
                                           {"error", json::object{{"code", code}, {"message", message}, {"data", std::move(data)}}}}),
              true);
}

void Server::notify(const std::shared_ptr<Peer>& out, const std::string& method, const json::value& params) {
    if (!out) return;
    out->send(json::serialize(json::object{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}), false);
}

void Server::handle(std::string_view text, const std::shared_ptr<Peer>& out, Era era, const json::object* http_headers) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec || !v.is_object()) {
        error(out, nullptr, -32700, "parse error");
        return;
    }
    auto& o = v.as_object();
    auto* method = o.if_contains("method");
    auto* id = o.if_contains("id");
    json::object params;
    if (auto* p = o.if_contains("params"); p && p->is_object()) params = p->as_object();
    if (!method) {  // a response to one of our requests
        if (!id) return;
        auto key = json::serialize(*id);
        auto it = waiting_.find(key);
        if (it == waiting_.end()) return;
        auto k = std::move(it->second);
        waiting_.erase(it);
        k(o);
        return;
    }
    if (!method->is_string()) return;
    std::string m(method->as_string());
    if (!id) {
        notifications_.push_back(json::value(m));
        if (m == "notifications/initialized") initialized_ = true;
        else if (m == "notifications/cancelled") {
            if (auto* r = params.if_contains("requestId")) {
                cancelled_.insert(json::serialize(*r));
                if (!http_headers) end_listen(*r);  // stdio ends a subscriptions/listen so (HTTP: by closing it)
            }
        } else if (m == "notifications/roots/list_changed" && client_roots_) {
            ask_roots(broadcast_ ? broadcast_ : out);
        }
        return;
    }
    if (modern_era(era, m, params)) return modern_request(*id, m, params, out, http_headers);
    request(*id, m, params, out);
}

void Server::ask_roots(const std::shared_ptr<Peer>& out) {
    if (!out) return;
    std::string key = "\"srv-" + std::to_string(next_request_++) + "\"";
    waiting_[key] = [this](const json::object& response) {
        if (auto* r = response.if_contains("result")) roots_ = *r;
        else if (auto* e = response.if_contains("error")) roots_ = json::object{{"error", *e}};
    };
    out->send(R"({"jsonrpc":"2.0","id":)" + key + R"(,"method":"roots/list"})", false);
}

void Server::request(const json::value& id, const std::string& method, const json::object& params,
                     const std::shared_ptr<Peer>& out) {
    if (method == "initialize") {
        if (auto* caps = params.if_contains("capabilities"); caps && caps->is_object())
            client_roots_ = caps->as_object().contains("roots");
        auto answer = [this, id, params, out] {
            if (opts_.fail_initialize) return error(out, id, -32603, "initialize refused (--fail-initialize)");
            std::string asked = str_arg(params, "protocolVersion");
            bool known = false;
            for (auto v : kVersions) known = known || asked == v;
            std::string chosen = asked;
            if (!known || asked > opts_.max_version) {
                if (opts_.strict_version)
                    return error(out, id, -32602, "Unsupported protocol version: " + asked + " (max " + opts_.max_version + ")");
                chosen = opts_.max_version;
            }
            version_ = chosen;
            ++seen_->legacy_initializes;
            json::object result{{"protocolVersion", chosen},
                                {"capabilities", json::object{{"tools", json::object{{"listChanged", true}}},
                                                              {"resources", json::object{{"listChanged", false}}},
                                                              {"prompts", json::object{{"listChanged", false}}},
                                                              {"logging", json::object{}}}},
                                {"serverInfo", json::object{{"name", "coffer-test-upstream"}, {"version", "1.0.0"}}}};
            if (!opts_.instructions.empty()) result["instructions"] = opts_.instructions;
            reply(out, id, std::move(result));
        };
        if (opts_.init_delay_ms <= 0) return answer();
        auto t = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(opts_.init_delay_ms));
        t->async_wait([t, answer](boost::system::error_code) { answer(); });
        return;
    }
    if (method == "ping" || method == "logging/setLevel") return reply(out, id, json::object{});
    if (method == "tools/list") {
        auto all = tool_list(out->modern() != nullptr);
        // Two pages, so clients must follow nextCursor.
        std::size_t half = all.size() / 2;
        bool second = params.contains("cursor");
        json::array page;
        for (std::size_t i = second ? half : 0; i < (second ? all.size() : half); ++i) page.push_back(all[i]);
        json::object r{{"tools", page}};
        if (!second) r["nextCursor"] = "page-2";
        return reply(out, id, r);
    }
    if (method == "tools/call") {
        json::object args;
        if (auto* a = params.if_contains("arguments"); a && a->is_object()) args = a->as_object();
        return call_tool(id, str_arg(params, "name"), args, params, out);
    }
    if (method == "resources/list")
        return reply(out, id,
                     json::object{{"resources", json::array{json::object{{"uri", "test://static/hello"},
                                                                         {"name", "hello"},
                                                                         {"mimeType", "text/plain"}},
                                                            json::object{{"uri", "test://static/data"},
                                                                         {"name", "data"},
                                                                         {"mimeType", "application/json"}}}}});
    if (method == "resources/templates/list")
        return reply(out, id,
                     json::object{{"resourceTemplates",
                                   json::array{json::object{{"uriTemplate", "test://dynamic/{id}"}, {"name", "dynamic"}}}}});
    if (method == "resources/read") {
        auto uri = str_arg(params, "uri");
        std::string text;
        if (uri == "test://static/hello") text = "hello world";
        else if (uri == "test://static/data") text = R"({"answer":42})";
        else if (uri.rfind("test://dynamic/", 0) == 0) text = "dynamic " + uri.substr(15);
        else return error(out, id, out->modern() ? -32602 : -32002, "Resource not found: " + uri);
        return reply(out, id, json::object{{"contents", json::array{json::object{{"uri", uri}, {"text", text}}}}});
    }
    if (method == "prompts/list")
        return reply(out, id,
                     json::object{{"prompts", json::array{json::object{
                                                  {"name", "greet"},
                                                  {"description", "Greets someone"},
                                                  {"arguments", json::array{json::object{{"name", "name"}, {"required", true}}}}}}}});
    if (method == "prompts/get") {
        if (str_arg(params, "name") != "greet") return error(out, id, -32602, "unknown prompt");
        std::string who = "world";
        if (auto* a = params.if_contains("arguments"); a && a->is_object()) {
            auto w = str_arg(a->as_object(), "name");
            if (!w.empty()) who = w;
        }
        return reply(out, id,
                     json::object{{"messages", json::array{json::object{
                                                   {"role", "user"},
                                                   {"content", json::object{{"type", "text"}, {"text", "Hello, " + who + "!"}}}}}}});
    }
    if (method == "completion/complete")
        return reply(out, id, json::object{{"completion", json::object{{"values", json::array{}}}}});
    error(out, id, -32601, "Method not found: " + method);
}

void Server::progress_step(json::value token, json::value id, std::int64_t i, std::int64_t steps,
                           std::int64_t interval, std::shared_ptr<Peer> out) {
    if (i > steps) return reply(out, id, text_result("done after " + std::to_string(steps) + " steps"));
    if (!token.is_null())
        notify(out, "notifications/progress",
               json::object{{"progressToken", token}, {"progress", i}, {"total", steps}, {"message", "step " + std::to_string(i)}});
    auto t = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(interval));
    t->async_wait([this, t, token, id, i, steps, interval, out](boost::system::error_code) {
        progress_step(token, id, i + 1, steps, interval, out);
    });
}

void Server::call_tool(const json::value& id, const std::string& name, const json::object& args,
                       const json::object& params, const std::shared_ptr<Peer>& out) {
    if (!opts_.calls_log.empty()) {
        int earlier = 0;
        {
            std::ifstream in(opts_.calls_log);
            for (std::string line; std::getline(in, line);) earlier += line == name;
        }
        std::ofstream(opts_.calls_log, std::ios::app) << name << '\n' << std::flush;
        if (name.rfind("crash_once_", 0) == 0) {
            if (earlier == 0) std::_Exit(3);
            return reply(out, id, text_result(name + " ran " + std::to_string(earlier + 1) + " times"));
        }
    }
    for (auto& l : tools_file_lines()) {
        if (l == name) return reply(out, id, text_result(name + " ok"));
        if (l[0] == '-' && l.substr(1) == name) return error(out, id, -32602, "unknown tool " + name);
    }
    if (out->modern() && modern_tool(id, name, args, params, out)) return;
    if (name == "echo") return reply(out, id, text_result(str_arg(args, "text")));
    // Not listed (lists other tests compare stay as they were): answers the params._meta it got.
    if (name == "meta") {
        auto* meta = params.if_contains("_meta");
        return reply(out, id, text_result(json::serialize(meta ? *meta : json::value(json::object{}))));
    }
    if (name == "search") {
        auto q = str_arg(args, "query");
        return reply(out, id,
                     json::object{{"content", json::array{json::object{{"type", "text"}, {"text", "2 results for " + q}}}},
                                  {"structuredContent", json::object{{"query", q}, {"hits", json::array{"alpha", "beta"}}}}});
    }
    if (name == "raw") return reply_raw(out, id, kRawResult);
    if (name == "fail") return reply(out, id, text_result("this tool always fails", true));
    if (name == "extra" && extra_) return reply(out, id, text_result("extra"));
    if (name == "pid") return reply(out, id, text_result(std::to_string(::getpid())));
    if (name == "big") return reply(out, id, text_result(std::string(static_cast<std::size_t>(int_arg(args, "bytes", 1024)), 'x')));
    if (name == "crash") {
        auto sig = int_arg(args, "signal", 0);
        if (sig > 0) ::kill(::getpid(), static_cast<int>(sig));
        std::_Exit(3);
    }
    if (name == "toggle") {
        extra_ = !extra_;
        notify_listens([](const json::object& f) { return wants(f, "toolsListChanged"); },
                       "notifications/tools/list_changed", json::object{});
        // The legacy notification, unless the request is modern and no legacy client initialized.
        if (!out->modern() || !version_.empty())
            notify(broadcast_ ? broadcast_ : out, "notifications/tools/list_changed", json::object{});
        return reply(out, id, text_result(extra_ ? "extra on" : "extra off"));
    }
    if (name == "log") {
        if (!out->modern() || log_wanted(out->modern()->meta, "info"))
            notify(out, "notifications/message",
                   json::object{{"level", "info"}, {"logger", "test-upstream"}, {"data", str_arg(args, "message")}});
        return reply(out, id, text_result("logged"));
    }
    if (name == "stats") {
        json::array c;
        for (auto& s : cancelled_) c.push_back(json::value(s));
        json::object stats{{"initialized", initialized_},
                           {"protocol_version", version_},
                           {"cancelled", c},
                           {"notifications", notifications_},
                           {"roots", roots_}};
        if (opts_.modern || opts_.dual_era)
            for (auto& [k, v] : modern_stats()) stats[k] = v;
        return reply(out, id, text_result(json::serialize(stats)));
    }
    if (name == "grandchild") {
        pid_t pid = -1;
        char* argv[] = {const_cast<char*>("sleep"), const_cast<char*>("300"), nullptr};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", 0, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", 1, 0);
        int rc = posix_spawnp(&pid, "sleep", &fa, nullptr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        if (rc != 0) return reply(out, id, text_result("cannot spawn sleep", true));
        return reply(out, id, text_result(std::to_string(pid)));
    }
    if (name == "slow") {
        auto t = std::make_shared<asio::steady_timer>(io_, std::chrono::milliseconds(int_arg(args, "ms", 1000)));
        t->async_wait([this, t, id, out](boost::system::error_code) {
            if (cancelled_.count(json::serialize(id))) return;  // cancelled: no answer
            reply(out, id, text_result("slept"));
        });
        return;
    }
    if (name == "progress") {
        json::value token = nullptr;
        if (auto* meta = params.if_contains("_meta"); meta && meta->is_object())
            if (auto* t = meta->as_object().if_contains("progressToken")) token = *t;
        auto steps = int_arg(args, "steps", 3);
        auto interval = int_arg(args, "interval_ms", 10);
        progress_step(token, id, 1, steps, interval, out);
        return;
    }
    if (name == "sample") {
        std::string key = "\"srv-" + std::to_string(next_request_++) + "\"";
        waiting_[key] = [this, id, out](const json::object& response) {
            reply(out, id, text_result(json::serialize(response.contains("result") ? response.at("result") : response.at("error"))));
        };
        out->send(R"({"jsonrpc":"2.0","id":)" + key + R"(,"method":"sampling/createMessage","params":)" +
                      json::serialize(sampling_params(str_arg(args, "prompt"))) + "}",
                  false);
        return;
    }
    error(out, id, -32602, "Unknown tool: " + name);
}

}  // namespace coffer::test_upstream
