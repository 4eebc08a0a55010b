#include "resource/instances.hpp"

#include "core/log.hpp"
#include "plugin/call.hpp"
#include "resource/scope.hpp"

#include <boost/json.hpp>

namespace coffer::resource {

namespace json = boost::json;
using plugin::call;
using plugin::cstr;

namespace {
std::string resource_doc(const Resource& r) {
    return json::serialize(json::object{{"uid", r.uid},
                                        {"kind", r.kind},
                                        {"name", r.name},
                                        {"description", r.description},
                                        {"enabled", r.enabled},
                                        {"config", r.config},
                                        {"scope", r.scope},  // ABI 1.7
                                        {"machine", this_machine()}});
}
// Any kind that contributes to the gateway may carry this curation policy in its config (G-22).
bool auto_enable_new(const Resource& r) {
    auto* v = r.config.if_contains("auto_enable_new");
    return !(v && v->is_bool() && !v->as_bool());
}
}  // namespace

Instances::~Instances() { destroy_all(); }

core::Result<void> Instances::create(plugin::Kind& kind, const Resource& r) {
    auto doc = resource_doc(r);
    coffer_instance* inst = nullptr;
    auto res = call(*kind.plugin, "create", [&](coffer_reply* rep) {
        return kind.fns.create(kind.plugin->ctx, kind.raw, cstr(doc), &inst, rep);
    });
    if (!res) return res.error();
    if (!inst)
        return core::Error::make(core::code::plugin_error, "plugin '" + kind.plugin->name + "' created no instance");
    auto& l = live_[r.uid];
    l = Live{&kind, inst, false, {}, r.uid, r.name, r.scope, auto_enable_new(r)};
    if (r.enabled) start(l, r.ref());
    return {};
}

void Instances::publish(const Live& l) {
    if (l.started && l.kind->fns.agent) agents_.publish(*l.kind, l.uid, l.name, l.inst);
    if (l.started && l.kind->fns.channel) channels_.publish(*l.kind, l.uid, l.name, l.inst);
    if (l.started && l.kind->fns.mcp) providers_.publish(*l.kind, l.uid, l.name, l.scope, l.inst, l.auto_enable_new);
}

void Instances::refresh(const Resource& r) {
    auto it = live_.find(r.uid);
    if (it == live_.end()) return;
    bool rescoped = it->second.scope != r.scope;
    it->second.scope = r.scope;
    it->second.auto_enable_new = auto_enable_new(r);
    publish(it->second);
    if (rescoped) rescope(it->second, r);
}

// ABI 1.7: tell an instance that acts for agents itself that its scope changed.
void Instances::rescope(Live& l, const Resource& r) {
    if (!l.kind->fns.rescope) return;
    auto doc = json::serialize(json::object{{"scope", r.scope}, {"machine", this_machine()}});
    auto res = call(*l.kind->plugin, "rescope", [&](coffer_reply* rep) { return l.kind->fns.rescope(l.inst, cstr(doc), rep); });
    if (!res) core::log::warn("resource could not apply its new scope", {{"resource", r.ref()}, {"error", res.error().message}});
}

void Instances::start(Live& l, const std::string& ref) {
    if (l.started) return;
    if (!l.kind->fns.start) {
        l.started = true;
        publish(l);
        return;
    }
    auto res = call(*l.kind->plugin, "start", [&](coffer_reply* rep) { return l.kind->fns.start(l.inst, rep); });
    if (res) {
        l.started = true;
        l.last_error.clear();
        publish(l);
    } else {
        l.last_error = res.error().message;
        core::log::warn("resource failed to start", {{"resource", ref}, {"error", l.last_error}});
    }
}

void Instances::stop(Live& l, const std::string& ref) {
    providers_.retire(l.uid);  // closes every gateway session on it first (blocks until done)
    agents_.retire(l.uid);     // no new turn reaches it; its running turns end through the plugin's stop
    channels_.retire(l.uid);   // the channel core stops receiving on it first
    if (!l.started) return;
    l.started = false;
    if (!l.kind->fns.stop) return;
    auto res = call(*l.kind->plugin, "stop", [&](coffer_reply* rep) { return l.kind->fns.stop(l.inst, rep); });
    if (!res) {
        l.last_error = res.error().message;
        core::log::warn("resource failed to stop cleanly", {{"resource", ref}, {"error", l.last_error}});
    }
}

core::Result<void> Instances::update(const Resource& r) {
    auto it = live_.find(r.uid);
    if (it == live_.end()) return {};
    auto& l = it->second;
    if (l.kind->fns.update) {
        providers_.retire(l.uid);  // sessions reopen lazily against the new config
        bool rescoped = l.scope != r.scope;
        l.scope = r.scope;
        l.auto_enable_new = auto_enable_new(r);
        auto cfg = json::serialize(r.config);
        auto res = call(*l.kind->plugin, "update",
                        [&](coffer_reply* rep) { return l.kind->fns.update(l.inst, cstr(cfg), rep); });
        publish(l);
        if (!res) return res.error();
        if (rescoped) rescope(l, r);
        return {};
    }
    auto* kind = l.kind;
    destroy(r.uid, false);
    return create(*kind, r);
}

core::Result<void> Instances::set_enabled(const Resource& r, bool enabled) {
    auto it = live_.find(r.uid);
    if (it == live_.end()) return {};
    if (enabled) start(it->second, r.ref());
    else stop(it->second, r.ref());
    return {};
}

core::Result<json::value> Instances::action(const Resource& r, std::string_view action, const json::object& args) {
    auto it = live_.find(r.uid);
    if (it == live_.end())
        return core::Error::make(core::code::unavailable, r.ref() + " has no live instance (its kind is not loaded or "
                                                                    "it is out of scope on this machine)");
    auto& l = it->second;
    if (!l.kind->fns.action)
        return core::Error::make(core::code::unsupported, "kind '" + r.kind + "' implements no actions");
    auto text = json::serialize(args);
    return call(*l.kind->plugin, "action",
                [&](coffer_reply* rep) { return l.kind->fns.action(l.inst, cstr(action), cstr(text), rep); });
}

json::object Instances::status(const Resource& r) {
    auto it = live_.find(r.uid);
    if (it == live_.end()) return json::object{{"state", "inactive"}};
    auto& l = it->second;
    json::object out{{"state", l.started ? "running" : (r.enabled ? "failed" : "stopped")},
                     {"last_error", l.last_error.empty() ? json::value(nullptr) : json::value(l.last_error)}};
    if (l.kind->fns.status) {
        auto res = call(*l.kind->plugin, "status", [&](coffer_reply* rep) { return l.kind->fns.status(l.inst, rep); });
        if (res) out["plugin"] = *res;
        else out["plugin_error"] = res.error().message;
    }
    return out;
}

void Instances::destroy(const std::string& uid, bool removed) {
    auto it = live_.find(uid);
    if (it == live_.end()) return;
    auto l = it->second;
    live_.erase(it);
    stop(l, uid);
    if (removed && l.kind->fns.remove)  // best effort: the resource is gone either way; call() logs a failure
        (void)call(*l.kind->plugin, "remove", [&](coffer_reply* rep) { return l.kind->fns.remove(l.inst, rep); });
    std::lock_guard<std::recursive_mutex> g(l.kind->plugin->mu);
    try {
        l.kind->fns.destroy(l.inst);
    } catch (...) {
        core::log::error("plugin destroy threw", {{"plugin", l.kind->plugin->name}});
    }
}

void Instances::destroy_all() {
    while (!live_.empty()) destroy(live_.begin()->first, false);
}

}  // namespace coffer::resource
