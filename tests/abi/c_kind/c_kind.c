/*
 * ABI case c_kind: a GOOD plugin written in pure C99, without the C++ wrapper — proof that
 * coffer/abi.h is consumable from C. It breaks nothing.
 *
 * Kind "c_counter"; config {"start": integer >= 0, "step": 1..1000}, both optional (default 0, 1).
 * Validator (a rule the schema cannot state): start must be a multiple of step (pointer /start).
 * Action "increment" (args {"by": n} optional, default step) → {"count": N}; status
 * {"health":"ok","count":N,"step":S}. Counters live in malloc'd instances freed by destroy.
 *
 * The JSON reader here is deliberately tiny: it only finds `"key":<integer>` at the top level of
 * a compact object. The host has already validated the config against the schema.
 */
#include <coffer/abi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct counter {
    long long count;
    long long step;
} counter;

static const coffer_host_api* g_api;
static coffer_host* g_host;

static coffer_str cs(const char* s) {
    coffer_str out;
    out.ptr = s;
    out.len = strlen(s);
    return out;
}

static void log_info(const char* message) {
    /* A host built against an older minor may have a smaller table: check before use. */
    if (g_api && g_api->struct_size >= offsetof(coffer_host_api, log) + sizeof g_api->log && g_api->log)
        g_api->log(g_host, COFFER_LOG_INFO, cs(message));
}

/* Finds `"key":` in text[0..len) and reads the integer after it. Returns 1 when found. */
static int find_int(coffer_str text, const char* key, long long* out) {
    char needle[64];
    size_t n, i;
    int written = snprintf(needle, sizeof needle, "\"%s\":", key);
    if (written < 0 || (size_t)written >= sizeof needle) return 0;
    n = (size_t)written;
    for (i = 0; text.ptr && i + n <= text.len; ++i) {
        if (memcmp(text.ptr + i, needle, n) == 0) {
            char digits[32];
            size_t j = 0, k = i + n;
            while (k < text.len && (text.ptr[k] == ' ')) ++k;
            while (k < text.len && j + 1 < sizeof digits &&
                   (text.ptr[k] == '-' || (text.ptr[k] >= '0' && text.ptr[k] <= '9')))
                digits[j++] = text.ptr[k++];
            digits[j] = '\0';
            if (j == 0) return 0;
            *out = strtoll(digits, NULL, 10);
            return 1;
        }
    }
    return 0;
}

/* The "config" member of a resource document, from its opening brace to the matching one. */
static coffer_str config_of(coffer_str resource) {
    coffer_str none = {"{}", 2};
    const char* key = "\"config\":";
    size_t n = strlen(key), i;
    for (i = 0; resource.ptr && i + n <= resource.len; ++i) {
        if (memcmp(resource.ptr + i, key, n) == 0) {
            size_t start = i + n, k;
            int depth = 0;
            for (k = start; k < resource.len; ++k) {
                char c = resource.ptr[k];
                if (c == '"') { /* skip strings, honouring escapes */
                    for (++k; k < resource.len && resource.ptr[k] != '"'; ++k)
                        if (resource.ptr[k] == '\\') ++k;
                } else if (c == '{') {
                    ++depth;
                } else if (c == '}' && --depth == 0) {
                    coffer_str out;
                    out.ptr = resource.ptr + start;
                    out.len = k - start + 1;
                    return out;
                }
            }
            return none;
        }
    }
    return none;
}

static coffer_status cc_init(const coffer_host_api* api, coffer_host* host, coffer_str config, void** ctx,
                             coffer_reply* reply) {
    (void)config, (void)reply;
    g_api = api;
    g_host = host;
    *ctx = NULL;
    log_info("c_kind ready");
    return COFFER_OK;
}

static coffer_status cc_validate(void* ctx, const coffer_kind* kind, coffer_str config, coffer_reply* reply) {
    long long start = 0, step = 1;
    (void)ctx, (void)kind;
    find_int(config, "start", &start);
    find_int(config, "step", &step);
    if (step > 0 && start % step != 0) {
        char details[160];
        snprintf(details, sizeof details,
                 "{\"errors\":[{\"pointer\":\"/start\",\"message\":\"must be a multiple of step (%lld)\"}]}", step);
        g_api->reply_error(reply, COFFER_E_INVALID, cs("config is invalid"), cs(details));
        return COFFER_E_INVALID;
    }
    return COFFER_OK;
}

static coffer_status cc_create(void* ctx, const coffer_kind* kind, coffer_str resource, coffer_instance** out,
                               coffer_reply* reply) {
    coffer_str config = config_of(resource);
    counter* c = (counter*)malloc(sizeof *c);
    (void)ctx, (void)kind;
    if (!c) {
        g_api->reply_error(reply, COFFER_E_INTERNAL, cs("out of memory"), cs(""));
        return COFFER_E_INTERNAL;
    }
    c->count = 0;
    c->step = 1;
    find_int(config, "start", &c->count);
    find_int(config, "step", &c->step);
    *out = (coffer_instance*)c;
    return COFFER_OK;
}

static coffer_status cc_update(coffer_instance* inst, coffer_str config, coffer_reply* reply) {
    counter* c = (counter*)inst;
    (void)reply;
    c->step = 1;
    find_int(config, "step", &c->step); /* the count carries on; only the step changes */
    return COFFER_OK;
}

static coffer_status cc_status(coffer_instance* inst, coffer_reply* reply) {
    counter* c = (counter*)inst;
    char json[96];
    snprintf(json, sizeof json, "{\"health\":\"ok\",\"count\":%lld,\"step\":%lld}", c->count, c->step);
    g_api->reply_json(reply, cs(json));
    return COFFER_OK;
}

static coffer_status cc_action(coffer_instance* inst, coffer_str action, coffer_str args, coffer_reply* reply) {
    counter* c = (counter*)inst;
    char json[64];
    long long by = c->step;
    if (!(action.len == 9 && memcmp(action.ptr, "increment", 9) == 0)) {
        g_api->reply_error(reply, COFFER_E_UNSUPPORTED, cs("c_counter only knows the action \"increment\""), cs(""));
        return COFFER_E_UNSUPPORTED;
    }
    find_int(args, "by", &by);
    c->count += by;
    snprintf(json, sizeof json, "{\"count\":%lld}", c->count);
    g_api->reply_json(reply, cs(json));
    return COFFER_OK;
}

static void cc_destroy(coffer_instance* inst) { free(inst); }

static const char schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"start\":{\"type\":\"integer\",\"minimum\":0},"
    "\"step\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}},"
    "\"additionalProperties\":false}";
static const char actions[] =
    "[{\"name\":\"increment\",\"description\":\"adds args.by (default: step) and returns the count\"}]";

static const coffer_kind kind = {
    .struct_size = sizeof(coffer_kind),
    .name = {"c_counter", 9},
    .schema_json = {schema, sizeof schema - 1},
    .actions_json = {actions, sizeof actions - 1},
    .kind_data = NULL,
    .validate = cc_validate,
    .create = cc_create,
    .update = cc_update,
    .start = NULL,
    .stop = NULL,
    .status = cc_status,
    .action = cc_action,
    .remove = NULL,
    .destroy = cc_destroy,
};
static const coffer_kind* const kinds[] = {&kind};

static const coffer_plugin plugin = {
    .struct_size = sizeof(coffer_plugin),
    .abi_major = COFFER_ABI_MAJOR,
    .abi_minor = COFFER_ABI_MINOR,
    .min_host_minor = 0,
    .name = {"c_kind", 6},
    .version = {"1.0.0", 5},
    .init = cc_init,
    .shutdown = NULL,
    .kind_count = 1,
    .kinds = kinds,
};

COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor);
COFFER_EXPORT const coffer_plugin* coffer_plugin_entry_v1(uint16_t host_major, uint16_t host_minor) {
    (void)host_minor;
    return host_major == COFFER_ABI_MAJOR ? &plugin : NULL;
}
