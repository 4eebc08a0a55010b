// ABI case mcp_echo: a GOOD plugin whose kind is an MCP capability provider (ABI 1.2), for the
// gateway's integration tests. No upstream process: it answers MCP requests itself, on its own
// worker thread where a test needs time to pass (progress, cancellation, server requests).
//
// Kind "mcp_echo"; config: {"extra_tools": N (t0000…), "page_size": N (paginate its lists),
//   "spawn_child": bool (each session starts `sleep 600` in its own process group and records it),
//   "bad_name": bool (also lists a tool whose namespaced name is invalid), "fail_open": bool}.
// Tools: echo {text} (a result with odd spacing and 1.50, to check byte-for-byte splicing),
//   search {query} → "<resource>: <query>", slow {ms, steps} (progress), fail (JSON-RPC error),
//   tool_error (isError result), ask (elicitation/create to the client; returns the answer),
//   change (toggles tool "extra" and sends tools/list_changed), whoami (the session JSON it got),
//   hang (never completes until cancelled), log {level} (a notifications/message, then done),
//   big {bytes}, ask_cancel (roots/list to the client, withdrawn by notifications/cancelled).
// Resources: echo://static/one, echo://static/two; template echo://item/{id}; prompt greet {who};
// completion → ["alpha","beta"]. Status: {"open","opened","closed","cancelled","last_session",
// "notified": [{"session","method","params"}] (client notifications, ABI 1.4 notify)}.
// Action sleep {ms}: a slow hook (it holds the plugin's lock on the service thread).
#include <coffer/sdk.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace {

namespace sdk = coffer::sdk;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kSchema = R"json({
  "type": "object",
  "properties": {
    "extra_tools": {"type": "integer", "minimum": 0, "maximum": 5000},
    "page_size": {"type": "integer", "minimum": 0, "maximum": 5000},
    "spawn_child": {"type": "boolean"},
    "bad_name": {"type": "boolean"},
    "fail_open": {"type": "boolean"}
  },
  "additionalProperties": false
})json";

struct Stats {
    std::atomic<int> open{0}, opened{0}, closed{0}, cancelled{0};
    std::mutex mu;
    std::string last_session;
    json::array notified;  // ABI 1.4: [{"session","method","params"}] for every client notification
};

int integer(const json::object& o, const char* key, int fallback) {
    auto* v = o.if_contains(key);
    return v && v->is_int64() ? static_cast<int>(v->as_int64()) : fallback;
}
bool flag(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    return v && v->is_bool() && v->as_bool();
}

// A worker running delayed tasks; joined on destruction.
class Worker {
public:
    Worker() : thread_([this] { run(); }) {}
    ~Worker() {
        {
            std::lock_guard<std::mutex> g(mu_);
            stop_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }
    void after(std::chrono::milliseconds d, std::function<void()> fn) {
        {
            std::lock_guard<std::mutex> g(mu_);
            tasks_.push(Task{Clock::now() + d, seq_++, std::move(fn)});
        }
        cv_.notify_all();
    }

private:
    struct Task {
        Clock::time_point at;
        unsigned long seq;
        std::function<void()> fn;
        bool operator>(const Task& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };
    void run() {
        std::unique_lock<std::mutex> g(mu_);
        while (!stop_) {
            if (tasks_.empty()) {
                cv_.wait(g);
                continue;
            }
            if (Clock::now() < tasks_.top().at) {
                cv_.wait_until(g, tasks_.top().at);
                continue;
            }
            auto fn = tasks_.top().fn;
            tasks_.pop();
            g.unlock();
            fn();
            g.lock();
        }
    }
    std::mutex mu_;
    std::condition_variable cv_;
    std::priority_queue<Task, std::vector<Task>, std::greater<>> tasks_;
    unsigned long seq_ = 0;
    bool stop_ = false;
    std::thread thread_;
};

std::string text_result(std::string_view text) {
    return json::serialize(json::object{{"content", json::array{json::object{{"type", "text"}, {"text", text}}}}});
}

class EchoSession : public sdk::McpSessionState {
public:
    EchoSession(sdk::McpSession s, json::object info, const sdk::ResourceInfo& res, const sdk::Host& host,
                std::shared_ptr<Stats> stats)
        : session_(s), info_(std::move(info)), name_(res.name), config_(res.config), host_(host),
          stats_(std::move(stats)) {
        ++stats_->open;
        ++stats_->opened;
        {
            std::lock_guard<std::mutex> g(stats_->mu);
            stats_->last_session = json::serialize(info_);
        }
        if (flag(config_, "spawn_child")) spawn();
    }
    ~EchoSession() override {
        worker_.reset();  // joined: no task runs after this
        std::lock_guard<std::mutex> g(mu_);
        for (auto& [h, call] : pending_) call.error(-32603, "session closed");
        pending_.clear();
        asks_.clear();
        if (child_ > 0) {
            ::kill(-child_, SIGTERM);
            ::waitpid(child_, nullptr, 0);
            host_.child_exited(child_);
        }
        --stats_->open;
        ++stats_->closed;
    }

    void request(sdk::McpCall call, std::string_view method, std::string_view params_text) override {
        auto params = json::parse(params_text).as_object();
        if (method == "ping") return call.result("{}");
        if (method == "tools/list") return call.result(page("tools", tools(), params));
        if (method == "tools/call") return tool(std::move(call), params);
        if (method == "resources/list")
            return call.result(page("resources",
                                    {R"({"uri":"echo://static/one","name":"one","mimeType":"text/plain"})",
                                     R"({"uri":"echo://static/two","name":"two","mimeType":"text/plain"})"},
                                    params));
        if (method == "resources/templates/list")
            return call.result(page("resourceTemplates", {R"({"uriTemplate":"echo://item/{id}","name":"item"})"}, params));
        if (method == "resources/read") {
            auto uri = std::string(params.at("uri").as_string());
            if (uri.rfind("echo://static/", 0) != 0 && uri.rfind("echo://item/", 0) != 0)
                return call.error(-32002, "Resource not found", json::object{{"uri", uri}});
            return call.result(json::serialize(json::object{
                {"contents", json::array{json::object{{"uri", uri}, {"mimeType", "text/plain"}, {"text", "content of " + uri}}}}}));
        }
        if (method == "resources/subscribe" || method == "resources/unsubscribe") return call.result("{}");
        if (method == "prompts/list")
            return call.result(page("prompts", {R"({"name":"greet","arguments":[{"name":"who","required":true}]})"}, params));
        if (method == "prompts/get") {
            std::string who = "nobody";
            if (auto* a = params.if_contains("arguments"); a && a->is_object())
                if (auto* w = a->as_object().if_contains("who"); w && w->is_string()) who = std::string(w->as_string());
            return call.result(json::serialize(json::object{
                {"messages", json::array{json::object{{"role", "user"},
                                                      {"content", json::object{{"type", "text"}, {"text", "Hello, " + who}}}}}}}));
        }
        if (method == "completion/complete")
            return call.result(R"({"completion":{"values":["alpha","beta"],"hasMore":false}})");
        call.error(-32601, "Method not found: " + std::string(method));
    }

    void cancel(coffer_call* handle) override {
        std::lock_guard<std::mutex> g(mu_);
        auto it = pending_.find(handle);
        if (it == pending_.end()) return;
        ++stats_->cancelled;
        it->second.error(-32800, "cancelled");
        pending_.erase(it);
    }

    void respond(std::uint64_t token, std::string_view result, std::string_view error) override {
        std::lock_guard<std::mutex> g(mu_);
        auto it = asks_.find(token);
        if (it == asks_.end()) return;
        auto call = std::move(it->second);
        asks_.erase(it);
        pending_.erase(call.handle());
        if (!error.empty()) return call.result(text_result("the client refused: " + std::string(error)));
        call.result(text_result("the client answered: " + std::string(result)));
    }

    void notify(std::string_view method, std::string_view params) override {
        auto id = info_.if_contains("id");
        std::lock_guard<std::mutex> g(stats_->mu);
        stats_->notified.push_back(json::object{
            {"session", id ? *id : json::value()}, {"method", method}, {"params", json::parse(params)}});
    }

private:
    std::vector<std::string> tools() {
        std::vector<std::string> out{
            R"({"name":"echo","description":"Echoes its text","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}},"x-weight":1.50})",
            R"({"name":"search","description":"Searches","inputSchema":{"type":"object","properties":{"query":{"type":"string"}}}})",
            R"({"name":"slow","inputSchema":{"type":"object"}})",
            R"({"name":"fail","inputSchema":{"type":"object"}})",
            R"({"name":"tool_error","inputSchema":{"type":"object"}})",
            R"({"name":"ask","inputSchema":{"type":"object"}})",
            R"({"name":"change","inputSchema":{"type":"object"}})",
            R"({"name":"whoami","inputSchema":{"type":"object"}})",
            R"({"name":"hang","inputSchema":{"type":"object"}})",
            R"({"name":"log","inputSchema":{"type":"object"}})",
            R"({"name":"big","inputSchema":{"type":"object"}})",
            R"({"name":"ask_cancel","inputSchema":{"type":"object"}})"};
        if (extra_) out.push_back(R"({"name":"extra","inputSchema":{"type":"object"}})");
        if (flag(config_, "bad_name")) out.push_back(R"({"name":"bad name!","inputSchema":{"type":"object"}})");
        int n = integer(config_, "extra_tools", 0);
        for (int i = 0; i < n; ++i) {
            char name[16];
            std::snprintf(name, sizeof name, "t%04d", i);
            out.push_back(std::string(R"({"name":")") + name + R"(","inputSchema":{"type":"object"}})");
        }
        return out;
    }

    std::string page(const char* member, const std::vector<std::string>& items, const json::object& params) {
        std::size_t size = static_cast<std::size_t>(integer(config_, "page_size", 0));
        std::size_t from = 0;
        if (auto* c = params.if_contains("cursor"); c && c->is_string()) from = std::stoul(std::string(c->as_string()));
        std::size_t to = size ? std::min(items.size(), from + size) : items.size();
        std::string out = std::string("{\"") + member + "\":[";
        for (std::size_t i = from; i < to; ++i) out += (i > from ? "," : "") + items[i];
        out += "]";
        if (to < items.size()) out += ",\"nextCursor\":\"" + std::to_string(to) + "\"";
        return out + "}";
    }

    void tool(sdk::McpCall call, const json::object& params) {
        auto name = std::string(params.at("name").as_string());
        json::object args;
        if (auto* a = params.if_contains("arguments"); a && a->is_object()) args = a->as_object();
        json::value token = nullptr;
        if (auto* m = params.if_contains("_meta"); m && m->is_object())
            if (auto* t = m->as_object().if_contains("progressToken")) token = *t;
        if (name == "echo") {
            auto text = args.contains("text") ? json::serialize(args.at("text")) : std::string("\"\"");
            return call.result(R"({"content": [ {"type":"text", "text": )" + text + R"(} ], "n":1.50, "isError": false })");
        }
        if (name == "search") {
            auto q = args.contains("query") && args.at("query").is_string() ? std::string(args.at("query").as_string()) : "";
            return call.result(text_result(name_ + ": " + q));
        }
        if (name == "fail") return call.error(-32042, "asked to fail", json::object{{"tool", "fail"}});
        if (name == "tool_error")
            return call.result(R"({"content":[{"type":"text","text":"it went wrong"}],"isError":true})");
        if (name == "whoami") return call.result(text_result(json::serialize(info_)));
        if (name == "change") {
            extra_ = !extra_;
            session_.notify(json::object{{"method", "notifications/tools/list_changed"}});
            return call.result(text_result(extra_ ? "extra added" : "extra removed"));
        }
        if (name == "log") {
            auto level = args.contains("level") && args.at("level").is_string() ? args.at("level").as_string() : "info";
            session_.notify(json::object{{"method", "notifications/message"},
                                         {"params", json::object{{"level", level}, {"logger", "echo"}, {"data", "hello from echo"}}}},
                            call.handle());
            return call.result(text_result("logged"));
        }
        if (name == "big") {
            int bytes = integer(args, "bytes", 1000);
            return call.result(text_result(std::string(static_cast<std::size_t>(bytes), 'x')));
        }
        if (name == "ask") {
            std::lock_guard<std::mutex> g(mu_);
            auto token_id = ++next_token_;
            auto* handle = call.handle();
            bool sent = session_.request(token_id,
                                         json::object{{"method", "elicitation/create"},
                                                      {"params", json::object{{"message", "What is your name?"},
                                                                              {"requestedSchema", json::object{{"type", "object"}}}}}},
                                         handle);
            if (!sent) return call.error(-32603, "could not ask the client");
            asks_.emplace(token_id, std::move(call));
            return;
        }
        if (name == "ask_cancel") {  // asks, then gives up on the question (notifications/cancelled)
            std::lock_guard<std::mutex> g(mu_);
            auto token_id = ++next_token_;
            auto* handle = call.handle();
            session_.request(token_id, json::object{{"method", "roots/list"}}, handle);
            pending_.emplace(handle, std::move(call));
            worker_->after(std::chrono::milliseconds(100), [this, handle, token_id] {
                std::lock_guard<std::mutex> g(mu_);
                session_.notify(json::object{{"method", "notifications/cancelled"},
                                             {"params", json::object{{"requestId", token_id}, {"reason", "gave up"}}}},
                                handle);
                auto it = pending_.find(handle);
                if (it == pending_.end()) return;
                it->second.result(text_result("gave up asking"));
                pending_.erase(it);
            });
            return;
        }
        if (name == "hang") {
            std::lock_guard<std::mutex> g(mu_);
            auto* handle = call.handle();
            pending_.emplace(handle, std::move(call));
            return;
        }
        if (name == "slow") {
            int ms = integer(args, "ms", 200), steps = integer(args, "steps", 2);
            std::lock_guard<std::mutex> g(mu_);
            auto* handle = call.handle();
            pending_.emplace(handle, std::move(call));
            for (int i = 1; i <= steps; ++i) {
                worker_->after(std::chrono::milliseconds(ms * i / (steps + 1)), [this, handle, token, i, steps] {
                    std::lock_guard<std::mutex> g(mu_);
                    if (!pending_.count(handle) || token.is_null()) return;
                    session_.notify(json::object{{"method", "notifications/progress"},
                                                 {"params", json::object{{"progressToken", token}, {"progress", i}, {"total", steps}}}},
                                    handle);
                });
            }
            worker_->after(std::chrono::milliseconds(ms), [this, handle] {
                std::lock_guard<std::mutex> g(mu_);
                auto it = pending_.find(handle);
                if (it == pending_.end()) return;
                it->second.result(text_result("slow done"));
                pending_.erase(it);
            });
            return;
        }
        call.error(-32602, "Unknown tool: " + name);
    }

    void spawn() {
        // Reported once the child has exec'd (its end of a close-on-exec pipe closes then), so the
        // host records sleep's command line, not a copy of the daemon's, however slow the machine.
        int exec_seen[2];
        if (::pipe2(exec_seen, O_CLOEXEC) != 0) return;
        pid_t pid = ::fork();
        if (pid == 0) {
            ::setpgid(0, 0);
            ::execlp("sleep", "sleep", "600", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::close(exec_seen[1]);
        if (pid > 0) {
            char c;
            while (::read(exec_seen[0], &c, 1) < 0 && errno == EINTR) {
            }
        }
        ::close(exec_seen[0]);
        if (pid < 0) return;
        ::setpgid(pid, pid);
        child_ = pid;
        host_.child_started(pid, "sleep 600 (mcp_echo " + name_ + ")");
    }

    sdk::McpSession session_;
    json::object info_;
    std::string name_;
    json::object config_;
    const sdk::Host& host_;
    std::shared_ptr<Stats> stats_;
    std::mutex mu_;
    std::map<coffer_call*, sdk::McpCall> pending_;
    std::map<std::uint64_t, sdk::McpCall> asks_;
    std::uint64_t next_token_ = 0;
    bool extra_ = false;
    pid_t child_ = -1;
    std::unique_ptr<Worker> worker_ = std::make_unique<Worker>();
};

class EchoInstance : public sdk::Instance {
public:
    explicit EchoInstance(const sdk::Host& host) : host_(host) {}
    std::unique_ptr<sdk::McpSessionState> open_mcp(sdk::McpSession session, const json::object& info) override {
        if (flag(info_.config, "fail_open")) throw sdk::Error(COFFER_E_UNAVAILABLE, "asked to fail on open");
        return std::make_unique<EchoSession>(session, info, info_, host_, stats_);
    }
    // Action "sleep" {ms}: holds the plugin (its lock, on the service thread) for a while.
    json::value action(std::string_view name, const json::object& args) override {
        if (name != "sleep") return Instance::action(name, args);
        std::this_thread::sleep_for(std::chrono::milliseconds(integer(args, "ms", 500)));
        return json::object{{"slept", true}};
    }
    json::value status() override {
        std::lock_guard<std::mutex> g(stats_->mu);
        return json::object{{"open", stats_->open.load()},
                            {"opened", stats_->opened.load()},
                            {"closed", stats_->closed.load()},
                            {"cancelled", stats_->cancelled.load()},
                            {"last_session", stats_->last_session},
                            {"notified", stats_->notified}};
    }

private:
    const sdk::Host& host_;
    std::shared_ptr<Stats> stats_ = std::make_shared<Stats>();
};

class EchoKind : public sdk::Kind {
public:
    explicit EchoKind(const sdk::Host& host) : host_(host) {}
    std::string name() const override { return "mcp_echo"; }
    std::string schema() const override { return kSchema; }
    bool provides_mcp() const override { return true; }
    std::vector<sdk::ActionInfo> actions() const override { return {{"sleep", "blocks the hook for {ms} milliseconds"}}; }
    std::unique_ptr<sdk::Instance> create(const sdk::ResourceInfo&) override { return std::make_unique<EchoInstance>(host_); }

private:
    const sdk::Host& host_;
};

class EchoPlugin : public sdk::Plugin {
public:
    EchoPlugin() { add_kind<EchoKind>(host()); }
};

}  // namespace

COFFER_PLUGIN(EchoPlugin, "mcp_echo", "1.0.0")
