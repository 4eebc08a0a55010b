#include "channels/commands.hpp"

#include <cctype>

namespace coffer::channels {

Command parse_command(std::string_view text) {
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
    if (text.empty() || text.front() != '/') return Command::none;
    auto word = text.substr(1, text.find_first_of(" \t\n@") == std::string_view::npos ? std::string_view::npos
                                                                                      : text.find_first_of(" \t\n@") - 1);
    if (word == "new") return Command::new_conversation;
    if (word == "stop") return Command::stop;
    if (word == "status") return Command::status;
    if (word == "help" || word == "start") return Command::help;
    return Command::none;
}

std::string_view help_text() {
    return "Messages go to the agent; while it works, new ones wait their turn.\n"
           "/new — start a new conversation\n"
           "/stop — interrupt the running turn\n"
           "/status — the agent, the conversation and the queue\n"
           "/help — this text";
}

}  // namespace coffer::channels
