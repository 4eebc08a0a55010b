#include "store/migrations.hpp"

#include <string>
#include <vector>

namespace coffer::store {

namespace {
// Append-only: never edit a shipped step, add a new one.
const std::vector<const char*>& steps() {
    static const std::vector<const char*> s = {
        // 1: resources, audit, retention
        R"sql(
        CREATE TABLE resources (
            uid TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            name TEXT NOT NULL,
            description TEXT NOT NULL DEFAULT '',
            config TEXT NOT NULL,
            enabled INTEGER NOT NULL DEFAULT 1,
            scope TEXT NOT NULL DEFAULT '[{"machine":"*","agents":["*"]}]',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            UNIQUE (kind, name)
        );
        CREATE TABLE audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            ts_ms INTEGER NOT NULL,
            actor TEXT NOT NULL,
            event_type TEXT NOT NULL,
            target TEXT NOT NULL DEFAULT '',
            payload TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX audit_ts ON audit (ts_ms);
        CREATE TABLE retention (
            table_name TEXT PRIMARY KEY,
            days INTEGER
        );
        INSERT INTO retention (table_name, days) VALUES ('audit', 365);
        )sql",
        // curation + invocation log (issue 4, G-20…G-23): the user's per-capability preferences,
        // kept by server and capability name; one row per tools/call, resources/read, prompts/get.
        R"sql(
        CREATE TABLE mcp_capability_prefs (
            server TEXT NOT NULL,
            type TEXT NOT NULL,
            name TEXT NOT NULL,
            enabled INTEGER NOT NULL,
            origin TEXT NOT NULL,
            first_seen_ms INTEGER,
            updated_ms INTEGER NOT NULL,
            PRIMARY KEY (server, type, name)
        ) WITHOUT ROWID;
        CREATE TABLE mcp_invocations (
            id INTEGER PRIMARY KEY,
            ts_ms INTEGER NOT NULL,
            session TEXT NOT NULL DEFAULT '',
            agent TEXT NOT NULL DEFAULT '',
            server TEXT NOT NULL,
            type TEXT NOT NULL,
            target TEXT NOT NULL,
            duration_ms INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            error_code INTEGER
        );
        CREATE INDEX mcp_invocations_ts ON mcp_invocations (ts_ms);
        CREATE INDEX mcp_invocations_server ON mcp_invocations (server, id);
        )sql",
        // credentials (G-40): Fernet tokens only, never plaintext; the key is master.key
        R"sql(
        CREATE TABLE credentials (
            ref TEXT PRIMARY KEY,
            token TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        )sql",
        // conversations with managed agents (T-1): the agent's resume key is replaced after every
        // turn; messages are committed when their turn starts (user) or ends (assistant); one row
        // per turn, so a daemon that restarts can mark the one it left running as failed.
        R"sql(
        CREATE TABLE conversations (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            cwd TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            resume_key TEXT,
            mcp_config TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE conversation_messages (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            text TEXT NOT NULL,
            source TEXT NOT NULL DEFAULT 'api',
            turn_id TEXT,
            created_at TEXT NOT NULL,
            UNIQUE (conversation_id, seq)
        );
        CREATE TABLE conversation_turns (
            id TEXT PRIMARY KEY,
            conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            user_message_id TEXT NOT NULL,
            status TEXT NOT NULL,
            error TEXT,
            resume_key_before TEXT,
            resume_key_after TEXT,
            started_at TEXT NOT NULL,
            ended_at TEXT
        );
        CREATE INDEX conversation_turns_running ON conversation_turns (status);
        CREATE INDEX conversation_turns_by_conversation ON conversation_turns (conversation_id, started_at);
        )sql",
        // 5: a tools/call the gateway sent again after its upstream exited (docs/decisions/0037).
        R"sql(
        ALTER TABLE mcp_invocations ADD COLUMN retried INTEGER NOT NULL DEFAULT 0;
        )sql",
        // 6: IM channels (CH-1…CH-5): the paired owner of each channel, the pending pairing code (a
        // hash, never the code) with its attempt count and lockout, each chat's conversation, and
        // the inbox — every message the gate kept, written before the adapter commits its
        // platform offset, so a restart neither loses nor repeats one.
        R"sql(
        CREATE TABLE channel_owners (
            channel_uid TEXT PRIMARY KEY,
            sender TEXT NOT NULL,
            chat TEXT NOT NULL,
            sender_name TEXT NOT NULL DEFAULT '',
            paired_at TEXT NOT NULL
        );
        CREATE TABLE channel_pairing (
            channel_uid TEXT PRIMARY KEY,
            code_hash TEXT,
            expires_at_ms INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            locked_until_ms INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE channel_chats (
            channel_uid TEXT NOT NULL,
            chat TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            PRIMARY KEY (channel_uid, chat)
        );
        CREATE TABLE channel_inbox (
            channel_uid TEXT NOT NULL,
            key TEXT NOT NULL,
            chat TEXT NOT NULL,
            sender TEXT NOT NULL,
            thread TEXT,
            text TEXT NOT NULL,
            status TEXT NOT NULL,
            conversation_id TEXT,
            message_id TEXT,
            received_ms INTEGER NOT NULL,
            PRIMARY KEY (channel_uid, key)
        );
        CREATE INDEX channel_inbox_open ON channel_inbox (channel_uid, status);
        CREATE INDEX channel_inbox_message ON channel_inbox (message_id);
        )sql",
    };
    return s;
}
}  // namespace

int current_schema_version() { return static_cast<int>(steps().size()); }

Result<int> migrate(Database& db) {
    auto st = db.prepare("PRAGMA user_version");
    if (!st) return st.error();
    auto row = st->step();
    if (!row) return row.error();
    int version = static_cast<int>(st->int64(0));
    st->reset();
    int target = current_schema_version();
    if (version > target)
        return Error::make(core::code::internal,
                           "database schema version " + std::to_string(version) + " is newer than this coffer-daemon (" +
                               std::to_string(target) + "); upgrade coffer or restore a backup made by this version");
    for (int v = version; v < target; ++v) {
        Transaction tx(db);
        if (!tx.begun()) return tx.begun().error();
        if (auto r = db.exec(steps()[static_cast<std::size_t>(v)]); !r) return r.error();
        if (auto r = db.exec("PRAGMA user_version = " + std::to_string(v + 1)); !r) return r.error();
        if (auto r = tx.commit(); !r) return r.error();
    }
    return target;
}

}  // namespace coffer::store
