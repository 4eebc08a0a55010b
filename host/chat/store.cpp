#include "chat/store.hpp"

#include "core/clock.hpp"

#include <boost/json.hpp>

namespace coffer::chat {

namespace json = boost::json;

namespace {
json::value opt(const std::optional<std::string>& s) { return s ? json::value(*s) : json::value(nullptr); }
std::optional<std::string> opt_text(const store::Statement& st, int col) {
    if (st.is_null(col)) return std::nullopt;
    return st.text(col);
}
store::Statement& bind_opt(store::Statement& st, int i, const std::optional<std::string>& v) {
    return v ? st.bind(i, *v) : st.bind_null(i);
}
constexpr const char* kConversationColumns =
    "id, agent, cwd, title, resume_key, mcp_config, created_at, updated_at";
Conversation read_conversation(const store::Statement& st) {
    return Conversation{st.text(0), st.text(1), st.text(2), st.text(3), opt_text(st, 4), opt_text(st, 5), st.text(6), st.text(7)};
}
}  // namespace

json::object Conversation::to_json() const {
    json::object o{{"id", id}, {"agent", agent}, {"cwd", cwd}, {"title", title}, {"resume_key", opt(resume_key)},
                   {"created_at", created_at}, {"updated_at", updated_at}};
    if (mcp_config) {
        boost::system::error_code ec;
        auto v = json::parse(*mcp_config, ec);
        o["mcp_config"] = ec ? json::value(nullptr) : v;
    }
    return o;
}

json::object TurnRow::to_json() const {
    return json::object{{"id", id}, {"user_message_id", user_message_id}, {"status", status}, {"error", opt(error)},
                        {"started_at", started_at}, {"ended_at", opt(ended_at)}, {"resume_key", opt(resume_key_after)}};
}

core::Result<void> ConversationStore::create(const Conversation& c) {
    auto st = db_.prepare("INSERT INTO conversations (id, agent, cwd, title, resume_key, mcp_config, created_at, updated_at) "
                          "VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, ?6)");
    if (!st) return st.error();
    st->bind(1, c.id).bind(2, c.agent).bind(3, c.cwd).bind(4, c.title);
    bind_opt(*st, 5, c.mcp_config).bind(6, c.created_at);
    return st->run();
}

core::Result<std::optional<Conversation>> ConversationStore::get(const std::string& id) {
    auto st = db_.prepare(std::string("SELECT ") + kConversationColumns + " FROM conversations WHERE id = ?1");
    if (!st) return st.error();
    st->bind(1, id);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<Conversation>();
    return std::optional<Conversation>(read_conversation(*st));
}

core::Result<std::vector<Conversation>> ConversationStore::list() {
    auto st = db_.prepare(std::string("SELECT ") + kConversationColumns + " FROM conversations ORDER BY created_at, id");
    if (!st) return st.error();
    std::vector<Conversation> out;
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back(read_conversation(*st));
    }
    return out;
}

core::Result<void> ConversationStore::remove(const std::string& id) {
    store::Transaction tx(db_);
    if (!tx.begun()) return tx.begun().error();
    for (auto sql : {"DELETE FROM conversation_messages WHERE conversation_id = ?1",
                     "DELETE FROM conversation_turns WHERE conversation_id = ?1", "DELETE FROM conversations WHERE id = ?1"}) {
        auto st = db_.prepare(sql);
        if (!st) return st.error();
        st->bind(1, id);
        if (auto r = st->run(); !r) return r;
    }
    return tx.commit();
}

core::Result<void> ConversationStore::set_resume_key(const std::string& id, const std::string& key) {
    auto st = db_.prepare("UPDATE conversations SET resume_key = ?2, updated_at = ?3 WHERE id = ?1");
    if (!st) return st.error();
    st->bind(1, id).bind(2, key).bind(3, core::now_iso());
    return st->run();
}

core::Result<std::int64_t> ConversationStore::add_message(const std::string& conversation, const std::string& id,
                                                          const std::string& role, const std::string& text,
                                                          const std::string& source, const std::string& turn_id) {
    auto st = db_.prepare(
        "INSERT INTO conversation_messages (id, conversation_id, seq, role, text, source, turn_id, created_at) "
        "VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM conversation_messages WHERE conversation_id = ?2), "
        "?3, ?4, ?5, ?6, ?7) RETURNING seq");
    if (!st) return st.error();
    st->bind(1, id).bind(2, conversation).bind(3, role).bind(4, text).bind(5, source).bind(6, turn_id).bind(7, core::now_iso());
    auto row = st->step();
    if (!row) return row.error();
    std::int64_t seq = *row ? st->int64(0) : 0;
    st->reset();
    auto touch = db_.prepare("UPDATE conversations SET updated_at = ?2 WHERE id = ?1");
    if (!touch) return touch.error();
    touch->bind(1, conversation).bind(2, core::now_iso());
    if (auto r = touch->run(); !r) return r.error();
    return seq;
}

core::Result<json::array> ConversationStore::messages(const std::string& conversation, int limit) {
    auto st = db_.prepare(
        "SELECT id, seq, role, text, source, turn_id, created_at FROM (SELECT * FROM conversation_messages "
        "WHERE conversation_id = ?1 ORDER BY seq DESC LIMIT ?2) ORDER BY seq");
    if (!st) return st.error();
    st->bind(1, conversation).bind(2, limit);
    json::array out;
    for (;;) {
        auto row = st->step();
        if (!row) return row.error();
        if (!*row) break;
        out.push_back(json::object{{"id", st->text(0)}, {"seq", st->int64(1)}, {"role", st->text(2)}, {"text", st->text(3)},
                                   {"source", st->text(4)}, {"turn_id", opt(opt_text(*st, 5))}, {"created_at", st->text(6)}});
    }
    return out;
}

core::Result<void> ConversationStore::begin_turn(const TurnRow& t, const std::optional<std::string>& resume_before) {
    auto st = db_.prepare("INSERT INTO conversation_turns (id, conversation_id, user_message_id, status, resume_key_before, "
                          "started_at) VALUES (?1, ?2, ?3, 'running', ?4, ?5)");
    if (!st) return st.error();
    st->bind(1, t.id).bind(2, t.conversation_id).bind(3, t.user_message_id);
    bind_opt(*st, 4, resume_before).bind(5, t.started_at);
    return st->run();
}

core::Result<void> ConversationStore::end_turn(const std::string& turn_id, const std::string& status,
                                               const std::optional<std::string>& error,
                                               const std::optional<std::string>& resume_after) {
    auto st = db_.prepare("UPDATE conversation_turns SET status = ?2, error = ?3, resume_key_after = ?4, ended_at = ?5 "
                          "WHERE id = ?1");
    if (!st) return st.error();
    st->bind(1, turn_id).bind(2, status);
    bind_opt(*st, 3, error);
    bind_opt(*st, 4, resume_after).bind(5, core::now_iso());
    return st->run();
}

core::Result<std::optional<TurnRow>> ConversationStore::last_turn(const std::string& conversation) {
    auto st = db_.prepare("SELECT id, conversation_id, user_message_id, status, started_at, error, ended_at, resume_key_after "
                          "FROM conversation_turns WHERE conversation_id = ?1 ORDER BY started_at DESC, rowid DESC LIMIT 1");
    if (!st) return st.error();
    st->bind(1, conversation);
    auto row = st->step();
    if (!row) return row.error();
    if (!*row) return std::optional<TurnRow>();
    return std::optional<TurnRow>(TurnRow{st->text(0), st->text(1), st->text(2), st->text(3), st->text(4),
                                          opt_text(*st, 5), opt_text(*st, 6), opt_text(*st, 7)});
}

core::Result<std::int64_t> ConversationStore::fail_running(const std::string& reason) {
    auto st = db_.prepare("UPDATE conversation_turns SET status = 'error', error = ?1, ended_at = ?2 WHERE status = 'running'");
    if (!st) return st.error();
    st->bind(1, reason).bind(2, core::now_iso());
    if (auto r = st->run(); !r) return r.error();
    return db_.changes();
}

}  // namespace coffer::chat
