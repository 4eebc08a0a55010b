// The JSON member editor: a strict scanner that records where each object and member sits in the
// text, and edits that splice only the bytes of one member.
#include "agentconf/json_member.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cctype>
#include <cstddef>
#include <functional>

namespace coffer::agentconf {
namespace json = boost::json;

namespace {

constexpr int kMaxDepth = 256;

struct Member {
    std::string key;
    std::size_t begin = 0;       // the key's opening quote
    std::size_t value_begin = 0;
    std::size_t value_end = 0;   // one past the value's last byte
    int object = -1;             // the index of the value's ObjectNode when it is an object
};

struct ObjectNode {
    std::size_t open = 0;  // '{'
    std::size_t close = 0; // '}'
    std::vector<Member> members;
};

core::Error malformed(std::string message) {
    return core::Error::make(core::code::validation_failed, "not valid JSON: " + std::move(message));
}

// A strict JSON scanner that keeps the position of every object and member.
class Scanner {
public:
    explicit Scanner(std::string_view text) : s_(text) {}

    // Scans the whole text; the top level must be an object (objects_[0]).
    std::optional<core::Error> scan() {
        skip_ws();
        if (pos_ >= s_.size() || s_[pos_] != '{') return fail("the top level is not an object");
        if (auto e = value(0)) return e;
        skip_ws();
        if (pos_ != s_.size()) return fail("unexpected text after the top-level object");
        return std::nullopt;
    }

    const std::vector<ObjectNode>& objects() const { return objects_; }

private:
    std::optional<core::Error> fail(const std::string& what) {
        std::size_t line = 1, col = 1;
        for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
            if (s_[i] == '\n') { ++line; col = 1; } else ++col;
        }
        return malformed(what + " at line " + std::to_string(line) + ", column " + std::to_string(col));
    }

    void skip_ws() {
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
    }

    std::optional<core::Error> value(int depth) {
        if (depth > kMaxDepth) return fail("nesting too deep");
        if (pos_ >= s_.size()) return fail("unexpected end of text");
        char c = s_[pos_];
        if (c == '{') return object(depth);
        if (c == '[') return array(depth);
        if (c == '"') { std::string ignored; return string(ignored); }
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        for (std::string_view lit : {"true", "false", "null"})
            if (s_.substr(pos_, lit.size()) == lit) { pos_ += lit.size(); return std::nullopt; }
        return fail("unexpected character");
    }

    std::optional<core::Error> object(int depth) {
        int index = static_cast<int>(objects_.size());
        objects_.push_back(ObjectNode{pos_, 0, {}});
        ++pos_;
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == '}') {
            objects_[index].close = pos_++;
                return std::nullopt;
        }
        while (true) {
            skip_ws();
            if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a member name");
            Member m;
            m.begin = pos_;
            if (auto e = string(m.key)) return e;
            skip_ws();
            if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
            ++pos_;
            skip_ws();
            m.value_begin = pos_;
            bool is_object = pos_ < s_.size() && s_[pos_] == '{';
            std::size_t child = objects_.size();
            if (auto e = value(depth + 1)) return e;
            m.value_end = pos_;
            if (is_object) m.object = static_cast<int>(child);
            objects_[index].members.push_back(std::move(m));
            skip_ws();
            if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
            if (pos_ < s_.size() && s_[pos_] == '}') { objects_[index].close = pos_++; return std::nullopt; }
            return fail("expected ',' or '}'");
        }
    }

    std::optional<core::Error> array(int depth) {
        ++pos_;
        skip_ws();
        if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return std::nullopt; }
        while (true) {
            skip_ws();
            if (auto e = value(depth + 1)) return e;
            skip_ws();
            if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
            if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return std::nullopt; }
            return fail("expected ',' or ']'");
        }
    }

    // A string; `out` gets its raw (still escaped) contents, which is what keys are compared by
    // after decoding below.
    std::optional<core::Error> string(std::string& out) {
        std::size_t start = pos_;
        ++pos_;
        while (pos_ < s_.size()) {
            unsigned char c = static_cast<unsigned char>(s_[pos_]);
            if (c == '"') {
                ++pos_;
                // Decode through Boost.JSON so "a\u0062" and "ab" name the same key.
                boost::system::error_code ec;
                auto v = json::parse(s_.substr(start, pos_ - start), ec);
                if (ec || !v.is_string()) return fail("invalid string");
                out = std::string(v.get_string());
                return std::nullopt;
            }
            if (c < 0x20) return fail("control character in a string");
            if (c == '\\') {
                ++pos_;
                if (pos_ >= s_.size()) break;
                char e = s_[pos_];
                if (e == 'u') {
                    for (int i = 1; i <= 4; ++i)
                        if (pos_ + i >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[pos_ + i])))
                            return fail("invalid \\u escape");
                    pos_ += 4;
                } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
                    return fail("invalid escape");
                }
            }
            ++pos_;
        }
        return fail("unterminated string");
    }

    std::optional<core::Error> number() {
        auto digit = [&] { return pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; };
        if (s_[pos_] == '-') ++pos_;
        if (!digit()) return fail("invalid number");
        if (s_[pos_] == '0') ++pos_;
        else while (digit()) ++pos_;
        if (pos_ < s_.size() && s_[pos_] == '.') {
            ++pos_;
            if (!digit()) return fail("invalid number");
            while (digit()) ++pos_;
        }
        if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
            ++pos_;
            if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
            if (!digit()) return fail("invalid number");
            while (digit()) ++pos_;
        }
        return std::nullopt;
    }

    std::string_view s_;
    std::size_t pos_ = 0;
    std::vector<ObjectNode> objects_;
};

struct Document {
    std::string text;
    std::vector<ObjectNode> objects;
};

core::Result<Document> scan(std::string_view text) {
    std::string owned(text);
    bool blank = owned.find_first_not_of(" \t\r\n") == std::string::npos;
    if (blank) return core::Error::make(core::code::validation_failed, "empty file");
    Scanner sc(owned);
    if (auto e = sc.scan()) return std::move(*e);
    return Document{std::move(owned), sc.objects()};
}

// The member `key` of `object`: its index, -1 when missing; an error when the key appears twice.
core::Result<int> find_member(const ObjectNode& object, const std::string& key) {
    int found = -1;
    for (std::size_t i = 0; i < object.members.size(); ++i) {
        if (object.members[i].key != key) continue;
        if (found >= 0) return malformed("the key \"" + key + "\" appears twice in one object");
        found = static_cast<int>(i);
    }
    return found;
}

// The whitespace that starts the line holding `pos`, when only whitespace precedes `pos` on it.
std::size_t line_start(std::string_view text, std::size_t pos) {
    if (pos == 0) return 0;
    auto nl = text.rfind('\n', pos - 1);
    return nl == std::string_view::npos ? 0 : nl + 1;
}

std::optional<std::string> line_indent_before(std::string_view text, std::size_t pos) {
    std::size_t start = line_start(text, pos);
    auto prefix = text.substr(start, pos - start);
    if (prefix.find_first_not_of(" \t") != std::string_view::npos) return std::nullopt;
    return std::string(prefix);
}

// The indentation of the line that `pos` is on (leading whitespace, whatever follows).
std::string line_indent(std::string_view text, std::size_t pos) {
    std::size_t start = line_start(text, pos);
    std::size_t end = start;
    while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
    return std::string(text.substr(start, end - start));
}

// The file's indent unit: the indentation of the top-level object's first member, when it starts
// a line; two spaces otherwise (what the agents write).
std::string indent_unit(const Document& doc) {
    const auto& root = doc.objects[0];
    if (!root.members.empty())
        if (auto ind = line_indent_before(doc.text, root.members[0].begin); ind && !ind->empty()) return *ind;
    return "  ";
}

std::string quote(const std::string& s) { return json::serialize(json::value(json::string(s))); }

void render_into(std::string& out, const json::value& v, std::string_view unit, const std::string& indent) {
    if (const auto* o = v.if_object()) {
        if (o->empty()) { out += "{}"; return; }
        out += "{\n";
        bool first = true;
        for (const auto& kv : *o) {
            if (!first) out += ",\n";
            first = false;
            std::string inner = indent + std::string(unit);
            out += inner + quote(std::string(kv.key())) + ": ";
            render_into(out, kv.value(), unit, inner);
        }
        out += "\n" + indent + "}";
        return;
    }
    if (const auto* a = v.if_array()) {
        if (a->empty()) { out += "[]"; return; }
        out += "[\n";
        bool first = true;
        for (const auto& x : *a) {
            if (!first) out += ",\n";
            first = false;
            std::string inner = indent + std::string(unit);
            out += inner;
            render_into(out, x, unit, inner);
        }
        out += "\n" + indent + "]";
        return;
    }
    out += json::serialize(v);
}

// Is the object laid out one member per line (so an inserted member gets a line of its own)?
bool multi_line(const Document& doc, const ObjectNode& o) {
    auto inside = std::string_view(doc.text).substr(o.open, o.close - o.open);
    return inside.find('\n') != std::string_view::npos;
}

// Inserts `key: value` as the last member of `object`.
std::string insert_member(const Document& doc, const ObjectNode& object, const std::string& key, const json::value& value) {
    const std::string& t = doc.text;
    std::string unit = indent_unit(doc);
    std::string out;
    if (object.members.empty()) {
        std::string outer = line_indent(t, object.open);
        std::string inner = outer + unit;
        out = t.substr(0, object.open + 1);
        out += "\n" + inner + quote(key) + ": ";
        render_into(out, value, unit, inner);
        out += "\n" + outer;
        out += t.substr(object.close);
        return out;
    }
    const Member& last = object.members.back();
    out = t.substr(0, last.value_end);
    auto ind = line_indent_before(t, last.begin);
    if (ind && multi_line(doc, object)) {
        out += ",\n" + *ind + quote(key) + ": ";
        render_into(out, value, unit, *ind);
    } else {
        out += ", " + quote(key) + ": " + json::serialize(value);
    }
    out += t.substr(last.value_end);
    return out;
}

std::string erase(const std::string& t, std::size_t from, std::size_t to) { return t.substr(0, from) + t.substr(to); }

// Removes member `index` of `object` with the separator that goes with it.
std::string remove_member(const Document& doc, const ObjectNode& object, std::size_t index) {
    const auto& ms = object.members;
    if (ms.size() == 1) return erase(doc.text, object.open + 1, object.close);
    if (index > 0) return erase(doc.text, ms[index - 1].value_end, ms[index].value_end);
    return erase(doc.text, ms[0].begin, ms[1].begin);
}

// Walks `path` as far as it exists: the objects passed and the members found.
struct Walk {
    std::vector<int> objects;        // objects[i] holds path[i]
    std::vector<int> members;        // members[i]: index of path[i] in objects[i], for the found prefix
    bool complete = false;
};

core::Result<Walk> walk(const Document& doc, const JsonPath& path) {
    Walk w;
    int current = 0;
    for (std::size_t i = 0; i < path.size(); ++i) {
        w.objects.push_back(current);
        auto found = find_member(doc.objects[current], path[i]);
        if (!found) return std::move(found).error();
        if (*found < 0) return w;
        w.members.push_back(*found);
        const Member& m = doc.objects[current].members[*found];
        if (i + 1 == path.size()) { w.complete = true; return w; }
        if (m.object < 0)
            return core::Error::make(core::code::validation_failed, "\"" + path[i] + "\" is not an object");
        current = m.object;
    }
    w.complete = true;
    return w;
}

}  // namespace

std::string json_render(const json::value& value, std::string_view unit, std::string_view indent) {
    std::string out;
    render_into(out, value, unit, std::string(indent));
    return out;
}

core::Result<std::optional<json::value>> json_get(std::string_view text, const JsonPath& path) {
    auto doc = scan(text);
    if (!doc) return std::move(doc).error();
    auto w = walk(*doc, path);
    if (!w) return std::move(w).error();
    if (!w->complete) return std::optional<json::value>{};
    if (path.empty()) return std::optional<json::value>{json::parse(doc->text)};
    const Member& m = doc->objects[w->objects.back()].members[w->members.back()];
    return std::optional<json::value>{json::parse(std::string_view(doc->text).substr(m.value_begin, m.value_end - m.value_begin))};
}

core::Result<std::string> json_set(std::string_view text, const JsonPath& path, const json::value& value) {
    if (path.empty()) return core::Error::make(core::code::bad_request, "an empty path");
    std::string_view source = text;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) source = "{}\n";
    auto doc = scan(source);
    if (!doc) return std::move(doc).error();
    auto w = walk(*doc, path);
    if (!w) return std::move(w).error();
    if (w->complete) {
        const Member& m = doc->objects[w->objects.back()].members[w->members.back()];
        auto current = json::parse(std::string_view(doc->text).substr(m.value_begin, m.value_end - m.value_begin));
        if (current == value) return std::string(text);
        std::string indent = line_indent(doc->text, m.begin);
        std::string out = doc->text.substr(0, m.value_begin);
        bool own_lines = multi_line(*doc, doc->objects[w->objects.back()]);
        out += own_lines ? json_render(value, indent_unit(*doc), indent) : json::serialize(value);
        out += doc->text.substr(m.value_end);
        return out;
    }
    // Insert the first missing key, holding the rest of the path as nested objects.
    std::size_t first_missing = w->members.size();
    json::value nested = value;
    for (std::size_t i = path.size(); i-- > first_missing + 1;) {
        json::object o;
        o[path[i]] = std::move(nested);
        nested = std::move(o);
    }
    return insert_member(*doc, doc->objects[w->objects.back()], path[first_missing], nested);
}

core::Result<std::string> json_remove(std::string_view text, const JsonPath& path, int prune) {
    if (path.empty()) return core::Error::make(core::code::bad_request, "an empty path");
    auto doc = scan(text);
    if (!doc) return std::move(doc).error();
    auto w = walk(*doc, path);
    if (!w) return std::move(w).error();
    if (!w->complete) return std::string(text);
    // Go up while the object holding the member would be left empty (never the top level).
    std::size_t level = path.size() - 1;
    while (prune > 0 && level > 0 && doc->objects[w->objects[level]].members.size() == 1) {
        --level;
        --prune;
    }
    return remove_member(*doc, doc->objects[w->objects[level]], static_cast<std::size_t>(w->members[level]));
}

}  // namespace coffer::agentconf
