#include "channels/render.hpp"

#include <cctype>

namespace coffer::channels {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::string inline_html(std::string_view s);

// A span delimited by `marker` starting at s[at] (at points at the opening marker): the index of
// the closing marker, or npos. The inside must not start or end with a space.
std::size_t closing(std::string_view s, std::size_t at, std::string_view marker) {
    auto from = at + marker.size();
    if (from >= s.size() || s[from] == ' ') return std::string_view::npos;
    auto end = s.find(marker, from);
    while (end != std::string_view::npos && marker.size() == 1 && end + 1 < s.size() && s[end + 1] == marker[0])
        end = s.find(marker, end + 2);
    if (end == std::string_view::npos || end == from || s[end - 1] == ' ') return std::string_view::npos;
    if (marker == "_" && end + 1 < s.size() && word_char(s[end + 1])) return std::string_view::npos;
    return end;
}

std::string inline_html(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        char c = s[i];
        if (c == '`') {
            auto end = s.find('`', i + 1);
            if (end != std::string_view::npos && end > i + 1) {
                out += "<code>" + escape_html(s.substr(i + 1, end - i - 1)) + "</code>";
                i = end + 1;
                continue;
            }
        }
        for (auto [marker, tag] : {std::pair<std::string_view, std::string_view>{"**", "b"}, {"__", "b"}, {"~~", "s"}}) {
            if (s.substr(i, 2) != marker) continue;
            auto end = closing(s, i, marker);
            if (end == std::string_view::npos) break;
            out += "<" + std::string(tag) + ">" + inline_html(s.substr(i + 2, end - i - 2)) + "</" + std::string(tag) + ">";
            i = end + 2;
            goto next;
        }
        if ((c == '*' || c == '_') && !(c == '_' && i > 0 && word_char(s[i - 1]))) {
            auto end = closing(s, i, std::string_view(&s[i], 1));
            if (end != std::string_view::npos) {
                out += "<i>" + inline_html(s.substr(i + 1, end - i - 1)) + "</i>";
                i = end + 1;
                continue;
            }
        }
        if (c == '[') {
            auto mid = s.find("](", i);
            auto end = mid == std::string_view::npos ? mid : s.find(')', mid + 2);
            if (end != std::string_view::npos && s.substr(i + 1, mid - i - 1).find('\n') == std::string_view::npos) {
                auto url = s.substr(mid + 2, end - mid - 2);
                if ((url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0) && url.find_first_of(" \"<>") == std::string_view::npos) {
                    out += "<a href=\"" + escape_html(url) + "\">" + inline_html(s.substr(i + 1, mid - i - 1)) + "</a>";
                    i = end + 1;
                    continue;
                }
            }
        }
        out += escape_html(s.substr(i, 1));
        ++i;
    next:;
    }
    return out;
}

// A fence's language when it is a plain word; empty otherwise.
std::string language(std::string_view info) {
    while (!info.empty() && info.front() == ' ') info.remove_prefix(1);
    auto end = info.find_first_of(" \n\r");
    info = info.substr(0, end);
    for (char c : info)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '+') return {};
    return std::string(info);
}

}  // namespace

std::string escape_html(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '&') out += "&amp;";
        else if (c == '<') out += "&lt;";
        else if (c == '>') out += "&gt;";
        else if (c == '"') out += "&quot;";
        else out += c;
    }
    return out;
}

std::string markdown_to_html(std::string_view md) {
    std::string out;
    std::string fence;  // the open block's marker
    std::string code;
    while (!md.empty()) {
        auto nl = md.find('\n');
        auto line = md.substr(0, nl);
        md.remove_prefix(nl == std::string_view::npos ? md.size() : nl + 1);
        auto trimmed = line;
        while (!trimmed.empty() && trimmed.front() == ' ') trimmed.remove_prefix(1);
        bool is_fence = trimmed.size() >= 3 && (trimmed.substr(0, 3) == "```" || trimmed.substr(0, 3) == "~~~");
        if (!fence.empty()) {
            if (is_fence && trimmed.substr(0, fence.size()) == fence) {
                out += code;
                out += "</code></pre>";
                if (nl != std::string_view::npos) out += '\n';
                fence.clear();
                code.clear();
            } else {
                code += escape_html(line);
                code += '\n';
            }
            continue;
        }
        if (is_fence) {
            std::size_t n = 0;
            while (n < trimmed.size() && trimmed[n] == trimmed[0]) ++n;
            fence = std::string(trimmed.substr(0, n));
            auto lang = language(trimmed.substr(n));
            out += lang.empty() ? "<pre><code>" : "<pre><code class=\"language-" + lang + "\">";
            continue;
        }
        std::size_t hashes = 0;
        while (hashes < trimmed.size() && trimmed[hashes] == '#') ++hashes;
        if (hashes > 0 && hashes <= 6 && hashes < trimmed.size() && trimmed[hashes] == ' ')
            out += "<b>" + inline_html(trimmed.substr(hashes + 1)) + "</b>";
        else
            out += inline_html(line);
        if (nl != std::string_view::npos) out += '\n';
    }
    if (!fence.empty()) {  // an unclosed block is closed
        if (!code.empty() && code.back() == '\n') code.pop_back();
        out += code + "</code></pre>";
    } else if (!code.empty()) {
        out += code;
    }
    // A closed block's trailing newline before </code>.
    std::string tidy;
    tidy.reserve(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == '\n' && out.compare(i + 1, 13, "</code></pre>") == 0) continue;
        tidy += out[i];
    }
    return tidy;
}

}  // namespace coffer::channels
