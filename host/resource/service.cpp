#include "resource/service.hpp"

#include "core/clock.hpp"
#include "core/log.hpp"
#include "core/random.hpp"
#include "plugin/call.hpp"
#include "resource/audit.hpp"
#include "resource/repository.hpp"
#include "resource/scope.hpp"

#include <boost/json.hpp>

namespace coffer::resource {

namespace json = boost::json;
using core::Error;
namespace code = core::code;

namespace {

Error invalid(std::string pointer, std::string message) {
    std::string text = pointer + ": " + message;
    return Error::make(code::validation_failed, "invalid request: " + text,
                       json::object{{"errors", json::array{json::object{{"pointer", std::move(pointer)},
                                                                        {"message", std::move(message)}}}}});
}

// Prefixes every pointer in details.errors[] with `prefix` (plugin and schema pointers are
// relative to the config; the request body has it under /config).
json::value prefix_pointers(json::value details, std::string_view prefix) {
    if (auto* o = details.if_object())
        if (auto* errs = o->if_contains("errors"); errs && errs->is_array())
            for (auto& e : errs->as_array())
                if (auto* eo = e.if_object())
                    if (auto* p = eo->if_contains("pointer"); p && p->is_string())
                        *p = std::string(prefix) + std::string(p->as_string());
    return details;
}

std::string summarize(const json::value& details) {
    std::string out;
    if (auto* o = details.if_object())
        if (auto* errs = o->if_contains("errors"); errs && errs->is_array())
            for (auto& e : errs->as_array()) {
                auto* eo = e.if_object();
                if (!eo) continue;
                if (!out.empty()) out += "; ";
                auto* p = eo->if_contains("pointer");
                auto* m = eo->if_contains("message");
                out += (p && p->is_string() ? std::string(p->as_string()) : std::string("?")) + ": " +
                       (m && m->is_string() ? std::string(m->as_string()) : std::string("invalid"));
            }
    return out;
}

const json::object* as_body(const json::value& body) { return body.if_object(); }

json::array changed_keys(const json::object& a, const json::object& b) {
    json::array out;
    for (auto& kv : b) {
        auto* old = a.if_contains(kv.key());
        if (!old || *old != kv.value()) out.emplace_back(kv.key());
    }
    for (auto& kv : a)
        if (!b.contains(kv.key())) out.emplace_back(kv.key());
    return out;
}

}  // namespace

Service::Service(store::Database& db, plugin::Registry& registry, std::string machine)
    : db_(db), registry_(registry), machine_(std::move(machine)) {}

bool Service::in_scope(const Resource& r) const { return in_machine_scope(r.scope, machine_); }

void Service::start_all() {
    auto all = repo::list(db_, std::nullopt);
    if (!all) {
        core::log::error("cannot list resources at start", {{"error", all.error().message}});
        return;
    }
    for (auto& r : *all) {
        auto* k = registry_.find_kind(r.kind);
        if (!k) {
            core::log::warn("resource kind not loaded; resource kept but inactive", {{"resource", r.ref()}});
            continue;
        }
        if (!in_scope(r)) continue;
        if (auto res = instances_.create(*k, r); !res)
            core::log::warn("cannot create resource instance", {{"resource", r.ref()}, {"error", res.error().message}});
    }
}

void Service::stop_all() { instances_.destroy_all(); }

core::Result<plugin::Kind*> Service::kind_of(const std::string& kind) {
    auto* k = registry_.find_kind(kind);
    if (k) return k;
    std::string known;
    for (auto* each : registry_.kinds()) known += (known.empty() ? "" : ", ") + each->name;
    return Error::make(code::unknown_kind, "unknown kind '" + kind + "'" +
                                               (known.empty() ? "; no kind plugins are loaded"
                                                              : "; loaded kinds: " + known));
}

core::Result<void> Service::validate_config(plugin::Kind& kind, const json::object& config) {
    auto problems = kind.validator->validate(config);
    if (!problems.empty()) {
        json::array errs;
        for (auto& p : problems)
            errs.push_back(json::object{{"pointer", "/config" + p.pointer}, {"message", p.message}});
        json::value details = json::object{{"errors", std::move(errs)}};
        auto message = "config is invalid for kind '" + kind.name + "': " + summarize(details);
        return Error::make(code::validation_failed, std::move(message), std::move(details));
    }
    if (!kind.fns.validate) return {};
    auto text = json::serialize(config);
    auto res = plugin::call(*kind.plugin, "validate", [&](coffer_reply* r) {
        return kind.fns.validate(kind.plugin->ctx, kind.raw, plugin::cstr(text), r);
    });
    if (res) return {};
    auto err = std::move(res).error();
    if (err.code == code::validation_failed || err.code == code::bad_request) {
        err.code = std::string(code::validation_failed);
        err.details = prefix_pointers(std::move(err.details), "/config");
        if (!err.details.is_object() || !err.details.as_object().contains("errors"))
            err.details = json::object{{"errors", json::array{json::object{{"pointer", "/config"}, {"message", err.message}}}}};
        auto s = summarize(err.details);
        if (!s.empty()) err.message = "config is invalid for kind '" + kind.name + "': " + s;
    }
    return err;
}

core::Result<Resource> Service::load(const std::string& kind, const std::string& name) {
    auto r = repo::find(db_, kind, name);
    if (!r) return r.error();
    if (!*r) return Error::make(code::not_found, "no resource " + kind + ":" + name);
    return std::move(**r);
}

core::Result<json::object> Service::create(const json::value& body, Actor actor) {
    auto* b = as_body(body);
    if (!b) return Error::make(code::bad_request, "request body must be a JSON object {kind, name, config}");
    for (auto& kv : *b)
        if (kv.key() != "kind" && kv.key() != "name" && kv.key() != "config" && kv.key() != "description" &&
            kv.key() != "enabled" && kv.key() != "scope")
            return invalid("/" + std::string(kv.key()), "is not allowed (unknown property)");
    auto* kind = b->if_contains("kind");
    if (!kind || !kind->is_string()) return invalid("/kind", "is required and must be a string");
    auto* name = b->if_contains("name");
    if (!name || !name->is_string()) return invalid("/name", "is required and must be a string");
    if (!valid_name(name->as_string())) return invalid("/name", "must be 1-64 characters of A-Z a-z 0-9 _ -");
    Resource r;
    r.kind = std::string(kind->as_string());
    r.name = std::string(name->as_string());
    if (auto* c = b->if_contains("config")) {
        if (!c->is_object()) return invalid("/config", "must be an object");
        r.config = c->as_object();
    }
    if (auto* d = b->if_contains("description")) {
        if (!d->is_string()) return invalid("/description", "must be a string");
        if (d->as_string().size() > 1024) return invalid("/description", "must be at most 1024 characters");
        r.description = std::string(d->as_string());
    }
    if (auto* e = b->if_contains("enabled")) {
        if (!e->is_bool()) return invalid("/enabled", "must be a boolean");
        r.enabled = e->as_bool();
    }
    r.scope = default_scope();
    if (auto* s = b->if_contains("scope")) {
        if (auto problem = check_scope(*s)) return invalid(problem->first, problem->second);
        r.scope = s->as_array();
    }
    auto k = kind_of(r.kind);
    if (!k) return k.error();
    if (auto v = validate_config(**k, r.config); !v) return v.error();

    auto existing = repo::find(db_, r.kind, r.name);
    if (!existing) return existing.error();
    if (*existing) return Error::make(code::conflict, "resource " + r.ref() + " already exists",
                                      json::object{{"uid", (*existing)->uid}});
    r.uid = core::new_uid();
    r.created_at = r.updated_at = core::now_iso();

    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    if (auto w = repo::insert(db_, r); !w) return w.error();
    if (auto w = write_audit(db_, to_string(actor), "resource_created", r.ref(),
                             json::object{{"uid", r.uid}, {"enabled", r.enabled}}); !w)
        return w.error();
    bool live = in_scope(r);
    if (live)
        if (auto c = instances_.create(**k, r); !c) return c.error();  // rollback: nothing persisted
    if (auto c = tx.commit(); !c) {
        if (live) instances_.destroy(r.uid, true);
        return c.error();
    }
    core::log::info("resource created", {{"resource", r.ref()}, {"uid", r.uid}});
    auto out = r.to_json();
    out["status"] = instances_.status(r);
    return out;
}

core::Result<json::array> Service::list(std::optional<std::string> kind, bool include_out_of_scope) {
    auto all = kind ? repo::list(db_, std::string_view(*kind)) : repo::list(db_, std::nullopt);
    if (!all) return all.error();
    json::array out;
    out.reserve(all->size());
    for (auto& r : *all) {
        auto scoped = listed(r.scope, include_out_of_scope);
        if (!scoped) continue;
        auto o = r.to_json();
        if (!*scoped) o["in_scope"] = false;
        out.push_back(std::move(o));
    }
    return out;
}

std::optional<bool> Service::listed(const json::array& scope, bool include_out_of_scope) const {
    bool scoped = in_machine_scope(scope, machine_);
    if (!scoped && !include_out_of_scope) return std::nullopt;
    return scoped;
}

core::Result<std::string> Service::list_document(std::optional<std::string> kind, bool include_out_of_scope) {
    auto place = [&](const json::array& scope) { return listed(scope, include_out_of_scope); };
    return kind ? repo::list_document(db_, std::string_view(*kind), place) : repo::list_document(db_, std::nullopt, place);
}

core::Result<json::object> Service::show(const std::string& kind, const std::string& name) {
    auto r = load(kind, name);
    if (!r) return r.error();
    auto out = r->to_json();
    if (!registry_.find_kind(kind)) out["status"] = json::object{{"state", "kind_not_loaded"}};
    else if (!in_scope(*r)) out["status"] = json::object{{"state", "out_of_scope"}, {"machine", machine_}};
    else out["status"] = instances_.status(*r);
    return out;
}

core::Result<json::object> Service::update(const std::string& kind, const std::string& name, const json::value& body,
                                           Actor actor) {
    auto* b = as_body(body);
    if (!b) return Error::make(code::bad_request, "request body must be a JSON object {config?, description?, scope?}");
    for (auto& kv : *b)
        if (kv.key() != "config" && kv.key() != "description" && kv.key() != "scope")
            return invalid("/" + std::string(kv.key()), "is not allowed (unknown property)");
    auto k = kind_of(kind);
    if (!k) return k.error();
    auto cur = load(kind, name);
    if (!cur) return cur.error();
    Resource r = *cur;
    json::object payload{{"uid", r.uid}};
    if (auto* c = b->if_contains("config")) {
        if (!c->is_object()) return invalid("/config", "must be an object");
        r.config = c->as_object();
        if (auto v = validate_config(**k, r.config); !v) return v.error();
        payload["config_keys_changed"] = changed_keys(cur->config, r.config);
    }
    if (auto* d = b->if_contains("description")) {
        if (!d->is_string()) return invalid("/description", "must be a string");
        if (d->as_string().size() > 1024) return invalid("/description", "must be at most 1024 characters");
        r.description = std::string(d->as_string());
        payload["description_changed"] = r.description != cur->description;
    }
    if (auto* s = b->if_contains("scope")) {
        if (auto problem = check_scope(*s)) return invalid(problem->first, problem->second);
        r.scope = s->as_array();
        payload["scope_changed"] = r.scope != cur->scope;
    }
    r.updated_at = core::now_iso();

    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    if (auto w = repo::update(db_, r); !w) return w.error();
    if (auto w = write_audit(db_, to_string(actor), "resource_updated", r.ref(), payload); !w) return w.error();
    bool was_live = instances_.has(r.uid);
    bool now_live = in_scope(r);
    if (was_live && now_live && r.config != cur->config)
        if (auto u = instances_.update(r); !u) return u.error();  // rollback
    if (auto c = tx.commit(); !c) return c.error();
    if (was_live && now_live && r.config == cur->config && r.scope != cur->scope) instances_.refresh(r);
    if (was_live && !now_live) instances_.destroy(r.uid, false);
    if (!was_live && now_live)
        if (auto c = instances_.create(**k, r); !c)
            core::log::warn("cannot create resource instance", {{"resource", r.ref()}, {"error", c.error().message}});
    auto out = r.to_json();
    out["status"] = instances_.status(r);
    return out;
}

core::Result<json::object> Service::set_enabled(const std::string& kind, const std::string& name, bool enabled,
                                                Actor actor) {
    auto cur = load(kind, name);
    if (!cur) return cur.error();
    Resource r = *cur;
    if (r.enabled != enabled) {
        r.enabled = enabled;
        r.updated_at = core::now_iso();
        store::Transaction tx(db_);
        if (!tx.begun()) return tx.begun().error();
        if (auto w = repo::update(db_, r); !w) return w.error();
        if (auto w = write_audit(db_, to_string(actor), enabled ? "resource_enabled" : "resource_disabled", r.ref(),
                                 json::object{{"uid", r.uid}});
            !w)
            return w.error();
        if (auto c = tx.commit(); !c) return c.error();
        // The change is committed; a start that fails shows as the status returned below.
        (void)instances_.set_enabled(r, enabled);
    }
    auto out = r.to_json();
    out["status"] = instances_.status(r);
    return out;
}

core::Result<json::object> Service::remove(const std::string& kind, const std::string& name, Actor actor) {
    auto cur = load(kind, name);
    if (!cur) return cur.error();
    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    if (auto w = repo::remove(db_, cur->uid); !w) return w.error();
    if (auto w = write_audit(db_, to_string(actor), "resource_deleted", cur->ref(), json::object{{"uid", cur->uid}}); !w)
        return w.error();
    if (auto c = tx.commit(); !c) return c.error();
    instances_.destroy(cur->uid, true);
    core::log::info("resource deleted", {{"resource", cur->ref()}, {"uid", cur->uid}});
    return json::object{{"kind", cur->kind}, {"name", cur->name}, {"uid", cur->uid}};
}

core::Result<json::value> Service::action(const std::string& kind, const std::string& name, const std::string& action,
                                          const json::value& args, Actor actor) {
    auto k = kind_of(kind);
    if (!k) return k.error();
    if (!(*k)->has_action(action)) {
        std::string known;
        for (auto& a : (*k)->actions) known += (known.empty() ? "" : ", ") + std::string(a.as_object().at("name").as_string());
        return Error::make(code::not_found, "kind '" + kind + "' has no action '" + action + "'" +
                                                (known.empty() ? "" : "; available: " + known));
    }
    if (!args.is_object()) return invalid("", "action arguments must be a JSON object");
    auto cur = load(kind, name);
    if (!cur) return cur.error();
    auto res = instances_.action(*cur, action, args.as_object());
    record_audit(db_, to_string(actor), "resource_action", cur->ref(),
                 json::object{{"uid", cur->uid}, {"action", action}, {"ok", res.ok()}});
    return res;
}

core::Result<json::value> Service::kind_action(const std::string& kind, const std::string& action,
                                               const json::value& args, Actor actor) {
    auto k = kind_of(kind);
    if (!k) return k.error();
    auto& kd = **k;
    if (!kd.has_kind_action(action)) {
        std::string known;
        for (auto& a : kd.kind_actions) known += (known.empty() ? "" : ", ") + std::string(a.as_object().at("name").as_string());
        return Error::make(code::not_found, "kind '" + kind + "' has no kind action '" + action + "'" +
                                                (known.empty() ? "" : "; available: " + known));
    }
    if (!args.is_object()) return invalid("", "action arguments must be a JSON object");
    auto text = json::serialize(args);
    auto res = plugin::call(*kd.plugin, "kind_action", [&](coffer_reply* r) {
        return kd.fns.kind_action(kd.plugin->ctx, kd.raw, plugin::cstr(action), plugin::cstr(text), r);
    });
    record_audit(db_, to_string(actor), "kind_action", kind, json::object{{"action", action}, {"ok", res.ok()}});
    return res;
}

}  // namespace coffer::resource
