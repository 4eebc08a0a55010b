// Conversations, their committed messages and their turns in SQLite (T-1). Service thread only.
#pragma once

#include "core/result.hpp"
#include "store/database.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <vector>

namespace coffer::chat {

struct Conversation {
    std::string id, agent, cwd, title;
    std::optional<std::string> resume_key;  // the agent's session id after the latest turn
    std::optional<std::string> mcp_config;  // JSON text handed to the agent each turn
    std::string created_at, updated_at;
    boost::json::object to_json() const;
};

struct TurnRow {
    std::string id, conversation_id, user_message_id, status, started_at;
    std::optional<std::string> error, ended_at, resume_key_after;
    boost::json::object to_json() const;
};

class ConversationStore {
public:
    explicit ConversationStore(store::Database& db) : db_(db) {}

    core::Result<void> create(const Conversation& c);
    core::Result<std::optional<Conversation>> get(const std::string& id);
    core::Result<std::vector<Conversation>> list();
    core::Result<void> remove(const std::string& id);
    core::Result<void> set_resume_key(const std::string& id, const std::string& key);

    // Appends a committed message; returns its position in the conversation (1, 2, …).
    core::Result<std::int64_t> add_message(const std::string& conversation, const std::string& id,
                                           const std::string& role, const std::string& text,
                                           const std::string& source, const std::string& turn_id);
    core::Result<boost::json::array> messages(const std::string& conversation, int limit);

    core::Result<void> begin_turn(const TurnRow& t, const std::optional<std::string>& resume_before);
    core::Result<void> end_turn(const std::string& turn_id, const std::string& status,
                                const std::optional<std::string>& error, const std::optional<std::string>& resume_after);
    core::Result<std::optional<TurnRow>> last_turn(const std::string& conversation);
    // At start-up: every turn left "running" by a daemon that is gone becomes "error". Returns how many.
    core::Result<std::int64_t> fail_running(const std::string& reason);

private:
    store::Database& db_;
};

}  // namespace coffer::chat
