// Working on JSON text without rebuilding it. The gateway, the mcp_server plugin and the stdio
// shim pass upstream results to clients byte for byte — numbers, key order and escapes survive
// because nothing is re-serialized — and only look at, or rewrite, a few top-level members (an
// id, a method, a tool's name, a resource's URI). This is the one scanner they all use.
//
// Decided once (docs/decisions/0029-one-raw-json-scanner.md):
// - Keys are compared after unescaping: "\u0069d" is the key "id".
// - Of a duplicated key, the LAST member counts — as Boost.JSON (the daemon's parser),
//   JavaScript's JSON.parse (the official MCP SDKs) and Python's json read it, so Coffer never
//   sees a different message from the one its peers see. (Configuration the user writes is
//   stricter: host/core/strict_json refuses duplicate keys outright.)
// - An object or array must be followed by nothing but whitespace.
// - The scanner never reads outside the text it is given, whatever the input; it checks the top
//   level's structure and skips nested values by counting brackets outside strings, so call
//   valid() or is_object() first when the text has not been validated yet.
//
// Header-only (plugins use it from the installed SDK); needs Boost.JSON, which coffer_sdk links.
#pragma once

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::raw_json {

inline constexpr std::size_t kDefaultMaxDepth = 128;

// One top-level member of an object text: the decoded key and where its value lies.
struct Member {
    std::string key;
    std::size_t value_begin = 0;  // offsets into the object text
    std::size_t value_end = 0;
    std::string_view value(std::string_view object_text) const {
        return object_text.substr(value_begin, value_end - value_begin);
    }
};

namespace detail {

constexpr std::size_t npos = std::string_view::npos;

inline bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline std::size_t skip_ws(std::string_view t, std::size_t i) {
    while (i < t.size() && is_ws(t[i])) ++i;
    return i;
}

// `t[i]` is an opening quote; the index just past the closing quote, or npos.
inline std::size_t skip_string(std::string_view t, std::size_t i) {
    if (i >= t.size() || t[i] != '"') return npos;
    ++i;
    while (i < t.size()) {
        const void* hit = std::memchr(t.data() + i, '"', t.size() - i);
        if (!hit) return npos;
        std::size_t q = static_cast<std::size_t>(static_cast<const char*>(hit) - t.data());
        std::size_t backslashes = 0;  // an odd number right before the quote escapes it
        while (q > i + backslashes && t[q - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return q + 1;
        i = q + 1;
    }
    return npos;
}

// `t[i]` is the first character of a value; the index just past it, or npos. Containers are
// skipped by counting brackets outside strings (no recursion, so no depth limit to hit).
inline std::size_t skip_value(std::string_view t, std::size_t i) {
    if (i >= t.size()) return npos;
    char c = t[i];
    if (c == '"') return skip_string(t, i);
    if (c == '{' || c == '[') {
        std::size_t depth = 0;
        while (i < t.size()) {
            char d = t[i];
            if (d == '"') {
                i = skip_string(t, i);
                if (i == npos) return npos;
                continue;
            }
            if (d == '{' || d == '[') ++depth;
            else if ((d == '}' || d == ']') && --depth == 0) return i + 1;
            ++i;
        }
        return npos;
    }
    std::size_t start = i;  // a number, true, false or null
    while (i < t.size() && !is_ws(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ':') ++i;
    return i > start ? i : npos;
}

// A Boost.JSON handler that accepts everything and builds nothing: validation only.
struct NullHandler {
    using ec = boost::system::error_code;
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);
    bool on_document_begin(ec&) { return true; }
    bool on_document_end(ec&) { return true; }
    bool on_object_begin(ec&) { return true; }
    bool on_object_end(std::size_t, ec&) { return true; }
    bool on_array_begin(ec&) { return true; }
    bool on_array_end(std::size_t, ec&) { return true; }
    bool on_key_part(std::string_view, std::size_t, ec&) { return true; }
    bool on_key(std::string_view, std::size_t, ec&) { return true; }
    bool on_string_part(std::string_view, std::size_t, ec&) { return true; }
    bool on_string(std::string_view, std::size_t, ec&) { return true; }
    bool on_number_part(std::string_view, ec&) { return true; }
    bool on_int64(std::int64_t, std::string_view, ec&) { return true; }
    bool on_uint64(std::uint64_t, std::string_view, ec&) { return true; }
    bool on_double(double, std::string_view, ec&) { return true; }
    bool on_bool(bool, ec&) { return true; }
    bool on_null(ec&) { return true; }
    bool on_comment_part(std::string_view, ec&) { return true; }
    bool on_comment(std::string_view, ec&) { return true; }
};

}  // namespace detail

// True when `text` is exactly one JSON document (whitespace around it allowed), nested at most
// `max_depth` deep, in valid UTF-8. Validates with Boost.JSON's parser without building a DOM.
inline bool valid(std::string_view text, std::size_t max_depth = kDefaultMaxDepth) {
    boost::json::parse_options opt;
    opt.max_depth = max_depth;
    boost::json::basic_parser<detail::NullHandler> p{opt};
    boost::system::error_code ec;
    auto n = p.write_some(false, text.data(), text.size(), ec);
    return !ec && n == text.size() && p.done();
}

// valid(), and the document is an object.
inline bool is_object(std::string_view text, std::size_t max_depth = kDefaultMaxDepth) {
    auto i = detail::skip_ws(text, 0);
    return i < text.size() && text[i] == '{' && valid(text, max_depth);
}

// A JSON string token (with its quotes) decoded; nothing for anything else, or for a string
// with a raw control character, a bad escape or invalid UTF-8.
inline std::optional<std::string> decode_string(std::string_view token) {
    if (token.size() < 2 || token.front() != '"' || token.back() != '"') return std::nullopt;
    auto inner = token.substr(1, token.size() - 2);
    if (inner.find_first_of("\\\"") == std::string_view::npos) {
        bool plain = true;  // the common case: no escapes, plain ASCII — no parser needed
        for (char c : inner)
            if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) plain = false;
        if (plain) return std::string(inner);
    }
    boost::system::error_code ec;
    auto v = boost::json::parse(token, ec);
    if (ec || !v.is_string()) return std::nullopt;
    return std::string(v.as_string());
}

// `s` as a JSON string literal.
inline std::string quote(std::string_view s) { return boost::json::serialize(boost::json::string(s)); }

namespace detail {

// A key token's text when it needs no decoding (no escape, printable ASCII): the common case,
// compared in place without a copy.
inline std::optional<std::string_view> plain_key(std::string_view token) {
    auto inner = token.substr(1, token.size() - 2);
    for (char c : inner)
        if (c == '\\' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7E) return std::nullopt;
    return inner;
}

// Walks the top-level members of an object text, calling `fn(key, value_begin, value_end)` with
// each decoded key (a view, valid during the call); false when `t` is not an object followed by
// nothing but whitespace, or a key is not a valid string. Allocates only for escaped keys.
template <class Fn>
bool scan_members(std::string_view t, Fn&& fn) {
    std::size_t i = skip_ws(t, 0);
    if (i >= t.size() || t[i] != '{') return false;
    i = skip_ws(t, i + 1);
    if (i < t.size() && t[i] == '}') return skip_ws(t, i + 1) == t.size();
    std::string decoded;
    for (;;) {
        std::size_t key_end = skip_string(t, i);
        if (key_end == npos) return false;
        auto token = t.substr(i, key_end - i);
        auto key = plain_key(token);
        if (!key) {
            auto d = decode_string(token);
            if (!d) return false;
            decoded = std::move(*d);
            key = std::string_view(decoded);
        }
        i = skip_ws(t, key_end);
        if (i >= t.size() || t[i] != ':') return false;
        std::size_t value_begin = skip_ws(t, i + 1);
        std::size_t value_end = skip_value(t, value_begin);
        if (value_end == npos) return false;
        fn(*key, value_begin, value_end);
        i = skip_ws(t, value_end);
        if (i >= t.size()) return false;
        if (t[i] == '}') return skip_ws(t, i + 1) == t.size();
        if (t[i] != ',') return false;
        i = skip_ws(t, i + 1);
    }
}

}  // namespace detail

// The top-level members of an object text, in order; false when `text` is not an object
// followed by nothing but whitespace, or a key is not a valid string.
inline bool members(std::string_view t, std::vector<Member>& out) {
    out.clear();
    return detail::scan_members(t, [&](std::string_view key, std::size_t begin, std::size_t end) {
        out.push_back(Member{std::string(key), begin, end});
    });
}

// The items of an array text (each a view into `text`); false when it is not an array followed
// by nothing but whitespace.
inline bool items(std::string_view t, std::vector<std::string_view>& out) {
    using namespace detail;
    out.clear();
    std::size_t i = skip_ws(t, 0);
    if (i >= t.size() || t[i] != '[') return false;
    i = skip_ws(t, i + 1);
    if (i < t.size() && t[i] == ']') return skip_ws(t, i + 1) == t.size();
    for (;;) {
        std::size_t end = skip_value(t, i);
        if (end == npos) return false;
        out.push_back(t.substr(i, end - i));
        i = skip_ws(t, end);
        if (i >= t.size()) return false;
        if (t[i] == ']') return skip_ws(t, i + 1) == t.size();
        if (t[i] != ',') return false;
        i = skip_ws(t, i + 1);
    }
}

// The values of several top-level members (of a duplicated key, the last) in one pass: out[k]
// for keys[k]. False, with every out[k] empty, when `object` is not an object.
template <std::size_t N>
bool pick(std::string_view object, const std::array<std::string_view, N>& keys,
          std::array<std::optional<std::string_view>, N>& out) {
    out.fill(std::nullopt);
    bool ok = detail::scan_members(object, [&](std::string_view k, std::size_t begin, std::size_t end) {
        for (std::size_t n = 0; n < N; ++n)
            if (k == keys[n]) out[n] = object.substr(begin, end - begin);
    });
    if (!ok) out.fill(std::nullopt);
    return ok;
}

// The value of one top-level member (of a duplicated key, the last), if present: pick() of one
// key (the gateway asks this of every message it relays; nothing is copied).
inline std::optional<std::string_view> member(std::string_view object, std::string_view key) {
    std::array<std::optional<std::string_view>, 1> found;
    pick(object, std::array<std::string_view, 1>{key}, found);
    return found[0];
}

// `text` with the bytes of `span` (a view that lies inside `text`) replaced by `replacement`.
inline std::string splice(std::string_view text, std::string_view span, std::string_view replacement) {
    auto begin = static_cast<std::size_t>(span.data() - text.data());
    std::string out;
    out.reserve(text.size() - span.size() + replacement.size());
    out.append(text.substr(0, begin)).append(replacement).append(text.substr(begin + span.size()));
    return out;
}

// `object` with its top-level member `key`'s value (the last, if duplicated) replaced by
// `value_text`; nothing when `object` is not an object or has no such member.
inline std::optional<std::string> replace_member(std::string_view object, std::string_view key,
                                                 std::string_view value_text) {
    auto value = member(object, key);
    if (!value) return std::nullopt;
    return splice(object, *value, value_text);
}

// `object` with `fields` ("\"a\":1,\"b\":2") inserted as its first members; `object` unchanged
// when it is not an object or `fields` is empty.
inline std::string prepend_members(std::string_view object, std::string_view fields) {
    std::size_t i = detail::skip_ws(object, 0);
    if (i >= object.size() || object[i] != '{' || fields.empty()) return std::string(object);
    std::size_t j = detail::skip_ws(object, i + 1);
    bool empty = j < object.size() && object[j] == '}';
    std::string out;
    out.reserve(object.size() + fields.size() + 1);
    out.append(object.substr(0, i + 1)).append(fields);
    if (!empty) out.push_back(',');
    out.append(object.substr(i + 1));
    return out;
}

}  // namespace coffer::raw_json
