#include "telegram_html.hpp"

#include <coffer/utf8.hpp>

#include <set>
#include <vector>

namespace coffer::telegram_standin {

namespace {

const std::set<std::string, std::less<>> kTags = {"b",   "strong", "i",    "em",   "u",          "ins",       "s",
                                                   "strike", "del", "code", "pre", "a", "span", "tg-spoiler", "blockquote"};

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

Parsed parse_html(std::string_view h) {
    Parsed out;
    std::vector<std::string> open;
    auto fail = [&](std::string why, std::size_t at) {
        out.error = why + " at byte offset " + std::to_string(at);
        return out;
    };
    for (std::size_t i = 0; i < h.size();) {
        char c = h[i];
        if (c == '<') {
            auto end = h.find('>', i);
            if (end == std::string_view::npos) return fail("Unclosed start tag", i);
            auto inner = h.substr(i + 1, end - i - 1);
            bool closing = !inner.empty() && inner[0] == '/';
            if (closing) inner.remove_prefix(1);
            auto name_end = inner.find_first_of(" \t\n");
            auto name = lower(inner.substr(0, name_end));
            if (!kTags.count(name))
                return fail(std::string(closing ? "Unexpected end tag" : "Unsupported start tag") + " \"" + name + "\"", i);
            if (closing) {
                if (open.empty() || open.back() != name) return fail("Unmatched end tag \"" + name + "\"", i);
                open.pop_back();
            } else {
                if (name == "a" && inner.find("href=") == std::string_view::npos) return fail("Tag \"a\" must have href", i);
                open.push_back(name);
            }
            i = end + 1;
        } else if (c == '&') {
            auto end = h.find(';', i);
            if (end == std::string_view::npos || end - i > 10) return fail("Unsupported HTML entity", i);
            auto name = h.substr(i + 1, end - i - 1);
            if (name == "lt") out.text += '<';
            else if (name == "gt") out.text += '>';
            else if (name == "amp") out.text += '&';
            else if (name == "quot") out.text += '"';
            else if (!name.empty() && name[0] == '#') {
                try {
                    auto code = name.size() > 1 && (name[1] == 'x' || name[1] == 'X') ? std::stoul(std::string(name.substr(2)), nullptr, 16)
                                                                                      : std::stoul(std::string(name.substr(1)));
                    utf8::append(out.text, static_cast<char32_t>(code));
                } catch (...) {
                    return fail("Unsupported HTML entity", i);
                }
            } else {
                return fail("Unsupported HTML entity \"&" + std::string(name) + ";\"", i);
            }
            i = end + 1;
        } else if (c == '>') {
            return fail("Unexpected \">\"", i);
        } else {
            out.text += c;
            ++i;
        }
    }
    if (!open.empty()) return fail("Can't find end tag corresponding to start tag \"" + open.back() + "\"", h.size());
    return out;
}

}  // namespace coffer::telegram_standin
