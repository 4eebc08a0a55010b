#include "plugin/registry.hpp"
#include "plugin/loop.hpp"

#include "core/log.hpp"
#include "plugin/loader.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <set>

namespace coffer::plugin {

namespace fs = std::filesystem;
namespace json = boost::json;

namespace {
bool ends_with(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

Registry::~Registry() { shutdown(); }

void Registry::add_refused(const fs::path& file, std::string name, std::string why) {
    auto p = std::make_unique<Plugin>();
    p->name = std::move(name);
    p->file = file.string();
    p->status = Status::refused;
    p->error = std::move(why);
    core::log::warn("plugin refused", {{"plugin", p->name}, {"file", p->file}, {"reason", p->error}});
    plugins_.push_back(std::move(p));
}

void Registry::discover(const std::vector<fs::path>& dirs) {
    std::set<std::string> seen_dirs;
    for (auto& dir : dirs) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) continue;
        auto canon = fs::weakly_canonical(dir, ec).string();
        if (!seen_dirs.insert(canon).second) continue;
        std::vector<fs::path> manifests, libraries;
        for (auto& e : fs::directory_iterator(dir, ec)) {
            auto n = e.path().filename().string();
            if (ends_with(n, ".plugin.json")) manifests.push_back(e.path());
            else if (ends_with(n, ".so")) libraries.push_back(e.path());
        }
        std::sort(manifests.begin(), manifests.end());
        std::sort(libraries.begin(), libraries.end());
        std::set<fs::path> claimed;
        for (auto& mp : manifests) {
            auto stem = mp.filename().string();
            stem.resize(stem.size() - std::string_view(".plugin.json").size());
            auto m = parse_manifest(mp);
            if (!m) {
                // The library it probably describes is accounted for by this refusal.
                claimed.insert(dir / ("lib" + stem + ".so"));
                claimed.insert(dir / (stem + ".so"));
                add_refused(mp, stem, m.error().message);
                continue;
            }
            claimed.insert(m->library);
            if (auto* other = [&]() -> Plugin* {
                    for (auto& p : plugins_)
                        if (p->name == m->name && p->status == Status::loaded) return p.get();
                    return nullptr;
                }()) {
                add_refused(mp, m->name, "a plugin named '" + m->name + "' is already loaded from " + other->file);
                continue;
            }
            std::string clash;
            for (auto& k : m->kinds)
                if (auto* existing = find_kind(k))
                    clash = "kind '" + k + "' is already provided by plugin '" + existing->plugin->name + "'";
            if (!clash.empty()) {
                add_refused(mp, m->name, clash);
                continue;
            }
            auto p = std::make_unique<Plugin>();
            load(*p, *m, &services_);
            plugins_.push_back(std::move(p));
        }
        for (auto& lib : libraries)
            if (!claimed.count(lib))
                add_refused(lib, lib.stem().string(),
                            "no manifest: expected a sidecar <name>.plugin.json naming this library");
    }
}

Kind* Registry::find_kind(std::string_view name) const {
    for (auto& p : plugins_) {
        if (p->status != Status::loaded) continue;
        for (auto& k : p->kinds)
            if (k->name == name) return k.get();
    }
    return nullptr;
}

std::vector<Kind*> Registry::kinds() const {
    std::vector<Kind*> out;
    for (auto& p : plugins_)
        if (p->status == Status::loaded)
            for (auto& k : p->kinds) out.push_back(k.get());
    std::sort(out.begin(), out.end(), [](Kind* a, Kind* b) { return a->name < b->name; });
    return out;
}

json::array Registry::describe_plugins() const {
    json::array out;
    for (auto& p : plugins_) {
        json::array kinds;
        for (auto& k : p->kind_names) kinds.emplace_back(k);
        json::object o{{"name", p->name},
                       {"version", p->version},
                       {"abi", std::to_string(p->abi_major) + "." + std::to_string(p->abi_minor)},
                       {"file", p->file},
                       {"kinds", std::move(kinds)},
                       {"status", to_string(p->status)},
                       {"error", p->error.empty() ? json::value(nullptr) : json::value(p->error)}};
        out.push_back(std::move(o));
    }
    return out;
}

json::array Registry::describe_kinds() const {
    json::array out;
    for (auto* k : kinds())
        out.push_back(json::object{
            {"kind", k->name}, {"plugin", k->plugin->name}, {"schema", k->schema}, {"actions", k->actions},
            {"kind_actions", k->kind_actions}});
    return out;
}

void Registry::shutdown() {
    if (shut_) return;
    shut_ = true;
    for (auto& p : plugins_) {
        if (p->status != Status::loaded || !p->fns.shutdown) continue;
        std::lock_guard<std::recursive_mutex> g(p->mu);
        try {
            p->fns.shutdown(p->ctx);
        } catch (...) {
            core::log::error("plugin shutdown threw", {{"plugin", p->name}});
        }
        // Whatever it left on the lent loop must never call into it again.
        if (services_.loop) services_.loop->forget(p->name);
    }
}

}  // namespace coffer::plugin
