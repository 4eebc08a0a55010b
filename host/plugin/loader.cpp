#include "plugin/loader.hpp"

#include "core/log.hpp"
#include "plugin/call.hpp"
#include "vault/layout.hpp"

#include <boost/dll/shared_library.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <set>

namespace coffer::plugin {

namespace json = boost::json;

namespace {

std::string_view view(coffer_str s) { return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view(); }

// Never dlclose in ABI v1: libraries stay mapped until the process exits.
void keep_forever(boost::dll::shared_library lib) {
    static auto* libs = new std::vector<boost::dll::shared_library>();
    libs->push_back(std::move(lib));
}

template <typename T> void copy_versioned(T& out, const T* in) {
    std::memset(&out, 0, sizeof(T));
    std::size_t n = std::min<std::size_t>(in->struct_size, sizeof(T));
    std::memcpy(&out, in, n);
}

bool refuse(Plugin& p, std::string why) {
    p.status = Status::refused;
    p.error = std::move(why);
    core::log::warn("plugin refused", {{"plugin", p.name}, {"file", p.file}, {"reason", p.error}});
    return false;
}

bool parse_actions(std::string_view text, json::array& out) {
    if (text.empty()) return true;
    boost::system::error_code ec;
    auto a = json::parse(text, ec);
    if (ec || !a.is_array()) return false;
    for (auto& item : a.as_array()) {
        auto* o = item.if_object();
        auto* n = o ? o->if_contains("name") : nullptr;
        if (!n || !n->is_string() || n->as_string().empty()) return false;
        json::object entry{{"name", n->as_string()}, {"description", ""}};
        if (auto* d = o->if_contains("description"); d && d->is_string()) entry["description"] = *d;
        out.push_back(std::move(entry));
    }
    return true;
}

bool load_kind(Plugin& p, const coffer_kind* raw, std::string& err) {
    if (!raw || raw->struct_size < offsetof(coffer_kind, destroy) + sizeof(raw->destroy)) {
        err = "a kind descriptor is missing or too small";
        return false;
    }
    auto k = std::make_unique<Kind>();
    k->raw = raw;
    copy_versioned(k->fns, raw);
    k->name = std::string(view(k->fns.name));
    k->plugin = &p;
    if (std::find(p.kind_names.begin(), p.kind_names.end(), k->name) == p.kind_names.end()) {
        err = "kind '" + k->name + "' is not declared in the manifest";
        return false;
    }
    if (!k->fns.create || !k->fns.destroy) {
        err = "kind '" + k->name + "' lacks the required create/destroy functions";
        return false;
    }
    boost::system::error_code ec;
    k->schema = json::parse(view(k->fns.schema_json), ec);
    if (ec || !k->schema.is_object()) {
        err = "kind '" + k->name + "' has a schema that is not a JSON object";
        return false;
    }
    auto compiled = schema::Validator::compile(k->schema);
    if (!compiled) {
        err = "kind '" + k->name + "' has an invalid schema: " + compiled.error().message;
        return false;
    }
    k->validator = std::make_shared<const schema::Validator>(std::move(compiled).value());
    if (!parse_actions(view(k->fns.actions_json), k->actions) ||
        !parse_actions(view(k->fns.kind_actions_json), k->kind_actions)) {
        err = "kind '" + k->name + "' declares actions that are not a JSON array of {name, description}";
        return false;
    }
    p.kinds.push_back(std::move(k));
    return true;
}

}  // namespace

namespace {
bool listed(const json::array& list, std::string_view a) {
    for (auto& v : list)
        if (v.as_object().at("name").as_string() == a) return true;
    return false;
}
}  // namespace

bool Kind::has_action(std::string_view a) const { return listed(actions, a); }
bool Kind::has_kind_action(std::string_view a) const { return listed(kind_actions, a) && fns.kind_action; }

const char* to_string(Status s) {
    switch (s) {
        case Status::loaded: return "loaded";
        case Status::refused: return "refused";
        case Status::faulted: return "faulted";
    }
    return "refused";
}

void load(Plugin& p, const Manifest& m, HostServices* services) {
    p.name = m.name;
    p.version = m.version;
    p.file = m.library.string();
    p.manifest = m.path.string();
    p.abi_major = m.abi_major;
    p.abi_minor = m.abi_minor;
    p.kind_names = m.kinds;

    if (m.abi_major != COFFER_ABI_MAJOR)
        return (void)refuse(p, "built for ABI major " + std::to_string(m.abi_major) + "; this host speaks ABI " +
                                   std::to_string(COFFER_ABI_MAJOR) + "." + std::to_string(COFFER_ABI_MINOR));
    std::error_code fec;
    if (!std::filesystem::exists(m.library, fec))
        return (void)refuse(p, "library not found: " + m.library.string());

    boost::dll::shared_library lib;
    try {
        lib.load(m.library, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
        return (void)refuse(p, std::string("cannot load library: ") + e.what());
    }
    if (!lib.has(COFFER_PLUGIN_ENTRY_SYMBOL)) {
        keep_forever(std::move(lib));
        return (void)refuse(p, std::string("missing entry symbol ") + COFFER_PLUGIN_ENTRY_SYMBOL +
                                   " (not a Coffer ABI v1 plugin)");
    }
    auto entry = lib.get<const coffer_plugin*(uint16_t, uint16_t)>(COFFER_PLUGIN_ENTRY_SYMBOL);
    keep_forever(std::move(lib));

    const coffer_plugin* raw = nullptr;
    try {
        raw = entry(COFFER_ABI_MAJOR, COFFER_ABI_MINOR);
    } catch (...) {
        return (void)refuse(p, "entry function threw an exception");
    }
    if (!raw)
        return (void)refuse(p, "entry function returned NULL: the plugin does not support host ABI " +
                                   std::to_string(COFFER_ABI_MAJOR) + "." + std::to_string(COFFER_ABI_MINOR));
    if (raw->struct_size < offsetof(coffer_plugin, kinds) + sizeof(raw->kinds))
        return (void)refuse(p, "plugin descriptor is too small (struct_size " + std::to_string(raw->struct_size) + ")");
    p.raw = raw;
    copy_versioned(p.fns, raw);
    if (p.fns.abi_major != COFFER_ABI_MAJOR)
        return (void)refuse(p, "plugin reports ABI major " + std::to_string(p.fns.abi_major) + "; this host speaks " +
                                   std::to_string(COFFER_ABI_MAJOR));
    if (p.fns.min_host_minor > COFFER_ABI_MINOR)
        return (void)refuse(p, "needs host ABI " + std::to_string(COFFER_ABI_MAJOR) + "." +
                                   std::to_string(p.fns.min_host_minor) + " or newer; this host speaks " +
                                   std::to_string(COFFER_ABI_MAJOR) + "." + std::to_string(COFFER_ABI_MINOR));
    if (view(p.fns.name) != m.name)
        return (void)refuse(p, "plugin calls itself '" + std::string(view(p.fns.name)) + "' but its manifest says '" +
                                   m.name + "'");
    if (!p.fns.init) return (void)refuse(p, "plugin has no init function");

    p.host = std::make_unique<coffer_host>();
    p.host->plugin_name = m.name;
    p.host->vault_dir = services ? services->vault.string() : std::string();
    p.host->data_dir = services ? (services->vault / vault::kData / m.name).string() : std::string();
    p.host->services = services;

    p.status = Status::loaded;  // so call() lets init through
    auto init = call(p, "init", [&](coffer_reply* r) {
        return p.fns.init(host_api(), p.host.get(), cstr("{}"), &p.ctx, r);
    });
    if (!init) return (void)refuse(p, "init failed: " + init.error().message);

    std::string err;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < p.fns.kind_count; ++i) {
        if (!load_kind(p, p.fns.kinds ? p.fns.kinds[i] : nullptr, err)) break;
        if (!seen.insert(p.kinds.back()->name).second) {
            err = "kind '" + p.kinds.back()->name + "' is provided twice";
            break;
        }
    }
    if (err.empty() && seen.size() != p.kind_names.size()) err = "the plugin provides other kinds than its manifest lists";
    if (!err.empty()) {
        p.kinds.clear();
        if (p.fns.shutdown) {
            try {
                p.fns.shutdown(p.ctx);
            } catch (...) {
            }
        }
        return (void)refuse(p, err);
    }
    core::log::info("plugin loaded", {{"plugin", p.name}, {"version", p.version}, {"file", p.file}});
}

}  // namespace coffer::plugin
