// Checked tool and action arguments (see tool_args.hpp).
#include "tool_args.hpp"

#include <coffer/utf8.hpp>

#include <cmath>

namespace coffer::knowledge {

namespace {

[[noreturn]] void bad(const std::string& message) { throw sdk::Error(COFFER_E_INVALID, message); }

std::string quoted(std::string_view key) { return "'" + std::string(key) + "'"; }

}  // namespace

void only_keys(const json::object& args, std::initializer_list<std::string_view> allowed, std::string_view what) {
    for (auto& [key, value] : args) {
        bool known = false;
        for (auto a : allowed) known = known || a == key;
        if (known) continue;
        std::string list;
        for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        bad("Unknown argument " + quoted(key) + ": " + std::string(what) + " takes " + (list.empty() ? "none" : list));
    }
}

std::optional<std::string> optional_text(const json::object& args, std::string_view key, std::size_t max_bytes) {
    auto* v = args.if_contains(key);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_string()) bad("The argument " + quoted(key) + " must be a string");
    std::string_view s = v->as_string();
    if (s.size() > max_bytes)
        bad("The argument " + quoted(key) + " is too long: " + std::to_string(s.size()) + " bytes, at most " +
            std::to_string(max_bytes));
    if (!utf8::valid(s)) bad("The argument " + quoted(key) + " is not valid UTF-8");
    if (s.find('\0') != std::string_view::npos) bad("The argument " + quoted(key) + " contains a NUL character");
    return std::string(s);
}

std::string required_text(const json::object& args, std::string_view key, std::size_t max_bytes) {
    auto s = optional_text(args, key, max_bytes);
    if (!s) bad("The argument " + quoted(key) + " is required and must be a string");
    if (s->find_first_not_of(" \t\r\n") == std::string::npos) bad("The argument " + quoted(key) + " must not be empty");
    return *s;
}

std::optional<std::int64_t> optional_int(const json::object& args, std::string_view key, std::int64_t lo, std::int64_t hi) {
    auto* v = args.if_contains(key);
    if (!v || v->is_null()) return std::nullopt;
    std::optional<std::int64_t> n;
    if (v->is_int64()) n = v->as_int64();
    else if (v->is_uint64() && v->as_uint64() <= static_cast<std::uint64_t>(hi)) n = static_cast<std::int64_t>(v->as_uint64());
    else if (v->is_double() && std::isfinite(v->as_double()) && std::floor(v->as_double()) == v->as_double() &&
             std::fabs(v->as_double()) < 1e15)
        n = static_cast<std::int64_t>(v->as_double());
    if (!n || *n < lo || *n > hi)
        bad("The argument " + quoted(key) + " must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
    return n;
}

std::optional<bool> optional_bool(const json::object& args, std::string_view key) {
    auto* v = args.if_contains(key);
    if (!v || v->is_null()) return std::nullopt;
    if (!v->is_bool()) bad("The argument " + quoted(key) + " must be true or false");
    return v->as_bool();
}

std::optional<retrieval::Mode> optional_mode(const json::object& args, std::string_view key) {
    auto text = optional_text(args, key, 16);
    if (!text) return std::nullopt;
    auto m = retrieval::parse_mode(*text);
    if (!m) bad("The argument " + quoted(key) + " must be one of grep, keyword, vector, hybrid");
    return m;
}

SearchArgs search_args(const json::object& args) {
    SearchArgs out;
    out.query = required_text(args, "query", kMaxQueryBytes);
    out.mode = optional_mode(args, "mode");
    if (auto k = optional_int(args, "top_k", 1, kMaxTopK)) out.top_k = static_cast<int>(*k);
    return out;
}

}  // namespace coffer::knowledge
