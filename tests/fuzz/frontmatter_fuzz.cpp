// Fuzz target: SKILL.md frontmatter (plugins/skill/src/frontmatter.*), read from every imported
// skill — a folder, an archive or a git checkout someone else wrote. Invariants:
//   - every scalar comes out as a string or null (the documented mapping; no numbers, no bools);
//   - UTF-8 in, UTF-8 out: escapes (\x, \u, \U) never produce bytes that are not UTF-8, since the
//     values end up in JSON answers;
//   - an error names a line of the file;
//   - what parsed, written back as YAML (block mapping at the top, flow collections and
//     double-quoted scalars below), parses to the same value, and the body survives unchanged.
#include "core/utf8.hpp"
#include "frontmatter.hpp"
#include "fuzz_check.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

namespace json = boost::json;
using coffer::core::utf8::first_invalid;
using coffer::plugins::skill::parse_skill_md;

void check_value(const json::value& v, bool utf8_in) {
    switch (v.kind()) {
    case json::kind::null: return;
    case json::kind::string:
        if (utf8_in) FUZZ_CHECK(first_invalid(v.get_string()) == std::string_view::npos);
        return;
    case json::kind::array:
        for (auto& e : v.get_array()) check_value(e, utf8_in);
        return;
    case json::kind::object:
        for (auto& kv : v.get_object()) {
            if (utf8_in) FUZZ_CHECK(first_invalid(kv.key()) == std::string_view::npos);
            check_value(kv.value(), utf8_in);
        }
        return;
    default: FUZZ_CHECK(!"a scalar became something other than a string or null");
    }
}

// A double-quoted YAML scalar: JSON's escapes (\" \\ \b \f \n \r \t \u00XX) are YAML's too.
std::string quoted(std::string_view s) { return json::serialize(json::string(s)); }

std::string flow(const json::value& v) {
    switch (v.kind()) {
    case json::kind::string: return quoted(v.get_string());
    case json::kind::array: {
        std::string out = "[";
        for (auto& e : v.get_array()) out += (out.size() > 1 ? ", " : "") + flow(e);
        return out + "]";
    }
    case json::kind::object: {
        std::string out = "{";
        for (auto& kv : v.get_object()) out += (out.size() > 1 ? ", " : "") + quoted(kv.key()) + ": " + flow(kv.value());
        return out + "}";
    }
    default: return "null";
    }
}

std::string yaml(const json::object& o) {
    std::string out;
    for (auto& kv : o) out += quoted(kv.key()) + ": " + flow(kv.value()) + "\n";
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(bytes), size);
    auto md = parse_skill_md(input);
    if (!md.ok()) {
        for (auto& e : md.errors) {
            FUZZ_CHECK(!e.empty());
            if (e.rfind("line ", 0) != 0) continue;
            long n = std::strtol(e.c_str() + 5, nullptr, 10);
            long lines = 1;
            for (char c : input) lines += c == '\n';
            FUZZ_CHECK(n >= 1 && n <= lines);
        }
        return 0;
    }
    bool utf8_in = first_invalid(input) == std::string_view::npos;
    check_value(md.frontmatter, utf8_in);
    if (!utf8_in) return 0;  // the writer above quotes through JSON, which needs UTF-8

    std::string again = "---\n" + yaml(md.frontmatter) + "---\n" + md.body;
    auto back = parse_skill_md(again);
    FUZZ_CHECK(back.ok());
    FUZZ_CHECK(back.frontmatter == md.frontmatter);
    FUZZ_CHECK(back.body == md.body);
    return 0;
}
