// Fuzz target: what the REST layer does to a request before a route sees it — the Content-Type
// check (api/media_type.hpp) and the strict JSON body parser (api/body.hpp over
// core/strict_json.hpp). The input's first line is the Content-Type, the rest the body.
// Invariants, with boost::json::parse (same depth limit) as the reference:
//   - strict never accepts what Boost.JSON rejects, and what it accepts is the same value;
//   - it refuses only what Boost.JSON rejects, invalid UTF-8, a number Boost.JSON reads as
//     infinity, or a repeated key — and then the key, its pointer and the offset are right;
//   - its error messages are UTF-8 (they go into JSON error bodies) and offsets are in the body;
//   - what it accepts, serialized, parses back to the same value (doubles to within a few ulps:
//     Boost.JSON 1.81 does not round every decimal correctly, so x → text → x may move by one).
#include "api/body.hpp"
#include "api/media_type.hpp"
#include "core/strict_json.hpp"
#include "core/utf8.hpp"
#include "core/json_numbers.hpp"
#include "fuzz_check.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;
using coffer::core::utf8::first_invalid;

// The media type part, trimmed and lower-cased (the reference for is_json_media_type).
std::string media_type(std::string_view v) {
    v = v.substr(0, v.find(';'));
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    std::string out;
    for (char c : v) out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return out;
}

std::string_view detail(const json::value& details, std::string_view key) {
    auto* o = details.if_object();
    auto* v = o ? o->if_contains(key) : nullptr;
    return v && v->is_string() ? std::string_view(v->as_string()) : std::string_view();
}

bool same(const json::value& a, const json::value& b) {
    if (a.is_double() && b.is_double()) {
        double x = a.get_double(), y = b.get_double();
        return x == y || std::fabs(x - y) <= 1e-15 * std::max(std::fabs(x), std::fabs(y));
    }
    if (a.kind() != b.kind()) return false;
    if (auto* xa = a.if_array()) {
        auto& ya = b.get_array();
        if (xa->size() != ya.size()) return false;
        for (std::size_t i = 0; i < xa->size(); ++i)
            if (!same((*xa)[i], ya[i])) return false;
        return true;
    }
    if (auto* xo = a.if_object()) {
        auto& yo = b.get_object();
        if (xo->size() != yo.size()) return false;
        for (auto& kv : *xo) {
            auto* other = yo.if_contains(kv.key());
            if (!other || !same(kv.value(), *other)) return false;
        }
        return true;
    }
    return a == b;
}

void check_strict(std::string_view body) {
    json::parse_options opt;
    opt.max_depth = 64;
    json::error_code ec;
    json::value reference = json::parse(body, ec, {}, opt);
    auto strict = coffer::core::parse_strict_json(body, 64);
    if (strict) {
        FUZZ_CHECK(!ec);
        FUZZ_CHECK(*strict == reference);
        FUZZ_CHECK(!coffer::core::has_non_finite(*strict));
        FUZZ_CHECK(first_invalid(body) == std::string_view::npos);
        auto again = coffer::core::parse_strict_json(json::serialize(*strict), 64);
        FUZZ_CHECK(again && same(*again, *strict));
        return;
    }
    const auto& e = strict.error();
    FUZZ_CHECK(first_invalid(e.message) == std::string_view::npos);
    auto* d = e.details.if_object();
    FUZZ_CHECK(d && d->contains("reason") && d->contains("offset"));
    auto* offset = d->if_contains("offset");
    FUZZ_CHECK(offset->is_int64() && offset->as_int64() >= 0 && static_cast<std::size_t>(offset->as_int64()) <= body.size());
    if (ec) return;  // both refuse
    // Boost.JSON took it: strict refused for invalid UTF-8 outside what Boost checks, or a repeated key.
    auto reason = detail(e.details, "reason");
    if (reason == coffer::core::json_problem::invalid_utf8) {
        FUZZ_CHECK(first_invalid(body) != std::string_view::npos);
        return;
    }
    if (reason == coffer::core::json_problem::number_out_of_range) {
        // The offset is just past that number (a later duplicate key may have replaced it in
        // Boost.JSON's value, so it is read back on its own).
        auto end = static_cast<std::size_t>(offset->as_int64());
        auto begin = body.find_last_not_of("0123456789eE+-.", end - 1);
        begin = begin == std::string_view::npos ? 0 : begin + 1;
        json::error_code nec;
        auto number = json::parse(body.substr(begin, end - begin), nec);
        FUZZ_CHECK(!nec && coffer::core::has_non_finite(number));
        return;
    }
    FUZZ_CHECK(reason == coffer::core::json_problem::duplicate_key);
    auto key = detail(e.details, "key");
    auto pointer = detail(e.details, "pointer");
    FUZZ_CHECK(first_invalid(key) == std::string_view::npos && first_invalid(pointer) == std::string_view::npos);
    // The pointer is well-formed RFC 6901 (whether it resolves in Boost.JSON's value depends on
    // later duplicates, which may replace an enclosing object).
    json::error_code pec;
    json::value probe = json::object();
    (void)probe.find_pointer(pointer, pec);
    FUZZ_CHECK(pec != json::error::missing_slash && pec != json::error::invalid_escape);
    // A key contains no "~" or "/" after the pointer's last "/": the pointer escapes them.
    auto last = pointer.substr(pointer.rfind('/') + 1);
    std::string unescaped;
    for (std::size_t i = 0; i < last.size(); ++i) {
        if (last[i] == '~' && i + 1 < last.size()) unescaped += last[++i] == '0' ? '~' : '/';
        else unescaped += last[i];
    }
    FUZZ_CHECK(unescaped == key);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(bytes), size);
    auto nl = input.find('\n');
    std::string_view content_type = nl == std::string_view::npos ? input : input.substr(0, nl);
    std::string_view body = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);

    FUZZ_CHECK(coffer::api::is_json_media_type(content_type) == (media_type(content_type) == "application/json"));

    coffer::http::Request req;
    req.body = std::string(body);
    auto lenient = coffer::api::parse_body(req, true);
    auto strict = coffer::api::parse_body(req, false);
    if (body.empty()) {
        FUZZ_CHECK(lenient && lenient->is_object() && lenient->as_object().empty());
        FUZZ_CHECK(!strict);
    } else {
        FUZZ_CHECK(bool(lenient) == bool(strict));
        if (strict) FUZZ_CHECK(*strict == *lenient);
        else FUZZ_CHECK(strict.error().message.rfind("invalid JSON in the request body: ", 0) == 0);
    }
    check_strict(body);
    return 0;
}
