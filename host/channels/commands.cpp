#include "channels/commands.hpp"

#include "core/ascii.hpp"

#include <cctype>

namespace coffer::channels {

std::string_view trim_space(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    return text;
}

Command parse_command(std::string_view text) {
    text = trim_space(text);
    if (text.empty() || text.front() != '/') return Command::none;
    auto word = text.substr(1, text.find_first_of(" \t\n@") == std::string_view::npos ? std::string_view::npos
                                                                                      : text.find_first_of(" \t\n@") - 1);
    if (word == "new") return Command::new_conversation;
    if (word == "stop") return Command::stop;
    if (word == "status") return Command::status;
    if (word == "help" || word == "start") return Command::help;
    return Command::none;
}

std::optional<PermissionVerdict> parse_permission_reply(std::string_view text) {
    auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    auto lower = [](std::string_view s) {
        std::string out(s);
        for (auto& c : out) c = core::ascii_lower(c);
        return out;
    };
    text = trim_space(text);
    std::size_t gap = 0;
    while (gap < text.size() && !space(text[gap])) ++gap;
    auto word = lower(text.substr(0, gap));
    auto rest = text.substr(gap);
    if (rest.empty()) return std::nullopt;
    auto id = lower(trim_space(rest));
    if (word != "y" && word != "yes" && word != "n" && word != "no") return std::nullopt;
    if (id.size() != 5) return std::nullopt;
    for (char c : id)
        if (c < 'a' || c > 'z' || c == 'l') return std::nullopt;
    return PermissionVerdict{word[0] == 'y', id};
}

std::string_view help_text() {
    return "Messages go to the agent; while it works, new ones wait their turn.\n"
           "/new — start a new conversation\n"
           "/stop — interrupt the running turn\n"
           "/status — the agent, the conversation and the queue\n"
           "/help — this text";
}

}  // namespace coffer::channels
