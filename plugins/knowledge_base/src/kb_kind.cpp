// The knowledge_base kind (see kb_kind.hpp).
#include "kb_kind.hpp"

#include "kb_instance.hpp"
#include "operations.hpp"
#include "confine.hpp"
#include "results.hpp"
#include "schema_text.hpp"

namespace coffer::plugins::knowledge_base {

std::string KbKind::schema() const { return kSchemaText; }

std::vector<sdk::ActionInfo> KbKind::actions() const {
    return {{"search", "search this knowledge base: {query, mode?, top_k?, regex?, prefix?} → {results, degraded}"},
            {"reindex", "make the index agree with the folder: {wait?=true} → {scanned, added, updated, removed, "
                        "unchanged, chunks, seconds}; wait=false starts it in the background"},
            {"stats", "documents, chunks, vectors and bytes in the index"},
            {"check", "differences between the folder and the index → {consistent, differences:[…]}"},
            {"read", "a document's text: {path, from?, to?} → {path, from, to, total, truncated, content}"}};
}

std::vector<sdk::ActionInfo> KbKind::kind_actions() const {
    return {{"search", "search several knowledge bases: {query, kbs?:[names] (default all), mode?, top_k?, regex?} → "
                       "{results:[{kb, path, heading, lines, score, engine, snippet}], degraded}"},
            {"list", "every running knowledge base with its folder and counts"}};
}

void KbKind::validate(const json::object& config, sdk::Validation& v) { validate_config(config, v); }

std::unique_ptr<sdk::Instance> KbKind::create(const sdk::ResourceInfo& resource) {
    if (auto problem = name_problem(resource.name); !problem.empty())
        throw sdk::Error(COFFER_E_INVALID, "invalid knowledge base name \"" + resource.name + "\": " + problem,
                         json::object{{"errors", json::array{json::object{{"pointer", "/name"}, {"message", problem}}}}});
    sdk::Validation v;
    validate_config(resource.config, v);
    if (!v.ok()) throw sdk::Error(COFFER_E_INVALID, "config is invalid", json::object{{"errors", v.errors()}});
    auto inst = std::make_unique<KbInstance>(lib_, resource);
    if (resource.enabled) inst->start();  // the host starts enabled resources too; start() is idempotent
    return inst;
}

json::value KbKind::kind_action(std::string_view name, const json::object& args) {
    if (name == "search") return search(args);
    if (name == "list") return list();
    return Kind::kind_action(name, args);
}

json::value KbKind::search(const json::object& args) {
    knowledge::only_keys(args, {"query", "kbs", "mode", "top_k", "regex"}, "search");
    SearchRequest req;
    req.args = knowledge::search_args(args);
    req.regex = knowledge::optional_bool(args, "regex").value_or(false);
    std::vector<SpecPtr> specs;
    if (auto* kbs = args.if_contains("kbs"); kbs && !kbs->is_null()) {
        if (!kbs->is_array()) throw sdk::Error(COFFER_E_INVALID, "kbs must be an array of knowledge base names");
        for (auto& n : kbs->as_array()) {
            if (!n.is_string()) throw sdk::Error(COFFER_E_INVALID, "kbs must be an array of knowledge base names");
            auto spec = lib_.by_name(std::string(n.as_string()));
            if (!spec)
                throw sdk::Error(COFFER_E_NOT_FOUND, "no enabled knowledge base named '" + std::string(n.as_string()) +
                                                         "' (see `coffer kb list`)");
            specs.push_back(spec);
        }
    } else {
        specs = lib_.all();
    }
    // The knowledge bases' own default when they agree on one, else keyword.
    req.mode = retrieval::Mode::keyword;
    if (!specs.empty()) {
        req.mode = specs.front()->default_mode;
        for (auto& s : specs)
            if (s->default_mode != req.mode) req.mode = retrieval::Mode::keyword;
    }
    if (req.args.mode) req.mode = *req.args.mode;
    auto& host = lib_.host();
    auto answer = lib_.engine().run([&](retrieval::Index& index) { return knowledge_base::search(index, host, specs, req); },
                                   knowledge::Engine::Access::read);
    return knowledge::answer_json(answer);
}

json::value KbKind::list() {
    json::array out;
    for (auto& s : lib_.all()) {
        auto st = lib_.state(s->uid);
        out.push_back(json::object{{"name", s->name},
                                   {"path", s->root.string()},
                                   {"writable", s->writable},
                                   {"health", st.syncing ? "indexing" : st.last_error.empty() ? "ok" : "error"},
                                   {"documents", st.stats.documents},
                                   {"chunks", st.stats.chunks},
                                   {"vectors", st.stats.vectors},
                                   {"last_sync", st.last_sync.empty() ? json::value(nullptr) : json::value(st.last_sync)}});
    }
    return json::object{{"knowledge_bases", std::move(out)}};
}

}  // namespace coffer::plugins::knowledge_base
