// Telegram's HTML parse mode, as the stand-in judges it: the tags Telegram knows (b strong i em
// u ins s strike del code pre a span tg-spoiler blockquote), properly nested and closed, the
// entities &lt; &gt; &amp; &quot; and numeric ones; anything else is "can't parse entities".
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace coffer::telegram_standin {

struct Parsed {
    std::string text;   // what the user sees: tags removed, entities decoded
    std::string error;  // "" when it parsed; else Telegram's words after "can't parse entities: "
};

Parsed parse_html(std::string_view html);

}  // namespace coffer::telegram_standin
