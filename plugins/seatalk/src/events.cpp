#include "events.hpp"

#include <coffer/json_fields.hpp>

namespace coffer::seatalk {

namespace json = boost::json;
using json_fields::object_at;
using json_fields::string_at;

std::optional<json::object> to_envelope(const json::object& body) {
    auto type = string_at(body, "event_type");
    auto* event = object_at(body, "event");
    auto* message = event ? object_at(*event, "message") : nullptr;
    auto* text = message ? object_at(*message, "text") : nullptr;
    if (!text || string_at(*message, "tag") != "text") return std::nullopt;
    bool group = type == "new_mentioned_message_received_from_group_chat";
    if (!group && type != "message_from_bot_subscriber") return std::nullopt;
    auto words = string_at(*text, group ? "plain_text" : "content");
    auto sender = string_at(*event, "seatalk_id");
    auto chat = group ? string_at(*event, "group_id") : string_at(*event, "employee_code");
    auto id = string_at(body, "event_id");
    if (id.empty()) id = string_at(*message, "message_id");
    if (words.empty() || sender.empty() || chat.empty() || id.empty()) return std::nullopt;
    json::object env{{"id", id}, {"chat", chat}, {"sender", sender}, {"text", words}, {"chat_type", group ? "group" : "direct"}};
    if (auto email = string_at(*event, "email"); !email.empty()) env["sender_name"] = email;
    if (auto thread = string_at(*message, "thread_id"); !thread.empty()) env["thread"] = thread;
    return env;
}

}  // namespace coffer::seatalk
