#include "schema/messages.hpp"

#include "schema/types.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include <charconv>
#include <cmath>
#include <system_error>

namespace coffer::schema::detail {

namespace json = boost::json;

std::string type_message(unsigned mask) {
    if ((mask & type_number) != 0) mask &= ~static_cast<unsigned>(type_integer);
    static constexpr struct {
        unsigned bit;
        std::string_view phrase;
    } names[] = {
        {type_string, "a string"},   {type_integer, "an integer"}, {type_number, "a number"},
        {type_boolean, "a boolean"}, {type_object, "an object"},   {type_array, "an array"},
        {type_null, "null"},
    };
    std::vector<std::string> parts;
    for (const auto& n : names) {
        if ((mask & n.bit) != 0) parts.emplace_back(n.phrase);
    }
    if (parts.empty()) return "has no allowed type";
    std::string out = "must be ";
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += (i + 1 == parts.size()) ? " or " : ", ";
        out += parts[i];
    }
    return out;
}

std::string format_number(const json::value& v) {
    switch (v.kind()) {
    case json::kind::int64: return std::to_string(v.get_int64());
    case json::kind::uint64: return std::to_string(v.get_uint64());
    case json::kind::double_: {
        const double d = v.get_double();
        if (!std::isfinite(d)) return std::isnan(d) ? "NaN" : (d > 0 ? "Infinity" : "-Infinity");
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, d);
        if (res.ec != std::errc{}) return json::serialize(v);
        return std::string(buf, res.ptr);
    }
    default: return json::serialize(v);
    }
}

namespace {

void append_value(std::string& out, const json::value& v, std::size_t budget) {
    if (out.size() > budget) return;
    switch (v.kind()) {
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: out += format_number(v); return;
    case json::kind::array: {
        out.push_back('[');
        bool first = true;
        for (const auto& item : v.get_array()) {
            if (out.size() > budget) return;
            if (!first) out += ", ";
            first = false;
            append_value(out, item, budget);
        }
        out.push_back(']');
        return;
    }
    case json::kind::object: {
        out.push_back('{');
        bool first = true;
        for (const auto& member : v.get_object()) {
            if (out.size() > budget) return;
            if (!first) out += ", ";
            first = false;
            out += json::serialize(json::string_view(member.key()));
            out += ": ";
            append_value(out, member.value(), budget);
        }
        out.push_back('}');
        return;
    }
    default: out += json::serialize(v); return;
    }
}

}  // namespace

std::string format_value(const json::value& v, std::size_t max_chars) {
    std::string out;
    append_value(out, v, max_chars);
    if (out.size() <= max_chars) return out;
    std::size_t cut = max_chars;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0U) == 0x80U) --cut;
    out.resize(cut);
    out += "...";
    return out;
}

std::string enum_message(const std::vector<const json::value*>& values) {
    if (values.empty()) return "is not allowed (the schema allows no value here)";
    constexpr std::size_t listed = 12;
    std::string out = "must be one of: ";
    for (std::size_t i = 0; i < values.size() && i < listed; ++i) {
        if (i > 0) out += ", ";
        out += format_value(*values[i]);
    }
    if (values.size() > listed) {
        out += ", ... (" + std::to_string(values.size()) + " allowed values)";
    }
    return out;
}

std::string count_of(std::uint64_t n, std::string_view singular, std::string_view plural) {
    std::string out = std::to_string(n);
    out.push_back(' ');
    out += n == 1 ? singular : plural;
    return out;
}

std::string join_and(const std::vector<std::string>& parts) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0) out += (i + 1 == parts.size()) ? " and " : ", ";
        out += parts[i];
    }
    return out;
}

}  // namespace coffer::schema::detail
