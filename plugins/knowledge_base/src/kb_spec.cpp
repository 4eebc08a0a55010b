// Knowledge base specs from resource configs (see kb_spec.hpp).
#include "kb_spec.hpp"

#include <coffer/mcp_names.hpp>

#include <cctype>

namespace coffer::plugins::knowledge_base {

std::string name_problem(const std::string& name) {
    if (name.empty()) return "must not be empty";
    if (name.size() > kMaxNameLength)
        return "is " + std::to_string(name.size()) + " characters; a knowledge base name has at most " +
               std::to_string(kMaxNameLength) + " so that \"<name>__search\" fits in 64";
    for (char c : name)
        if (!mcp_names::name_char(c)) return "may contain only letters, digits, '_' and '-'";
    if (!mcp_names::addressable_server(name))
        return "must not contain \"__\" or end with '_' (its tools are named \"<name>__<tool>\")";
    std::string lower;
    for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "coffer") return "\"coffer\" is reserved for Coffer's built-in tools";
    return {};
}

KbSpec make_spec(const sdk::ResourceInfo& info, const json::object& config, const fs::path& vault_dir) {
    KbSpec s;
    s.uid = info.uid;
    s.name = info.name;
    s.description = info.description;
    auto* path = config.if_contains("path");
    if (path && path->is_string()) {
        std::string text(path->as_string());
        while (text.size() > 1 && text.back() == '/') text.pop_back();
        s.root = fs::path(text).lexically_normal();
        s.managed = false;
    } else {
        s.root = vault_dir / "knowledge" / info.name;
        s.managed = true;
    }
    s.writable = s.managed;
    if (auto* w = config.if_contains("writable"); w && w->is_bool()) s.writable = w->as_bool();
    if (auto* m = config.if_contains("default_mode"); m && m->is_string())
        if (auto mode = retrieval::parse_mode(m->as_string())) s.default_mode = *mode;
    s.embeddings = knowledge::embedding_settings(config);
    return s;
}

void validate_config(const json::object& config, sdk::Validation& v) {
    if (auto* p = config.if_contains("path"); p && p->is_string()) {
        fs::path path(std::string(p->as_string()));
        std::error_code ec;
        if (!path.is_absolute())
            v.fail("/path", "must be an absolute path (the folder of Markdown documents), e.g. /home/me/notes");
        else if (!fs::is_directory(path, ec))
            v.fail("/path", "is not an existing folder; create it first, or leave path out to let Coffer keep the "
                            "documents in $COFFER_HOME/knowledge/<name>/");
    }
    if (auto* m = config.if_contains("default_mode"); m && m->is_string()) {
        std::string_view mode = m->as_string();
        if ((mode == "vector" || mode == "hybrid") && !config.contains("embeddings"))
            v.fail("/default_mode", "\"" + std::string(mode) + "\" needs embeddings; configure /embeddings or use keyword");
    }
    knowledge::validate_embeddings(config, v);
}

}  // namespace coffer::plugins::knowledge_base
