#include "schema/json_compare.hpp"

#include <boost/json/object.hpp>
#include <boost/json/string.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string_view>

namespace coffer::schema::detail {

namespace json = boost::json;

namespace {

constexpr double two_pow_63 = 9223372036854775808.0;
constexpr double two_pow_64 = 18446744073709551616.0;

template <typename T> int three_way(T a, T b) noexcept { return a < b ? -1 : (b < a ? 1 : 0); }

int compare_int_double(std::int64_t i, double d) noexcept {
    if (d >= two_pow_63) return -1;
    if (d < -two_pow_63) return 1;
    const double t = std::trunc(d);  // in [-2^63, 2^63): converts exactly
    const auto ti = static_cast<std::int64_t>(t);
    if (i != ti) return three_way(i, ti);
    return three_way(0.0, d - t);
}

int compare_uint_double(std::uint64_t u, double d) noexcept {
    if (d >= two_pow_64) return -1;
    if (d < 0) return 1;
    const double t = std::trunc(d);  // in [0, 2^64): converts exactly
    const auto tu = static_cast<std::uint64_t>(t);
    if (u != tu) return three_way(u, tu);
    return three_way(0.0, d - t);
}

int compare_int_uint(std::int64_t i, std::uint64_t u) noexcept {
    if (i < 0) return -1;
    return three_way(static_cast<std::uint64_t>(i), u);
}

double as_double(const json::value& v) noexcept {
    switch (v.kind()) {
    case json::kind::int64: return static_cast<double>(v.get_int64());
    case json::kind::uint64: return static_cast<double>(v.get_uint64());
    case json::kind::double_: return v.get_double();
    default: return 0.0;
    }
}

std::uint64_t magnitude(std::int64_t i) noexcept {
    return i < 0 ? static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(i)
                 : static_cast<std::uint64_t>(i);
}

std::size_t mix(std::size_t seed, std::size_t h) noexcept {
    return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

}  // namespace

bool is_number(const json::value& v) noexcept {
    const auto k = v.kind();
    return k == json::kind::int64 || k == json::kind::uint64 || k == json::kind::double_;
}

bool is_whole_number(const json::value& v) noexcept {
    switch (v.kind()) {
    case json::kind::int64:
    case json::kind::uint64: return true;
    case json::kind::double_: {
        const double d = v.get_double();
        return std::isfinite(d) && std::trunc(d) == d;
    }
    default: return false;
    }
}

int compare_numbers(const json::value& a, const json::value& b) noexcept {
    using json::kind;
    const kind ka = a.kind();
    const kind kb = b.kind();
    if (ka == kind::int64) {
        if (kb == kind::int64) return three_way(a.get_int64(), b.get_int64());
        if (kb == kind::uint64) return compare_int_uint(a.get_int64(), b.get_uint64());
        return compare_int_double(a.get_int64(), b.get_double());
    }
    if (ka == kind::uint64) {
        if (kb == kind::int64) return -compare_int_uint(b.get_int64(), a.get_uint64());
        if (kb == kind::uint64) return three_way(a.get_uint64(), b.get_uint64());
        return compare_uint_double(a.get_uint64(), b.get_double());
    }
    if (kb == kind::int64) return -compare_int_double(b.get_int64(), a.get_double());
    if (kb == kind::uint64) return -compare_uint_double(b.get_uint64(), a.get_double());
    return three_way(a.get_double(), b.get_double());
}

bool is_multiple_of(const json::value& x, const json::value& divisor) noexcept {
    using json::kind;
    const bool x_int = x.kind() == kind::int64 || x.kind() == kind::uint64;
    const bool d_int = divisor.kind() == kind::int64 || divisor.kind() == kind::uint64;
    if (x_int && d_int) {
        const std::uint64_t m = x.kind() == kind::int64 ? magnitude(x.get_int64()) : x.get_uint64();
        const std::uint64_t d = divisor.kind() == kind::int64
                                    ? static_cast<std::uint64_t>(divisor.get_int64())
                                    : divisor.get_uint64();
        return d != 0 && m % d == 0;
    }
    const double xv = std::fabs(as_double(x));
    const double dv = as_double(divisor);
    if (!(dv > 0) || !std::isfinite(xv)) return false;
    if (!std::isfinite(xv / dv)) return false;  // the quotient is not representable
    const double r = std::fmod(xv, dv);         // exact
    const double tolerance = 4 * DBL_EPSILON * std::fmax(xv, dv);
    return r <= tolerance || dv - r <= tolerance;
}

bool json_equal(const json::value& a, const json::value& b) noexcept {
    if (is_number(a) && is_number(b)) return compare_numbers(a, b) == 0;
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case json::kind::null: return true;
    case json::kind::bool_: return a.get_bool() == b.get_bool();
    case json::kind::string: return a.get_string() == b.get_string();
    case json::kind::array: {
        const auto& x = a.get_array();
        const auto& y = b.get_array();
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!json_equal(x[i], y[i])) return false;
        }
        return true;
    }
    case json::kind::object: {
        const auto& x = a.get_object();
        const auto& y = b.get_object();
        if (x.size() != y.size()) return false;
        for (const auto& member : x) {
            const json::value* other = y.if_contains(member.key());
            if (other == nullptr || !json_equal(member.value(), *other)) return false;
        }
        return true;
    }
    default: return false;
    }
}

std::size_t json_hash(const json::value& v) noexcept {
    switch (v.kind()) {
    case json::kind::null: return 0x6e756c6cU;
    case json::kind::bool_: return v.get_bool() ? 0x74727565U : 0x66616c73U;
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: {
        // Equal numbers convert to the same double, so hashing the double is consistent.
        double d = as_double(v);
        if (d == 0) d = 0.0;  // -0.0 == 0.0
        return mix(0x6e756dU, std::hash<double>{}(d));
    }
    case json::kind::string: {
        const auto& s = v.get_string();
        return mix(0x737472U, std::hash<std::string_view>{}(std::string_view(s.data(), s.size())));
    }
    case json::kind::array: {
        std::size_t h = 0x617272U;
        for (const auto& item : v.get_array()) h = mix(h, json_hash(item));
        return h;
    }
    case json::kind::object: {
        // Member order does not matter: combine the members' hashes commutatively.
        std::size_t sum = 0;
        for (const auto& member : v.get_object()) {
            const auto key = member.key();
            const std::size_t kh = std::hash<std::string_view>{}(std::string_view(key.data(), key.size()));
            sum += mix(kh, json_hash(member.value()));
        }
        return mix(0x6f626aU, sum);
    }
    }
    return 0;
}

}  // namespace coffer::schema::detail
