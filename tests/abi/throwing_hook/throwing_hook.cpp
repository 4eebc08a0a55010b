// ABI case throwing_hook: BREAKS the "no exception crosses the boundary" rule. A raw C ABI plugin
// written WITHOUT the C++ wrapper, whose hooks let C++ exceptions fly straight through the C
// boundary. The host must contain every one of them: the call fails as PLUGIN_ERROR ("… threw …"),
// nothing is persisted, the daemon and the other plugins keep working.
//
// Kind "throwing_hook" (config: any object):
//   validate  throws std::runtime_error, unless the config has "pass_validation": true
//   create    throws when the config has "throw_in_create": true
//   status    throws when the config has "throw_in_status": true
//   action    "boom" throws std::runtime_error, "boom_int" throws an int (not a std::exception),
//             "ok" succeeds with {"ok":true}
// init, update, start, stop, remove and destroy behave.
#include <coffer/abi.h>

#include <boost/json.hpp>

#include <stdexcept>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;

const coffer_host_api* g_api = nullptr;

std::string_view view(coffer_str s) { return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view(); }
coffer_str cstr(std::string_view s) { return coffer_str{s.data(), s.size()}; }

bool flag(const json::value& config, const char* key) {
    auto* o = config.if_object();
    auto* v = o ? o->if_contains(key) : nullptr;
    return v && v->is_bool() && v->as_bool();
}

struct Instance {
    json::value config;
};

coffer_status th_init(const coffer_host_api* api, coffer_host*, coffer_str, void** ctx, coffer_reply*) {
    g_api = api;
    *ctx = nullptr;
    return COFFER_OK;
}

coffer_status th_validate(void*, const coffer_kind*, coffer_str config, coffer_reply*) {
    if (!flag(json::parse(view(config)), "pass_validation"))
        throw std::runtime_error("throwing_hook: validate threw on purpose");
    return COFFER_OK;
}

coffer_status th_create(void*, const coffer_kind*, coffer_str resource, coffer_instance** out, coffer_reply*) {
    auto doc = json::parse(view(resource));
    auto* inst = new Instance{doc.at("config")};
    if (flag(inst->config, "throw_in_create")) {
        delete inst;
        throw std::runtime_error("throwing_hook: create threw on purpose");
    }
    *out = reinterpret_cast<coffer_instance*>(inst);
    return COFFER_OK;
}

coffer_status th_update(coffer_instance* i, coffer_str config, coffer_reply*) {
    reinterpret_cast<Instance*>(i)->config = json::parse(view(config));
    return COFFER_OK;
}

coffer_status th_status(coffer_instance* i, coffer_reply* reply) {
    if (flag(reinterpret_cast<Instance*>(i)->config, "throw_in_status"))
        throw std::runtime_error("throwing_hook: status threw on purpose");
    g_api->reply_json(reply, cstr(R"({"health":"ok"})"));
    return COFFER_OK;
}

coffer_status th_action(coffer_instance*, coffer_str action, coffer_str, coffer_reply* reply) {
    auto a = view(action);
    if (a == "boom") throw std::runtime_error("throwing_hook: action threw on purpose");
    if (a == "boom_int") throw 42;
    if (a == "ok") {
        g_api->reply_json(reply, cstr(R"({"ok":true})"));
        return COFFER_OK;
    }
    g_api->reply_error(reply, COFFER_E_UNSUPPORTED, cstr("no such action"), cstr(""));
    return COFFER_E_UNSUPPORTED;
}

void th_destroy(coffer_instance* i) { delete reinterpret_cast<Instance*>(i); }

constexpr std::string_view kName = "throwing_hook";
constexpr std::string_view kSchema = R"({"type":"object"})";
constexpr std::string_view kActions =
    R"([{"name":"boom","description":"throws std::runtime_error"},)"
    R"({"name":"boom_int","description":"throws an int"},{"name":"ok","description":"succeeds"}])";
constexpr std::string_view kVersion = "1.0.0";

const coffer_kind kKind = [] {
    coffer_kind k{};
    k.struct_size = sizeof(coffer_kind);
    k.name = cstr(kName);
    k.schema_json = cstr(kSchema);
    k.actions_json = cstr(kActions);
    k.validate = th_validate;
    k.create = th_create;
    k.update = th_update;
    k.status = th_status;
    k.action = th_action;
    k.destroy = th_destroy;
    return k;
}();
const coffer_kind* const kKinds[] = {&kKind};

const coffer_plugin kPlugin = [] {
    coffer_plugin p{};
    p.struct_size = sizeof(coffer_plugin);
    p.abi_major = COFFER_ABI_MAJOR;
    p.abi_minor = COFFER_ABI_MINOR;
    p.min_host_minor = 0;
    p.name = cstr(kName);
    p.version = cstr(kVersion);
    p.init = th_init;
    p.kind_count = 1;
    p.kinds = kKinds;
    return p;
}();

}  // namespace

extern "C" COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t) {
    return host_major == COFFER_ABI_MAJOR ? &kPlugin : nullptr;
}
