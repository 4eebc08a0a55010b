// Human output helpers: pretty JSON, tables (cells rendered terminal-safe), field access.
#include "app/format.hpp"

#include "app/terminal.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace coffer::cli {
namespace json = boost::json;

namespace {

void pretty(std::string& out, const json::value& v, int depth) {
    auto indent = [&](int d) { out.append(static_cast<std::size_t>(d) * 2, ' '); };
    switch (v.kind()) {
    case json::kind::object: {
        const auto& o = v.get_object();
        if (o.empty()) {
            out += "{}";
            return;
        }
        out += "{\n";
        bool first = true;
        for (const auto& kv : o) {
            if (!first) out += ",\n";
            first = false;
            indent(depth + 1);
            out += json::serialize(json::value(kv.key()));
            out += ": ";
            pretty(out, kv.value(), depth + 1);
        }
        out += "\n";
        indent(depth);
        out += "}";
        return;
    }
    case json::kind::array: {
        const auto& a = v.get_array();
        if (a.empty()) {
            out += "[]";
            return;
        }
        out += "[\n";
        bool first = true;
        for (const auto& e : a) {
            if (!first) out += ",\n";
            first = false;
            indent(depth + 1);
            pretty(out, e, depth + 1);
        }
        out += "\n";
        indent(depth);
        out += "]";
        return;
    }
    default:
        out += json::serialize(v);
    }
}

// Display width, counting UTF-8 code points (good enough for tables).
std::size_t width(std::string_view s) {
    return static_cast<std::size_t>(
        std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

}  // namespace

std::string pretty_json(const json::value& v) {
    std::string out;
    pretty(out, v, 0);
    return out;
}

std::string compact_json(const json::value& v) { return json::serialize(v); }

std::string as_text(const json::value& v) {
    switch (v.kind()) {
    case json::kind::null: return {};
    case json::kind::string: return std::string(v.get_string());
    case json::kind::bool_: return v.get_bool() ? "yes" : "no";
    default: return json::serialize(v);
    }
}

const json::value& field(const json::value& v, std::string_view key) {
    static const json::value null_value;
    if (const auto* o = v.if_object())
        if (const auto* f = o->if_contains(key)) return *f;
    return null_value;
}

std::string text_field(const json::value& v, std::string_view key, std::string_view fallback) {
    std::string s = as_text(field(v, key));
    return s.empty() ? std::string(fallback) : s;
}

void print_table(std::ostream& out, const std::vector<std::string>& header,
                 const std::vector<std::vector<std::string>>& rows) {
    // Each cell as it will show: one line, every control character visible (so widths hold).
    auto shown = [](const std::vector<std::string>& row) {
        std::vector<std::string> out;
        out.reserve(row.size());
        for (const auto& cell : row) out.push_back(terminal_safe(cell, Layout::line));
        return out;
    };
    const std::vector<std::string> head = shown(header);
    std::vector<std::vector<std::string>> body;
    body.reserve(rows.size());
    for (const auto& r : rows) body.push_back(shown(r));

    std::vector<std::size_t> widths(head.size(), 0);
    auto measure = [&](const std::vector<std::string>& row) {
        for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = std::max(widths[i], width(row[i]));
    };
    measure(head);
    for (const auto& r : body) measure(r);
    auto line = [&](const std::vector<std::string>& row) {
        std::string s;
        for (std::size_t i = 0; i < widths.size(); ++i) {
            const std::string cell = i < row.size() ? row[i] : "";
            s += cell;
            if (i + 1 < widths.size()) s.append(widths[i] - width(cell) + 2, ' ');
        }
        while (!s.empty() && s.back() == ' ') s.pop_back();
        out << s << '\n';
    };
    line(head);
    for (const auto& r : body) line(r);
}

}  // namespace coffer::cli
