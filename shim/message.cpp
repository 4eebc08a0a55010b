// peek() over the top level of a JSON-RPC message, and the messages the shim writes itself.
#include "shim/message.hpp"

#include <coffer/base64.hpp>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace coffer::shim {
namespace json = boost::json;

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::size_t skip_ws(std::string_view s, std::size_t i) {
    while (i < s.size() && is_ws(s[i])) ++i;
    return i;
}

// `i` is at an opening quote; returns the index just past the closing quote, or npos.
std::size_t skip_string(std::string_view s, std::size_t i) {
    ++i;
    while (i < s.size()) {
        const char* p = static_cast<const char*>(std::memchr(s.data() + i, '"', s.size() - i));
        if (!p) return std::string_view::npos;
        std::size_t q = static_cast<std::size_t>(p - s.data());
        // Count the backslashes right before the quote: an odd number escapes it.
        std::size_t back = 0;
        while (q > i + back && s[q - 1 - back] == '\\') ++back;
        if (back % 2 == 0) return q + 1;
        i = q + 1;
    }
    return std::string_view::npos;
}

// `i` is at the first character of a value; returns the index just past it, or npos. Nested
// containers are skipped by counting brackets outside strings (no recursion).
std::size_t skip_value(std::string_view s, std::size_t i) {
    if (i >= s.size()) return std::string_view::npos;
    char c = s[i];
    if (c == '"') return skip_string(s, i);
    if (c == '{' || c == '[') {
        std::size_t depth = 0;
        while (i < s.size()) {
            char d = s[i];
            if (d == '"') {
                i = skip_string(s, i);
                if (i == std::string_view::npos) return i;
                continue;
            }
            if (d == '{' || d == '[') ++depth;
            else if (d == '}' || d == ']') {
                if (--depth == 0) return i + 1;
            }
            ++i;
        }
        return std::string_view::npos;
    }
    // number, true, false, null
    std::size_t start = i;
    while (i < s.size() && !is_ws(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
    return i > start ? i : std::string_view::npos;
}

// An integer as coffer-daemon takes an id: digits only (after an optional '-'), no fraction or
// exponent, within int64 (negative) or uint64.
bool integer_literal(std::string_view v) {
    if (v.empty()) return false;
    const char* first = v.data();
    const char* last = v.data() + v.size();
    if (v.front() == '-') {
        std::int64_t n = 0;
        auto r = std::from_chars(first, last, n);
        return r.ec == std::errc() && r.ptr == last;
    }
    std::uint64_t n = 0;
    auto r = std::from_chars(first, last, n);
    return r.ec == std::errc() && r.ptr == last;
}

}  // namespace

Peek peek(std::string_view s) {
    Peek p;
    std::size_t i = skip_ws(s, 0);
    if (i >= s.size()) return p;
    if (s[i] == '[') {
        p.kind = MsgKind::batch;
        return p;
    }
    if (s[i] != '{') return p;
    i = skip_ws(s, i + 1);
    bool has_id = false, has_result = false, has_method = false, closed = false, bad_id = false, null_id = false;
    std::string_view id, method;
    if (i < s.size() && s[i] == '}') {
        closed = true;
    }
    while (!closed) {
        if (i >= s.size() || s[i] != '"') return p;
        std::size_t kend = skip_string(s, i);
        if (kend == std::string_view::npos) return p;
        std::string_view key = s.substr(i + 1, kend - i - 2);
        i = skip_ws(s, kend);
        if (i >= s.size() || s[i] != ':') return p;
        i = skip_ws(s, i + 1);
        std::size_t vend = skip_value(s, i);
        if (vend == std::string_view::npos) return p;
        std::string_view value = s.substr(i, vend - i);
        if (key == "id") {
            has_id = true;
            char c = value.front();
            id = {};
            null_id = value == "null";
            if (c == '"' || integer_literal(value)) id = value;
            bad_id = id.empty() && !null_id;
        } else if (key == "method") {
            if (value.size() >= 2 && value.front() == '"') {
                has_method = true;
                method = value.substr(1, value.size() - 2);
            }
        } else if (key == "result" || key == "error") {
            has_result = true;
        }
        i = skip_ws(s, vend);
        if (i >= s.size()) return p;
        if (s[i] == ',') {
            i = skip_ws(s, i + 1);
            continue;
        }
        if (s[i] == '}') {
            closed = true;
            break;
        }
        return p;
    }
    // Only whitespace may follow the object.
    if (skip_ws(s, i + 1) != s.size()) return p;
    p.method = method;
    p.id = id;
    p.bad_id = bad_id;
    p.null_id = null_id;
    if (has_method)
        p.kind = has_id && !id.empty() ? MsgKind::request : MsgKind::notification;
    else if (has_result && has_id)
        p.kind = MsgKind::response;
    return p;
}

void make_one_line(std::string& text) {
    if (text.find_first_of("\r\n") == std::string::npos) return;
    text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r'; }),
               text.end());
}

std::string error_response(std::string_view id_raw, int code, std::string_view message,
                           const json::value& data) {
    json::object err;
    err["code"] = code;
    err["message"] = message;
    if (!data.is_null()) err["data"] = data;
    std::string out = "{\"jsonrpc\":\"2.0\",\"id\":";
    out += id_raw.empty() ? std::string_view("null") : id_raw;
    out += ",\"error\":";
    out += json::serialize(err);
    out += '}';
    make_one_line(out);
    return out;
}

std::string header_safe_value(std::string_view v) {
    bool plain = !v.empty() && v.front() != ' ' && v.front() != '\t' && v.back() != ' ' &&
                 v.back() != '\t';
    for (unsigned char c : v)
        if ((c < 0x20 && c != '\t') || c > 0x7E) plain = false;
    if (plain && v.size() >= 11 && v.substr(0, 9) == "=?base64?" && v.substr(v.size() - 2) == "?=")
        plain = false;
    if (plain) return std::string(v);
    return "=?base64?" + coffer::base64_encode(v) + "?=";
}

}  // namespace coffer::shim
