// The TOML table editor: a line scanner that splits the text into blank lines, comments, table
// headers and key/value pairs (a pair may span lines), with byte positions, and edits that splice
// only the lines of one table.
#include "agentconf/toml_table.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdio>
#include <optional>

namespace coffer::agentconf {

namespace {

enum class Kind { blank, comment, header, array_header, pair };

struct Segment {
    Kind kind = Kind::blank;
    std::size_t begin = 0;        // first byte of the line
    std::size_t end = 0;          // one past the line's newline (or the end of the text)
    TomlPath name;                // header: the table's name; pair: the key (dotted keys → several)
    TomlPath table;               // pair: the table it belongs to
    std::size_t value_begin = 0;  // pair: the value's text
    std::size_t value_end = 0;
};

core::Error malformed(const std::string& what, std::size_t line) {
    return core::Error::make(core::code::validation_failed,
                             "not valid TOML: " + what + " at line " + std::to_string(line));
}

bool bare_key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

class Scanner {
public:
    explicit Scanner(std::string_view text) : s_(text) {}

    core::Result<std::vector<Segment>> scan() {
        std::vector<Segment> out;
        TomlPath table;
        while (pos_ < s_.size()) {
            Segment seg;
            seg.begin = pos_;
            skip_blank();
            if (at_eol()) {
                seg.kind = Kind::blank;
            } else if (s_[pos_] == '#') {
                seg.kind = Kind::comment;
                if (auto e = comment()) return std::move(*e);
            } else if (s_[pos_] == '[') {
                bool array = pos_ + 1 < s_.size() && s_[pos_ + 1] == '[';
                pos_ += array ? 2 : 1;
                skip_blank();
                auto name = key_path();
                if (!name) return std::move(name).error();
                skip_blank();
                if (s_.substr(pos_, array ? 2 : 1) != (array ? "]]" : "]")) return fail_error("expected ']' to close a table header");
                pos_ += array ? 2 : 1;
                seg.kind = array ? Kind::array_header : Kind::header;
                seg.name = *name;
                table = *name;
                if (auto e = line_end()) return std::move(*e);
            } else {
                auto key = key_path();
                if (!key) return std::move(key).error();
                skip_blank();
                if (pos_ >= s_.size() || s_[pos_] != '=') return fail_error("expected '=' after a key");
                ++pos_;
                skip_blank();
                seg.kind = Kind::pair;
                seg.name = *key;
                seg.table = table;
                seg.value_begin = pos_;
                if (auto e = value(0)) return std::move(*e);
                seg.value_end = pos_;
                if (auto e = line_end()) return std::move(*e);
            }
            if (seg.kind == Kind::blank) {
                if (auto e = newline()) return std::move(*e);
            }
            seg.end = pos_;
            out.push_back(std::move(seg));
        }
        return out;
    }

    // The value at the start of the text when it is a string or an array of strings.
    std::optional<TomlValue> decode_value() {
        skip_blank();
        if (pos_ >= s_.size()) return std::nullopt;
        if (s_[pos_] == '"' || s_[pos_] == '\'') {
            auto str = string_value();
            if (!str) return std::nullopt;
            return TomlValue{*str};
        }
        if (s_[pos_] != '[') return std::nullopt;
        ++pos_;
        std::vector<std::string> items;
        while (true) {
            if (skip_inside()) return std::nullopt;
            if (pos_ >= s_.size()) return std::nullopt;
            if (s_[pos_] == ']') { ++pos_; return TomlValue{items}; }
            if (s_[pos_] != '"' && s_[pos_] != '\'') return std::nullopt;
            auto str = string_value();
            if (!str) return std::nullopt;
            items.push_back(*str);
            if (skip_inside()) return std::nullopt;
            if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
            if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return TomlValue{items}; }
            return std::nullopt;
        }
    }

private:
    std::size_t line() const {
        std::size_t n = 1;
        for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) n += s_[i] == '\n';
        return n;
    }
    core::Error fail_error(const std::string& what) const { return malformed(what, line()); }
    core::Result<TomlPath> fail_path(const std::string& what) const { return fail_error(what); }
    std::optional<core::Error> fail(const std::string& what) const { return fail_error(what); }

    void skip_blank() { while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_; }
    bool at_eol() const { return pos_ >= s_.size() || s_[pos_] == '\n' || (s_[pos_] == '\r' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n'); }

    std::optional<core::Error> newline() {
        if (pos_ >= s_.size()) return std::nullopt;
        if (s_[pos_] == '\r') ++pos_;
        if (pos_ < s_.size() && s_[pos_] == '\n') { ++pos_; return std::nullopt; }
        return fail("expected the end of the line");
    }

    std::optional<core::Error> comment() {
        while (!at_eol()) {
            unsigned char c = static_cast<unsigned char>(s_[pos_]);
            if ((c < 0x20 && c != '\t') || c == 0x7f) return fail("control character in a comment");
            ++pos_;
        }
        return std::nullopt;
    }

    // After a header or a value: blanks, an optional comment, the end of the line.
    std::optional<core::Error> line_end() {
        skip_blank();
        if (pos_ < s_.size() && s_[pos_] == '#')
            if (auto e = comment()) return e;
        if (!at_eol()) return fail("unexpected text after a value");
        return newline();
    }

    core::Result<TomlPath> key_path() {
        TomlPath path;
        while (true) {
            skip_blank();
            if (pos_ >= s_.size()) return fail_path("expected a key");
            std::string part;
            if (s_[pos_] == '"' || s_[pos_] == '\'') {
                if (s_.substr(pos_, 3) == "\"\"\"" || s_.substr(pos_, 3) == "'''") return fail_path("a multi-line string cannot be a key");
                auto str = string_value();
                if (!str) return std::move(str).error();
                part = *str;
            } else {
                std::size_t start = pos_;
                while (pos_ < s_.size() && bare_key_char(s_[pos_])) ++pos_;
                if (pos_ == start) return fail_path("expected a key");
                part = std::string(s_.substr(start, pos_ - start));
            }
            path.push_back(std::move(part));
            skip_blank();
            if (pos_ < s_.size() && s_[pos_] == '.') { ++pos_; continue; }
            return path;
        }
    }

    // A string in any of the four forms; its decoded text.
    core::Result<std::string> string_value() {
        char q = s_[pos_];
        bool multi = s_.substr(pos_, 3) == std::string(3, q);
        pos_ += multi ? 3 : 1;
        if (multi && pos_ < s_.size() && s_[pos_] == '\n') ++pos_;
        else if (multi && s_.substr(pos_, 2) == "\r\n") pos_ += 2;
        std::string out;
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (multi && s_.substr(pos_, 3) == std::string(3, q)) {
                pos_ += 3;
                // Up to two more quotes belong to the string ("""a"""" is a string `a"`).
                for (int i = 0; i < 2 && pos_ < s_.size() && s_[pos_] == q; ++i) { out += q; ++pos_; }
                return out;
            }
            if (!multi && c == q) { ++pos_; return out; }
            if (!multi && (c == '\n' || c == '\r')) break;
            if (q == '"' && c == '\\') {
                ++pos_;
                if (pos_ >= s_.size()) break;
                char e = s_[pos_++];
                switch (e) {
                    case 'b': out += '\b'; break;
                    case 't': out += '\t'; break;
                    case 'n': out += '\n'; break;
                    case 'f': out += '\f'; break;
                    case 'r': out += '\r'; break;
                    case 'e': out += '\x1b'; break;
                    case '"': out += '"'; break;
                    case '\\': out += '\\'; break;
                    case 'x': case 'u': case 'U': {
                        int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                        unsigned long cp = 0;
                        for (int i = 0; i < n; ++i, ++pos_) {
                            if (pos_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos_])))
                                return fail_error("invalid escape in a string");
                            char h = s_[pos_];
                            cp = cp * 16 + static_cast<unsigned long>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
                        }
                        append_utf8(out, cp);
                        break;
                    }
                    default:
                        if (multi && (e == '\n' || e == ' ' || e == '\t' || e == '\r')) {
                            // A line-ending backslash: the newline and following whitespace go.
                            --pos_;
                            while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
                            break;
                        }
                        return fail_error("invalid escape in a string");
                }
                continue;
            }
            out += c;
            ++pos_;
        }
        return fail_error("unterminated string");
    }

    static void append_utf8(std::string& out, unsigned long cp) {
        if (cp < 0x80) out += static_cast<char>(cp);
        else if (cp < 0x800) { out += static_cast<char>(0xC0 | (cp >> 6)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12)); out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18)); out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)); out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    // Skips whitespace, newlines and comments inside an array or inline table.
    std::optional<core::Error> skip_inside() {
        while (pos_ < s_.size()) {
            char c = s_[pos_];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') ++pos_;
            else if (c == '#') { if (auto e = comment()) return e; }
            else break;
        }
        return std::nullopt;
    }

    std::optional<core::Error> value(int depth) {
        if (depth > 64) return fail("nesting too deep");
        if (pos_ >= s_.size() || at_eol()) return fail("expected a value");
        char c = s_[pos_];
        if (c == '"' || c == '\'') {
            auto s = string_value();
            if (!s) return std::move(s).error();
            return std::nullopt;
        }
        if (c == '[') {
            ++pos_;
            while (true) {
                if (auto e = skip_inside()) return e;
                if (pos_ >= s_.size()) return fail("unterminated array");
                if (s_[pos_] == ']') { ++pos_; return std::nullopt; }
                if (auto e = value(depth + 1)) return e;
                if (auto e = skip_inside()) return e;
                if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
                if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return std::nullopt; }
                return fail("expected ',' or ']' in an array");
            }
        }
        if (c == '{') {
            ++pos_;
            while (true) {
                if (auto e = skip_inside()) return e;
                if (pos_ >= s_.size()) return fail("unterminated inline table");
                if (s_[pos_] == '}') { ++pos_; return std::nullopt; }
                auto key = key_path();
                if (!key) return std::move(key).error();
                skip_blank();
                if (pos_ >= s_.size() || s_[pos_] != '=') return fail("expected '=' in an inline table");
                ++pos_;
                skip_blank();
                if (auto e = value(depth + 1)) return e;
                if (auto e = skip_inside()) return e;
                if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
                if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return std::nullopt; }
                return fail("expected ',' or '}' in an inline table");
            }
        }
        // A number, boolean or date-time: its characters up to a separator (a date-time may hold
        // one space: "1979-05-27 07:32:00").
        std::size_t start = pos_;
        auto scalar_char = [](char x) {
            return (x >= '0' && x <= '9') || (x >= 'a' && x <= 'z') || (x >= 'A' && x <= 'Z') || x == '+' || x == '-' ||
                   x == '.' || x == ':' || x == '_';
        };
        while (pos_ < s_.size() && scalar_char(s_[pos_])) ++pos_;
        if (pos_ + 1 < s_.size() && s_[pos_] == ' ' && pos_ - start == 10 && s_[start + 4] == '-' &&
            s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '9') {
            ++pos_;
            while (pos_ < s_.size() && scalar_char(s_[pos_])) ++pos_;
        }
        if (pos_ == start) return fail("expected a value");
        return std::nullopt;
    }

    std::string_view s_;
    std::size_t pos_ = 0;
};

// Decodes a value's text when it is a string or an array of strings (nullopt otherwise).
std::optional<TomlValue> decode(std::string_view text) {
    Scanner sc(text);
    return sc.decode_value();
}

bool starts_with(const TomlPath& path, const TomlPath& prefix) {
    if (prefix.size() > path.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i)
        if (path[i] != prefix[i]) return false;
    return true;
}

std::string render_key(const std::string& key) {
    bool bare = !key.empty();
    for (char c : key) bare = bare && bare_key_char(c);
    return bare ? key : toml_quote(key);
}

std::string render_path(const TomlPath& path) {
    std::string out;
    for (const auto& p : path) out += (out.empty() ? "" : ".") + render_key(p);
    return out;
}

core::Error unsupported_form(const TomlPath& path, std::string how) {
    return core::Error::make(core::code::conflict,
                             "[" + render_path(path) + "] is defined " + std::move(how) +
                                 ", which Coffer does not rewrite: move it to a [" + render_path(path) +
                                 "] table of its own, or edit the file by hand");
}

// Refuses a table defined other than by its own header (and sub-table headers).
std::optional<core::Error> check_form(const std::vector<Segment>& segs, const TomlPath& path) {
    int headers = 0;
    for (const auto& s : segs) {
        if (s.kind == Kind::header && s.name == path && ++headers > 1)
            return core::Error::make(core::code::validation_failed, "not valid TOML: the table [" + render_path(path) + "] is defined twice");
        if (s.kind == Kind::array_header && (starts_with(s.name, path) || starts_with(path, s.name)))
            return unsupported_form(path, "as an array of tables");
        if (s.kind != Kind::pair || starts_with(s.table, path)) continue;
        TomlPath full = s.table;
        full.insert(full.end(), s.name.begin(), s.name.end());
        if (starts_with(full, path)) return unsupported_form(path, "with dotted keys (" + render_path(full) + " = …)");
        if (starts_with(path, full)) return unsupported_form(path, "inside an inline table (" + render_path(full) + " = {…})");
    }
    return std::nullopt;
}

struct Parsed {
    std::vector<Segment> segs;
};

core::Result<Parsed> parse(std::string_view text, const TomlPath& path) {
    Scanner sc(text);
    auto segs = sc.scan();
    if (!segs) return std::move(segs).error();
    if (auto e = check_form(*segs, path)) return std::move(*e);
    return Parsed{std::move(*segs)};
}

bool is_header(const Segment& s) { return s.kind == Kind::header || s.kind == Kind::array_header; }

// The segment index one past the section that starts with header `h`.
std::size_t section_end(const std::vector<Segment>& segs, std::size_t h) {
    std::size_t i = h + 1;
    while (i < segs.size() && !is_header(segs[i])) ++i;
    return i;
}

// One past the last byte of the section's header and pairs (comments and blank lines after its
// last pair belong to what follows).
std::size_t content_end(const std::vector<Segment>& segs, std::size_t h) {
    std::size_t end = segs[h].end;
    for (std::size_t i = h + 1; i < section_end(segs, h); ++i)
        if (segs[i].kind == Kind::pair) end = segs[i].end;
    return end;
}

std::optional<std::size_t> find_header(const std::vector<Segment>& segs, const TomlPath& path) {
    for (std::size_t i = 0; i < segs.size(); ++i)
        if (segs[i].kind == Kind::header && segs[i].name == path) return i;
    return std::nullopt;
}

struct Edit {
    std::size_t at;
    std::size_t erase;
    std::string insert;
};

std::string apply(std::string_view text, std::vector<Edit> edits) {
    std::string out(text);
    // Back to front, so earlier positions stay valid; edits at one position keep their order.
    for (std::size_t i = edits.size(); i-- > 0;) out.replace(edits[i].at, edits[i].erase, edits[i].insert);
    return out;
}

// Text to insert at `at`: starts on a new line even when the text there has no final newline.
std::string on_new_line(std::string_view text, std::size_t at, std::string insert) {
    if (at > 0 && at == text.size() && text.back() != '\n') return "\n" + insert;
    return insert;
}

}  // namespace

std::string toml_quote(std::string_view s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\b': out += "\\b"; break;
            case '\t': out += "\\t"; break;
            case '\n': out += "\\n"; break;
            case '\f': out += "\\f"; break;
            case '\r': out += "\\r"; break;
            default:
                if (c < 0x20 || c == 0x7f) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04X", c);
                    out += buf;
                } else {
                    out += static_cast<char>(c);
                }
        }
    }
    return out + "\"";
}

std::string toml_render(const TomlValue& value) {
    if (const auto* s = std::get_if<std::string>(&value)) return toml_quote(*s);
    const auto& items = std::get<std::vector<std::string>>(value);
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + toml_quote(items[i]);
    return out + "]";
}

core::Result<TomlTable> toml_get_table(std::string_view text, const TomlPath& path) {
    auto parsed = parse(text, path);
    if (!parsed) return std::move(parsed).error();
    const auto& segs = parsed->segs;
    TomlTable table;
    auto h = find_header(segs, path);
    if (!h) return table;
    table.exists = true;
    for (std::size_t i = *h + 1; i < section_end(segs, *h); ++i) {
        const auto& s = segs[i];
        if (s.kind != Kind::pair || s.name.size() != 1) continue;
        if (auto v = decode(text.substr(s.value_begin, s.value_end - s.value_begin))) table.keys.push_back({s.name[0], *v});
    }
    return table;
}

core::Result<std::string> toml_set_table(std::string_view text, const TomlPath& path, const std::vector<TomlKey>& keys) {
    if (path.empty()) return core::Error::make(core::code::bad_request, "an empty table name");
    auto parsed = parse(text, path);
    if (!parsed) return std::move(parsed).error();
    const auto& segs = parsed->segs;
    auto line_of = [](const TomlKey& k) { return render_key(k.key) + " = " + toml_render(k.value) + "\n"; };

    if (auto h = find_header(segs, path)) {
        std::vector<Edit> edits;
        std::size_t anchor = segs[*h].end;
        std::string pending;  // keys to insert at `anchor`, in order
        auto flush = [&] {
            if (!pending.empty()) edits.push_back({anchor, 0, on_new_line(text, anchor, pending)});
            pending.clear();
        };
        for (const auto& k : keys) {
            const Segment* found = nullptr;
            for (std::size_t i = *h + 1; i < section_end(segs, *h); ++i)
                if (segs[i].kind == Kind::pair && segs[i].name == TomlPath{k.key}) found = &segs[i];
            if (!found) {
                pending += line_of(k);
                continue;
            }
            flush();
            auto current = decode(text.substr(found->value_begin, found->value_end - found->value_begin));
            if (!current || *current != k.value)
                edits.push_back({found->value_begin, found->value_end - found->value_begin, toml_render(k.value)});
            anchor = found->end;
        }
        flush();
        std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.at < b.at; });
        return apply(text, std::move(edits));
    }

    std::string table = "[" + render_path(path) + "]\n";
    for (const auto& k : keys) table += line_of(k);
    // After the last table of the same family ([mcp_servers.*]), else at the end.
    std::optional<std::size_t> after;
    for (std::size_t i = 0; i < segs.size(); ++i)
        if (segs[i].kind == Kind::header && !segs[i].name.empty() && segs[i].name[0] == path[0])
            after = std::max(after.value_or(0), content_end(segs, i));
    std::string out(text);
    if (after) {
        out.insert(*after, on_new_line(text, *after, "\n" + table));
        return out;
    }
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (!out.empty()) out += '\n';
    return out + table;
}

core::Result<std::string> toml_remove_table(std::string_view text, const TomlPath& path) {
    if (path.empty()) return core::Error::make(core::code::bad_request, "an empty table name");
    auto parsed = parse(text, path);
    if (!parsed) return std::move(parsed).error();
    const auto& segs = parsed->segs;
    std::vector<Edit> edits;
    for (std::size_t h = 0; h < segs.size(); ++h) {
        if (segs[h].kind != Kind::header || !starts_with(segs[h].name, path)) continue;
        std::size_t begin = segs[h].begin;
        if (h > 0 && segs[h - 1].kind == Kind::blank) begin = segs[h - 1].begin;
        edits.push_back({begin, content_end(segs, h) - begin, ""});
    }
    return apply(text, std::move(edits));
}

}  // namespace coffer::agentconf
