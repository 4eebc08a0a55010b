// coffer/sdk.hpp — header-only C++20 wrapper over coffer/abi.h.
//
// Write a plugin as ordinary C++ classes (a Plugin owning Kinds, each Kind creating Instances),
// then turn it into the C exports with one macro:
//
//     class MyPlugin : public coffer::sdk::Plugin { ... };
//     COFFER_PLUGIN(MyPlugin, "my_plugin", "1.0.0")
//
// Exceptions never cross the boundary: every trampoline catches them and turns them into
// error replies (coffer::sdk::Error keeps its status and details; anything else is INTERNAL).
#pragma once

#include <coffer/abi.h>
#include <coffer/scope.hpp>

#include <boost/json.hpp>

#include <atomic>
#include <cstdint>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace coffer::sdk {

namespace json = boost::json;

inline coffer_str to_cstr(std::string_view s) noexcept { return coffer_str{s.data(), s.size()}; }
inline std::string_view to_view(coffer_str s) noexcept {
    return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view();
}

// An error with a status, a message and optional JSON details; becomes reply_error.
class Error : public std::runtime_error {
public:
    Error(coffer_status status, std::string message, json::value details = nullptr)
        : std::runtime_error(std::move(message)), status_(status), details_(std::move(details)) {}
    coffer_status status() const noexcept { return status_; }
    const json::value& details() const noexcept { return details_; }

private:
    coffer_status status_;
    json::value details_;
};

// Collects validation problems as {pointer, message}; thrown as one COFFER_E_INVALID error.
class Validation {
public:
    void fail(std::string pointer, std::string message) {
        errors_.push_back(json::object{{"pointer", std::move(pointer)}, {"message", std::move(message)}});
    }
    bool ok() const noexcept { return errors_.empty(); }
    const json::array& errors() const noexcept { return errors_; }

private:
    json::array errors_;
};

// The host services, as seen by C++ code. Safe to copy; valid for the plugin's lifetime.
class Host {
public:
    Host() = default;
    Host(const coffer_host_api* api, coffer_host* host) : api_(api), host_(host) {}

    // True when the host offers `field` (an older host's smaller struct may not).
    template <typename Field> bool has(Field coffer_host_api::*field) const noexcept {
        if (!api_) return false;
        static const coffer_host_api probe{};
        auto offset = static_cast<size_t>(reinterpret_cast<const char*>(&(probe.*field)) -
                                          reinterpret_cast<const char*>(&probe));
        return offset + sizeof(Field) <= api_->struct_size && (api_->*field) != nullptr;
    }
    void log(coffer_log_level level, std::string_view message) const {
        if (has(&coffer_host_api::log)) api_->log(host_, level, to_cstr(message));
    }
    void info(std::string_view m) const { log(COFFER_LOG_INFO, m); }
    void warn(std::string_view m) const { log(COFFER_LOG_WARN, m); }
    void error(std::string_view m) const { log(COFFER_LOG_ERROR, m); }
    bool emit(std::string_view topic, const json::value& event) const {
        if (!has(&coffer_host_api::emit)) return false;
        auto text = json::serialize(event);
        return api_->emit(host_, to_cstr(topic), to_cstr(text)) == COFFER_OK;
    }
    bool audit(std::string_view event_type, std::string_view target, const json::value& payload) const {
        if (!has(&coffer_host_api::audit)) return false;
        auto text = json::serialize(payload);
        return api_->audit(host_, to_cstr(event_type), to_cstr(target), to_cstr(text)) == COFFER_OK;
    }
    std::string data_dir() const {
        return has(&coffer_host_api::data_dir) ? std::string(to_view(api_->data_dir(host_))) : std::string();
    }
    std::string vault_dir() const {
        return has(&coffer_host_api::vault_dir) ? std::string(to_view(api_->vault_dir(host_))) : std::string();
    }
    // ABI 1.2: record a child process the plugin started (it must lead its own process group),
    // and forget it once reaped. No-ops on an older host.
    bool child_started(std::int64_t pid, std::string_view description) const {
        if (!has(&coffer_host_api::child_started)) return false;
        return api_->child_started(host_, pid, to_cstr(description)) == COFFER_OK;
    }
    void child_exited(std::int64_t pid) const {
        if (has(&coffer_host_api::child_exited)) api_->child_exited(host_, pid);
    }
    // ABI 1.3: the secret behind "credref:<ref>" (pass `ref` without the prefix). status is
    // COFFER_OK with the value, COFFER_E_INVALID / COFFER_E_NOT_FOUND / COFFER_E_UNAVAILABLE, or
    // COFFER_E_UNSUPPORTED on a host older than 1.3. Hand the value to its upstream only; never
    // log it or put it in an error message.
    struct Credential {
        coffer_status status = COFFER_E_UNSUPPORTED;
        std::string value;
        bool ok() const noexcept { return status == COFFER_OK; }
    };
    Credential resolve_credential(std::string_view ref) const {
        Credential out;
        if (!has(&coffer_host_api::credential_resolve)) return out;
        struct Sink {
            static void take(void* ctx, coffer_str v) noexcept {
                try {
                    static_cast<std::string*>(ctx)->assign(to_view(v));
                } catch (...) {
                }
            }
        };
        out.status = api_->credential_resolve(host_, to_cstr(ref), &Sink::take, &out.value);
        if (out.status != COFFER_OK) out.value.clear();
        return out;
    }
    // ABI 1.8: keep a secret the plugin obtained (an OAuth token) as the credential `ref`, which
    // must be "<plugin name>.<name>"; an empty value deletes it. COFFER_E_UNSUPPORTED on an older
    // host (then keep nothing: never write a secret to a file of your own).
    coffer_status store_credential(std::string_view ref, std::string_view value) const {
        if (!has(&coffer_host_api::credential_store)) return COFFER_E_UNSUPPORTED;
        return api_->credential_store(host_, to_cstr(ref), to_cstr(value));
    }
    // ABI 1.9: the host's event loop (docs/abi.md section 17). has_loop() is false on an older
    // host: then run your own thread. The callbacks are C functions; ids are 0 on failure.
    bool has_loop() const {
        return has(&coffer_host_api::loop_in_loop) && api_->loop_watch && api_->loop_timer && api_->loop_defer &&
               api_->loop_cancel;
    }
    std::uint64_t loop_watch(int fd, std::uint32_t events, void (*ready)(void*, std::uint32_t), void* ctx) const {
        std::uint64_t id = 0;
        if (!has_loop() || api_->loop_watch(host_, fd, events, ready, ctx, &id) != COFFER_OK) return 0;
        return id;
    }
    std::uint64_t loop_timer(std::uint64_t delay_ms, void (*fire)(void*), void* ctx) const {
        std::uint64_t id = 0;
        if (!has_loop() || api_->loop_timer(host_, delay_ms, fire, ctx, &id) != COFFER_OK) return 0;
        return id;
    }
    std::uint64_t loop_defer(void (*fire)(void*), void* ctx) const {
        std::uint64_t id = 0;
        if (!has_loop() || api_->loop_defer(host_, fire, ctx, &id) != COFFER_OK) return 0;
        return id;
    }
    bool loop_cancel(std::uint64_t id) const { return has_loop() && api_->loop_cancel(host_, id) == COFFER_OK; }
    bool in_loop() const { return has_loop() && api_->loop_in_loop(host_) != 0; }

    const coffer_host_api* api() const noexcept { return api_; }
    coffer_host* handle() const noexcept { return host_; }

private:
    const coffer_host_api* api_ = nullptr;
    coffer_host* host_ = nullptr;
};

// What the host tells an instance about its resource.
struct ResourceInfo {
    std::string uid, kind, name, description;
    json::object config;
    bool enabled = false;
    // ABI 1.7: the resource's scope and this machine's identity (a 1.6 host sends neither: the
    // scope is then "everywhere, every agent"). See coffer/scope.hpp.
    // Kept as JSON text (empty = the default) so ResourceInfo stays plain strings and values.
    std::string scope_json;
    std::string machine;
    json::array scope() const {
        boost::system::error_code ec;
        auto v = scope_json.empty() ? json::value() : json::parse(scope_json, ec);
        if (ec || !v.is_array()) return json::array{json::object{{"machine", "*"}, {"agents", json::array{"*"}}}};
        return v.as_array();
    }
    bool for_agent(const std::string& agent) const { return coffer::scope::in_agent(scope(), machine.empty() ? "*" : machine, agent); }
};

// ---- MCP capability providers (ABI 1.2) ----

// A pending call routed to this provider. Move-only; complete it exactly once, from any thread.
// Dropping it uncompleted answers the client with an internal error, so no call is ever lost.
class McpCall {
public:
    McpCall() = default;
    McpCall(const coffer_host_api* api, coffer_call* call)
        : api_(api), call_(call), done_(std::make_shared<std::atomic<bool>>(false)) {}
    McpCall(McpCall&& o) noexcept : api_(o.api_), call_(o.call_), done_(std::move(o.done_)) { o.call_ = nullptr; }
    McpCall& operator=(McpCall&& o) noexcept {
        if (this != &o) {
            abandon();
            api_ = o.api_;
            call_ = o.call_;
            done_ = std::move(o.done_);
            o.call_ = nullptr;
        }
        return *this;
    }
    McpCall(const McpCall&) = delete;
    McpCall& operator=(const McpCall&) = delete;
    ~McpCall() { abandon(); }

    // The JSON-RPC `result` object, as raw text (forwarded byte for byte).
    void result(std::string_view raw_result_json) { finish(raw_result_json, {}); }
    // A JSON-RPC error.
    void error(int code, std::string_view message, const json::value& data = nullptr) {
        json::object e{{"code", code}, {"message", message}};
        if (!data.is_null()) e["data"] = data;
        auto text = json::serialize(e);
        finish({}, text);
    }
    void error_raw(std::string_view raw_error_json) { finish({}, raw_error_json); }
    bool pending() const { return call_ && done_ && !done_->load(); }
    coffer_call* handle() const noexcept { return call_; }
    std::shared_ptr<std::atomic<bool>> done_flag() const { return done_; }

private:
    void finish(std::string_view result, std::string_view error) {
        if (!call_ || !done_ || done_->exchange(true)) return;
        if (api_ && api_->call_complete) api_->call_complete(call_, to_cstr(result), to_cstr(error));
        call_ = nullptr;
    }
    void abandon() {
        if (pending()) error(-32603, "the provider dropped the request without answering");
    }
    const coffer_host_api* api_ = nullptr;
    coffer_call* call_ = nullptr;
    std::shared_ptr<std::atomic<bool>> done_;
};

// The downstream session, as seen by a provider: send notifications and server-initiated
// requests to the client. Copyable; valid until the provider's session state is destroyed.
class McpSession {
public:
    McpSession() = default;
    McpSession(const coffer_host_api* api, coffer_session* s) : api_(api), s_(s) {}
    bool notify_raw(std::string_view notification_json, coffer_call* related = nullptr) const {
        if (!api_ || !api_->session_notify) return false;
        return api_->session_notify(s_, related, to_cstr(notification_json)) == COFFER_OK;
    }
    bool notify(const json::value& notification, coffer_call* related = nullptr) const {
        return notify_raw(json::serialize(notification), related);
    }
    bool request(std::uint64_t token, const json::value& req, coffer_call* related = nullptr) const {
        if (!api_ || !api_->session_request) return false;
        auto text = json::serialize(req);
        return api_->session_request(s_, related, token, to_cstr(text)) == COFFER_OK;
    }
    coffer_session* handle() const noexcept { return s_; }

private:
    const coffer_host_api* api_ = nullptr;
    coffer_session* s_ = nullptr;
};

// One (session, instance) pair. Destroyed when the session ends: release upstreams there and
// complete (or drop) every pending McpCall.
class McpSessionState {
public:
    virtual ~McpSessionState() = default;
    // method: "tools/list", "tools/call", …; params_json: the raw params object text.
    virtual void request(McpCall call, std::string_view method, std::string_view params_json) = 0;
    virtual void cancel(coffer_call* call) { (void)call; }
    virtual void respond(std::uint64_t token, std::string_view result_json, std::string_view error_json) {
        (void)token, (void)result_json, (void)error_json;
    }
    // ABI 1.4: a client notification for this session (today notifications/roots/list_changed);
    // params_json is an object. Nothing to answer; a host older than 1.4 never calls it.
    virtual void notify(std::string_view method, std::string_view params_json) { (void)method, (void)params_json; }
};

// ---- Agent drivers (ABI 1.5) ----

// One running agent turn, as seen by a driver. Copyable (the copies share one state); report
// events with event() from any thread, in order, and end with exactly one complete(). When the
// last copy goes away without complete(), the turn is completed as an error, so the host never
// waits forever on a turn a driver lost.
class AgentTurn {
    struct State {
        const coffer_host_api* api = nullptr;
        coffer_turn* turn = nullptr;
        std::atomic<bool> done{false};
        ~State() {
            if (!done.exchange(true) && api && api->turn_event) {
                static constexpr std::string_view lost =
                    R"({"type":"turn.completed","status":"error","error":"the driver dropped the turn"})";
                api->turn_event(turn, to_cstr(lost));
            }
        }
    };

public:
    AgentTurn() = default;
    AgentTurn(const coffer_host_api* api, coffer_turn* turn) : s_(std::make_shared<State>()) {
        s_->api = api;
        s_->turn = turn;
    }
    // A normalised event (an object with "type"); ignored once the turn is complete. A
    // "turn.completed" passed here completes the turn.
    bool event(const json::object& e) const {
        if (!s_ || s_->done.load()) return false;
        if (auto* t = e.if_contains("type"); t && t->is_string() && t->as_string() == "turn.completed")
            if (s_->done.exchange(true)) return false;
        if (!s_->api || !s_->api->turn_event) return false;
        auto text = json::serialize(e);
        return s_->api->turn_event(s_->turn, to_cstr(text)) == COFFER_OK;
    }
    // The one terminal event: status "ok", "error" or "interrupted".
    bool complete(std::string_view status, json::object fields = {}) const {
        fields["type"] = "turn.completed";
        fields["status"] = status;
        return event(fields);
    }
    bool done() const noexcept { return !s_ || s_->done.load(); }
    // The turn never started (start_turn refused it): no event, not even the lost-turn one.
    void discard() const noexcept {
        if (s_) s_->done.store(true);
    }
    coffer_turn* handle() const noexcept { return s_ ? s_->turn : nullptr; }

private:
    std::shared_ptr<State> s_;
};

// ---- Channel adapters (ABI 1.6) ----

// The host's handle of one receiving channel, as seen by an adapter. Copyable; inbound() may be
// called from any thread. The ack callback runs on the host's thread once the message is the
// host's (COFFER_OK: commit the platform offset) or was not kept (another status: deliver again).
class Channel {
public:
    using Ack = std::function<void(coffer_status)>;
    Channel() = default;
    Channel(const coffer_host_api* api, coffer_channel* channel) : api_(api), channel_(channel) {}

    // Returns the host's answer (COFFER_E_INVALID for a malformed envelope, COFFER_E_NOT_FOUND
    // once stopped, COFFER_E_UNSUPPORTED on a host older than 1.6); ack is called only on COFFER_OK.
    coffer_status inbound(const json::object& envelope, Ack ack = {}) const {
        if (!supported()) return COFFER_E_UNSUPPORTED;
        auto text = json::serialize(envelope);
        auto* box = ack ? new Ack(std::move(ack)) : nullptr;
        auto st = api_->channel_inbound(channel_, to_cstr(text), box ? &Channel::run_ack : nullptr, box);
        if (st != COFFER_OK) delete box;
        return st;
    }
    bool supported() const noexcept {
        return api_ && api_->struct_size >= offsetof(coffer_host_api, channel_inbound) + sizeof(api_->channel_inbound) &&
               api_->channel_inbound != nullptr;
    }
    coffer_channel* handle() const noexcept { return channel_; }

private:
    static void run_ack(void* ctx, coffer_status st) noexcept {
        auto* f = static_cast<Ack*>(ctx);
        try {
            (*f)(st);
        } catch (...) {
        }
        delete f;
    }
    const coffer_host_api* api_ = nullptr;
    coffer_channel* channel_ = nullptr;
};

// One live resource. Override what the kind needs; defaults are no-ops.
class Instance {
public:
    virtual ~Instance() = default;
    // Config changed (already validated). Default: accept and keep the new config.
    virtual void update(const json::object& config) { info_.config = config; }
    // The scope changed (ABI 1.7; info().scope() is already the new one when this runs). Default: nothing.
    virtual void rescope() {}
    virtual void start() {}
    virtual void stop() {}
    virtual json::value status() { return json::object{}; }
    virtual json::value action(std::string_view name, const json::object& args) {
        (void)args;
        throw Error(COFFER_E_UNSUPPORTED, "unknown action: " + std::string(name));
    }
    virtual void remove() {}
    // MCP gateway (ABI 1.2): only called when the kind's provides_mcp() is true.
    virtual std::unique_ptr<McpSessionState> open_mcp(McpSession session, const json::object& info) {
        (void)session, (void)info;
        throw Error(COFFER_E_UNSUPPORTED, "this resource contributes nothing to the MCP gateway");
    }
    // Agent drivers (ABI 1.5): only called when the kind's drives_agent() is true. start_turn
    // must not block: start the agent and return; report through `turn` (see AgentTurn).
    // Throwing means nothing started (the turn then gets no events).
    virtual void start_turn(AgentTurn turn, const json::object& request) {
        (void)turn, (void)request;
        throw Error(COFFER_E_UNSUPPORTED, "this resource is not an agent");
    }
    // Stop the turn's whole process tree; it still completes, as "interrupted". Must not block.
    virtual void interrupt_turn(coffer_turn* turn) { (void)turn; }

    // Channel adapters (ABI 1.6): only called when the kind's is_channel() is true. None may
    // block; requests are JSON objects as coffer_channel_adapter describes them.
    virtual json::object channel_capabilities() { return json::object{}; }
    virtual void channel_start(Channel channel) { (void)channel; }
    virtual void channel_stop() {}
    virtual void channel_send(const json::object& request) {
        (void)request;
        throw Error(COFFER_E_UNSUPPORTED, "this resource is not a channel");
    }
    virtual void channel_edit(const json::object& request) {
        (void)request;
        throw Error(COFFER_E_UNSUPPORTED, "this channel cannot edit messages");
    }
    virtual void channel_typing(const json::object& request) { (void)request; }

    const ResourceInfo& info() const noexcept { return info_; }
    void set_info(ResourceInfo info) { info_ = std::move(info); }
    void set_scope(json::array scope, std::string machine) {
        info_.scope_json = json::serialize(scope);
        if (!machine.empty()) info_.machine = std::move(machine);
    }

protected:
    ResourceInfo info_;
};

struct ActionInfo {
    std::string name, description;
};

// One resource kind.
class Kind {
public:
    virtual ~Kind() = default;
    virtual std::string name() const = 0;
    virtual std::string schema() const = 0;                        // JSON Schema text
    virtual std::vector<ActionInfo> actions() const { return {}; }
    virtual void validate(const json::object& config, Validation& v) { (void)config, (void)v; }
    virtual std::unique_ptr<Instance> create(const ResourceInfo& resource) = 0;
    // Kind-level actions (ABI 1.1): not tied to one resource.
    virtual std::vector<ActionInfo> kind_actions() const { return {}; }
    // True when instances contribute tools/resources/prompts to the MCP gateway (ABI 1.2).
    virtual bool provides_mcp() const { return false; }
    // True when instances are coding agents driven turn by turn (ABI 1.5).
    virtual bool drives_agent() const { return false; }
    // True when instances are IM channel adapters (ABI 1.6).
    virtual bool is_channel() const { return false; }
    virtual json::value kind_action(std::string_view name, const json::object& args) {
        (void)args;
        throw Error(COFFER_E_UNSUPPORTED, "unknown kind action: " + std::string(name));
    }
};

// The plugin: owns its kinds; init/shutdown bracket its life.
class Plugin {
public:
    virtual ~Plugin() = default;
    virtual void init(const json::value& config) { (void)config; }
    virtual void shutdown() {}

    const Host& host() const noexcept { return host_; }
    std::vector<std::unique_ptr<Kind>>& kinds() noexcept { return kinds_; }

    template <typename K, typename... Args> K& add_kind(Args&&... args) {
        auto k = std::make_unique<K>(std::forward<Args>(args)...);
        K& ref = *k;
        kinds_.push_back(std::move(k));
        return ref;
    }

    void attach(const Host& h) { host_ = h; }

private:
    Host host_;
    std::vector<std::unique_ptr<Kind>> kinds_;
};

// The plumbing below holds per-library state (function-local statics). It must stay private to
// each plugin library even when the plugin is built without -fvisibility=hidden: otherwise the
// statics become STB_GNU_UNIQUE symbols, which the dynamic linker merges across libraries despite
// RTLD_LOCAL, and a second plugin's entry would return the first plugin's descriptor.
#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility push(hidden)
#endif
namespace detail {

struct KindSlot {
    coffer_kind desc{};  // desc.kind_data points back to this slot (survives a host-side copy)
    Kind* impl = nullptr;
    std::string name, schema, actions, kind_actions;
};

struct InstanceBox {
    std::unique_ptr<Instance> impl;
};

inline const coffer_host_api*& host_api() {
    static const coffer_host_api* api = nullptr;
    return api;
}

inline void reply_error(coffer_reply* r, coffer_status st, std::string_view msg, const json::value& details) {
    auto* api = host_api();
    if (!api || !r || !api->reply_error) return;
    std::string d = details.is_null() ? std::string() : json::serialize(details);
    api->reply_error(r, st, to_cstr(msg), to_cstr(d));
}

inline void reply_json(coffer_reply* r, const json::value& v) {
    auto* api = host_api();
    if (!api || !r || !api->reply_json) return;
    auto text = json::serialize(v);
    api->reply_json(r, to_cstr(text));
}

// Run `f`, converting every exception into an error reply.
template <typename F> coffer_status guarded(coffer_reply* r, F&& f) noexcept {
    try {
        return f();
    } catch (const Error& e) {
        reply_error(r, e.status(), e.what(), e.details());
        return e.status();
    } catch (const std::exception& e) {
        reply_error(r, COFFER_E_INTERNAL, e.what(), nullptr);
        return COFFER_E_INTERNAL;
    } catch (...) {
        reply_error(r, COFFER_E_INTERNAL, "unknown exception in plugin", nullptr);
        return COFFER_E_INTERNAL;
    }
}

inline json::object parse_object(coffer_str text, std::string_view what) {
    boost::system::error_code ec;
    auto v = json::parse(to_view(text), ec);
    if (ec || !v.is_object()) throw Error(COFFER_E_INVALID, std::string(what) + " must be a JSON object");
    return std::move(v.as_object());
}

inline Instance& inst(coffer_instance* i) { return *reinterpret_cast<InstanceBox*>(i)->impl; }

inline coffer_status k_validate(void*, const coffer_kind* k, coffer_str config, coffer_reply* r) {
    return guarded(r, [&] {
        auto* slot = static_cast<const KindSlot*>(k->kind_data);
        auto cfg = parse_object(config, "config");
        Validation v;
        slot->impl->validate(cfg, v);
        if (!v.ok()) {
            reply_error(r, COFFER_E_INVALID, "config is invalid", json::object{{"errors", v.errors()}});
            return COFFER_E_INVALID;
        }
        return COFFER_OK;
    });
}

inline coffer_status k_create(void*, const coffer_kind* k, coffer_str resource, coffer_instance** out,
                              coffer_reply* r) {
    return guarded(r, [&] {
        auto* slot = static_cast<const KindSlot*>(k->kind_data);
        auto obj = parse_object(resource, "resource");
        ResourceInfo info;
        auto str = [&](const char* key) {
            auto* p = obj.if_contains(key);
            return (p && p->is_string()) ? std::string(p->as_string()) : std::string();
        };
        info.uid = str("uid");
        info.kind = str("kind");
        info.name = str("name");
        info.description = str("description");
        if (auto* c = obj.if_contains("config"); c && c->is_object()) info.config = c->as_object();
        if (auto* e = obj.if_contains("enabled"); e && e->is_bool()) info.enabled = e->as_bool();
        if (auto* sc = obj.if_contains("scope"); sc && sc->is_array()) info.scope_json = json::serialize(*sc);
        info.machine = str("machine");
        auto impl = slot->impl->create(info);
        if (!impl) throw Error(COFFER_E_INTERNAL, "kind returned no instance");
        impl->set_info(std::move(info));
        *out = reinterpret_cast<coffer_instance*>(new InstanceBox{std::move(impl)});
        return COFFER_OK;
    });
}

inline coffer_status k_update(coffer_instance* i, coffer_str config, coffer_reply* r) {
    return guarded(r, [&] {
        inst(i).update(parse_object(config, "config"));
        return COFFER_OK;
    });
}
inline coffer_status k_rescope(coffer_instance* i, coffer_str scope, coffer_reply* r) {
    return guarded(r, [&] {
        auto obj = parse_object(scope, "scope");
        auto& in = inst(i);
        auto* sc = obj.if_contains("scope");
        if (!sc || !sc->is_array()) throw Error(COFFER_E_INVALID, "scope must be an array");
        in.set_scope(sc->as_array(), obj.if_contains("machine") && obj.at("machine").is_string()
                                         ? std::string(obj.at("machine").as_string())
                                         : std::string());
        in.rescope();
        return COFFER_OK;
    });
}
inline coffer_status k_start(coffer_instance* i, coffer_reply* r) {
    return guarded(r, [&] { inst(i).start(); return COFFER_OK; });
}
inline coffer_status k_stop(coffer_instance* i, coffer_reply* r) {
    return guarded(r, [&] { inst(i).stop(); return COFFER_OK; });
}
inline coffer_status k_status(coffer_instance* i, coffer_reply* r) {
    return guarded(r, [&] { reply_json(r, inst(i).status()); return COFFER_OK; });
}
inline coffer_status k_action(coffer_instance* i, coffer_str name, coffer_str args, coffer_reply* r) {
    return guarded(r, [&] {
        json::object a = args.len ? parse_object(args, "action arguments") : json::object{};
        reply_json(r, inst(i).action(to_view(name), a));
        return COFFER_OK;
    });
}
inline coffer_status k_remove(coffer_instance* i, coffer_reply* r) {
    return guarded(r, [&] { inst(i).remove(); return COFFER_OK; });
}
struct McpStateBox {
    std::unique_ptr<McpSessionState> impl;
};

inline coffer_status m_open(coffer_instance* i, coffer_session* s, coffer_str info, void** state, coffer_reply* r) {
    return guarded(r, [&] {
        auto obj = parse_object(info, "session");
        auto impl = inst(i).open_mcp(McpSession(host_api(), s), obj);
        if (!impl) throw Error(COFFER_E_INTERNAL, "open_mcp returned no session state");
        *state = new McpStateBox{std::move(impl)};
        return COFFER_OK;
    });
}

inline coffer_status m_request(void* state, coffer_call* c, coffer_str method, coffer_str params, coffer_reply* r) {
    (void)r;
    McpCall call(host_api(), c);
    auto done = call.done_flag();
    auto fail = [&](std::string_view msg) {
        if (!done->exchange(true)) {
            std::string e = json::serialize(json::object{{"code", -32603}, {"message", msg}});
            host_api()->call_complete(c, to_cstr(std::string_view()), to_cstr(e));
        }
    };
    try {
        static_cast<McpStateBox*>(state)->impl->request(std::move(call), to_view(method),
                                                        params.len ? to_view(params) : std::string_view("{}"));
    } catch (const std::exception& e) {
        fail(e.what());
    } catch (...) {
        fail("unknown exception in provider");
    }
    return COFFER_OK;
}

inline void m_cancel(void* state, coffer_call* c) {
    try {
        static_cast<McpStateBox*>(state)->impl->cancel(c);
    } catch (...) {
    }
}

inline void m_respond(void* state, uint64_t token, coffer_str result, coffer_str error) {
    try {
        static_cast<McpStateBox*>(state)->impl->respond(token, to_view(result), to_view(error));
    } catch (...) {
    }
}

inline void m_notify(void* state, coffer_str method, coffer_str params) {
    try {
        static_cast<McpStateBox*>(state)->impl->notify(to_view(method),
                                                       params.len ? to_view(params) : std::string_view("{}"));
    } catch (...) {
    }
}

inline void m_close(void* state) {
    try {
        delete static_cast<McpStateBox*>(state);
    } catch (...) {
    }
}

inline const coffer_mcp_provider* mcp_table() {
    static const coffer_mcp_provider t = [] {
        coffer_mcp_provider p{};
        p.struct_size = sizeof(coffer_mcp_provider);
        p.open = &m_open;
        p.request = &m_request;
        p.cancel = &m_cancel;
        p.respond = &m_respond;
        p.close = &m_close;
        p.notify = &m_notify;  // 1.4
        return p;
    }();
    return &t;
}

inline coffer_status a_start(coffer_instance* i, coffer_turn* t, coffer_str request, coffer_reply* r) {
    AgentTurn turn(host_api(), t);
    auto st = guarded(r, [&] {
        auto req = parse_object(request, "turn request");
        inst(i).start_turn(turn, req);
        return COFFER_OK;
    });
    if (st != COFFER_OK) turn.discard();  // refused: the host expects no event for this turn
    return st;
}

inline void a_interrupt(coffer_instance* i, coffer_turn* t) {
    try {
        inst(i).interrupt_turn(t);
    } catch (...) {
    }
}

inline const coffer_agent_driver* agent_table() {
    static const coffer_agent_driver t = [] {
        coffer_agent_driver a{};
        a.struct_size = sizeof(coffer_agent_driver);
        a.start_turn = &a_start;
        a.interrupt = &a_interrupt;
        return a;
    }();
    return &t;
}

inline coffer_status c_capabilities(coffer_instance* i, coffer_reply* r) {
    return guarded(r, [&] { reply_json(r, inst(i).channel_capabilities()); return COFFER_OK; });
}
inline coffer_status c_start(coffer_instance* i, coffer_channel* ch, coffer_reply* r) {
    return guarded(r, [&] { inst(i).channel_start(Channel(host_api(), ch)); return COFFER_OK; });
}
inline void c_stop(coffer_instance* i) {
    try {
        inst(i).channel_stop();
    } catch (...) {
    }
}
inline coffer_status c_send(coffer_instance* i, coffer_str req, coffer_reply* r) {
    return guarded(r, [&] { inst(i).channel_send(parse_object(req, "send request")); return COFFER_OK; });
}
inline coffer_status c_edit(coffer_instance* i, coffer_str req, coffer_reply* r) {
    return guarded(r, [&] { inst(i).channel_edit(parse_object(req, "edit request")); return COFFER_OK; });
}
inline coffer_status c_typing(coffer_instance* i, coffer_str req, coffer_reply* r) {
    return guarded(r, [&] { inst(i).channel_typing(parse_object(req, "typing request")); return COFFER_OK; });
}
inline const coffer_channel_adapter* channel_table() {
    static const coffer_channel_adapter t = [] {
        coffer_channel_adapter c{};
        c.struct_size = sizeof(coffer_channel_adapter);
        c.capabilities = &c_capabilities;
        c.start = &c_start;
        c.stop = &c_stop;
        c.send = &c_send;
        c.edit = &c_edit;
        c.typing = &c_typing;
        return c;
    }();
    return &t;
}

inline void k_destroy(coffer_instance* i) {
    try {
        delete reinterpret_cast<InstanceBox*>(i);
    } catch (...) {
    }
}

// Static state behind the macro: one per plugin library.
struct Registry {
    std::unique_ptr<Plugin> plugin;
    std::vector<std::unique_ptr<KindSlot>> slots;
    std::vector<const coffer_kind*> table;
    coffer_plugin desc{};
    std::string name, version;
};

inline Registry& registry() {
    static Registry r;
    return r;
}

inline coffer_status p_init(const coffer_host_api* api, coffer_host* host, coffer_str config, void** ctx,
                            coffer_reply* r) {
    host_api() = api;
    return guarded(r, [&] {
        auto& reg = registry();
        reg.plugin->attach(Host(api, host));
        boost::system::error_code ec;
        json::value cfg = config.len ? json::parse(to_view(config), ec) : json::value(json::object{});
        if (ec) throw Error(COFFER_E_INVALID, "plugin config is not JSON");
        reg.plugin->init(cfg);
        *ctx = reg.plugin.get();
        return COFFER_OK;
    });
}

inline void p_shutdown(void*) {
    try {
        registry().plugin->shutdown();
    } catch (...) {
    }
}

inline std::string actions_text(const std::vector<ActionInfo>& list) {
    json::array a;
    for (auto& act : list) a.push_back(json::object{{"name", act.name}, {"description", act.description}});
    return json::serialize(a);
}

inline coffer_status k_kind_action(void*, const coffer_kind* k, coffer_str name, coffer_str args, coffer_reply* r) {
    return guarded(r, [&] {
        auto* slot = static_cast<const KindSlot*>(k->kind_data);
        json::object a = args.len ? parse_object(args, "action arguments") : json::object{};
        reply_json(r, slot->impl->kind_action(to_view(name), a));
        return COFFER_OK;
    });
}

template <typename P>
const coffer_plugin* entry(uint16_t host_major, uint16_t host_minor, const char* name, const char* version) noexcept {
    (void)host_minor;
    if (host_major != COFFER_ABI_MAJOR) return nullptr;
    try {
        auto& reg = registry();
        if (reg.plugin) return &reg.desc;
        reg.plugin = std::make_unique<P>();
        reg.name = name;
        reg.version = version;
        for (auto& k : reg.plugin->kinds()) {
            auto slot = std::make_unique<KindSlot>();
            slot->impl = k.get();
            slot->name = k->name();
            slot->schema = k->schema();
            slot->actions = actions_text(k->actions());
            slot->kind_actions = actions_text(k->kind_actions());
            auto& d = slot->desc;
            d.struct_size = sizeof(coffer_kind);
            d.name = to_cstr(slot->name);
            d.schema_json = to_cstr(slot->schema);
            d.actions_json = to_cstr(slot->actions);
            d.kind_data = slot.get();
            d.validate = &k_validate;
            d.create = &k_create;
            d.update = &k_update;
            d.start = &k_start;
            d.stop = &k_stop;
            d.status = &k_status;
            d.action = &k_action;
            d.remove = &k_remove;
            d.destroy = &k_destroy;
            d.kind_actions_json = to_cstr(slot->kind_actions);
            d.kind_action = &k_kind_action;
            d.mcp = k->provides_mcp() ? mcp_table() : nullptr;
            d.agent = k->drives_agent() ? agent_table() : nullptr;  // 1.5
            d.channel = k->is_channel() ? channel_table() : nullptr;  // 1.6
            d.rescope = &k_rescope;                                      // 1.7
            reg.table.push_back(&slot->desc);
            reg.slots.push_back(std::move(slot));
        }
        auto& p = reg.desc;
        p.struct_size = sizeof(coffer_plugin);
        p.abi_major = COFFER_ABI_MAJOR;
        p.abi_minor = COFFER_ABI_MINOR;
        p.min_host_minor = 0;
        p.name = to_cstr(reg.name);
        p.version = to_cstr(reg.version);
        p.init = &p_init;
        p.shutdown = &p_shutdown;
        p.kind_count = reg.table.size();
        p.kinds = reg.table.data();
        return &p;
    } catch (...) {
        // Never leave a half-built descriptor behind for the next call to return.
        auto& reg = registry();
        reg.table.clear();
        reg.slots.clear();
        reg.plugin.reset();
        return nullptr;
    }
}

}  // namespace detail
#if defined(__GNUC__) && !defined(_WIN32)
#pragma GCC visibility pop
#endif
}  // namespace coffer::sdk

// Turns a coffer::sdk::Plugin subclass into the plugin's single exported entry symbol.
// The class registers its kinds in its constructor (add_kind<...>()).
#define COFFER_PLUGIN(PluginClass, NameLiteral, VersionLiteral)                                   \
    extern "C" COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major,      \
                                                                         uint16_t host_minor) {     \
        return ::coffer::sdk::detail::entry<PluginClass>(host_major, host_minor, NameLiteral,      \
                                                         VersionLiteral);                           \
    }
