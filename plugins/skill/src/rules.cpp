#include "rules.hpp"

#include "frontmatter.hpp"
#include "names.hpp"

namespace coffer::plugins::skill {

namespace json = boost::json;

namespace {

const char* kPrefix = "SKILL.md frontmatter: ";

std::string type_name(const json::value& v) {
    switch (v.kind()) {
        case json::kind::null: return "empty";
        case json::kind::array: return "a list";
        case json::kind::object: return "a mapping";
        default: return "a text value";
    }
}

void check_name(const json::object& fm, std::optional<std::string_view> folder, SkillInfo& info,
                std::vector<std::string>& out) {
    auto* v = fm.if_contains("name");
    if (!v || v->is_null()) {
        out.push_back(std::string(kPrefix) + "name is required (1–64 characters of a-z, 0-9 and '-')");
        return;
    }
    if (!v->is_string()) {
        out.push_back(std::string(kPrefix) + "name must be a text value, not " + type_name(*v));
        return;
    }
    info.name = std::string(v->as_string());
    if (auto p = name_problem(info.name)) {
        out.push_back(std::string(kPrefix) + "name " + *p);
        return;
    }
    if (folder && info.name != *folder)
        out.push_back(std::string(kPrefix) + "name \"" + info.name + "\" must equal the skill's folder name \"" +
                      std::string(*folder) + "\"");
}

void check_text(const json::object& fm, const char* field, bool required, std::size_t max, std::vector<std::string>& out,
                std::string* keep = nullptr) {
    auto* v = fm.if_contains(field);
    std::string range = "1–" + std::to_string(max) + " characters";
    if (!v || v->is_null()) {
        if (required) out.push_back(std::string(kPrefix) + field + " is required (" + range + ")");
        return;
    }
    if (!v->is_string()) {
        out.push_back(std::string(kPrefix) + field + " must be a text value, not " + type_name(*v));
        return;
    }
    std::string_view s = v->as_string();
    if (keep) *keep = std::string(s);
    auto n = coffer::utf8::length(s);
    bool blank = s.find_first_not_of(" \t\r\n") == std::string_view::npos;
    if (blank) out.push_back(std::string(kPrefix) + field + " must not be empty (" + range + ")");
    else if (max && n > max)
        out.push_back(std::string(kPrefix) + field + " must be at most " + std::to_string(max) + " characters (it has " +
                      std::to_string(n) + ")");
}

}  // namespace

std::vector<std::string> check_skill_md(std::string_view text, std::optional<std::string_view> folder, SkillInfo& info) {
    std::vector<std::string> out;
    if (!coffer::utf8::valid(text)) {
        out.push_back("SKILL.md is not valid UTF-8 text");
        return out;
    }
    auto md = parse_skill_md(text);
    if (!md.ok()) {
        for (auto& e : md.errors) out.push_back("SKILL.md " + e);
        return out;
    }
    const auto& fm = md.frontmatter;
    info.frontmatter = fm;
    check_name(fm, folder, info, out);
    check_text(fm, "description", true, kMaxDescription, out, &info.description);
    check_text(fm, "compatibility", false, kMaxCompatibility, out);
    if (auto* v = fm.if_contains("license"); v && !v->is_null() && !v->is_string())
        out.push_back(std::string(kPrefix) + "license must be a text value, not " + type_name(*v));
    if (auto* v = fm.if_contains("allowed-tools"); v && !v->is_null() && !v->is_string()) {
        if (!v->is_array()) {
            out.push_back(std::string(kPrefix) + "allowed-tools must be a text value or a list of tool names, not " +
                          type_name(*v));
        } else {
            std::size_t i = 0;
            for (auto& t : v->as_array()) {
                if (!t.is_string())
                    out.push_back(std::string(kPrefix) + "allowed-tools item " + std::to_string(i + 1) +
                                  " must be a tool name, not " + type_name(t));
                ++i;
            }
        }
    }
    if (auto* v = fm.if_contains("metadata"); v && !v->is_null()) {
        if (!v->is_object()) {
            out.push_back(std::string(kPrefix) + "metadata must be a mapping of 'key: value' lines, not " + type_name(*v));
        } else {
            for (auto& kv : v->as_object())
                if (!kv.value().is_string())
                    out.push_back(std::string(kPrefix) + "metadata." + std::string(kv.key()) +
                                  " must be a text value, not " + type_name(kv.value()));
        }
    }
    static const char* known[] = {"name", "description", "license", "allowed-tools", "metadata", "compatibility"};
    for (auto& kv : fm) {
        bool ok = false;
        for (auto* k : known) ok = ok || kv.key() == k;
        if (!ok) info.warnings.push_back(std::string(kPrefix) + "unknown field '" + std::string(kv.key()) + "' kept as is");
    }
    return out;
}

}  // namespace coffer::plugins::skill
