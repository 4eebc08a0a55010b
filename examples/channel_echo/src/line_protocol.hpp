// The toy IM platform's wire format: one message per line, fields separated by single spaces,
// the last field (text) escaped so that it holds no newline ("\n" → \n, "\" → \\).
//   client → adapter:  MSG <id> <chat> <sender> <text>
//   adapter → client:  ACK <id>                       (the host has the message)
//                      SEND <chat> <ref> <text>
//                      EDIT <chat> <ref> <text>
//                      TYPING <chat>
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace channel_echo {

inline std::string escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '\\') out += "\\\\";
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else out += c;
    }
    return out;
}

inline std::string unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '\\' || i + 1 == s.size()) {
            out += s[i];
            continue;
        }
        char n = s[++i];
        out += n == 'n' ? '\n' : n == 'r' ? '\r' : n;
    }
    return out;
}

struct Inbound {
    std::string id, chat, sender, text;
};

// A "MSG" line (without its newline); nothing for anything else.
inline std::optional<Inbound> parse_inbound(std::string_view line) {
    if (line.substr(0, 4) != "MSG ") return std::nullopt;
    line.remove_prefix(4);
    Inbound m;
    for (auto* field : {&m.id, &m.chat, &m.sender}) {
        auto sp = line.find(' ');
        if (sp == std::string_view::npos || sp == 0) return std::nullopt;
        *field = std::string(line.substr(0, sp));
        line.remove_prefix(sp + 1);
    }
    m.text = unescape(line);
    return m;
}

}  // namespace channel_echo
