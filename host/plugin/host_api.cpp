#include "plugin/host_api.hpp"

#include "core/log.hpp"
#include "plugin/channels.hpp"
#include "plugin/handles.hpp"
#include "plugin/loop.hpp"
#include "plugin/turns.hpp"

#include <coffer/credref.hpp>

#include <boost/json.hpp>

#include <openssl/crypto.h>

#include <system_error>

namespace coffer::plugin {

namespace {
std::string_view view(coffer_str s) { return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view(); }

void h_log(coffer_host* h, int level, coffer_str msg) {
    if (!h) return;
    core::log::Level l = core::log::Level::info;
    if (level <= COFFER_LOG_DEBUG) l = core::log::Level::debug;
    else if (level == COFFER_LOG_WARN) l = core::log::Level::warn;
    else if (level >= COFFER_LOG_ERROR) l = core::log::Level::error;
    core::log::write(l, view(msg), {{"plugin", h->plugin_name}});
}
void h_reply_json(coffer_reply* r, coffer_str json) {
    if (!r) return;
    r->has_json = true;
    r->json.assign(view(json));
}
void h_reply_error(coffer_reply* r, coffer_status st, coffer_str msg, coffer_str details) {
    if (!r) return;
    r->has_error = true;
    r->status = st;
    r->message.assign(view(msg));
    r->details.assign(view(details));
}
coffer_status h_emit(coffer_host* h, coffer_str topic, coffer_str event) {
    if (!h || !h->services || !h->services->emit) return COFFER_E_UNSUPPORTED;
    boost::system::error_code ec;
    (void)boost::json::parse(view(event), ec);
    if (ec) return COFFER_E_INVALID;
    h->services->emit(h->plugin_name, std::string(view(topic)), std::string(view(event)));
    return COFFER_OK;
}
coffer_status h_audit(coffer_host* h, coffer_str type, coffer_str target, coffer_str payload) {
    if (!h || !h->services || !h->services->audit) return COFFER_E_UNSUPPORTED;
    std::string p(view(payload));
    if (p.empty()) p = "{}";
    boost::system::error_code ec;
    (void)boost::json::parse(p, ec);
    if (ec || view(type).empty()) return COFFER_E_INVALID;
    h->services->audit(h->plugin_name, std::string(view(type)), std::string(view(target)), p);
    return COFFER_OK;
}
coffer_str h_data_dir(coffer_host* h) {
    if (!h) return {nullptr, 0};
    std::error_code ec;
    std::filesystem::create_directories(h->data_dir, ec);
    return {h->data_dir.data(), h->data_dir.size()};
}
coffer_str h_vault_dir(coffer_host* h) {
    if (!h) return {nullptr, 0};
    return {h->vault_dir.data(), h->vault_dir.size()};
}
// A handle the host no longer knows (its session closed, its call was abandoned) is ignored.
void h_call_complete(coffer_call* call, coffer_str result, coffer_str error) {
    (void)complete_call(call, view(result), view(error));
}
coffer_status h_session_notify(coffer_session* s, coffer_call* related, coffer_str notification) {
    if (!s) return COFFER_E_INVALID;
    return session_notify(s, related, view(notification));
}
coffer_status h_session_request(coffer_session* s, coffer_call* related, uint64_t token, coffer_str request) {
    if (!s) return COFFER_E_INVALID;
    return session_request(s, related, token, view(request));
}
coffer_status h_child_started(coffer_host* h, int64_t pid, coffer_str description) {
    if (!h || !h->services || !h->services->child_started) return COFFER_E_UNSUPPORTED;
    if (pid <= 1) return COFFER_E_INVALID;
    try {
        return h->services->child_started(h->plugin_name, pid, std::string(view(description))) ? COFFER_OK
                                                                                               : COFFER_E_INTERNAL;
    } catch (...) {
        return COFFER_E_INTERNAL;
    }
}
void h_child_exited(coffer_host* h, int64_t pid) {
    if (!h || !h->services || !h->services->child_exited || pid <= 1) return;
    try {
        h->services->child_exited(h->plugin_name, pid);
    } catch (...) {
    }
}
coffer_status h_credential_resolve(coffer_host* h, coffer_str ref, void (*sink)(void*, coffer_str), void* ctx) {
    if (!h || !h->services || !h->services->resolve_credential) return COFFER_E_UNSUPPORTED;
    if (!sink) return COFFER_E_INVALID;
    std::string value;
    coffer_status st = COFFER_E_INTERNAL;
    try {
        st = h->services->resolve_credential(h->plugin_name, view(ref), value);
    } catch (...) {
        st = COFFER_E_INTERNAL;
    }
    if (st == COFFER_OK) sink(ctx, coffer_str{value.data(), value.size()});
    OPENSSL_cleanse(value.data(), value.size());
    return st;
}
coffer_status h_credential_store(coffer_host* h, coffer_str ref, coffer_str value) {
    if (!h || !h->services || !h->services->store_credential) return COFFER_E_UNSUPPORTED;
    auto r = view(ref);
    const std::string prefix = h->plugin_name + ".";
    if (!r.starts_with(prefix) || r.size() == prefix.size()) return COFFER_E_DENIED;
    if (!credref::ref_problem(r).empty()) return COFFER_E_INVALID;
    try {
        return h->services->store_credential(h->plugin_name, std::string(r), std::string(view(value)));
    } catch (...) {
        return COFFER_E_INTERNAL;
    }
}
Loop* loop_of(coffer_host* h) { return h && h->services ? h->services->loop.get() : nullptr; }
coffer_status h_loop_watch(coffer_host* h, int fd, uint32_t events, void (*ready)(void*, uint32_t), void* ctx,
                           uint64_t* id) {
    auto* loop = loop_of(h);
    if (!loop) return COFFER_E_UNSUPPORTED;
    return loop->watch(h->plugin_name, fd, events, ready, ctx, id);
}
coffer_status h_loop_timer(coffer_host* h, uint64_t delay_ms, void (*fire)(void*), void* ctx, uint64_t* id) {
    auto* loop = loop_of(h);
    if (!loop) return COFFER_E_UNSUPPORTED;
    return loop->timer(h->plugin_name, delay_ms, fire, ctx, id);
}
coffer_status h_loop_defer(coffer_host* h, void (*fire)(void*), void* ctx, uint64_t* id) {
    auto* loop = loop_of(h);
    if (!loop) return COFFER_E_UNSUPPORTED;
    return loop->defer(h->plugin_name, fire, ctx, id);
}
coffer_status h_loop_cancel(coffer_host* h, uint64_t id) {
    auto* loop = loop_of(h);
    if (!loop) return COFFER_E_UNSUPPORTED;
    return loop->cancel(h->plugin_name, id);
}
int h_loop_in_loop(coffer_host* h) {
    auto* loop = loop_of(h);
    return loop && loop->in_loop() ? 1 : 0;
}
coffer_status h_turn_event(coffer_turn* turn, coffer_str event) {
    auto sink = current_turn_sink();
    if (!sink || !*sink) return COFFER_E_UNSUPPORTED;
    boost::system::error_code ec;
    auto v = boost::json::parse(view(event), ec);
    if (ec || !v.is_object()) return COFFER_E_INVALID;
    auto* type = v.as_object().if_contains("type");
    if (!type || !type->is_string()) return COFFER_E_INVALID;
    try {
        return (*sink)(turn_number(turn), std::move(v.as_object()));
    } catch (...) {
        return COFFER_E_INTERNAL;
    }
}
coffer_status h_channel_inbound(coffer_channel* channel, coffer_str envelope, void (*ack)(void*, coffer_status), void* ctx) {
    auto sink = current_channel_sink();
    if (!sink || !*sink) return COFFER_E_UNSUPPORTED;
    boost::system::error_code ec;
    auto v = boost::json::parse(view(envelope), ec);
    if (ec || !v.is_object() || !check_envelope(v.as_object()).empty()) return COFFER_E_INVALID;
    ChannelAck done;
    if (ack) done = [ack, ctx](coffer_status st) { ack(ctx, st); };
    try {
        return (*sink)(channel_number(channel), std::move(v.as_object()), std::move(done));
    } catch (...) {
        return COFFER_E_INTERNAL;
    }
}
}  // namespace

const coffer_host_api* host_api() {
    static const coffer_host_api api = [] {
        coffer_host_api a{};
        a.struct_size = sizeof(coffer_host_api);
        a.abi_major = COFFER_ABI_MAJOR;
        a.abi_minor = COFFER_ABI_MINOR;
        a.log = &h_log;
        a.reply_json = &h_reply_json;
        a.reply_error = &h_reply_error;
        a.emit = &h_emit;
        a.audit = &h_audit;
        a.data_dir = &h_data_dir;
        a.vault_dir = &h_vault_dir;
        a.call_complete = &h_call_complete;
        a.session_notify = &h_session_notify;
        a.session_request = &h_session_request;
        a.child_started = &h_child_started;
        a.child_exited = &h_child_exited;
        a.credential_resolve = &h_credential_resolve;
        a.turn_event = &h_turn_event;
        a.channel_inbound = &h_channel_inbound;
        a.credential_store = &h_credential_store;
        a.loop_watch = &h_loop_watch;
        a.loop_timer = &h_loop_timer;
        a.loop_defer = &h_loop_defer;
        a.loop_cancel = &h_loop_cancel;
        a.loop_in_loop = &h_loop_in_loop;
        return a;
    }();
    return &api;
}

}  // namespace coffer::plugin
