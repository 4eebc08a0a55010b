/*
 * coffer/abi.h — the stable C ABI between the Coffer host and its plugins.
 *
 * This header is the only stable contract. It is pure C (C99) and also compiles as C++20.
 * Rules (see docs/abi.md for the full text):
 *   - One exported entry symbol whose name carries the ABI major: coffer_plugin_entry_v1.
 *   - Every struct begins with `struct_size`; fields are only ever appended. A reader uses
 *     min(struct_size, sizeof(its own struct)) and never rejects a larger struct.
 *   - Strings are {ptr,len}, borrowed for the duration of the call, UTF-8, not NUL-terminated.
 *   - Structured data crosses as JSON text.
 *   - Results are written into host-owned reply objects through host callbacks (the host copies).
 *     Nothing allocated on one side is freed on the other.
 *   - No C++ exception, RTTI object or STL type crosses the boundary.
 *   - Calls on one plugin are serialized by the host. Host callbacks are thread-safe and never block.
 */
#ifndef COFFER_ABI_H
#define COFFER_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COFFER_ABI_MAJOR 1
#define COFFER_ABI_MINOR 9

#if defined(_WIN32)
#define COFFER_EXPORT __declspec(dllexport)
#else
#define COFFER_EXPORT __attribute__((visibility("default")))
#endif

/* The name of the entry symbol for ABI major 1. */
#define COFFER_PLUGIN_ENTRY_SYMBOL "coffer_plugin_entry_v1"

/* A borrowed UTF-8 string: valid only for the duration of the call that passes it. */
typedef struct coffer_str {
    const char* ptr;
    size_t len;
} coffer_str;

typedef enum coffer_status {
    COFFER_OK = 0,
    COFFER_E_INVALID = 1,     /* the input is wrong (validation failure, bad arguments) */
    COFFER_E_NOT_FOUND = 2,   /* the named thing does not exist */
    COFFER_E_CONFLICT = 3,    /* it exists already, or a state conflict */
    COFFER_E_DENIED = 4,      /* not permitted */
    COFFER_E_UNSUPPORTED = 5, /* this plugin does not implement that */
    COFFER_E_UNAVAILABLE = 6, /* a dependency is down; retrying later may work */
    COFFER_E_INTERNAL = 7     /* a bug or an unexpected failure */
} coffer_status;

typedef enum coffer_log_level {
    COFFER_LOG_DEBUG = 0,
    COFFER_LOG_INFO = 1,
    COFFER_LOG_WARN = 2,
    COFFER_LOG_ERROR = 3
} coffer_log_level;

/* Opaque host-owned handles. */
typedef struct coffer_host coffer_host;   /* one per loaded plugin */
typedef struct coffer_reply coffer_reply; /* one per call that produces a result */
/* Opaque plugin-owned handle: one per resource the plugin manages. */
typedef struct coffer_instance coffer_instance;
/* ABI 1.2, the MCP gateway: host-owned handles. */
typedef struct coffer_session coffer_session; /* one downstream MCP session (client connection) */
typedef struct coffer_call coffer_call;       /* one request the gateway routed to a provider */
/* ABI 1.5, agent drivers: host-owned handle of one agent turn (an opaque number, never an address). */
typedef struct coffer_turn coffer_turn;
/* ABI 1.6, channel adapters: host-owned handle of one receiving channel (an opaque number). */
typedef struct coffer_channel coffer_channel;

/*
 * Host services. Every function is thread-safe and never blocks on the plugin.
 * A plugin built against a newer minor must check struct_size before using a field that
 * an older host may lack (the C++ wrapper does this for you).
 */
typedef struct coffer_host_api {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;

    /* Structured log line attributed to the plugin. */
    void (*log)(coffer_host* host, int level, coffer_str message);
    /* Set the reply's result to a JSON document (copied). Replaces any earlier result. */
    void (*reply_json)(coffer_reply* reply, coffer_str json);
    /* Set the reply's error: a status, a human message and optional JSON details (may be empty). */
    void (*reply_error)(coffer_reply* reply, coffer_status status, coffer_str message,
                        coffer_str details_json);
    /* Publish an event on the host's event bus. */
    coffer_status (*emit)(coffer_host* host, coffer_str topic, coffer_str event_json);
    /* Write an audit event (actor "system", attributed to the plugin). Never pass secrets. */
    coffer_status (*audit)(coffer_host* host, coffer_str event_type, coffer_str target,
                           coffer_str payload_json);
    /* The plugin's private data directory ($COFFER_HOME/data/<plugin>), created on demand.
       The returned string is host-owned and valid for the plugin's lifetime. */
    coffer_str (*data_dir)(coffer_host* host);
    /* The vault directory ($COFFER_HOME). Host-owned, valid for the plugin's lifetime. */
    coffer_str (*vault_dir)(coffer_host* host);

    /* --- ABI 1.2: MCP capability providers (see coffer_mcp_provider) --- */
    /* Completes a routed call, exactly once, from any thread. On success pass the JSON-RPC
       `result` object as raw text (it is forwarded to the client byte for byte) and an empty
       error; on failure pass an empty result and a JSON-RPC error object {code,message,data?}.
       The call handle is spent afterwards. Handles are opaque values, never reused and never
       dereferenced by the plugin; completing a call the host has already finished itself (its
       session closed, its server was withdrawn) is a harmless no-op, from any thread. */
    void (*call_complete)(coffer_call* call, coffer_str result_json, coffer_str error_json);
    /* Server-to-client notification on a session, e.g. {"method":"notifications/progress",
       "params":{…}} or notifications/tools/list_changed. `related` names the call it belongs to
       (progress, message) or is NULL. Names in the params are the upstream's own; the host
       prefixes what needs prefixing. Any thread; returns COFFER_E_NOT_FOUND once the session
       is closed. */
    coffer_status (*session_notify)(coffer_session* session, coffer_call* related,
                                    coffer_str notification_json);
    /* Server-initiated request relayed to the client (sampling/createMessage,
       elicitation/create, roots/list): {"method":…,"params":…}. The client's answer comes
       back through coffer_mcp_provider.respond with the same token. Any thread. */
    coffer_status (*session_request)(coffer_session* session, coffer_call* related, uint64_t token,
                                     coffer_str request_json);
    /* Records a child process the plugin started (a file in $COFFER_HOME/upstream-pids/), so
       a later daemon can sweep it if this one dies; forget it once the child is reaped. The
       child must lead its own process group. */
    coffer_status (*child_started)(coffer_host* host, int64_t pid, coffer_str description);
    void (*child_exited)(coffer_host* host, int64_t pid);

    /* --- ABI 1.3: credentials --- */
    /* Resolves a credential reference: `ref` is the name after "credref:" (without the prefix).
       On success the host calls sink(sink_ctx, value) exactly once with the secret, borrowed for
       the duration of that call only, and returns COFFER_OK. The plugin copies it, hands it only
       to the one upstream it resolved it for (environment, header), and never logs, stores or
       audits it. Errors (sink not called): COFFER_E_INVALID (not a valid reference name),
       COFFER_E_NOT_FOUND (no such credential), COFFER_E_UNAVAILABLE (it cannot be decrypted, e.g.
       the vault's master key does not open it). Call it when spawning/connecting, not earlier, so
       a changed credential takes effect at the next connection. Any thread; never blocks. The
       host audits each resolution (`credential_resolved`, the reference and the plugin only). */
    coffer_status (*credential_resolve)(coffer_host* host, coffer_str ref,
                                        void (*sink)(void* sink_ctx, coffer_str value), void* sink_ctx);

    /* --- ABI 1.5: agent drivers (see coffer_agent_driver) --- */
    /* Reports one normalised event of a running turn: a JSON object whose "type" is one of
       session, text.delta, reasoning, tool.started, tool.updated, tool.completed,
       message.completed, usage, warning, turn.completed (docs/agents-and-chat.md). The host adds
       the conversation, turn and sequence fields itself. Events of one turn must be reported in
       order (from one thread at a time); the last one is exactly one "turn.completed"
       {"status":"ok"|"error"|"interrupted", …}, after which the handle is spent. Any thread; never
       blocks (the host queues). Returns COFFER_E_INVALID for an event that is not a JSON object
       with a string "type", COFFER_E_NOT_FOUND for a spent or unknown handle (harmless). */
    coffer_status (*turn_event)(coffer_turn* turn, coffer_str event_json);

    /* --- ABI 1.6: channel adapters (see coffer_channel_adapter) --- */
    /* Hands one inbound message to the host. envelope_json is an object:
         {"id": string      unique per message on the platform (duplicates are dropped by it),
          "chat": string    where replies go (64-bit ids as decimal text),
          "sender": string  the platform's stable id of the author,
          "sender_name"?: string, "chat_type"?: "direct"|"group", "thread"?: string,
          "text": string}.
       The host passes it through the owner gate and, when it is kept, writes it durably; then it
       calls ack(ack_ctx, status) exactly once, from its own thread: COFFER_OK means the host has
       it (a dropped message included) — commit the platform's offset now; another status means
       nothing was kept — deliver it again later. ack may be NULL. Returns COFFER_E_INVALID for a
       malformed envelope and COFFER_E_NOT_FOUND for a channel that is not started (ack is not
       called then). Any thread; never blocks. */
    coffer_status (*channel_inbound)(coffer_channel* channel, coffer_str envelope_json,
                                     void (*ack)(void* ack_ctx, coffer_status status), void* ack_ctx);

    /* --- ABI 1.8: credentials a plugin keeps (OAuth tokens of upstreams) --- */
    /* Stores `value` as the credential `ref` (encrypted with the vault's master key like every
       credential, replacing an older value), or deletes it when `value` is empty. A plugin may
       only write in its own namespace: `ref` must be "<plugin name>." followed by a valid
       reference name ("mcp_server.oauth.github"); anything else is COFFER_E_DENIED, and an
       invalid name COFFER_E_INVALID. credential_resolve reads it back. The write is durable when
       COFFER_OK returns on the host's service thread (where actions run); from any other thread
       it is queued (COFFER_OK) and lands shortly after, in call order. Audited as
       `credential_stored` (reference and plugin, never the value). Never blocks. */
    coffer_status (*credential_store)(coffer_host* host, coffer_str ref, coffer_str value);

    /* --- ABI 1.9: the host's event loop, lent to plugins (docs/abi.md section 17) --- */
    /* A plugin may run its I/O on the thread where the host serves MCP sessions (the network
       thread) instead of a thread of its own, so a call relayed to it needs no hand-off between
       threads. Every callback below runs on that thread, must not block, and must not call
       back into a waiting function of the host. Registrations are numbered (never 0, never
       reused); after loop_cancel(id) returns, its callback is not running on another thread and
       will not be called again (cancelling from inside that callback is allowed). When the
       plugin is unloaded the host drops whatever it left registered, uncalled. */
    /* Calls ready(ctx, events) while `fd` is readable (COFFER_LOOP_READABLE) and/or writable
       (COFFER_LOOP_WRITABLE) as asked in `events` — level-triggered: again and again until the
       condition ends or the watch is cancelled; a call may be spurious, so read and write
       without blocking. The host watches its own duplicate of `fd`: the plugin may close its
       descriptor once it has cancelled the watch. COFFER_E_INVALID for a bad descriptor or no
       event asked. Any thread. */
    coffer_status (*loop_watch)(coffer_host* host, int fd, uint32_t events,
                                void (*ready)(void* ctx, uint32_t events), void* ctx, uint64_t* id);
    /* Calls fire(ctx) once, `delay_ms` from now. Any thread. */
    coffer_status (*loop_timer)(coffer_host* host, uint64_t delay_ms, void (*fire)(void* ctx), void* ctx,
                                uint64_t* id);
    /* Calls fire(ctx) once, soon, on the loop thread; deferred calls run in the order they were
       made. `id` may be NULL when the plugin will never cancel it. Any thread. */
    coffer_status (*loop_defer)(coffer_host* host, void (*fire)(void* ctx), void* ctx, uint64_t* id);
    /* Ends a watch, timer or deferred call (COFFER_E_NOT_FOUND when it already ran or ended). */
    coffer_status (*loop_cancel)(coffer_host* host, uint64_t id);
    /* 1 when the calling thread is the loop's, else 0. */
    int (*loop_in_loop)(coffer_host* host);
} coffer_host_api;

/* ABI 1.9: the conditions loop_watch reports. */
#define COFFER_LOOP_READABLE 1u
#define COFFER_LOOP_WRITABLE 2u
#define COFFER_LOOP_ERROR 4u /* reported (never asked for): the descriptor failed or hung up */

/*
 * One resource kind. Function pointers marked optional may be NULL.
 * `plugin_ctx` is the pointer the plugin's init() returned; `kind` is this descriptor itself, so
 * one set of functions can serve several kinds.
 * Every function that takes a coffer_reply* reports its outcome twice: as the returned status
 * and, for errors, through host->reply_error (message and details). On COFFER_OK a function
 * may set a JSON result with reply_json.
 */
typedef struct coffer_kind coffer_kind;
struct coffer_kind {
    uint32_t struct_size;
    coffer_str name;         /* e.g. "mcp_server"; [a-z][a-z0-9_]{0,31} */
    coffer_str schema_json;  /* JSON Schema of the resource config; the host validates first */
    coffer_str actions_json; /* JSON array: [{"name":"test","description":"…"}, …] (may be empty) */
    void* kind_data;         /* free for the plugin's use; the host never touches it */

    /* Kind-specific validation after the schema passed. Errors go through reply_error with
       details {"errors":[{"pointer":"/field","message":"…"}]}. Optional. */
    coffer_status (*validate)(void* plugin_ctx, const coffer_kind* kind, coffer_str config_json,
                              coffer_reply* reply);

    /* Create the live instance for a resource. resource_json is
       {"uid","kind","name","config","enabled","description"} (+ "scope", "machine" since 1.7).
       Required. */
    coffer_status (*create)(void* plugin_ctx, const coffer_kind* kind, coffer_str resource_json,
                            coffer_instance** out, coffer_reply* reply);
    /* The config changed (already validated). Optional: without it the host recreates. */
    coffer_status (*update)(coffer_instance* inst, coffer_str config_json, coffer_reply* reply);
    /* The resource became enabled / disabled. Optional. */
    coffer_status (*start)(coffer_instance* inst, coffer_reply* reply);
    coffer_status (*stop)(coffer_instance* inst, coffer_reply* reply);
    /* A JSON object describing live status, e.g. {"health":"ok"}. Optional. */
    coffer_status (*status)(coffer_instance* inst, coffer_reply* reply);
    /* A declared action; args_json is an object. Optional. */
    coffer_status (*action)(coffer_instance* inst, coffer_str action, coffer_str args_json,
                            coffer_reply* reply);
    /* The resource was deleted (after stop). The plugin may remove its own files. Optional. */
    coffer_status (*remove)(coffer_instance* inst, coffer_reply* reply);
    /* Release the instance. Required. Never fails. */
    void (*destroy)(coffer_instance* inst);

    /* --- ABI 1.1 --- */
    /* JSON array of kind-level actions (not tied to one resource), e.g. import or verify-all:
       [{"name":"verify","description":"…"}]. Empty when none. */
    coffer_str kind_actions_json;
    /* Runs a declared kind-level action; args_json is an object. Optional. */
    coffer_status (*kind_action)(void* plugin_ctx, const coffer_kind* kind, coffer_str action,
                                 coffer_str args_json, coffer_reply* reply);

    /* --- ABI 1.2 --- */
    /* What this kind's instances contribute to the MCP gateway; NULL when nothing. */
    const struct coffer_mcp_provider* mcp;

    /* --- ABI 1.5 --- */
    /* When this kind's instances are managed coding agents: how the host drives their turns;
       NULL otherwise. A host older than 1.5 never reads it (it copies struct_size bytes). */
    const struct coffer_agent_driver* agent;

    /* --- ABI 1.6 --- */
    /* When this kind's instances are IM channel adapters: how the host's channel core receives
       and sends through them; NULL otherwise. */
    const struct coffer_channel_adapter* channel;

    /* --- ABI 1.7 --- */
    /* The resource's scope (R-5: which machines and agents it is for) changed while its instance
       lives on; scope_json is {"scope":[{"machine","agents":[…]}…],"machine":"<this machine>"}.
       A kind that acts for agents itself (e.g. delivers files into each agent's folder) applies
       it here. Optional: without it nothing is called. Since 1.7 create's resource_json carries
       the same "scope" and "machine" members. */
    coffer_status (*rescope)(coffer_instance* inst, coffer_str scope_json, coffer_reply* reply);
};

/*
 * ABI 1.2 — an MCP capability provider: the instances of a kind contribute tools, resources
 * and prompts to the gateway, per downstream session. The host owns the downstream protocol
 * (transports, versions, namespacing, aggregation, caching, curation); a provider sees plain
 * MCP requests in the 2025-11-25 shapes with its own, unprefixed names.
 *
 * Threading: these functions are called from the host's network thread, serialized per plugin,
 * and must not block: start the work and return; finish it later with call_complete from any
 * thread.
 */
typedef struct coffer_mcp_provider {
    uint32_t struct_size;
    /* A session starts using this instance (lazily, on the first list or call routed here).
       session_json: {"id","agent","cwd","client":{"name","version"},"client_capabilities":{…}}.
       *state is passed to every later call for this (session, instance) pair. */
    coffer_status (*open)(coffer_instance* inst, coffer_session* session, coffer_str session_json,
                          void** state, coffer_reply* reply);
    /* Starts one request: method such as "tools/list", "tools/call", "resources/list",
       "resources/templates/list", "resources/read", "prompts/list", "prompts/get",
       "completion/complete", "ping"; params_json an object (may be "{}"). Returns COFFER_OK when
       accepted (the result comes through call_complete), or an error status (with reply_error)
       when refused outright — then the host completes the call itself. */
    coffer_status (*request)(void* state, coffer_call* call, coffer_str method, coffer_str params_json,
                             coffer_reply* reply);
    /* The client cancelled the call; the provider should still complete it (any result). Optional. */
    void (*cancel)(void* state, coffer_call* call);
    /* The client's answer to a session_request: result or error JSON (the other empty). Optional. */
    void (*respond)(void* state, uint64_t token, coffer_str result_json, coffer_str error_json);
    /* The session ended (or the instance is stopping): release upstreams, kill children, complete
       every pending call. No callbacks on this session after it returns. Required. */
    void (*close)(void* state);

    /* --- ABI 1.4 --- */
    /* A notification from the client for this session, e.g. method
       "notifications/roots/list_changed" with params_json "{}" (an object, never empty). The
       host forwards only what an upstream can act on unchanged — today roots/list_changed — to
       every provider session the client has open (it never opens one just to notify), on the
       same route and in the same order as requests. Nothing to answer. Unknown methods should be
       ignored. Optional; a host older than 1.4 never calls it (it reads struct_size bytes). */
    void (*notify)(void* state, coffer_str method, coffer_str params_json);
} coffer_mcp_provider;

/*
 * ABI 1.5 — an agent driver: the instances of a kind are coding agents (Claude Code, Codex, an
 * ACP agent …) that run one turn at a time for the host's conversation orchestrator. The host
 * owns conversations, queues, persistence and the event streams; a driver only runs a turn of the
 * agent's own CLI and translates what it prints into the normalised events (turn_event).
 *
 * Threading: called from the host's service thread, serialized per plugin; must not block: start
 * the child process and return. Events come back through host->turn_event from any thread.
 */
typedef struct coffer_agent_driver {
    uint32_t struct_size;
    /* Starts one turn. request_json:
         {"conversation_id","turn_id","prompt","cwd",
          "resume_key": string|null   (what the previous turn's "session" event reported),
          "mcp_config": object|null   (MCP servers for the agent, in the agent's own config shape)}.
       On COFFER_OK the turn runs: the driver reports events through turn_event and ends with
       exactly one "turn.completed". On an error status (with reply_error) nothing was started
       and no event will come. Children must lead their own process group and be recorded with
       child_started. Required. */
    coffer_status (*start_turn)(coffer_instance* inst, coffer_turn* turn, coffer_str request_json,
                                coffer_reply* reply);
    /* Stops a running turn: the agent's whole process tree is signalled (an interrupt first,
       then termination after a grace period). The driver still reports "turn.completed" with
       status "interrupted". A turn that already ended is ignored. Must not block. Required. */
    void (*interrupt)(coffer_instance* inst, coffer_turn* turn);
} coffer_agent_driver;

/*
 * ABI 1.6 — a channel adapter: the instances of a kind are accounts on an IM platform (a bot).
 * The host's channel core owns everything that is the same on every platform: owner pairing, the
 * owner gate, commands, chunking, rendering, per-conversation queues and the link to the turn
 * orchestrator. An adapter only moves messages: it reports inbound ones through
 * host->channel_inbound and carries out the core's send / edit / typing requests.
 *
 * Threading: called from the host's service thread, serialized per plugin; must not block:
 * queue the network work on the adapter's own thread and return.
 */
typedef struct coffer_channel_adapter {
    uint32_t struct_size;
    /* The instance's capabilities as a JSON object (members absent take the default):
         {"edit": bool (false)          the adapter can replace a sent message's text,
          "typing": bool (false)        it can show "typing",
          "typing_ttl_ms": int (5000)   how long one typing signal lasts (the core refreshes it),
          "max_text": int (4000)        the longest message, in text_units,
          "text_units": "utf16"|"codepoints"|"bytes" ("codepoints"),
          "markdown": "plain"|"html"|"markdown" ("plain")  what `text` should be written in,
          "threads": bool (false), "ingress": "polling"|"webhook"|"stream" ("polling")}.
       Required. */
    coffer_status (*capabilities)(coffer_instance* inst, coffer_reply* reply);
    /* Starts receiving for the host's `channel` handle (after the kind's start): report each
       message with host->channel_inbound(channel, …) until stop. Required. */
    coffer_status (*start)(coffer_instance* inst, coffer_channel* channel, coffer_reply* reply);
    /* Stops receiving; channel_inbound calls after it are refused. Required. */
    void (*stop)(coffer_instance* inst);
    /* Sends one message. request_json: {"chat","ref","text","format","plain","thread"?}:
       `ref` is the host's name for the message (later edits use it), `text` is in `format`
       (the capability's markdown dialect), `plain` the same text without markup, to retry with
       when the platform refuses the markup. Queue it and return; a failed delivery is logged and
       counted in the instance's status. Required. */
    coffer_status (*send)(coffer_instance* inst, coffer_str request_json, coffer_reply* reply);
    /* Replaces the text of the message sent as `ref`: {"chat","ref","text","format","plain"}.
       An unchanged text is success. Optional (capability "edit"). */
    coffer_status (*edit)(coffer_instance* inst, coffer_str request_json, coffer_reply* reply);
    /* Shows "typing" in a chat for typing_ttl_ms: {"chat","thread"?}. Optional ("typing"). */
    coffer_status (*typing)(coffer_instance* inst, coffer_str request_json, coffer_reply* reply);
} coffer_channel_adapter;

/* What the entry symbol returns. Static storage in the plugin; never freed. */
typedef struct coffer_plugin {
    uint32_t struct_size;
    uint16_t abi_major;      /* must equal COFFER_ABI_MAJOR of the host */
    uint16_t abi_minor;      /* the minor the plugin was built against */
    uint16_t min_host_minor; /* the oldest host minor the plugin works with */
    uint16_t reserved0;
    coffer_str name;         /* must equal the manifest's name */
    coffer_str version;      /* semver text */

    /* Called once after loading. config_json is the plugin's section of the host config (or
       "{}"). On success *plugin_ctx is passed back to every kind function. Required. */
    coffer_status (*init)(const coffer_host_api* api, coffer_host* host, coffer_str config_json,
                          void** plugin_ctx, coffer_reply* reply);
    /* Called once at daemon shutdown after every instance was destroyed. Plugins join their own
       threads here. Optional. */
    void (*shutdown)(void* plugin_ctx);

    size_t kind_count;
    const coffer_kind* const* kinds;
} coffer_plugin;

/*
 * The single exported entry point. The host passes its ABI version; a plugin that cannot work
 * with that host returns NULL. The result points to static storage.
 */
typedef const coffer_plugin* (*coffer_plugin_entry_fn)(uint16_t host_abi_major,
                                                       uint16_t host_abi_minor);

#ifdef __cplusplus
}
#endif

#endif /* COFFER_ABI_H */
