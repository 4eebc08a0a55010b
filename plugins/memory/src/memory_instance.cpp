// A memory resource (see memory_instance.hpp).
#include "memory_instance.hpp"

#include "memory_session.hpp"

#include "results.hpp"

namespace coffer::plugins::memory {

Settings settings_of(const json::object& config) {
    Settings s;
    s.embeddings = knowledge::embedding_settings(config);
    if (auto* m = config.if_contains("default_mode"); m && m->is_string())
        if (auto mode = retrieval::parse_mode(m->as_string())) s.default_mode = *mode;
    return s;
}

void MemoryInstance::start() {
    store_.configure(settings_of(info_.config));
    started_ = true;
}

void MemoryInstance::update(const json::object& config) {
    info_.config = config;
    if (started_) store_.configure(settings_of(config));
}

json::value MemoryInstance::status() {
    auto s = store_.settings();
    return json::object{{"health", started_ ? "ok" : "stopped"},
                        {"facts", store_.facts()},
                        {"path", store_.root().string()},
                        {"embeddings", s.embeddings ? json::value(s.embeddings->model) : json::value(nullptr)},
                        {"default_mode", retrieval::to_string(s.default_mode)}};
}

json::value MemoryInstance::action(std::string_view name, const json::object& args) {
    if (name == "list") return list(args);
    if (name == "show") return show(args);
    if (name == "search") return search(args);
    if (name == "forget") return forget(args);
    return Instance::action(name, args);
}

std::vector<retrieval::Collection> MemoryInstance::scopes(const json::object& args) const {
    auto dir = knowledge::optional_text(args, "project", 4096);
    if (!dir) return store_.every();
    auto project = project_of(*dir);
    if (!project) throw sdk::Error(COFFER_E_INVALID, "project must be an absolute folder, e.g. the repository you work in");
    return store_.visible(project);
}

json::value MemoryInstance::list(const json::object& args) {
    knowledge::only_keys(args, {"project"}, "list");
    json::array out;
    for (auto& f : store_.list(scopes(args))) out.push_back(fact_json(f));
    return json::object{{"facts", std::move(out)}};
}

json::value MemoryInstance::show(const json::object& args) {
    knowledge::only_keys(args, {"id"}, "show");
    auto ref = knowledge::required_text(args, "id", 1024);
    auto f = store_.find(ref, store_.every());
    if (!f) throw sdk::Error(COFFER_E_NOT_FOUND, "no memory with id '" + ref + "' (see `coffer memory list`)");
    return fact_json(*f);
}

json::value MemoryInstance::search(const json::object& args) {
    knowledge::only_keys(args, {"query", "project", "mode", "top_k"}, "search");
    auto search = knowledge::search_args(args);
    auto within = scopes(args);
    auto& store = store_;
    auto answer = store_.engine().run([&](retrieval::Index& index) { return store.search(index, search, within); },
                                   knowledge::Engine::Access::read);
    return knowledge::answer_json(answer);
}

json::value MemoryInstance::forget(const json::object& args) {
    knowledge::only_keys(args, {"id"}, "forget");
    auto ref = knowledge::required_text(args, "id", 1024);
    auto& store = store_;
    auto f = store_.engine().run([&](retrieval::Index& index) { return store.forget(index, ref, store.every(), "user"); });
    return json::object{{"forgotten", fact_json(f)}};
}

std::unique_ptr<sdk::McpSessionState> MemoryInstance::open_mcp(sdk::McpSession, const json::object& info) {
    return std::make_unique<MemorySession>(store_, info);
}

}  // namespace coffer::plugins::memory
