/* ABI case newer_minor: BREAKS minor negotiation. Built against ABI 1.0 but declares
 * min_host_minor 99, i.e. it claims to need host services that only a (future) 1.99 host offers.
 * Everything else is valid. Expected: refused, "needs host ABI 1.99 or newer". */
#include <coffer/abi.h>

static coffer_status nm_init(const coffer_host_api* api, coffer_host* host, coffer_str config, void** ctx,
                             coffer_reply* reply) {
    (void)api, (void)host, (void)config, (void)reply;
    *ctx = NULL;
    return COFFER_OK;
}
static coffer_status nm_create(void* ctx, const coffer_kind* kind, coffer_str resource, coffer_instance** out,
                               coffer_reply* reply) {
    static int token;
    (void)ctx, (void)kind, (void)resource, (void)reply;
    *out = (coffer_instance*)&token;
    return COFFER_OK;
}
static void nm_destroy(coffer_instance* inst) { (void)inst; }

static const coffer_kind kind = {
    .struct_size = sizeof(coffer_kind),
    .name = {"newer_minor", 11},
    .schema_json = {"{\"type\":\"object\"}", 17},
    .actions_json = {"[]", 2},
    .create = nm_create,
    .destroy = nm_destroy,
};
static const coffer_kind* const kinds[] = {&kind};

static const coffer_plugin plugin = {
    .struct_size = sizeof(coffer_plugin),
    .abi_major = COFFER_ABI_MAJOR,
    .abi_minor = 0,
    .min_host_minor = 99, /* the breakage */
    .name = {"newer_minor", 11},
    .version = {"1.0.0", 5},
    .init = nm_init,
    .kind_count = 1,
    .kinds = kinds,
};

COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor);
COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor) {
    /* Deliberately does not return NULL for an old minor: the host's own min_host_minor check is
       what is under test. */
    (void)host_minor;
    return host_major == COFFER_ABI_MAJOR ? &plugin : NULL;
}
