/*
 * ABI case mcp_v13: a GOOD MCP capability provider in pure C99, shaped the way a plugin built
 * against ABI 1.3 ships it: its coffer_mcp_provider ends at `close`, so struct_size is
 * offsetof(coffer_mcp_provider, notify). A 1.4 host must read no further than that (and so never
 * call the 1.4 `notify` hook); a 1.3 plugin breaks nothing.
 *
 * To make a host that ignores struct_size visible, the bytes past struct_size are not left to
 * chance: the table is a full 1.4 struct whose `notify` slot is a trap that counts its calls.
 *
 * Kind "mcp_v13"; config: any object. One tool, `trapped` → text "trapped N" (N = trap calls, 0
 * on a correct host). Other methods → JSON-RPC error -32601. The descriptor says abi_minor 3,
 * min_host_minor 2.
 */
#include <coffer/abi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const coffer_host_api* g_api;
static int g_trapped; /* calls into the trap; every hook runs under the plugin's lock */

static coffer_str cs(const char* s) {
    coffer_str out;
    out.ptr = s;
    out.len = strlen(s);
    return out;
}

static int eq(coffer_str a, const char* b) { return a.len == strlen(b) && memcmp(a.ptr, b, a.len) == 0; }

static int contains(coffer_str text, const char* needle) {
    size_t n = strlen(needle), i;
    for (i = 0; text.ptr && i + n <= text.len; ++i)
        if (memcmp(text.ptr + i, needle, n) == 0) return 1;
    return 0;
}

static int can_complete(void) {
    return g_api && g_api->struct_size >= offsetof(coffer_host_api, call_complete) + sizeof g_api->call_complete &&
           g_api->call_complete;
}

static coffer_status v13_init(const coffer_host_api* api, coffer_host* host, coffer_str config, void** ctx,
                              coffer_reply* reply) {
    (void)host, (void)config, (void)reply;
    g_api = api;
    *ctx = NULL;
    return COFFER_OK;
}

static coffer_status v13_create(void* ctx, const coffer_kind* kind, coffer_str resource, coffer_instance** out,
                                coffer_reply* reply) {
    static int token;
    (void)ctx, (void)kind, (void)resource, (void)reply;
    *out = (coffer_instance*)&token;
    return COFFER_OK;
}

static void v13_destroy(coffer_instance* inst) { (void)inst; }

/* ---- the provider ---- */

typedef struct v13_session {
    coffer_session* session;
} v13_session;

static coffer_status v13_open(coffer_instance* inst, coffer_session* session, coffer_str session_json, void** state,
                              coffer_reply* reply) {
    v13_session* s = (v13_session*)malloc(sizeof *s);
    (void)inst, (void)session_json, (void)reply;
    if (!s) return COFFER_E_INTERNAL;
    s->session = session;
    *state = s;
    return COFFER_OK;
}

static coffer_status v13_request(void* state, coffer_call* call, coffer_str method, coffer_str params,
                                 coffer_reply* reply) {
    char text[128];
    (void)state, (void)reply;
    if (!can_complete()) return COFFER_E_UNAVAILABLE;
    if (eq(method, "tools/list")) {
        g_api->call_complete(call,
                             cs("{\"tools\":[{\"name\":\"trapped\",\"description\":\"How often the host called past "
                                "struct_size\",\"inputSchema\":{\"type\":\"object\"}}]}"),
                             cs(""));
    } else if (eq(method, "tools/call") && contains(params, "\"trapped\"")) {
        snprintf(text, sizeof text, "{\"content\":[{\"type\":\"text\",\"text\":\"trapped %d\"}]}", g_trapped);
        g_api->call_complete(call, cs(text), cs(""));
    } else if (eq(method, "tools/call")) {
        g_api->call_complete(call, cs(""), cs("{\"code\":-32602,\"message\":\"unknown tool\"}"));
    } else {
        g_api->call_complete(call, cs(""), cs("{\"code\":-32601,\"message\":\"Method not found\"}"));
    }
    return COFFER_OK;
}

static void v13_close(void* state) { free(state); }

/* Past struct_size: a correct host never calls it. */
static void v13_trap(void* state, coffer_str method, coffer_str params) {
    (void)state, (void)method, (void)params;
    ++g_trapped;
}

static const coffer_mcp_provider provider = {
    .struct_size = offsetof(coffer_mcp_provider, notify), /* the 1.3 size */
    .open = v13_open,
    .request = v13_request,
    .close = v13_close,
    .notify = v13_trap,
};

static const coffer_kind kind = {
    .struct_size = sizeof(coffer_kind),
    .name = {"mcp_v13", 7},
    .schema_json = {"{\"type\":\"object\"}", 17},
    .actions_json = {"[]", 2},
    .create = v13_create,
    .destroy = v13_destroy,
    .kind_actions_json = {"[]", 2},
    .mcp = &provider,
};
static const coffer_kind* const kinds[] = {&kind};

static const coffer_plugin plugin = {
    .struct_size = sizeof(coffer_plugin),
    .abi_major = COFFER_ABI_MAJOR,
    .abi_minor = 3,
    .min_host_minor = 2,
    .name = {"mcp_v13", 7},
    .version = {"1.0.0", 5},
    .init = v13_init,
    .kind_count = 1,
    .kinds = kinds,
};

COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor);
COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor) {
    (void)host_minor;
    return host_major == COFFER_ABI_MAJOR ? &plugin : NULL;
}
