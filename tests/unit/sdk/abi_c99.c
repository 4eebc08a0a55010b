/*
 * abi.h compiled as strict C99 (-std=c99 -pedantic -Werror -Wall -Wextra): the contract must be
 * consumable from plain C. The file also writes a small C kind with designated initializers and
 * reports the C compiler's view of every struct layout, which abi_layout_test.cpp compares with
 * the C++ compiler's.
 */
#include <coffer/abi.h>

#include <stddef.h>
#include <string.h>

typedef struct coffer_c_layout_entry {
    const char* name;
    size_t value;
} coffer_c_layout_entry;

/* Declared here (not in a header) to keep abi.h the only shared include. */
const coffer_c_layout_entry* coffer_c_layout(size_t* count);
const coffer_plugin* coffer_c_sample_plugin(void);

#define ENTRY(expr) {#expr, (expr)}

static const coffer_c_layout_entry layout[] = {
    ENTRY(sizeof(coffer_str)),
    ENTRY(offsetof(coffer_str, len)),
    ENTRY(sizeof(coffer_status)),
    ENTRY(sizeof(coffer_host_api)),
    ENTRY(offsetof(coffer_host_api, abi_major)),
    ENTRY(offsetof(coffer_host_api, abi_minor)),
    ENTRY(offsetof(coffer_host_api, log)),
    ENTRY(offsetof(coffer_host_api, reply_json)),
    ENTRY(offsetof(coffer_host_api, reply_error)),
    ENTRY(offsetof(coffer_host_api, emit)),
    ENTRY(offsetof(coffer_host_api, audit)),
    ENTRY(offsetof(coffer_host_api, data_dir)),
    ENTRY(offsetof(coffer_host_api, vault_dir)),
    ENTRY(offsetof(coffer_host_api, child_exited)),
    ENTRY(offsetof(coffer_host_api, credential_resolve)),
    ENTRY(offsetof(coffer_host_api, turn_event)),
    ENTRY(offsetof(coffer_host_api, channel_inbound)),
    ENTRY(offsetof(coffer_host_api, credential_store)),
    ENTRY(sizeof(coffer_kind)),
    ENTRY(offsetof(coffer_kind, name)),
    ENTRY(offsetof(coffer_kind, schema_json)),
    ENTRY(offsetof(coffer_kind, actions_json)),
    ENTRY(offsetof(coffer_kind, kind_data)),
    ENTRY(offsetof(coffer_kind, validate)),
    ENTRY(offsetof(coffer_kind, create)),
    ENTRY(offsetof(coffer_kind, update)),
    ENTRY(offsetof(coffer_kind, start)),
    ENTRY(offsetof(coffer_kind, stop)),
    ENTRY(offsetof(coffer_kind, status)),
    ENTRY(offsetof(coffer_kind, action)),
    ENTRY(offsetof(coffer_kind, remove)),
    ENTRY(offsetof(coffer_kind, destroy)),
    ENTRY(sizeof(coffer_mcp_provider)),
    ENTRY(offsetof(coffer_mcp_provider, open)),
    ENTRY(offsetof(coffer_mcp_provider, request)),
    ENTRY(offsetof(coffer_mcp_provider, cancel)),
    ENTRY(offsetof(coffer_mcp_provider, respond)),
    ENTRY(offsetof(coffer_mcp_provider, close)),
    ENTRY(offsetof(coffer_mcp_provider, notify)),
    ENTRY(sizeof(coffer_agent_driver)),
    ENTRY(offsetof(coffer_agent_driver, start_turn)),
    ENTRY(offsetof(coffer_agent_driver, interrupt)),
    ENTRY(offsetof(coffer_kind, agent)),
    ENTRY(sizeof(coffer_channel_adapter)),
    ENTRY(offsetof(coffer_channel_adapter, capabilities)),
    ENTRY(offsetof(coffer_channel_adapter, start)),
    ENTRY(offsetof(coffer_channel_adapter, stop)),
    ENTRY(offsetof(coffer_channel_adapter, send)),
    ENTRY(offsetof(coffer_channel_adapter, edit)),
    ENTRY(offsetof(coffer_channel_adapter, typing)),
    ENTRY(offsetof(coffer_kind, channel)),
    ENTRY(offsetof(coffer_kind, rescope)),
    ENTRY(sizeof(coffer_plugin)),
    ENTRY(offsetof(coffer_plugin, abi_major)),
    ENTRY(offsetof(coffer_plugin, abi_minor)),
    ENTRY(offsetof(coffer_plugin, min_host_minor)),
    ENTRY(offsetof(coffer_plugin, reserved0)),
    ENTRY(offsetof(coffer_plugin, name)),
    ENTRY(offsetof(coffer_plugin, version)),
    ENTRY(offsetof(coffer_plugin, init)),
    ENTRY(offsetof(coffer_plugin, shutdown)),
    ENTRY(offsetof(coffer_plugin, kind_count)),
    ENTRY(offsetof(coffer_plugin, kinds)),
};

const coffer_c_layout_entry* coffer_c_layout(size_t* count) {
    *count = sizeof layout / sizeof layout[0];
    return layout;
}

/* A minimal kind in C: every hook signature is spelled out once, so a typo in abi.h that only
   C would notice breaks this build. */
static coffer_status c_validate(void* ctx, const coffer_kind* kind, coffer_str config, coffer_reply* reply) {
    (void)ctx, (void)kind, (void)config, (void)reply;
    return COFFER_OK;
}
static coffer_status c_create(void* ctx, const coffer_kind* kind, coffer_str resource, coffer_instance** out,
                              coffer_reply* reply) {
    static int token;
    (void)ctx, (void)kind, (void)resource, (void)reply;
    *out = (coffer_instance*)&token;
    return COFFER_OK;
}
static coffer_status c_action(coffer_instance* inst, coffer_str name, coffer_str args, coffer_reply* reply) {
    (void)inst, (void)args, (void)reply;
    return (name.len == 4 && memcmp(name.ptr, "ping", 4) == 0) ? COFFER_OK : COFFER_E_UNSUPPORTED;
}
static void c_destroy(coffer_instance* inst) { (void)inst; }
static coffer_status c_init(const coffer_host_api* api, coffer_host* host, coffer_str config, void** ctx,
                            coffer_reply* reply) {
    (void)api, (void)host, (void)config, (void)reply;
    *ctx = NULL;
    return COFFER_OK;
}

/* Designated initializers: fields appended by later ABI minors stay zero (NULL). */
static const coffer_kind c_kind = {
    .struct_size = sizeof(coffer_kind),
    .name = {"c_sample", 8},
    .schema_json = {"{\"type\":\"object\"}", 17},
    .actions_json = {"[{\"name\":\"ping\",\"description\":\"\"}]", 34},
    .kind_data = NULL,
    .validate = c_validate,
    .create = c_create,
    .action = c_action,
    .destroy = c_destroy,
};
static const coffer_kind* const c_kinds[] = {&c_kind};

static const coffer_plugin c_plugin = {
    .struct_size = sizeof(coffer_plugin),
    .abi_major = COFFER_ABI_MAJOR,
    .abi_minor = COFFER_ABI_MINOR,
    .min_host_minor = 0,
    .name = {"c_sample", 8},
    .version = {"0.0.1", 5},
    .init = c_init,
    .shutdown = NULL,
    .kind_count = 1,
    .kinds = c_kinds,
};

const coffer_plugin* coffer_c_sample_plugin(void) { return &c_plugin; }

/* The entry function type must accept a C function with exactly this signature. */
static const coffer_plugin* c_entry(uint16_t major, uint16_t minor) {
    (void)minor;
    return major == COFFER_ABI_MAJOR ? &c_plugin : NULL;
}
coffer_plugin_entry_fn coffer_c_sample_entry(void);
coffer_plugin_entry_fn coffer_c_sample_entry(void) { return c_entry; }
