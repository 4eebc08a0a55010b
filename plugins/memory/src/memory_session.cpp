// The memory tools (see memory_session.hpp).
#include "memory_session.hpp"

#include "tool_specs.hpp"

#include "results.hpp"
#include "tool_result.hpp"

namespace coffer::plugins::memory {

using knowledge::tool_ok;

std::vector<std::string> tags_arg(const json::object& args) {
    std::vector<std::string> out;
    auto* t = args.if_contains("tags");
    if (!t || t->is_null()) return out;
    if (!t->is_array()) throw sdk::Error(COFFER_E_INVALID, "The argument 'tags' must be an array of strings");
    if (t->as_array().size() > kMaxTags)
        throw sdk::Error(COFFER_E_INVALID, "At most " + std::to_string(kMaxTags) + " tags");
    for (auto& v : t->as_array()) {
        if (!v.is_string()) throw sdk::Error(COFFER_E_INVALID, "The argument 'tags' must be an array of strings");
        if (auto problem = tag_problem(v.as_string()); !problem.empty()) throw sdk::Error(COFFER_E_INVALID, problem);
        out.emplace_back(v.as_string());
    }
    return out;
}

MemorySession::MemorySession(Store& store, const json::object& info)
    : store_(store), cwd_(knowledge::session_string(info, "cwd")), source_(knowledge::session_string(info, "agent")) {
    if (source_.empty())
        if (auto* c = info.if_contains("client"); c && c->is_object())
            if (auto* n = c->as_object().if_contains("name"); n && n->is_string()) source_ = std::string(n->as_string());
    source_ = one_line(source_);
}

json::array MemorySession::tools() const { return memory_tools(); }

void MemorySession::call_tool(sdk::McpCall& call, const std::string& name, const json::object& args) {
    if (name == "remember") return remember(call, args);
    if (name == "recall") return recall(call, args);
    if (name == "forget") return forget(call, args);
    throw sdk::Error(COFFER_E_INVALID, "Unknown tool: " + name);
}

void MemorySession::remember(sdk::McpCall& call, const json::object& args) {
    knowledge::only_keys(args, {"fact", "scope", "tags"}, "remember");
    auto fact = knowledge::required_text(args, "fact", kMaxFactBytes);
    auto scope = knowledge::optional_text(args, "scope", 16).value_or("project");
    if (scope != "project" && scope != "global")
        throw sdk::Error(COFFER_E_INVALID, "The argument 'scope' must be \"project\" or \"global\"");
    auto tags = tags_arg(args);
    auto& store = store_;
    on_worker(store_.engine(), std::move(call),
              [&store, fact, scope, tags, cwd = cwd_, source = source_](retrieval::Index& index) {
                  std::optional<Project> project;
                  if (scope == "project") {
                      project = project_of(cwd);
                      if (!project)
                          throw sdk::Error(COFFER_E_INVALID, "This session has no working directory, so it has no "
                                                             "project; remember it with scope \"global\"");
                  }
                  auto f = store.remember(index, fact, project, tags, source);
                  // Vectors after the answer: the fact is searchable by keyword already.
                  store.engine().post([&store, c = project ? store.project(*project) : store.global()](
                                          retrieval::Index& i) { store.embed(i, c); });
                  std::string where = project ? "project " + project->id : std::string("global memory");
                  return tool_ok("Remembered in " + where + " as id " + f.fact.id + ".", fact_json(f));
              });
}

void MemorySession::recall(sdk::McpCall& call, const json::object& args) {
    knowledge::only_keys(args, {"query", "top_k", "mode"}, "recall");
    auto search = knowledge::search_args(args);
    auto& store = store_;
    on_worker(store_.engine(), std::move(call), [&store, search, cwd = cwd_](retrieval::Index& index) {
        auto within = store.visible(project_of(cwd));
        auto answer = store.search(index, search, within);
        // The whole fact for each hit (facts are short), with its id.
        std::string text = answer.hits.empty() ? "No remembered fact matches \"" + search.query + "\"."
                                               : std::to_string(answer.hits.size()) + " remembered fact(s), best first:\n";
        if (answer.degraded) text = "Note: " + answer.degraded_reason + "; keyword results.\n" + text;
        auto structured = knowledge::answer_json(answer);
        auto& results = structured["results"].as_array();
        for (std::size_t i = 0; i < answer.hits.size(); ++i) {
            auto& h = answer.hits[i];
            std::optional<FactFile> found;
            for (auto& c : within)
                if (c.name == h.collection) found = store.find(h.path, {c});
            auto id = found ? found->fact.id : id_from_name(h.path);
            auto body = found ? found->fact.text : h.snippet;
            text += "\n" + std::to_string(i + 1) + ". [" + (h.collection == "global" ? "global" : "project") + ", id " +
                    id + "] " + body + "\n";
            results[i].as_object()["id"] = id;
            results[i].as_object()["fact"] = body;
        }
        return tool_ok(text, structured);
    }, knowledge::Engine::Access::read);
}

void MemorySession::forget(sdk::McpCall& call, const json::object& args) {
    knowledge::only_keys(args, {"id"}, "forget");
    auto ref = knowledge::required_text(args, "id", 1024);
    auto& store = store_;
    on_worker(store_.engine(), std::move(call), [&store, ref, cwd = cwd_, source = source_](retrieval::Index& index) {
        auto f = store.forget(index, ref, store.visible(project_of(cwd)), source);
        return tool_ok("Forgot " + f.fact.id + " (" + f.file.filename().string() + ").",
                       json::object{{"id", f.fact.id}, {"scope", f.scope}, {"path", f.file.string()}});
    });
}

}  // namespace coffer::plugins::memory
