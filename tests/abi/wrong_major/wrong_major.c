/* ABI case wrong_major: BREAKS the major version. Its manifest says "abi": {"major": 2} and its
 * entry (still found under the v1 symbol name) reports abi_major 2, so the host must refuse it
 * twice over: from the manifest without loading, and from the descriptor if it ever got that far.
 * Expected: `coffer plugin list` shows it refused, "built for ABI major 2". */
#include <coffer/abi.h>

static coffer_status wm_init(const coffer_host_api* api, coffer_host* host, coffer_str config, void** ctx,
                             coffer_reply* reply) {
    (void)api, (void)host, (void)config, (void)reply;
    *ctx = NULL;
    return COFFER_OK;
}
static coffer_status wm_create(void* ctx, const coffer_kind* kind, coffer_str resource, coffer_instance** out,
                               coffer_reply* reply) {
    static int token;
    (void)ctx, (void)kind, (void)resource, (void)reply;
    *out = (coffer_instance*)&token;
    return COFFER_OK;
}
static void wm_destroy(coffer_instance* inst) { (void)inst; }

static const coffer_kind kind = {
    .struct_size = sizeof(coffer_kind),
    .name = {"wrong_major", 11},
    .schema_json = {"{\"type\":\"object\"}", 17},
    .actions_json = {"[]", 2},
    .create = wm_create,
    .destroy = wm_destroy,
};
static const coffer_kind* const kinds[] = {&kind};

static const coffer_plugin plugin = {
    .struct_size = sizeof(coffer_plugin),
    .abi_major = 2, /* the breakage */
    .abi_minor = 0,
    .min_host_minor = 0,
    .name = {"wrong_major", 11},
    .version = {"1.0.0", 5},
    .init = wm_init,
    .kind_count = 1,
    .kinds = kinds,
};

COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor);
COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor) {
    (void)host_major, (void)host_minor; /* answers any host, to prove the host checks abi_major itself */
    return &plugin;
}
