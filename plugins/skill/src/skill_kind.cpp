#include "skill_kind.hpp"

#include <coffer/atomic_file.hpp>

#include "delivery.hpp"
#include "schema_text.hpp"
#include "drift.hpp"
#include "skill_instance.hpp"
#include "targets.hpp"

#include <algorithm>
#include <set>

namespace coffer::plugins::skill {

namespace {

bool bool_arg(const json::object& args, const char* key, sdk::Validation& v) {
    auto* p = args.if_contains(key);
    if (!p) return false;
    if (!p->is_bool()) {
        v.fail(std::string("/") + key, "must be true or false");
        return false;
    }
    return p->as_bool();
}

}  // namespace

void refuse(const std::string& what, const std::vector<Issue>& issues, const std::string& source_pointer,
            const std::string& name_pointer) {
    json::array errors;
    std::string summary;
    std::size_t shown = 0;
    for (auto& i : issues) {
        errors.push_back(json::object{{"pointer", i.about_name ? name_pointer : source_pointer}, {"message", i.message}});
        if (shown < 3) summary += (shown ? "; " : "") + i.message;
        ++shown;
    }
    if (shown > 3) summary += " (and " + std::to_string(shown - 3) + " more)";
    throw sdk::Error(COFFER_E_INVALID, what + ": " + summary, json::object{{"errors", std::move(errors)}});
}

void SkillKind::init() {
    fs::path vault = host_.vault_dir();
    fs::path data = host_.data_dir();
    if (vault.empty() || data.empty())
        throw sdk::Error(COFFER_E_UNAVAILABLE, "the skill kind needs the host's vault_dir and data_dir services");
    records_ = data;
    library_.emplace(vault / "skills", data / ".scratch");
    std::error_code ec;
    fs::create_directories(library_->dir(), ec);
    library_->cleanup();
    // Records being replaced when the daemon was killed (coffer/atomic_file.hpp); nothing has
    // been written here yet by this process.
    for (auto& n : coffer::remove_stale_atomic_temporaries(records_))
        host_.warn("removed a stale temporary " + (records_ / n).string());
    // First deliveries a killed daemon was building in the agents' folders.
    for (auto& t : all_targets())
        if (auto root = target_root(t))
            for (auto& p : remove_abandoned_staging(*root)) host_.warn("removed an abandoned delivery folder " + p);
}

std::string SkillKind::schema() const { return kSkillSchemaText; }

std::vector<sdk::ActionInfo> SkillKind::actions() const {
    return {{"reimport", "Re-import the skill from its configured source and re-deliver it."},
            {"deliver", "Pick up edits of the library copy (checked first) and deliver it to every target again."},
            {"verify", "Drift of this skill's delivered copies. Args: {\"repair\": bool, \"deep\": bool}."}};
}

std::vector<sdk::ActionInfo> SkillKind::kind_actions() const {
    return {{"verify",
             "Drift of every skill per target (ok, modified, missing, outdated, conflict) and the unmanaged skills in "
             "the agents' folders. Args: {\"repair\": bool (restore managed copies), \"deep\": bool (hash every file)}."},
            {"inspect",
             "Read and check a skill source without importing it. Args: {\"source\": absolute path, \"name\": optional}."}};
}

void SkillKind::validate(const json::object& config, sdk::Validation& v) {
    // Only what needs no reading of the source: create/update check its contents while they copy
    // it (once), and report with the same pointer (/config/source).
    flush_pending();
    if (auto* s = config.if_contains("source"); s && s->is_string())
        if (auto p = source_problem(std::string(s->as_string())); !p.empty()) v.fail("/source", p);
}

std::unique_ptr<sdk::Instance> SkillKind::create(const sdk::ResourceInfo& resource) {
    flush_pending();
    if (!library_) throw sdk::Error(COFFER_E_UNAVAILABLE, "the skill kind is not initialised");
    return std::make_unique<SkillInstance>(*this, resource);
}

void SkillKind::attach(SkillInstance* inst) { live_[inst->uid()] = inst; }

void SkillKind::detach(SkillInstance* inst) {
    auto it = live_.find(inst->uid());
    if (it != live_.end() && it->second == inst) live_.erase(it);
}

void SkillKind::flush_pending() {
    for (auto& [uid, inst] : live_)
        if (inst->stop_pending()) inst->complete_stop();
}

json::value SkillKind::kind_action(std::string_view name, const json::object& args) {
    flush_pending();
    if (!library_) throw sdk::Error(COFFER_E_UNAVAILABLE, "the skill kind is not initialised");
    if (name == "verify") {
        sdk::Validation v;
        for (auto& kv : args)
            if (kv.key() != "repair" && kv.key() != "deep")
                v.fail("/" + std::string(kv.key()), "unknown argument; verify takes \"repair\" and \"deep\"");
        bool repair = bool_arg(args, "repair", v);
        bool deep = bool_arg(args, "deep", v);
        if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "invalid arguments for verify", json::object{{"errors", v.errors()}});
        return verify_all(repair, deep);
    }
    if (name == "inspect") return inspect(args);
    return Kind::kind_action(name, args);
}

void SkillKind::forget_leftovers(const std::string& name, const std::string& uid, bool library) {
    std::error_code ec;
    for (fs::directory_iterator it(records_, ec), end; !ec && it != end; it.increment(ec)) {
        auto file = it->path();
        auto stem = file.stem().string();
        if (file.extension() != ".json" || stem == uid || live_.contains(stem)) continue;
        auto rec = Record::load(file);
        if (!rec || rec->name != name || rec->uid != stem) continue;
        for (auto& [t, d] : rec->deliveries) undeliver(d);
        if (library) library_->remove(name);
        std::error_code rec_ec;
        fs::remove(file, rec_ec);
        host_.warn("skill " + name + ": removed what an interrupted change left behind (uid " + stem + ")");
        host_.audit("skill_removed", "skill:" + name,
                    json::object{{"uid", stem}, {"reason", "left behind by an interrupted change"}, {"library", library}});
    }
}

json::value SkillKind::verify_all(bool repair, bool deep) {
    std::vector<SkillInstance*> order;
    for (auto& [uid, inst] : live_) order.push_back(inst);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->skill_name() < b->skill_name(); });

    json::array skills;
    std::map<std::string, std::int64_t> counts;
    std::map<std::string, std::set<std::string>> occupied;
    std::int64_t repaired = 0, unresolved = 0;
    for (auto* inst : order) {
        auto entry = inst->verify(repair, deep);
        if (auto* ts = entry.if_contains("targets"); ts && ts->is_array())
            for (auto& t : ts->as_array()) {
                auto& o = t.as_object();
                auto state = std::string(o.at("state").as_string());
                ++counts[state];
                bool fixed = false;
                if (auto* r = o.if_contains("repaired"); r && r->is_bool() && r->as_bool()) fixed = true, ++repaired;
                if (state != "ok" && !fixed) ++unresolved;
            }
        if (auto* lib = entry.if_contains("library"); lib && lib->at("state") != "ok" && lib->at("state") != "changed")
            ++unresolved;  // missing or invalid library copy
        inst->occupied(occupied);
        skills.push_back(std::move(entry));
    }

    // Deliveries recorded for skills that have no live resource here (moved out of this machine's
    // scope): still Coffer's files; repair removes them.
    json::array stale;
    std::error_code ec;
    for (fs::directory_iterator it(records_, ec), end; !ec && it != end; it.increment(ec)) {
        auto file = it->path();
        if (file.extension() != ".json" || live_.contains(file.stem().string())) continue;
        auto rec = Record::load(file);
        if (!rec || rec->deliveries.empty()) continue;
        json::array paths;
        for (auto& [t, d] : rec->deliveries) {
            paths.push_back(json::object{{"target", t}, {"path", d.path}});
            occupied[t].insert(fs::path(d.path).filename().string());
        }
        json::object entry{{"name", rec->name}, {"uid", rec->uid}, {"deliveries", std::move(paths)}};
        if (repair) {
            for (auto& [t, d] : rec->deliveries) undeliver(d);
            host_.audit("skill_undelivered", "skill:" + rec->name,
                        json::object{{"uid", rec->uid}, {"reason", "stale (no live resource on this machine)"}});
            rec->deliveries.clear();
            try {
                rec->save(file);
            } catch (const std::exception& e) {
                host_.warn(std::string("cannot update ") + file.string() + ": " + e.what());
            }
            entry["repaired"] = true;
            ++repaired;
        }
        stale.push_back(std::move(entry));
    }

    json::array unmanaged, cleaned;
    for (auto& t : all_targets()) {
        auto root = target_root(t);
        if (!root) continue;
        for (auto& u : find_unmanaged(t, *root, occupied[t])) unmanaged.push_back(to_json(u));
        if (repair)
            for (auto& p : remove_abandoned_staging(*root)) cleaned.push_back(json::string(p));
    }
    json::object summary{{"skills", static_cast<std::int64_t>(skills.size())},
                         {"ok", counts["ok"]},
                         {"modified", counts["modified"]},
                         {"missing", counts["missing"]},
                         {"outdated", counts["outdated"]},
                         {"conflict", counts["conflict"]},
                         {"error", counts["error"]},
                         {"unmanaged", static_cast<std::int64_t>(unmanaged.size())},
                         {"stale", static_cast<std::int64_t>(stale.size())},
                         {"repaired", repaired}};
    // ok: nothing is (still) out of place — after a repair, what was repaired counts as fixed.
    bool clean = unresolved == 0 && (stale.empty() || repair);
    json::object out{{"ok", clean},     {"repair", repair},         {"skills", std::move(skills)},
                     {"unmanaged", std::move(unmanaged)}, {"stale", std::move(stale)}, {"summary", std::move(summary)}};
    if (!cleaned.empty()) out["cleaned"] = std::move(cleaned);
    return out;
}

json::value SkillKind::inspect(const json::object& args) {
    sdk::Validation v;
    std::string source;
    std::optional<std::string> name;
    for (auto& kv : args)
        if (kv.key() != "source" && kv.key() != "name")
            v.fail("/" + std::string(kv.key()), "unknown argument; inspect takes \"source\" and \"name\"");
    if (auto* s = args.if_contains("source"); !s || !s->is_string()) v.fail("/source", "is required: the absolute path of a skill folder or archive");
    else source = std::string(s->as_string());
    if (auto* n = args.if_contains("name")) {
        if (!n->is_string()) v.fail("/name", "must be a string");
        else name = std::string(n->as_string());
    }
    if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "invalid arguments for inspect", json::object{{"errors", v.errors()}});
    auto insp = library_->inspect(source, name);
    if (!insp.ok()) refuse("the skill at " + source + " is not valid", insp.issues, "/source", "/name");
    json::array warnings, skipped;
    for (auto& w : insp.info.warnings) warnings.emplace_back(w);
    for (auto& s : insp.skipped) skipped.emplace_back(s);
    return json::object{{"name", insp.info.name},      {"description", insp.info.description},
                        {"frontmatter", insp.info.frontmatter}, {"root", insp.root},
                        {"files", static_cast<std::uint64_t>(insp.files)}, {"bytes", insp.bytes},
                        {"skipped", std::move(skipped)}, {"warnings", std::move(warnings)}};
}

}  // namespace coffer::plugins::skill
