#include "updates.hpp"

#include <coffer/json_fields.hpp>

namespace coffer::telegram {

namespace {

// A Telegram id (an integer, up to 52 bits) as decimal text; "" when absent.
std::string id_text(const json::object& o, const char* key) {
    auto* v = o.if_contains(key);
    if (!v) return {};
    if (v->is_int64()) return std::to_string(v->as_int64());
    if (v->is_uint64()) return std::to_string(v->as_uint64());
    if (v->is_string()) return std::string(v->as_string());
    return {};
}

}  // namespace

std::optional<Update> read_update(const json::value& v) {
    if (!v.is_object()) return std::nullopt;
    auto& o = v.as_object();
    auto id = json_fields::number_at(o, "update_id");
    if (!id.is_int64()) return std::nullopt;
    Update u;
    u.update_id = id.as_int64();
    auto* msg = json_fields::object_at(o, "message");
    if (!msg) return u;
    auto* chat = json_fields::object_at(*msg, "chat");
    auto* from = json_fields::object_at(*msg, "from");
    auto* text = msg->if_contains("text");
    if (!chat || !from || !text || !text->is_string()) return u;
    auto chat_id = id_text(*chat, "id"), sender = id_text(*from, "id");
    if (chat_id.empty() || sender.empty()) return u;
    if (auto* bot = from->if_contains("is_bot"); bot && bot->is_bool() && bot->as_bool()) return u;  // no echo of bots
    auto name = json_fields::string_at(*from, "username");
    if (name.empty()) name = json_fields::string_at(*from, "first_name");
    auto type = json_fields::string_at(*chat, "type");
    json::object env{{"id", std::to_string(u.update_id)},
                     {"chat", chat_id},
                     {"sender", sender},
                     {"text", text->as_string()},
                     {"chat_type", type == "private" ? "direct" : "group"}};
    if (!name.empty()) env["sender_name"] = name;
    auto thread = id_text(*msg, "message_thread_id");
    if (!thread.empty()) env["thread"] = thread;
    u.envelope = std::move(env);
    return u;
}

}  // namespace coffer::telegram
