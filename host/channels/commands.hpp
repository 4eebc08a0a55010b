// The commands every channel understands (CH-5), chosen by text, never by platform: /new starts a
// fresh conversation for the chat, /stop interrupts the running turn, /status and /help answer.
// A platform's "/cmd@botname" form is accepted. Commands pass the owner gate first, like text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace coffer::channels {

enum class Command { none, new_conversation, stop, status, help };

// `text` without the white space around it (how every chat message is read for a command, a
// pairing code or a permission answer).
std::string_view trim_space(std::string_view text);

Command parse_command(std::string_view text);
std::string_view help_text();

// An answer to a Claude Code permission request (claude/channel/permission): "yes abcde",
// "n abcde", … — y|yes|n|no, then the 5-letter request id (a–z without l), any letter case.
struct PermissionVerdict {
    bool allow = false;
    std::string request_id;  // lower case
};
std::optional<PermissionVerdict> parse_permission_reply(std::string_view text);

}  // namespace coffer::channels
