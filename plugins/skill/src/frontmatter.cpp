#include "frontmatter.hpp"

#include "limits.hpp"

#include <coffer/utf8.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace coffer::plugins::skill {

namespace json = boost::json;

namespace {

struct YamlError {
    int line;
    std::string message;
};

struct Line {
    int no = 0;        // line number in the file
    int indent = 0;    // leading spaces
    std::string text;  // after the indentation, right-trimmed
    std::string raw;   // the whole line (no line break)
};

bool is_space(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

// "# comment", or " # comment" after a value, starts a comment; '#' inside a word does not.
std::string_view strip_comment(std::string_view s) {
    for (std::size_t i = 0; i < s.size(); ++i)
        if (s[i] == '#' && (i == 0 || is_space(s[i - 1]))) return trim(s.substr(0, i));
    return trim(s);
}

bool is_seq_item(std::string_view text) { return text == "-" || (text.size() > 1 && text[0] == '-' && is_space(text[1])); }


json::value resolve_plain(std::string_view s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
    return json::string(s);
}

// Where a mapping entry's key ends: the ':' followed by a space or the end of the text, outside
// quotes. Returns the key and the rest after the colon, or nothing if `text` is no `key: value`.
struct KeySplit {
    std::string key;
    std::string_view rest;
};

class Parser {
public:
    Parser(std::vector<Line> lines) : lines_(std::move(lines)) {}

    json::object document() {
        skip_blank();
        if (eof()) return {};
        auto& first = cur();
        if (first.indent != 0) fail(first.no, "the first frontmatter line must not be indented");
        if (is_seq_item(first.text) || !split_key(first.text, first.no))
            fail(first.no, "the frontmatter must be a mapping of 'key: value' lines");
        auto obj = mapping(0, 1);
        skip_blank();
        if (!eof()) fail(cur().no, "unexpected indentation or text after the frontmatter mapping");
        return obj;
    }

private:
    [[noreturn]] void fail(int line, std::string message) { throw YamlError{line, std::move(message)}; }
    bool eof() const { return i_ >= lines_.size(); }
    Line& cur() { return lines_[i_]; }
    static bool blank(const Line& l) { return l.text.empty() || l.text[0] == '#'; }
    void skip_blank() {
        while (!eof() && blank(cur())) ++i_;
    }
    void check_depth(std::size_t depth, int line) {
        if (depth > kMaxYamlDepth)
            fail(line, "the frontmatter nests deeper than " + std::to_string(kMaxYamlDepth) + " levels");
    }

    std::optional<KeySplit> split_key(std::string_view text, int line) {
        if (text.empty()) return std::nullopt;
        char c = text[0];
        if (c == '"' || c == '\'') {
            std::size_t pos = 0;
            std::string key = quoted_inline(text, pos, line);
            auto after = text.substr(pos);
            std::size_t k = 0;
            while (k < after.size() && is_space(after[k])) ++k;
            if (k < after.size() && after[k] == ':' && (k + 1 == after.size() || is_space(after[k + 1])))
                return KeySplit{std::move(key), trim(after.substr(k + 1))};
            return std::nullopt;
        }
        if (c == '[' || c == '{' || c == '#' || c == '-' || c == '|' || c == '>') return std::nullopt;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '#' && i > 0 && is_space(text[i - 1])) return std::nullopt;
            if (text[i] == ':' && (i + 1 == text.size() || is_space(text[i + 1]))) {
                auto key = trim(text.substr(0, i));
                if (key.empty()) return std::nullopt;
                if (key[0] == '?') fail(line, "complex keys ('? key') are not supported");
                return KeySplit{std::string(key), trim(text.substr(i + 1))};
            }
        }
        return std::nullopt;
    }

    json::value block(int min_indent, std::size_t depth) {
        skip_blank();
        if (eof() || cur().indent < min_indent) return nullptr;
        check_depth(depth, cur().no);
        if (is_seq_item(cur().text)) return sequence(cur().indent, depth);
        if (!split_key(cur().text, cur().no)) fail(cur().no, "expected 'key: value' or '- item'");
        return mapping(cur().indent, depth);
    }

    json::object mapping(int n, std::size_t depth) {
        json::object obj;
        for (;;) {
            skip_blank();
            if (eof()) break;
            auto& l = cur();
            if (l.indent < n) break;
            if (l.indent > n) fail(l.no, "unexpected indentation");
            if (is_seq_item(l.text)) fail(l.no, "a '- item' cannot appear here; it belongs under a 'key:'");
            auto split = split_key(l.text, l.no);
            if (!split) {
                fail(l.no, "expected 'key: value', got '" + std::string(l.text.substr(0, 40)) + "'");
            }
            int line = l.no;
            ++i_;
            auto value = inline_value(split->rest, n, line, depth, true);
            if (obj.contains(split->key)) fail(line, "duplicate key '" + split->key + "'");
            obj[split->key] = std::move(value);
        }
        return obj;
    }

    json::array sequence(int n, std::size_t depth) {
        json::array arr;
        for (;;) {
            skip_blank();
            if (eof()) break;
            auto& l = cur();
            if (l.indent < n) break;
            if (l.indent > n) fail(l.no, "unexpected indentation");
            if (!is_seq_item(l.text)) break;
            std::size_t sp = 1;
            while (sp < l.text.size() && is_space(l.text[sp])) ++sp;
            std::string rest = l.text.substr(sp);
            int line = l.no;
            if (rest.empty() || rest[0] == '#') {
                ++i_;
                arr.push_back(inline_value("", n, line, depth, false));
            } else if (is_seq_item(rest) || split_key(rest, line)) {
                // "- key: v" / "- - x": the item is a block that starts on this line, indented
                // to where its text starts.
                l.indent = n + static_cast<int>(sp);
                l.text = rest;
                arr.push_back(block(n + 1, depth + 1));
            } else {
                ++i_;
                arr.push_back(inline_value(rest, n, line, depth, false));
            }
        }
        return arr;
    }

    // The value after "key:" or "- " on line `line`; `n` is the indentation of its owner.
    json::value inline_value(std::string_view rest, int n, int line, std::size_t depth, bool in_mapping) {
        check_depth(depth, line);
        if (rest.empty() || rest[0] == '#') {
            skip_blank();
            if (eof()) return nullptr;
            if (cur().indent > n) return block(n + 1, depth + 1);
            if (in_mapping && cur().indent == n && is_seq_item(cur().text)) return sequence(n, depth + 1);
            return nullptr;
        }
        char c = rest[0];
        if (c == '|' || c == '>') return block_scalar(rest, n, line);
        if (c == '"' || c == '\'') return quoted_multiline(rest, line);
        if (c == '[' || c == '{') return flow(rest, line, depth);
        if (c == '&' || c == '*') fail(line, "anchors and aliases (&name, *name) are not supported");
        if (c == '!') fail(line, "tags (!tag) are not supported");
        if (c == '%' || c == '@' || c == '`') fail(line, "a plain value cannot start with '" + std::string(1, c) + "'; quote it");
        return plain(rest, n, line);
    }

    json::value plain(std::string_view rest, int n, int line) {
        auto first = strip_comment(rest);
        if (split_key(first, line))
            fail(line, "a plain value must not contain ': ' (it would start a nested mapping); put the value in quotes");
        std::string out(first);
        bool ended_by_comment = first.size() != trim(rest).size();
        int blanks = 0;
        while (!ended_by_comment && !eof()) {
            auto& l = cur();
            if (l.text.empty()) {
                ++blanks;
                ++i_;
                continue;
            }
            if (l.indent <= n || l.text[0] == '#') break;
            auto part = strip_comment(l.text);
            if (split_key(part, l.no) || is_seq_item(part))
                fail(l.no, "a plain value continued on this line must not contain ': ' or start with '- '; quote the value");
            out += blanks ? std::string(static_cast<std::size_t>(blanks), '\n') : std::string(" ");
            out += part;
            blanks = 0;
            ended_by_comment = part.size() != l.text.size();
            ++i_;
        }
        return resolve_plain(out);
    }

    // A quoted scalar that starts at text[pos] and ends on the same text; pos moves past it.
    std::string quoted_inline(std::string_view text, std::size_t& pos, int line) {
        char q = text[pos];
        std::string out;
        std::size_t i = pos + 1;
        bool closed = scan_quoted(text, i, q, out, line);
        if (!closed) fail(line, "a quoted key or value is not closed on its line");
        pos = i;
        return out;
    }

    // Appends the content of a quoted scalar from text[i] to its closing quote (i moves past the
    // quote) and returns true, or appends the whole rest and returns false.
    bool scan_quoted(std::string_view text, std::size_t& i, char q, std::string& out, int line,
                     bool* escaped_break = nullptr) {
        while (i < text.size()) {
            char c = text[i];
            if (q == '\'') {
                if (c == '\'') {
                    if (i + 1 < text.size() && text[i + 1] == '\'') {
                        out += '\'';
                        i += 2;
                        continue;
                    }
                    ++i;
                    return true;
                }
                out += c;
                ++i;
                continue;
            }
            if (c == '"') {
                ++i;
                return true;
            }
            if (c != '\\') {
                out += c;
                ++i;
                continue;
            }
            if (i + 1 >= text.size()) {  // escaped line break: join without a space
                if (escaped_break) *escaped_break = true;
                ++i;
                return false;
            }
            char e = text[i + 1];
            i += 2;
            switch (e) {
                case '0': out += '\0'; break;
                case 'a': out += '\a'; break;
                case 'b': out += '\b'; break;
                case 't': case '\t': out += '\t'; break;
                case 'n': out += '\n'; break;
                case 'v': out += '\v'; break;
                case 'f': out += '\f'; break;
                case 'r': out += '\r'; break;
                case 'e': out += '\x1b'; break;
                case ' ': out += ' '; break;
                case '"': out += '"'; break;
                case '/': out += '/'; break;
                case '\\': out += '\\'; break;
                case 'N': coffer::utf8::append(out, 0x85); break;
                case '_': coffer::utf8::append(out, 0xA0); break;
                case 'L': coffer::utf8::append(out, 0x2028); break;
                case 'P': coffer::utf8::append(out, 0x2029); break;
                case 'x': case 'u': case 'U': {
                    std::size_t len = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                    if (i + len > text.size()) fail(line, "incomplete escape \\" + std::string(1, e));
                    std::uint32_t cp = 0;
                    for (std::size_t k = 0; k < len; ++k) {
                        char h = text[i + k];
                        int d = (h >= '0' && h <= '9') ? h - '0' : (h >= 'a' && h <= 'f') ? h - 'a' + 10
                                : (h >= 'A' && h <= 'F') ? h - 'A' + 10 : -1;
                        if (d < 0) fail(line, "bad hex digit in escape \\" + std::string(1, e));
                        cp = cp * 16 + static_cast<std::uint32_t>(d);
                    }
                    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail(line, "escape is not a Unicode scalar value");
                    coffer::utf8::append(out, cp);
                    i += len;
                    break;
                }
                default: fail(line, "unknown escape \\" + std::string(1, e) + " in a double-quoted value");
            }
        }
        return false;
    }

    json::value quoted_multiline(std::string_view rest, int line) {
        char q = rest[0];
        std::string out;
        std::size_t i = 1;
        std::string_view text = rest;
        int text_line = line;
        for (;;) {
            bool escaped_break = false;
            if (scan_quoted(text, i, q, out, text_line, &escaped_break)) {
                auto after = trim(text.substr(i));
                if (!after.empty() && after[0] != '#')
                    fail(text_line, "unexpected text after the closing quote: '" + std::string(after.substr(0, 30)) + "'");
                return json::string(out);
            }
            if (!escaped_break)
                while (!out.empty() && is_space(out.back())) out.pop_back();
            int blanks = 0;
            while (!eof() && trim(cur().raw).empty()) {
                ++blanks;
                ++i_;
            }
            if (eof()) fail(line, "the quoted value that starts here is never closed");
            if (blanks) out.append(static_cast<std::size_t>(blanks), '\n');
            else if (!escaped_break) out += ' ';
            text = cur().text;
            text_line = cur().no;
            ++i_;
            i = 0;
        }
    }

    json::value block_scalar(std::string_view header, int n, int line) {
        char style = header[0];
        char chomp = 0;
        int explicit_indent = 0;
        auto h = strip_comment(header.substr(1));
        for (char c : h) {
            if ((c == '+' || c == '-') && !chomp) chomp = c;
            else if (c >= '1' && c <= '9' && !explicit_indent) explicit_indent = c - '0';
            else fail(line, "bad block scalar header '" + std::string(header) + "'");
        }
        int content = explicit_indent ? n + explicit_indent : -1;
        std::vector<std::string> lines;
        while (!eof()) {
            auto& l = cur();
            if (trim(l.raw).empty()) {
                lines.emplace_back();
                ++i_;
                continue;
            }
            if (content < 0) {
                if (l.indent <= n) break;
                content = l.indent;
            }
            if (l.indent < content) break;
            lines.push_back(l.raw.substr(static_cast<std::size_t>(content)));
            ++i_;
        }
        std::size_t trailing = 0;
        while (!lines.empty() && lines.back().empty()) {
            lines.pop_back();
            ++trailing;
        }
        // Trailing blank lines that belong to the next node are not ours; but a blank line is
        // blank for everyone, so only the count matters (for '+').
        std::string out;
        if (style == '|') {
            for (std::size_t k = 0; k < lines.size(); ++k) {
                if (k) out += '\n';
                out += lines[k];
            }
        } else {
            bool first = true, prev_special = false;
            std::size_t blanks = 0;
            for (auto& l : lines) {
                if (l.empty()) {
                    ++blanks;
                    continue;
                }
                bool special = is_space(l[0]);
                if (first) out.append(blanks, '\n');
                else if (special || prev_special) out.append(blanks + 1, '\n');
                else if (blanks) out.append(blanks, '\n');
                else out += ' ';
                out += l;
                first = false;
                blanks = 0;
                prev_special = special;
            }
        }
        if (chomp != '-' && !lines.empty()) out += '\n';
        if (chomp == '+') out.append(trailing, '\n');
        return json::string(out);
    }

    json::value flow(std::string_view rest, int line, std::size_t depth) {
        // Gather lines until the brackets balance.
        std::string text(rest);
        auto balanced = [](std::string_view s) {
            int level = 0;
            char q = 0;
            for (std::size_t k = 0; k < s.size(); ++k) {
                char c = s[k];
                if (q) {
                    if (c == q) {
                        if (q == '\'' && k + 1 < s.size() && s[k + 1] == '\'') ++k;
                        else q = 0;
                    } else if (q == '"' && c == '\\') {
                        ++k;
                    }
                    continue;
                }
                if (c == '"' || c == '\'') q = c;
                else if (c == '[' || c == '{') ++level;
                else if (c == ']' || c == '}') --level;
                else if (c == '#' && k > 0 && is_space(s[k - 1])) break;
                if (level == 0) return true;
            }
            return level <= 0;
        };
        while (!balanced(text)) {
            if (eof()) fail(line, "the [ … ] or { … } that starts here is never closed");
            text += ' ';
            text += strip_comment(cur().text);
            ++i_;
        }
        std::size_t pos = 0;
        auto v = flow_value(text, pos, line, depth + 1, false);
        auto after = trim(std::string_view(text).substr(pos));
        if (!after.empty() && after[0] != '#')
            fail(line, "unexpected text after the closing bracket: '" + std::string(after.substr(0, 30)) + "'");
        return v;
    }

    void skip_ws(std::string_view s, std::size_t& pos) {
        while (pos < s.size() && is_space(s[pos])) ++pos;
    }

    // After one item of a [ … ] or { … }: consumes a ',' (false: more items follow) or the closing
    // bracket, also after a trailing ',' (true: the collection ended); anything else is an error.
    bool flow_item_end(std::string_view s, std::size_t& pos, int line, char close, const char* expected) {
        skip_ws(s, pos);
        if (pos < s.size() && s[pos] == ',') {
            ++pos;
            skip_ws(s, pos);
            if (pos >= s.size() || s[pos] != close) return false;
        } else if (pos >= s.size() || s[pos] != close) {
            fail(line, expected);
        }
        ++pos;
        return true;
    }

    // At an opening bracket: steps past it; true (and past `close` too) when nothing is inside.
    bool flow_opens_empty(std::string_view s, std::size_t& pos, char close) {
        ++pos;
        skip_ws(s, pos);
        if (pos < s.size() && s[pos] == close) {
            ++pos;
            return true;
        }
        return false;
    }

    json::value flow_value(std::string_view s, std::size_t& pos, int line, std::size_t depth, bool as_key) {
        skip_ws(s, pos);
        if (pos >= s.size()) fail(line, "a value is missing inside [ … ] or { … }");
        char c = s[pos];
        // Only a collection is a level, as in block style: a scalar inside a mapping at the
        // deepest level allowed is fine.
        if (c == '[' || c == '{') check_depth(depth, line);
        if (c == '[') {
            json::array arr;
            if (flow_opens_empty(s, pos, ']')) return arr;
            for (;;) {
                arr.push_back(flow_value(s, pos, line, depth + 1, false));
                skip_ws(s, pos);
                if (pos < s.size() && s[pos] == ':')
                    fail(line, "'key: value' pairs inside [ … ] are not supported; use { … }");
                if (flow_item_end(s, pos, line, ']', "expected ',' or ']' in a [ … ] list")) return arr;
            }
        }
        if (c == '{') {
            json::object obj;
            if (flow_opens_empty(s, pos, '}')) return obj;
            for (;;) {
                auto key = flow_value(s, pos, line, depth + 1, true);
                if (!key.is_string()) fail(line, "a key inside { … } must be a non-empty string");
                skip_ws(s, pos);
                json::value value = nullptr;
                if (pos < s.size() && s[pos] == ':') {
                    ++pos;
                    skip_ws(s, pos);
                    if (pos < s.size() && s[pos] != ',' && s[pos] != '}') value = flow_value(s, pos, line, depth + 1, false);
                }
                std::string k(key.as_string());
                if (obj.contains(k)) fail(line, "duplicate key '" + k + "'");
                obj[k] = std::move(value);
                if (flow_item_end(s, pos, line, '}', "expected ',' or '}' in a { … } mapping")) return obj;
            }
        }
        if (c == '"' || c == '\'') return json::string(quoted_inline(s, pos, line));
        if (c == '&' || c == '*') fail(line, "anchors and aliases (&name, *name) are not supported");
        if (c == '!') fail(line, "tags (!tag) are not supported");
        std::size_t start = pos;
        while (pos < s.size()) {
            char d = s[pos];
            if (d == ',' || d == ']' || d == '}' || d == '[' || d == '{') break;
            if (d == ':' && (pos + 1 == s.size() || is_space(s[pos + 1]) || as_key)) break;
            if (d == '#' && pos > start && is_space(s[pos - 1])) break;
            ++pos;
        }
        return resolve_plain(trim(s.substr(start, pos - start)));
    }

    std::vector<Line> lines_;
    std::size_t i_ = 0;
};

}  // namespace

json::object parse_yaml_mapping(std::string_view text, int first_line, std::vector<std::string>& errors) {
    std::vector<Line> lines;
    int no = first_line;
    std::size_t start = 0;
    try {
        while (start <= text.size()) {
            auto end = text.find('\n', start);
            if (end == std::string_view::npos) end = text.size();
            std::string raw(text.substr(start, end - start));
            if (!raw.empty() && raw.back() == '\r') raw.pop_back();
            Line l;
            l.no = no;
            std::size_t k = 0;
            while (k < raw.size() && raw[k] == ' ') ++k;
            if (k < raw.size() && raw[k] == '\t' && !trim(raw).empty())
                throw YamlError{no, "a tab indents this line; YAML indentation must use spaces"};
            l.indent = static_cast<int>(k);
            l.text = std::string(trim(std::string_view(raw).substr(k)));
            l.raw = std::move(raw);
            lines.push_back(std::move(l));
            ++no;
            if (end == text.size()) break;
            start = end + 1;
        }
        for (auto& l : lines)
            if (l.indent == 0 && (l.text.rfind("%", 0) == 0))
                throw YamlError{l.no, "YAML directives (%…) are not supported"};
        Parser p(std::move(lines));
        return p.document();
    } catch (const YamlError& e) {
        errors.push_back("line " + std::to_string(e.line) + ": " + e.message);
        return {};
    }
}

SkillMd parse_skill_md(std::string_view text) {
    SkillMd out;
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    auto line_is = [](std::string_view l, std::string_view mark) {
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        while (!l.empty() && is_space(l.back())) l.remove_suffix(1);
        return l == mark;
    };
    auto first_end = text.find('\n');
    std::string_view first = text.substr(0, first_end);
    if (!line_is(first, "---")) {
        out.errors.push_back("line 1: SKILL.md must begin with a '---' line that opens the YAML frontmatter");
        return out;
    }
    if (first_end == std::string_view::npos) {
        out.errors.push_back("line 1: the frontmatter is never closed by a second '---' line");
        return out;
    }
    std::size_t start = first_end + 1, pos = start;
    int line = 2;
    for (;;) {
        auto end = text.find('\n', pos);
        std::string_view l = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        if (line_is(l, "---") || line_is(l, "...")) {
            auto yaml = text.substr(start, pos - start);
            if (yaml.size() > kMaxFrontmatterBytes) {
                out.errors.push_back("the frontmatter is larger than " + std::to_string(kMaxFrontmatterBytes / 1024) +
                                     " KiB");
                return out;
            }
            out.frontmatter = parse_yaml_mapping(yaml.empty() ? yaml : yaml.substr(0, yaml.size() - 1), 2, out.errors);
            out.body = end == std::string_view::npos ? std::string() : std::string(text.substr(end + 1));
            return out;
        }
        if (end == std::string_view::npos) break;
        pos = end + 1;
        ++line;
    }
    out.errors.push_back("line 1: the frontmatter is never closed by a second '---' line");
    return out;
}

}  // namespace coffer::plugins::skill
