#include "mcp/raw_json.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace coffer::mcp::raw {

namespace json = boost::json;

namespace {

constexpr int kMaxScanDepth = 256;

bool ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_ws(std::string_view t, std::size_t i) {
    while (i < t.size() && ws(t[i])) ++i;
    return i;
}

// Returns the end of the string token starting at t[i] == '"', or npos.
std::size_t skip_string(std::string_view t, std::size_t i) {
    if (i >= t.size() || t[i] != '"') return std::string_view::npos;
    for (++i; i < t.size(); ++i) {
        if (t[i] == '\\') ++i;
        else if (t[i] == '"') return i + 1;
    }
    return std::string_view::npos;
}

// Returns the end of the value starting at t[i], or npos.
std::size_t skip_value(std::string_view t, std::size_t i, int depth) {
    if (depth > kMaxScanDepth) return std::string_view::npos;
    i = skip_ws(t, i);
    if (i >= t.size()) return std::string_view::npos;
    char c = t[i];
    if (c == '"') return skip_string(t, i);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        i = skip_ws(t, i + 1);
        if (i < t.size() && t[i] == close) return i + 1;
        for (;;) {
            if (c == '{') {
                i = skip_string(t, skip_ws(t, i));
                if (i == std::string_view::npos) return i;
                i = skip_ws(t, i);
                if (i >= t.size() || t[i] != ':') return std::string_view::npos;
                ++i;
            }
            i = skip_value(t, i, depth + 1);
            if (i == std::string_view::npos) return i;
            i = skip_ws(t, i);
            if (i >= t.size()) return std::string_view::npos;
            if (t[i] == close) return i + 1;
            if (t[i] != ',') return std::string_view::npos;
            ++i;
        }
    }
    // number, true, false, null
    std::size_t start = i;
    while (i < t.size() && !ws(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ':') ++i;
    return i > start ? i : std::string_view::npos;
}

}  // namespace

bool is_object(std::string_view text, int max_depth) {
    unsigned char buf[4096];
    json::monotonic_resource mr(buf, sizeof buf);
    json::parse_options opt;
    opt.max_depth = static_cast<std::size_t>(max_depth);
    boost::system::error_code ec;
    auto v = json::parse(text, ec, &mr, opt);
    return !ec && v.is_object();
}

bool members(std::string_view t, std::vector<Member>& out) {
    out.clear();
    std::size_t i = skip_ws(t, 0);
    if (i >= t.size() || t[i] != '{') return false;
    i = skip_ws(t, i + 1);
    if (i < t.size() && t[i] == '}') return true;
    for (;;) {
        i = skip_ws(t, i);
        std::size_t kend = skip_string(t, i);
        if (kend == std::string_view::npos) return false;
        auto key = decode_string(t.substr(i, kend - i));
        if (!key) return false;
        i = skip_ws(t, kend);
        if (i >= t.size() || t[i] != ':') return false;
        std::size_t vbegin = skip_ws(t, i + 1);
        std::size_t vend = skip_value(t, vbegin, 1);
        if (vend == std::string_view::npos) return false;
        out.push_back(Member{std::move(*key), vbegin, vend});
        i = skip_ws(t, vend);
        if (i >= t.size()) return false;
        if (t[i] == '}') return true;
        if (t[i] != ',') return false;
        ++i;
    }
}

bool items(std::string_view t, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t i = skip_ws(t, 0);
    if (i >= t.size() || t[i] != '[') return false;
    i = skip_ws(t, i + 1);
    if (i < t.size() && t[i] == ']') return true;
    for (;;) {
        std::size_t b = skip_ws(t, i);
        std::size_t e = skip_value(t, b, 1);
        if (e == std::string_view::npos) return false;
        out.push_back(t.substr(b, e - b));
        i = skip_ws(t, e);
        if (i >= t.size()) return false;
        if (t[i] == ']') return true;
        if (t[i] != ',') return false;
        ++i;
    }
}

std::optional<std::string_view> member(std::string_view object, std::string_view key) {
    std::vector<Member> ms;
    if (!members(object, ms)) return std::nullopt;
    for (auto m = ms.rbegin(); m != ms.rend(); ++m)  // the last one wins, as in every JSON parser
        if (m->key == key) return object.substr(m->value_begin, m->value_end - m->value_begin);
    return std::nullopt;
}

std::optional<std::string> decode_string(std::string_view token) {
    if (token.size() < 2 || token.front() != '"' || token.back() != '"') return std::nullopt;
    auto inner = token.substr(1, token.size() - 2);
    if (inner.find('\\') == std::string_view::npos) {
        for (char c : inner)
            if (static_cast<unsigned char>(c) < 0x20 || c == '"') return std::nullopt;
        return std::string(inner);
    }
    boost::system::error_code ec;
    auto v = json::parse(token, ec);
    if (ec || !v.is_string()) return std::nullopt;
    return std::string(v.as_string());
}

std::string quote(std::string_view s) { return json::serialize(json::string(s)); }

std::optional<std::string> replace_member(std::string_view object, std::string_view key, std::string_view value_text) {
    std::vector<Member> ms;
    if (!members(object, ms)) return std::nullopt;
    for (auto m = ms.rbegin(); m != ms.rend(); ++m) {  // the last one wins, as in every JSON parser
        if (m->key != key) continue;
        std::string out;
        out.reserve(object.size() + value_text.size());
        out.append(object.substr(0, m->value_begin));
        out.append(value_text);
        out.append(object.substr(m->value_end));
        return out;
    }
    return std::nullopt;
}

std::string prepend_members(std::string_view object, std::string_view fields) {
    std::size_t i = skip_ws(object, 0);
    if (i >= object.size() || object[i] != '{' || fields.empty()) return std::string(object);
    std::size_t j = skip_ws(object, i + 1);
    bool empty = j < object.size() && object[j] == '}';
    std::string out;
    out.reserve(object.size() + fields.size() + 1);
    out.append(object.substr(0, i + 1));
    out.append(fields);
    if (!empty) out.push_back(',');
    out.append(object.substr(i + 1));
    return out;
}

}  // namespace coffer::mcp::raw
