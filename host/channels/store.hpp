// What the channel core keeps in SQLite (service thread only): each channel's owner, its pending
// pairing code (hashed) with attempts and lockout, each chat's conversation, and the inbox of
// kept messages with their progress (received → dispatched → answered).
#pragma once

#include "core/result.hpp"
#include "store/database.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace coffer::channels {

struct Owner {
    std::string sender, chat, sender_name, paired_at;
};

struct PairingState {
    std::optional<std::string> code_hash;
    std::int64_t expires_at_ms = 0, locked_until_ms = 0;
    int failed = 0;
};

struct InboxRow {
    std::string channel_uid, key, chat, sender, text, status;
    std::optional<std::string> thread, conversation_id, message_id;
};

class ChannelStore {
public:
    explicit ChannelStore(store::Database& db) : db_(db) {}

    core::Result<std::optional<Owner>> owner(const std::string& channel);
    core::Result<PairingState> pairing(const std::string& channel);
    // A new code (replacing any pending one); attempts and lockout are kept.
    core::Result<void> set_code(const std::string& channel, const std::string& hash, std::int64_t expires_at_ms);
    core::Result<void> record_failure(const std::string& channel, int failed, std::int64_t locked_until_ms);
    core::Result<void> clear_code(const std::string& channel);
    // One transaction: the owner is written, the code is spent and the message is recorded as answered.
    core::Result<void> pair(const std::string& channel, const Owner& o, const InboxRow& message);
    // Removes the owner, the code, the chats and the inbox of a channel (it was deleted or unpaired).
    core::Result<void> forget(const std::string& channel, bool owner_only);

    std::optional<std::string> chat_conversation(const std::string& channel, const std::string& chat);
    core::Result<void> set_chat_conversation(const std::string& channel, const std::string& chat, const std::string& conversation);
    // The (channel, chat) a conversation belongs to.
    core::Result<std::optional<std::pair<std::string, std::string>>> conversation_chat(const std::string& conversation);

    // False when the message was already there (a duplicate).
    core::Result<bool> insert(const InboxRow& row, std::int64_t now_ms);
    core::Result<void> dispatched(const std::string& channel, const std::string& key, const std::string& conversation,
                                  const std::string& message_id);
    core::Result<void> set_status(const std::string& channel, const std::string& key, const std::string& status);
    // Marks the message that became `message_id` answered; false when none was waiting.
    core::Result<bool> answered_by_message(const std::string& message_id);
    // Kept but not answered yet, oldest first.
    core::Result<std::vector<InboxRow>> open(const std::string& channel);
    core::Result<std::int64_t> count(const std::string& channel, const std::string& status);

private:
    store::Database& db_;
};

}  // namespace coffer::channels
