#include "skill_instance.hpp"

#include "delivery.hpp"
#include "names.hpp"
#include "skill_kind.hpp"
#include "targets.hpp"

#include <algorithm>
#include <utility>

namespace coffer::plugins::skill {

namespace {

// Pointers in errors from create/update: the host passes these through as they are, so they
// point into the REST request body (the config is under /config).
constexpr const char* kSourcePointer = "/config/source";
constexpr const char* kNamePointer = "/name";

json::object summary(const Record& r) {
    return json::object{{"uid", r.uid},
                        {"source", r.source},
                        {"files", static_cast<std::uint64_t>(r.library.size())},
                        {"hash", r.library_hash}};
}

}  // namespace

SkillInstance::SkillInstance(SkillKind& kind, const sdk::ResourceInfo& resource)
    : kind_(kind), uid_(resource.uid), name_(resource.name) {
    if (auto p = name_problem(name_))
        throw sdk::Error(COFFER_E_INVALID, "\"" + name_ + "\" cannot name a skill: a skill name " + *p,
                         json::object{{"errors", json::array{json::object{
                                                     {"pointer", kNamePointer},
                                                     {"message", "a skill name " + *p}}}}});
    info_ = resource;
    auto source = config_source(resource.config);
    if (auto r = Record::load(kind_.record_path(uid_))) {
        rec_ = std::move(*r);  // an existing skill (daemon start): the library copy is already there
        if (!source.empty() && source != rec_.source) reimport_uncommitted(source);
    } else {
        rec_.uid = uid_;
        rec_.name = name_;
        kind_.forget_leftovers(name_, uid_, !source.empty());
        if (!source.empty()) {
            import_from(source, false, kSourcePointer, kNamePointer);
        } else {
            auto staged = kind_.library().scan_installed(name_);
            if (!staged->ok()) {
                auto issues = staged->issues;
                if (!std::filesystem::exists(kind_.library().path_of(name_)))
                    issues = {{false, "is required: give the absolute path of the skill folder or archive to import "
                                      "(without it, the library folder " +
                                          kind_.library().path_of(name_).string() + " must already hold the skill)"}};
                refuse("cannot create skill \"" + name_ + "\"", issues, kSourcePointer, kNamePointer);
            }
            rec_.library = std::move(staged->files);
            rec_.library_hash = tree_hash(rec_.library);
            rec_.imported_at = fsx::now_iso();
            save();
            library_fresh_ = true;
            kind_.host().audit("skill_imported", "skill:" + name_, [&] {
                auto p = summary(rec_);
                p["adopted"] = true;
                return p;
            }());
        }
    }
    // Disabled but still delivered (the daemon stopped before a deferred removal completed).
    if (!resource.enabled && !rec_.deliveries.empty()) undeliver_all("disabled");
    kind_.attach(this);
}

SkillInstance::~SkillInstance() { kind_.detach(this); }

std::string SkillInstance::config_source(const json::object& config) const {
    auto* s = config.if_contains("source");
    return s && s->is_string() ? std::string(s->as_string()) : std::string();
}

// The configured targets (default: all) that the resource's scope lets it reach: a skill scoped to
// the agent `codex` goes only into codex's folder (R-5, S-3). The target names are the agent names
// the shim reports by default (`coffer agent mcp install <type>`).
std::vector<std::string> SkillInstance::targets() const {
    auto* t = info_.config.if_contains("targets");
    std::vector<std::string> out;
    if (!t || !t->is_array()) {
        for (auto& name : all_targets())
            if (info_.for_agent(name)) out.push_back(name);
        return out;
    }
    for (auto& v : t->as_array())
        if (v.is_string() && known_target(v.as_string()) && info_.for_agent(std::string(v.as_string())))
            out.emplace_back(v.as_string());
    return out;
}

void SkillInstance::save() { rec_.save(kind_.record_path(uid_)); }

void SkillInstance::import_from(const std::string& source, bool replace, const std::string& source_pointer,
                                const std::string& name_pointer) {
    auto& lib = kind_.library();
    auto staged = lib.stage(source, name_);
    if (!staged->ok()) refuse("cannot import skill \"" + name_ + "\" from " + source, staged->issues, source_pointer, name_pointer);
    // The record names the new source before the library copy changes: the host commits the
    // resource after this returns, and a daemon killed in between leaves a record whose source
    // is not the resource's, which the next start re-imports (see reimport_uncommitted).
    Record next = rec_;
    next.source = source;
    next.imported_at = fsx::now_iso();
    next.library = staged->files;
    next.library_hash = tree_hash(next.library);
    auto record = kind_.record_path(uid_);
    bool had_record = std::filesystem::exists(record);
    bool existed = std::filesystem::exists(lib.path_of(name_));
    next.save(record);
    try {
        lib.install(*staged, name_, replace);
    } catch (...) {
        std::error_code ec;
        if (had_record) rec_.save(record);
        else std::filesystem::remove(record, ec);  // a new import leaves nothing behind
        throw;
    }
    rec_ = std::move(next);
    library_fresh_ = true;
    auto payload = summary(rec_);
    payload["replaced"] = replace && existed;
    if (!staged->info.warnings.empty()) {
        json::array w;
        for (auto& s : staged->info.warnings) w.emplace_back(s);
        payload["warnings"] = std::move(w);
    }
    kind_.host().audit("skill_imported", "skill:" + name_, payload);
}

void SkillInstance::reimport_uncommitted(const std::string& source) {
    // The record names another source than the resource: a re-import from a PATCH or create
    // that the host never committed (the daemon was killed in between). The resource is the
    // truth; its source is imported again. When that fails the library copy stays as it is and
    // the resource's status says so.
    kind_.host().warn("skill " + name_ + ": the library copy was imported from " + rec_.source +
                      " by a change that was not saved; re-importing " + source);
    try {
        import_from(source, true, kSourcePointer, kNamePointer);
    } catch (const std::exception& e) {
        kind_.host().error("skill " + name_ + ": cannot re-import " + source + ": " + e.what());
    }
}

bool SkillInstance::refresh_library(std::vector<std::string>& problems, bool* changed) {
    auto root = kind_.library().path_of(name_);
    auto drift = check_library(root, rec_.library, false);
    if (changed) *changed = false;
    if (drift.state == "missing") {
        problems.push_back("the library copy " + root.string() + " is missing; re-import the skill");
        return false;
    }
    if (drift.state == "ok") return true;
    auto staged = kind_.library().scan_installed(name_);
    if (!staged->ok()) {
        for (auto& i : staged->issues) problems.push_back("the edited library copy is invalid: " + i.message);
        return false;
    }
    rec_.library = std::move(staged->files);
    rec_.library_hash = tree_hash(rec_.library);
    if (changed) *changed = true;
    return true;
}

DeliverResult SkillInstance::deliver_recorded(const std::string& target, const fs::path& root, const fs::path& dest) {
    auto prev = rec_.deliveries.find(target);
    const Delivery* previous = prev == rec_.deliveries.end() ? nullptr : &prev->second;
    Delivery before;
    if (previous) before = *previous;
    bool recorded = false;
    // A first delivery is in the record before it is in place (see deliver()).
    auto record_first = [&](const Delivery& d) {
        rec_.deliveries[target] = d;
        save();
        recorded = true;
    };
    auto res = deliver(root, rec_.library, rec_.library_hash, dest, previous, record_first);
    if (res.conflict && recorded) {
        // Something else took the name meanwhile: the record must not claim it.
        if (previous) rec_.deliveries[target] = before;
        else rec_.deliveries.erase(target);
        save();
    }
    return res;
}

void SkillInstance::deliver_all(const char* why) {
    auto root = kind_.library().path_of(name_);
    json::object report;
    json::object conflicts;
    bool changed = false;
    errors_.clear();
    auto wanted = targets();
    for (auto& t : wanted) {
        auto troot = target_root(t);
        if (!troot) {
            errors_[t] = "HOME is not set, so the " + t + " skills folder is unknown";
            continue;
        }
        auto dest = *troot / name_;
        auto prev = rec_.deliveries.find(t);
        if (prev != rec_.deliveries.end() && prev->second.path != dest.string()) {
            undeliver(prev->second);  // HOME moved: take the old copy away
            rec_.deliveries.erase(prev);
            prev = rec_.deliveries.end();
            changed = true;
        }
        try {
            auto res = deliver_recorded(t, root, dest);
            if (res.conflict) {
                if (conflicts_[t] != res.conflict_reason) {
                    kind_.host().warn("skill " + name_ + ": " + res.conflict_reason);
                    conflicts[t] = res.conflict_reason;  // audited when new
                }
                conflicts_[t] = res.conflict_reason;
                continue;
            }
            conflicts_.erase(t);
            bool same = prev != rec_.deliveries.end() && res.written == 0 && res.removed == 0;
            rec_.deliveries[t] = std::move(res.delivery);
            if (!same) {
                changed = true;
                report[t] = json::object{{"path", dest.string()},
                                         {"written", static_cast<std::uint64_t>(res.written)},
                                         {"removed", static_cast<std::uint64_t>(res.removed)}};
            }
        } catch (const std::exception& e) {
            errors_[t] = e.what();
            kind_.host().error("skill " + name_ + ": delivery to " + t + " failed: " + e.what());
        }
    }
    for (auto it = rec_.deliveries.begin(); it != rec_.deliveries.end();) {
        if (std::find(wanted.begin(), wanted.end(), it->first) != wanted.end()) {
            ++it;
            continue;
        }
        auto r = undeliver(it->second);
        report[it->first] = json::object{{"path", it->second.path}, {"removed", static_cast<std::uint64_t>(r.removed)},
                                         {"undelivered", true}};
        it = rec_.deliveries.erase(it);
        changed = true;
    }
    for (auto it = conflicts_.begin(); it != conflicts_.end();)
        it = std::find(wanted.begin(), wanted.end(), it->first) == wanted.end() ? conflicts_.erase(it) : std::next(it);
    if (changed) save();
    if (changed || !conflicts.empty())
        kind_.host().audit("skill_delivered", "skill:" + name_,
                           json::object{{"uid", uid_}, {"reason", why}, {"library_hash", rec_.library_hash},
                                        {"targets", std::move(report)}, {"conflicts", std::move(conflicts)}});
}

void SkillInstance::undeliver_all(const char* why) {
    json::object report;
    for (auto& [t, d] : rec_.deliveries) {
        auto r = undeliver(d);
        report[t] = json::object{{"path", d.path},
                                 {"removed", static_cast<std::uint64_t>(r.removed)},
                                 {"folder_removed", r.folder_removed},
                                 {"left_alone", r.left_alone}};
    }
    conflicts_.clear();
    errors_.clear();
    if (report.empty()) return;
    rec_.deliveries.clear();
    try {
        save();
    } catch (const std::exception& e) {
        kind_.host().error("skill " + name_ + ": cannot save its manifest: " + e.what());
    }
    kind_.host().audit("skill_undelivered", "skill:" + name_,
                       json::object{{"uid", uid_}, {"reason", why}, {"targets", std::move(report)}});
}

void SkillInstance::start() {
    kind_.flush_pending();
    stop_pending_ = false;
    started_ = true;
    std::vector<std::string> problems;
    bool changed = false;
    bool fresh = std::exchange(library_fresh_, false);
    if (!fresh && !refresh_library(problems, &changed)) {
        std::string msg = "skill " + name_ + " cannot be delivered: " + problems.front();
        throw sdk::Error(COFFER_E_UNAVAILABLE, msg);
    }
    if (changed) save();
    deliver_all(changed ? "library edited" : "enabled");
    if (!errors_.empty()) {
        std::string msg;
        for (auto& [t, e] : errors_) msg += (msg.empty() ? "" : "; ") + t + ": " + e;
        throw sdk::Error(COFFER_E_UNAVAILABLE, "skill " + name_ + " could not be delivered to every target: " + msg);
    }
}

void SkillInstance::stop() {
    if (!started_) return;
    started_ = false;
    stop_pending_ = true;  // completed by the next call into the plugin unless this is a shutdown
}

void SkillInstance::complete_stop() {
    stop_pending_ = false;
    undeliver_all("disabled");
}

void SkillInstance::rescope() {
    if (started_) deliver_all("scope changed");
}

void SkillInstance::update(const json::object& config) {
    kind_.flush_pending();
    auto next = config_source(config);
    if (!next.empty() && next != config_source(info_.config)) import_from(next, true, kSourcePointer, kNamePointer);
    info_.config = config;
    if (started_) deliver_all("config changed");
}

void SkillInstance::remove() {
    stop_pending_ = false;
    undeliver_all("deleted");
    auto path = kind_.library().path_of(name_);
    try {
        kind_.library().remove(name_);
    } catch (const std::exception& e) {
        kind_.host().error("skill " + name_ + ": " + e.what());
    }
    std::error_code ec;
    std::filesystem::remove(kind_.record_path(uid_), ec);
    kind_.host().audit("skill_removed", "skill:" + name_, json::object{{"uid", uid_}, {"library", path.string()}});
}

std::string SkillInstance::it_delivered_hash(const std::string& target) const {
    auto it = rec_.deliveries.find(target);
    return it == rec_.deliveries.end() ? std::string() : it->second.library_hash;
}

json::object SkillInstance::target_entry(const std::string& t, bool deep, TargetDrift* drift_out, bool with_extra) {
    json::object o{{"target", t}};
    auto troot = target_root(t);
    if (!troot) {
        o["state"] = "error";
        o["error"] = "HOME is not set";
        return o;
    }
    auto dest = *troot / name_;
    o["path"] = dest.string();
    TargetDrift d;
    auto it = rec_.deliveries.find(t);
    if (it != rec_.deliveries.end() && it->second.path == dest.string()) {
        d = check_delivery(it->second, rec_.library_hash, deep, with_extra);
    } else {
        std::error_code ec;
        d.state = fs::exists(fs::symlink_status(dest, ec)) ? "conflict" : "missing";
    }
    if (d.state == "conflict") {
        auto c = conflicts_.find(t);
        o["reason"] = c != conflicts_.end() ? c->second
                                            : "something Coffer did not deliver is at " + dest.string() + "; Coffer leaves it alone";
    }
    if (auto e = errors_.find(t); e != errors_.end() && d.state != "ok") o["error"] = e->second;
    for (auto& kv : to_json(d)) o[kv.key()] = kv.value();
    if (drift_out) *drift_out = std::move(d);
    return o;
}

json::value SkillInstance::status() {
    kind_.flush_pending();
    auto root = kind_.library().path_of(name_);
    auto lib = check_library(root, rec_.library, false);
    json::object out{{"enabled", started_},
                     {"library", json::object{{"path", root.string()},
                                              {"state", lib.state},
                                              {"files", static_cast<std::uint64_t>(rec_.library.size())},
                                              {"hash", rec_.library_hash}}},
                     {"source", rec_.source},
                     {"imported_at", rec_.imported_at}};
    json::array targets;
    bool error = lib.state == "missing", conflict = false, drift = false;
    if (started_) {
        for (auto& t : this->targets()) {
            auto e = target_entry(t, false, nullptr, false);
            auto state = std::string(e.at("state").as_string());
            error = error || state == "error" || e.contains("error");
            conflict = conflict || state == "conflict";
            drift = drift || (state != "ok" && state != "conflict");
            targets.push_back(std::move(e));
        }
    }
    std::string health = !started_ ? "disabled" : error ? "error" : conflict ? "conflict" : drift ? "drift" : "ok";
    out["health"] = health;
    out["targets"] = std::move(targets);
    return out;
}

json::object SkillInstance::verify(bool repair, bool deep) {
    auto root = kind_.library().path_of(name_);
    json::object entry{{"name", name_}, {"uid", uid_}, {"enabled", started_}};
    auto lib = check_library(root, rec_.library, deep);
    json::object libj = to_json(lib);
    libj["path"] = root.string();
    bool library_usable = lib.state == "ok";
    std::string now_hash = rec_.library_hash;
    if (lib.state == "changed") {
        // An edited library copy: delivered (on repair) only if it is still a valid skill.
        auto staged = kind_.library().scan_installed(name_);
        if (!staged->ok()) {
            libj["state"] = "invalid";
            json::array p;
            for (auto& i : staged->issues) p.emplace_back(i.message);
            libj["problems"] = std::move(p);
        } else {
            library_usable = true;
            now_hash = tree_hash(staged->files);
            if (repair) {
                rec_.library = std::move(staged->files);
                rec_.library_hash = now_hash;
                save();
            }
        }
    }
    entry["library"] = std::move(libj);
    json::array targets;
    if (started_) {
        for (auto& t : this->targets()) {
            TargetDrift d;
            auto e = target_entry(t, deep, &d);
            auto state = std::string(e.at("state").as_string());
            if (state == "ok" && it_delivered_hash(t) != now_hash) e["state"] = state = "outdated";
            if (repair && (state == "modified" || state == "missing" || state == "outdated")) {
                if (!library_usable) {
                    e["repaired"] = false;
                    e["error"] = "the library copy cannot be delivered; fix or re-import it";
                } else {
                    auto troot = target_root(t);
                    auto dest = *troot / name_;
                    try {
                        auto res = deliver_recorded(t, root, dest);
                        if (res.conflict) {
                            e["repaired"] = false;
                            e["reason"] = res.conflict_reason;
                        } else {
                            rec_.deliveries[t] = std::move(res.delivery);
                            errors_.erase(t);
                            save();
                            e["repaired"] = true;
                            e["written"] = static_cast<std::uint64_t>(res.written);
                            kind_.host().audit("skill_repaired", "skill:" + name_,
                                               json::object{{"uid", uid_},
                                                            {"target", t},
                                                            {"path", dest.string()},
                                                            {"was", state},
                                                            {"written", static_cast<std::uint64_t>(res.written)},
                                                            {"library_hash", rec_.library_hash}});
                        }
                    } catch (const std::exception& ex) {
                        e["repaired"] = false;
                        e["error"] = ex.what();
                    }
                }
            }
            targets.push_back(std::move(e));
        }
    } else if (repair && !rec_.deliveries.empty()) {
        undeliver_all("disabled (repair)");
    }
    entry["targets"] = std::move(targets);
    return entry;
}

void SkillInstance::occupied(std::map<std::string, std::set<std::string>>& by_target) const {
    for (auto& [t, d] : rec_.deliveries) by_target[t].insert(fs::path(d.path).filename().string());
    if (started_)
        for (auto& t : targets()) by_target[t].insert(name_);
}

json::value SkillInstance::action(std::string_view name, const json::object& args) {
    kind_.flush_pending();
    if (name == "reimport") {
        auto source = config_source(info_.config);
        if (source.empty()) source = rec_.source;
        if (source.empty())
            throw sdk::Error(COFFER_E_INVALID, "skill " + name_ + " has no source to re-import from; set config.source");
        import_from(source, true, kSourcePointer, kNamePointer);
        if (started_) deliver_all("re-imported");
        return json::object{{"imported", summary(rec_)}, {"status", status()}};
    }
    if (name == "deliver") {
        if (!started_) throw sdk::Error(COFFER_E_UNAVAILABLE, "skill " + name_ + " is disabled; enable it to deliver it");
        std::vector<std::string> problems;
        bool changed = false;
        if (!refresh_library(problems, &changed)) throw sdk::Error(COFFER_E_UNAVAILABLE, problems.front());
        if (changed) save();
        deliver_all(changed ? "library edited" : "deliver action");
        return status();
    }
    if (name == "verify") {
        sdk::Validation v;
        bool repair = false, deep = false;
        for (auto& kv : args) {
            if (kv.key() != "repair" && kv.key() != "deep") {
                v.fail("/" + std::string(kv.key()), "unknown argument; verify takes \"repair\" and \"deep\"");
                continue;
            }
            if (!kv.value().is_bool()) v.fail("/" + std::string(kv.key()), "must be true or false");
            else (kv.key() == "repair" ? repair : deep) = kv.value().as_bool();
        }
        if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "invalid arguments for verify", json::object{{"errors", v.errors()}});
        return verify(repair, deep);
    }
    return Instance::action(name, args);
}

}  // namespace coffer::plugins::skill
