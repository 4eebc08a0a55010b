#include "channels/store.hpp"

#include "core/clock.hpp"

namespace coffer::channels {

namespace {
std::optional<std::string> opt_text(const store::Statement& st, int col) {
    if (st.is_null(col)) return std::nullopt;
    return st.text(col);
}
store::Statement& bind_opt(store::Statement& st, int i, const std::optional<std::string>& v) {
    return v ? st.bind(i, *v) : st.bind_null(i);
}
}  // namespace

core::Result<std::optional<Owner>> ChannelStore::owner(const std::string& channel) {
    auto st = db_.prepare("SELECT sender, chat, sender_name, paired_at FROM channel_owners WHERE channel_uid = ?1");
    if (!st) return st.error();
    st->bind(1, channel);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<Owner>();
    return std::optional<Owner>(Owner{st->text(0), st->text(1), st->text(2), st->text(3)});
}

core::Result<PairingState> ChannelStore::pairing(const std::string& channel) {
    auto st = db_.prepare("SELECT code_hash, expires_at_ms, failed, locked_until_ms FROM channel_pairing WHERE channel_uid = ?1");
    if (!st) return st.error();
    st->bind(1, channel);
    auto row = st->step();
    if (!row) return row.error();
    PairingState p;
    if (*row) {
        p.code_hash = opt_text(*st, 0);
        p.expires_at_ms = st->int64(1);
        p.failed = static_cast<int>(st->int64(2));
        p.locked_until_ms = st->int64(3);
    }
    return p;
}

core::Result<void> ChannelStore::set_code(const std::string& channel, const std::string& hash, std::int64_t expires_at_ms) {
    auto st = db_.prepare("INSERT INTO channel_pairing (channel_uid, code_hash, expires_at_ms) VALUES (?1, ?2, ?3) "
                          "ON CONFLICT (channel_uid) DO UPDATE SET code_hash = ?2, expires_at_ms = ?3");
    if (!st) return st.error();
    st->bind(1, channel).bind(2, hash).bind(3, expires_at_ms);
    return st->run();
}

core::Result<void> ChannelStore::record_failure(const std::string& channel, int failed, std::int64_t locked_until_ms) {
    auto st = db_.prepare("UPDATE channel_pairing SET failed = ?2, locked_until_ms = ?3 WHERE channel_uid = ?1");
    if (!st) return st.error();
    st->bind(1, channel).bind(2, static_cast<std::int64_t>(failed)).bind(3, locked_until_ms);
    return st->run();
}

core::Result<void> ChannelStore::clear_code(const std::string& channel) {
    auto st = db_.prepare("UPDATE channel_pairing SET code_hash = NULL, expires_at_ms = 0 WHERE channel_uid = ?1");
    if (!st) return st.error();
    st->bind(1, channel);
    return st->run();
}

core::Result<void> ChannelStore::pair(const std::string& channel, const Owner& o, const InboxRow& message) {
    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    auto st = db_.prepare("INSERT OR REPLACE INTO channel_owners (channel_uid, sender, chat, sender_name, paired_at) "
                          "VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!st) return st.error();
    st->bind(1, channel).bind(2, o.sender).bind(3, o.chat).bind(4, o.sender_name).bind(5, o.paired_at);
    if (auto r = st->run(); !r) return r;
    auto spent = db_.prepare("UPDATE channel_pairing SET code_hash = NULL, expires_at_ms = 0, failed = 0 WHERE channel_uid = ?1");
    if (!spent) return spent.error();
    spent->bind(1, channel);
    if (auto r = spent->run(); !r) return r;
    auto row = message;
    row.status = "answered";
    if (auto r = insert(row, core::now_ms()); !r) return r.error();
    return tx.commit();
}

core::Result<void> ChannelStore::forget(const std::string& channel, bool owner_only) {
    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    std::vector<const char*> sql{"DELETE FROM channel_owners WHERE channel_uid = ?1"};
    if (!owner_only)
        for (auto s : {"DELETE FROM channel_pairing WHERE channel_uid = ?1", "DELETE FROM channel_chats WHERE channel_uid = ?1",
                       "DELETE FROM channel_inbox WHERE channel_uid = ?1"})
            sql.push_back(s);
    for (auto s : sql) {
        auto st = db_.prepare(s);
        if (!st) return st.error();
        st->bind(1, channel);
        if (auto r = st->run(); !r) return r;
    }
    return tx.commit();
}

std::optional<std::string> ChannelStore::chat_conversation(const std::string& channel, const std::string& chat) {
    auto st = db_.prepare("SELECT conversation_id FROM channel_chats WHERE channel_uid = ?1 AND chat = ?2");
    if (!st) return std::nullopt;
    st->bind(1, channel).bind(2, chat);
    auto row = st->step();
    if (!row || !*row) return std::nullopt;
    return st->text(0);
}

core::Result<void> ChannelStore::set_chat_conversation(const std::string& channel, const std::string& chat,
                                                       const std::string& conversation) {
    auto st = db_.prepare("INSERT OR REPLACE INTO channel_chats (channel_uid, chat, conversation_id) VALUES (?1, ?2, ?3)");
    if (!st) return st.error();
    st->bind(1, channel).bind(2, chat).bind(3, conversation);
    return st->run();
}

core::Result<std::optional<std::pair<std::string, std::string>>> ChannelStore::conversation_chat(const std::string& conversation) {
    auto st = db_.prepare("SELECT channel_uid, chat FROM channel_chats WHERE conversation_id = ?1");
    if (!st) return st.error();
    st->bind(1, conversation);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<std::pair<std::string, std::string>>();
    return std::optional<std::pair<std::string, std::string>>(std::make_pair(st->text(0), st->text(1)));
}

core::Result<bool> ChannelStore::insert(const InboxRow& r, std::int64_t now_ms) {
    auto st = db_.prepare("INSERT OR IGNORE INTO channel_inbox (channel_uid, key, chat, sender, thread, text, status, received_ms) "
                          "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    if (!st) return st.error();
    st->bind(1, r.channel_uid).bind(2, r.key).bind(3, r.chat).bind(4, r.sender);
    bind_opt(*st, 5, r.thread).bind(6, r.text).bind(7, r.status).bind(8, now_ms);
    if (auto res = st->run(); !res) return res.error();
    return db_.changes() > 0;
}

core::Result<void> ChannelStore::dispatched(const std::string& channel, const std::string& key, const std::string& conversation,
                                            const std::string& message_id) {
    auto st = db_.prepare("UPDATE channel_inbox SET status = 'dispatched', conversation_id = ?3, message_id = ?4 "
                          "WHERE channel_uid = ?1 AND key = ?2");
    if (!st) return st.error();
    st->bind(1, channel).bind(2, key).bind(3, conversation).bind(4, message_id);
    return st->run();
}

core::Result<void> ChannelStore::set_status(const std::string& channel, const std::string& key, const std::string& status) {
    auto st = db_.prepare("UPDATE channel_inbox SET status = ?3 WHERE channel_uid = ?1 AND key = ?2");
    if (!st) return st.error();
    st->bind(1, channel).bind(2, key).bind(3, status);
    return st->run();
}

core::Result<bool> ChannelStore::answered_by_message(const std::string& message_id) {
    auto st = db_.prepare("UPDATE channel_inbox SET status = 'answered' WHERE message_id = ?1 AND status = 'dispatched'");
    if (!st) return st.error();
    st->bind(1, message_id);
    if (auto r = st->run(); !r) return r.error();
    return db_.changes() > 0;
}

core::Result<std::vector<InboxRow>> ChannelStore::open(const std::string& channel) {
    auto st = db_.prepare("SELECT channel_uid, key, chat, sender, text, status, thread, conversation_id, message_id FROM channel_inbox "
                          "WHERE channel_uid = ?1 AND status IN ('received', 'dispatched') ORDER BY received_ms, rowid");
    if (!st) return st.error();
    st->bind(1, channel);
    std::vector<InboxRow> out;
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back(InboxRow{st->text(0), st->text(1), st->text(2), st->text(3), st->text(4), st->text(5),
                               opt_text(*st, 6), opt_text(*st, 7), opt_text(*st, 8)});
    }
    return out;
}

core::Result<std::int64_t> ChannelStore::count(const std::string& channel, const std::string& status) {
    auto st = db_.prepare("SELECT count(*) FROM channel_inbox WHERE channel_uid = ?1 AND status = ?2");
    if (!st) return st.error();
    st->bind(1, channel).bind(2, status);
    auto row = st->step();
    if (!row) return row.error();
    return st->int64(0);
}

}  // namespace coffer::channels
