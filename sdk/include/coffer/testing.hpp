// coffer/testing.hpp — a fake host for plugin unit tests, no daemon needed.
//
//     coffer::testing::FakeHost host(coffer_plugin_entry_v1);   // or a dlsym'd entry
//     auto r = host.validate("hello", R"({"greeting":"hi"})");
//     auto inst = host.create("hello", "h1", R"({"greeting":"hi"})");
//     auto out = host.action(inst, "greet", "{}");
//
// It implements every coffer_host_api callback, records logs, events and audit rows, and speaks
// to the plugin only through the C ABI, exactly as the daemon does. It does not validate the
// JSON Schema (the daemon does that); it calls the plugin's own validator.
#pragma once

#include <coffer/abi.h>
#include <coffer/loop_poll.hpp>

#include <fcntl.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <map>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

struct coffer_reply {
    coffer_status status = COFFER_OK;
    bool has_json = false;
    std::string json, message, details;
};

struct coffer_host {
    std::mutex mu;
    std::string data_dir, vault_dir;
    struct Log { int level; std::string message; };
    struct Event { std::string topic, json; };
    struct Audit { std::string type, target, payload; };
    std::vector<Log> logs;
    std::vector<Event> events;
    std::vector<Audit> audits;
    std::vector<long long> children;
    // ABI 1.3: the credentials the fake host resolves (ref → value), and every ref asked for.
    std::map<std::string, std::string> credentials;
    std::vector<std::string> resolved;
    // ABI 1.8: the refs stored through credential_store, in order (values land in `credentials`).
    std::vector<std::string> stored;
    // ABI 1.9: what the plugin registered on the fake loop (FakeHost::lend_loop, turn_loop).
    struct LoopItem {
        enum Kind { watch, timer, deferred } kind;
        uint64_t id;
        int fd;
        uint32_t events;
        void (*ready)(void*, uint32_t);
        void (*fire)(void*);
        void* ctx;
        std::chrono::steady_clock::time_point due;
    };
    std::vector<LoopItem> loop;
    uint64_t next_loop_id = 1;
    std::thread::id turning;  // the thread inside turn_loop(), if any
};

// ABI 1.2 fakes: a session records what the provider sends the client; a call waits for its
// completion.
struct coffer_session {
    std::mutex mu;
    std::vector<std::string> notifications;
    struct Req { uint64_t token; std::string json; };
    std::vector<Req> requests;
};
// ABI 1.5 fake: a turn records the events its driver reports; wait_done() waits for the
// terminal one.
struct coffer_turn {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<std::string> events;  // JSON text, in order
    int completions = 0;              // "turn.completed" events seen (must end as 1)
    bool wait_done(std::chrono::milliseconds timeout) {
        std::unique_lock<std::mutex> g(mu);
        return cv.wait_for(g, timeout, [&] { return completions > 0; });
    }
};
struct coffer_call {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::string result, error;
};

namespace coffer::testing {

inline std::string_view view(coffer_str s) { return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view(); }
inline coffer_str cstr(std::string_view s) { return coffer_str{s.data(), s.size()}; }

// The outcome of one call: status plus whatever the plugin put into the reply.
struct Result {
    coffer_status status = COFFER_OK;
    std::string json;     // result document ("" when none)
    std::string message;  // error message
    std::string details;  // error details JSON ("" when none)
    bool ok() const { return status == COFFER_OK; }
};

class FakeHost {
public:
    explicit FakeHost(coffer_plugin_entry_fn entry, std::string config_json = "{}",
                      std::filesystem::path vault = std::filesystem::temp_directory_path() / "coffer-fakehost") {
        host_.vault_dir = vault.string();
        host_.data_dir = (vault / "data").string();
        api_.struct_size = sizeof(coffer_host_api);
        api_.abi_major = COFFER_ABI_MAJOR;
        api_.abi_minor = COFFER_ABI_MINOR;
        api_.log = [](coffer_host* h, int level, coffer_str m) {
            std::lock_guard<std::mutex> g(h->mu);
            h->logs.push_back({level, std::string(view(m))});
        };
        api_.reply_json = [](coffer_reply* r, coffer_str j) { r->has_json = true; r->json.assign(view(j)); };
        api_.reply_error = [](coffer_reply* r, coffer_status st, coffer_str m, coffer_str d) {
            r->status = st;
            r->message.assign(view(m));
            r->details.assign(view(d));
        };
        api_.emit = [](coffer_host* h, coffer_str t, coffer_str e) {
            std::lock_guard<std::mutex> g(h->mu);
            h->events.push_back({std::string(view(t)), std::string(view(e))});
            return COFFER_OK;
        };
        api_.audit = [](coffer_host* h, coffer_str t, coffer_str target, coffer_str p) {
            std::lock_guard<std::mutex> g(h->mu);
            h->audits.push_back({std::string(view(t)), std::string(view(target)), std::string(view(p))});
            return COFFER_OK;
        };
        api_.data_dir = [](coffer_host* h) {
            std::filesystem::create_directories(h->data_dir);
            return cstr(h->data_dir);
        };
        api_.vault_dir = [](coffer_host* h) { return cstr(h->vault_dir); };
        api_.call_complete = [](coffer_call* c, coffer_str result, coffer_str error) {
            std::lock_guard<std::mutex> g(c->mu);
            c->done = true;
            c->result.assign(view(result));
            c->error.assign(view(error));
            c->cv.notify_all();
        };
        api_.session_notify = [](coffer_session* s, coffer_call*, coffer_str n) {
            std::lock_guard<std::mutex> g(s->mu);
            s->notifications.emplace_back(view(n));
            return COFFER_OK;
        };
        api_.session_request = [](coffer_session* s, coffer_call*, uint64_t token, coffer_str r) {
            std::lock_guard<std::mutex> g(s->mu);
            s->requests.push_back({token, std::string(view(r))});
            return COFFER_OK;
        };
        api_.child_started = [](coffer_host* h, int64_t pid, coffer_str) {
            std::lock_guard<std::mutex> g(h->mu);
            h->children.push_back(pid);
            return COFFER_OK;
        };
        api_.child_exited = [](coffer_host* h, int64_t pid) {
            std::lock_guard<std::mutex> g(h->mu);
            std::erase(h->children, pid);
        };
        api_.credential_resolve = [](coffer_host* h, coffer_str ref, void (*sink)(void*, coffer_str), void* ctx) {
            std::string value;
            {
                std::lock_guard<std::mutex> g(h->mu);
                std::string r(view(ref));
                h->resolved.push_back(r);
                auto it = h->credentials.find(r);
                if (r.empty()) return COFFER_E_INVALID;
                if (it == h->credentials.end()) return COFFER_E_NOT_FOUND;
                value = it->second;
            }
            if (!sink) return COFFER_E_INVALID;
            sink(ctx, cstr(value));
            return COFFER_OK;
        };
        // ABI 1.8: kept in `credentials`; the fake host does not know the plugin's name, so it
        // only requires the namespace form "<name>.<rest>".
        api_.credential_store = [](coffer_host* h, coffer_str ref, coffer_str value) {
            std::string r(view(ref));
            if (r.find('.') == std::string::npos || r.front() == '.' || r.back() == '.') return COFFER_E_DENIED;
            std::lock_guard<std::mutex> g(h->mu);
            h->stored.push_back(r);
            if (value.len == 0) h->credentials.erase(r);
            else h->credentials[r] = std::string(view(value));
            return COFFER_OK;
        };

        api_.turn_event = [](coffer_turn* t, coffer_str e) {
            std::lock_guard<std::mutex> g(t->mu);
            std::string text(view(e));
            if (t->completions > 0) return COFFER_E_NOT_FOUND;  // spent
            t->events.push_back(text);
            if (text.find("\"type\":\"turn.completed\"") != std::string::npos) ++t->completions;
            t->cv.notify_all();
            return COFFER_OK;
        };

        plugin_ = entry(COFFER_ABI_MAJOR, COFFER_ABI_MINOR);
        if (!plugin_) throw std::runtime_error("plugin entry returned NULL");
        if (plugin_->abi_major != COFFER_ABI_MAJOR) throw std::runtime_error("plugin ABI major mismatch");
        coffer_reply r;
        auto st = plugin_->init(&api_, &host_, cstr(config_json), &ctx_, &r);
        if (st != COFFER_OK) throw std::runtime_error("plugin init failed: " + r.message);
    }
    ~FakeHost() {
        for (auto& [inst, kind] : live_) kind->destroy(inst);
        if (plugin_ && plugin_->shutdown) plugin_->shutdown(ctx_);
    }
    FakeHost(const FakeHost&) = delete;
    FakeHost& operator=(const FakeHost&) = delete;

    const coffer_plugin& plugin() const { return *plugin_; }

    const coffer_kind& kind(std::string_view name) const {
        for (size_t i = 0; i < plugin_->kind_count; ++i)
            if (view(plugin_->kinds[i]->name) == name) return *plugin_->kinds[i];
        throw std::runtime_error("no such kind: " + std::string(name));
    }

    Result validate(std::string_view kind_name, std::string_view config) {
        auto& k = kind(kind_name);
        coffer_reply r;
        if (!k.validate) return {};
        auto st = k.validate(ctx_, &k, cstr(config), &r);
        return finish(st, r);
    }

    // Creates an instance of a resource named `name`; throws if the plugin refuses.
    coffer_instance* create(std::string_view kind_name, std::string_view name, std::string_view config,
                            bool enabled = true) {
        auto& k = kind(kind_name);
        std::string res = "{\"uid\":\"test-" + std::string(name) + "\",\"kind\":\"" + std::string(kind_name) +
                          "\",\"name\":\"" + std::string(name) + "\",\"description\":\"\",\"enabled\":" +
                          (enabled ? "true" : "false") + ",\"config\":" + std::string(config) + "}";
        coffer_reply r;
        coffer_instance* inst = nullptr;
        auto st = k.create(ctx_, &k, cstr(res), &inst, &r);
        if (st != COFFER_OK || !inst) throw std::runtime_error("create failed: " + r.message);
        live_[inst] = &k;
        return inst;
    }

    Result update(coffer_instance* i, std::string_view config) { return call(i, &coffer_kind::update, config); }
    Result start(coffer_instance* i) { return call0(i, &coffer_kind::start); }
    Result stop(coffer_instance* i) { return call0(i, &coffer_kind::stop); }
    Result status(coffer_instance* i) { return call0(i, &coffer_kind::status); }
    Result remove(coffer_instance* i) { return call0(i, &coffer_kind::remove); }

    // ---- MCP providers (ABI 1.2) ----
    struct McpSession {
        std::unique_ptr<coffer_session> session = std::make_unique<coffer_session>();
        const coffer_mcp_provider* provider = nullptr;
        void* state = nullptr;
    };
    // Opens a provider session on an instance; throws if the kind provides no MCP or refuses.
    std::shared_ptr<McpSession> mcp_open(coffer_instance* i, std::string_view session_json = R"({"id":"test"})") {
        auto* k = live_.at(i);
        if (k->struct_size < sizeof(coffer_kind) || !k->mcp) throw std::runtime_error("kind provides no MCP");
        auto s = std::shared_ptr<McpSession>(new McpSession(), [](McpSession* m) {
            if (m->state && m->provider) m->provider->close(m->state);
            delete m;
        });
        s->provider = k->mcp;
        coffer_reply r;
        if (k->mcp->open(i, s->session.get(), cstr(session_json), &s->state, &r) != COFFER_OK)
            throw std::runtime_error("mcp open failed: " + r.message);
        return s;
    }
    // Sends one request and waits for its completion. Result.json = result text, .details = error text.
    Result mcp_request(McpSession& s, std::string_view method, std::string_view params = "{}",
                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
        auto call = std::make_unique<coffer_call>();
        coffer_reply r;
        auto st = s.provider->request(s.state, call.get(), cstr(method), cstr(params), &r);
        if (st != COFFER_OK) return finish(st, r);
        std::unique_lock<std::mutex> g(call->mu);
        if (!call->cv.wait_for(g, timeout, [&] { return call->done; }))
            throw std::runtime_error("mcp request timed out: " + std::string(method));
        Result out;
        out.status = call->error.empty() ? COFFER_OK : COFFER_E_UNAVAILABLE;
        out.json = call->result;
        out.details = call->error;
        return out;
    }
    // The client's answer to a request the provider sent through session_request.
    void mcp_respond(McpSession& s, uint64_t token, std::string_view result_json, std::string_view error_json = {}) {
        if (s.provider->respond) s.provider->respond(s.state, token, cstr(result_json), cstr(error_json));
    }
    // ABI 1.4: a client notification, e.g. "notifications/roots/list_changed". Reads the table as
    // the daemon does (no further than struct_size): false when the provider has no notify hook.
    bool mcp_notify(McpSession& s, std::string_view method, std::string_view params = "{}") {
        const auto* p = s.provider;
        if (p->struct_size < offsetof(coffer_mcp_provider, notify) + sizeof(p->notify) || !p->notify) return false;
        p->notify(s.state, cstr(method), cstr(params));
        return true;
    }
    // ---- Agent drivers (ABI 1.5) ----
    // Starts a turn on an agent instance. On success the returned turn collects the events; on
    // refusal Result says why (and the turn gets none).
    std::pair<Result, std::unique_ptr<coffer_turn>> start_turn(coffer_instance* i, std::string_view request_json) {
        auto* k = live_.at(i);
        if (k->struct_size < sizeof(coffer_kind) || !k->agent) throw std::runtime_error("kind is no agent driver");
        auto t = std::make_unique<coffer_turn>();
        coffer_reply r;
        auto st = k->agent->start_turn(i, t.get(), cstr(request_json), &r);
        return {finish(st, r), std::move(t)};
    }
    void interrupt_turn(coffer_instance* i, coffer_turn* t) { live_.at(i)->agent->interrupt(i, t); }

    // ABI 1.9: offers the plugin a loop (by default the fake host has none, like a host older
    // than 1.9). It turns only when the test calls turn_loop(), on the test's thread: due
    // deferred calls and timers fire, ready watches are called (level-triggered, poll(2)).
    void lend_loop() {
        api_.loop_watch = [](coffer_host* h, int fd, uint32_t ev, void (*ready)(void*, uint32_t), void* ctx,
                             uint64_t* id) {
            ev &= COFFER_LOOP_READABLE | COFFER_LOOP_WRITABLE;
            if (fd < 0 || !ready || !ev || ::fcntl(fd, F_GETFD) < 0) return COFFER_E_INVALID;
            return add_loop(h, {coffer_host::LoopItem::watch, 0, fd, ev, ready, nullptr, ctx, {}}, id);
        };
        api_.loop_timer = [](coffer_host* h, uint64_t ms, void (*fire)(void*), void* ctx, uint64_t* id) {
            if (!fire) return COFFER_E_INVALID;
            auto due = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
            return add_loop(h, {coffer_host::LoopItem::timer, 0, -1, 0, nullptr, fire, ctx, due}, id);
        };
        api_.loop_defer = [](coffer_host* h, void (*fire)(void*), void* ctx, uint64_t* id) {
            if (!fire) return COFFER_E_INVALID;
            return add_loop(h, {coffer_host::LoopItem::deferred, 0, -1, 0, nullptr, fire, ctx, {}}, id);
        };
        api_.loop_cancel = [](coffer_host* h, uint64_t id) {
            std::lock_guard<std::mutex> g(h->mu);
            auto n = std::erase_if(h->loop, [id](const coffer_host::LoopItem& i) { return i.id == id; });
            return n ? COFFER_OK : COFFER_E_NOT_FOUND;
        };
        api_.loop_in_loop = [](coffer_host* h) {
            std::lock_guard<std::mutex> g(h->mu);
            return h->turning == std::this_thread::get_id() ? 1 : 0;
        };
    }
    // One turn of the fake loop; returns how many callbacks ran.
    std::size_t turn_loop() {
        std::vector<coffer_host::LoopItem> items;
        {
            std::lock_guard<std::mutex> g(host_.mu);
            items = host_.loop;
            host_.turning = std::this_thread::get_id();
        }
        std::size_t ran = 0;
        auto now = std::chrono::steady_clock::now();
        for (auto& it : items) {
            uint32_t ev = 0;
            if (it.kind == coffer_host::LoopItem::watch) {
                if (!(ev = loop_poll::look(it.fd, it.events))) continue;
            } else if (it.kind == coffer_host::LoopItem::timer && it.due > now) {
                continue;
            }
            {
                // Still registered (an earlier callback of this turn may have cancelled it)?
                std::lock_guard<std::mutex> g(host_.mu);
                auto found = std::find_if(host_.loop.begin(), host_.loop.end(),
                                          [&](const coffer_host::LoopItem& i) { return i.id == it.id; });
                if (found == host_.loop.end()) continue;
                if (it.kind != coffer_host::LoopItem::watch) host_.loop.erase(found);  // one shot
            }
            if (it.kind == coffer_host::LoopItem::watch) it.ready(it.ctx, ev);
            else it.fire(it.ctx);
            ++ran;
        }
        std::lock_guard<std::mutex> g(host_.mu);
        host_.turning = {};
        return ran;
    }
    // Turns the loop until `done()` holds or `limit` passes; returns done().
    template <typename Pred> bool turn_loop_until(Pred done, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
        auto end = std::chrono::steady_clock::now() + limit;
        while (!done() && std::chrono::steady_clock::now() < end) {
            if (turn_loop() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return done();
    }
    // Registrations still live on the fake loop.
    std::size_t loop_registrations() {
        std::lock_guard<std::mutex> g(host_.mu);
        return host_.loop.size();
    }

    // ABI 1.3: what credential_resolve answers (ref → value); erase to make a ref unresolvable.
    void set_credential(const std::string& ref, const std::string& value) {
        std::lock_guard<std::mutex> g(host_.mu);
        host_.credentials[ref] = value;
    }
    void erase_credential(const std::string& ref) {
        std::lock_guard<std::mutex> g(host_.mu);
        host_.credentials.erase(ref);
    }
    // Every ref the plugin asked the host to resolve, in order.
    std::vector<std::string> resolved_refs() {
        std::lock_guard<std::mutex> g(host_.mu);
        return host_.resolved;
    }
    // The children the plugin recorded and has not yet reported exited (a copy: plugins report
    // from their own threads).
    std::vector<long long> children() {
        std::lock_guard<std::mutex> g(host_.mu);
        return host_.children;
    }
    Result action(coffer_instance* i, std::string_view name, std::string_view args = "{}") {
        auto* k = live_.at(i);
        coffer_reply r;
        if (!k->action) return {COFFER_E_UNSUPPORTED, "", "no actions", ""};
        auto st = k->action(i, cstr(name), cstr(args), &r);
        return finish(st, r);
    }
    // A kind-level action (ABI 1.1).
    Result kind_action(std::string_view kind_name, std::string_view name, std::string_view args = "{}") {
        auto& k = kind(kind_name);
        coffer_reply r;
        if (!k.kind_action) return {COFFER_E_UNSUPPORTED, "", "no kind actions", ""};
        auto st = k.kind_action(ctx_, &k, cstr(name), cstr(args), &r);
        return finish(st, r);
    }
    void destroy(coffer_instance* i) {
        auto* k = live_.at(i);
        live_.erase(i);
        k->destroy(i);
    }

    const std::vector<coffer_host::Log>& logs() const { return host_.logs; }
    const std::vector<coffer_host::Event>& events() const { return host_.events; }
    const std::vector<coffer_host::Audit>& audits() const { return host_.audits; }

private:
    static coffer_status add_loop(coffer_host* h, coffer_host::LoopItem item, uint64_t* id) {
        std::lock_guard<std::mutex> g(h->mu);
        item.id = h->next_loop_id++;
        if (id) *id = item.id;
        h->loop.push_back(item);
        return COFFER_OK;
    }
    static Result finish(coffer_status st, const coffer_reply& r) {
        Result out;
        out.status = st;
        out.json = r.has_json ? r.json : std::string();
        out.message = r.message;
        out.details = r.details;
        return out;
    }
    Result call0(coffer_instance* i, coffer_status (*coffer_kind::*fn)(coffer_instance*, coffer_reply*)) {
        auto* k = live_.at(i);
        coffer_reply r;
        if (!(k->*fn)) return {};
        return finish((k->*fn)(i, &r), r);
    }
    Result call(coffer_instance* i, coffer_status (*coffer_kind::*fn)(coffer_instance*, coffer_str, coffer_reply*),
                std::string_view arg) {
        auto* k = live_.at(i);
        coffer_reply r;
        if (!(k->*fn)) return {};
        return finish((k->*fn)(i, cstr(arg), &r), r);
    }

    coffer_host_api api_{};
    coffer_host host_;
    const coffer_plugin* plugin_ = nullptr;
    void* ctx_ = nullptr;
    std::map<coffer_instance*, const coffer_kind*> live_;
};

}  // namespace coffer::testing
