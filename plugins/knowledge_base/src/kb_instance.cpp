// A knowledge_base resource (see kb_instance.hpp).
#include "kb_instance.hpp"

#include "kb_session.hpp"
#include "operations.hpp"
#include "confine.hpp"
#include "results.hpp"

namespace coffer::plugins::knowledge_base {

json::object sync_json(const retrieval::SyncStats& s) {
    return json::object{{"scanned", s.scanned}, {"added", s.added},   {"updated", s.updated}, {"removed", s.removed},
                        {"unchanged", s.unchanged}, {"chunks", s.chunks}, {"seconds", s.seconds}};
}

KbInstance::KbInstance(Library& lib, const sdk::ResourceInfo& resource)
    : lib_(lib), spec_(std::make_shared<const KbSpec>(make_spec(resource, resource.config, lib.host().vault_dir()))) {}

void KbInstance::prepare_folder() const {
    std::error_code ec;
    if (spec_->managed) fs::create_directories(spec_->root, ec);
    if (ec) throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot create " + spec_->root.string() + ": " + ec.message());
}

void KbInstance::start() {
    if (started_) return;
    prepare_folder();
    lib_.open(spec_);
    started_ = true;
}

void KbInstance::stop() {
    if (!started_) return;
    lib_.close(spec_->uid);
    started_ = false;
}

void KbInstance::update(const json::object& config) {
    info_.config = config;
    auto info = info_;
    spec_ = std::make_shared<const KbSpec>(make_spec(info, config, lib_.host().vault_dir()));
    if (!started_) return;
    lib_.close(spec_->uid);
    prepare_folder();
    lib_.open(spec_);  // a sync makes the index agree with the (possibly new) folder
}

json::value KbInstance::status() {
    auto st = lib_.state(spec_->uid);
    std::string health = !started_ ? "stopped" : st.syncing ? "indexing" : !st.last_error.empty() ? "error" : "ok";
    json::object out{{"health", health},
                     {"documents", st.stats.documents},
                     {"chunks", st.stats.chunks},
                     {"vectors", st.stats.vectors},
                     {"path", spec_->root.string()},
                     {"writable", spec_->writable},
                     {"default_mode", retrieval::to_string(spec_->default_mode)},
                     {"embeddings", spec_->embeddings ? json::value(spec_->embeddings->model) : json::value(nullptr)},
                     {"last_sync", st.last_sync.empty() ? json::value(nullptr) : json::value(st.last_sync)},
                     {"syncs", st.syncs}};
    if (!st.last_sync.empty()) out["last_stats"] = sync_json(st.last);
    if (st.syncing) out["progress"] = json::object{{"done", st.done}, {"total", st.total}};
    if (!st.last_error.empty()) out["last_error"] = st.last_error;
    return out;
}

json::value KbInstance::action(std::string_view name, const json::object& args) {
    if (name == "search") return search(args);
    if (name == "reindex") return reindex(args);
    if (name == "stats") return stats();
    if (name == "check") return check();
    if (name == "read") return read(args);
    return Instance::action(name, args);
}

json::value KbInstance::search(const json::object& args) {
    knowledge::only_keys(args, {"query", "mode", "top_k", "regex", "prefix"}, "search");
    SearchRequest req;
    req.args = knowledge::search_args(args);
    req.mode = req.args.mode.value_or(spec_->default_mode);
    req.regex = knowledge::optional_bool(args, "regex").value_or(false);
    req.path_prefix = knowledge::optional_text(args, "prefix", knowledge::kMaxPathBytes).value_or("");
    auto& host = lib_.host();
    auto answer = lib_.engine().run([&](retrieval::Index& index) { return knowledge_base::search(index, host, {spec_}, req); },
                                   knowledge::Engine::Access::read);
    return knowledge::answer_json(answer);
}

json::value KbInstance::reindex(const json::object& args) {
    knowledge::only_keys(args, {"wait"}, "reindex");
    prepare_folder();
    if (!knowledge::optional_bool(args, "wait").value_or(true)) {
        auto now = lib_.state(spec_->uid);
        auto spec = spec_;
        auto& lib = lib_;
        if (!lib_.engine().post([&lib, spec](retrieval::Index& index) { lib.sync(index, *spec); }))
            throw sdk::Error(COFFER_E_UNAVAILABLE, "the index is shutting down");
        // `running`: a sync was under way, so the one asked for ends at syncs + 2.
        return json::object{{"started", true}, {"syncs", now.syncs}, {"running", now.syncing}};
    }
    auto spec = spec_;
    auto stats = lib_.engine().run([&](retrieval::Index& index) { return lib_.sync(index, *spec); });
    auto out = sync_json(stats);
    out["documents"] = lib_.state(spec_->uid).stats.documents;
    return out;
}

json::value KbInstance::stats() {
    auto name = spec_->name;
    auto s = lib_.engine().run([&](retrieval::Index& index) { return index.stats(name); },
                                   knowledge::Engine::Access::read);
    auto st = lib_.state(spec_->uid);
    return json::object{{"documents", s.documents},
                        {"chunks", s.chunks},
                        {"vectors", s.vectors},
                        {"bytes", s.bytes},
                        {"embedding_model", s.embedding_model},
                        {"path", spec_->root.string()},
                        {"writable", spec_->writable},
                        {"last_sync", st.last_sync.empty() ? json::value(nullptr) : json::value(st.last_sync)}};
}

json::value KbInstance::check() {
    auto c = spec_->collection();
    auto diff = lib_.engine().run([&](retrieval::Index& index) { return index.check(c); },
                                   knowledge::Engine::Access::read);
    json::array list;
    for (auto& d : diff) list.push_back(json::value(d));
    return json::object{{"consistent", diff.empty()}, {"differences", std::move(list)}};
}

json::value KbInstance::read(const json::object& args) {
    knowledge::only_keys(args, {"path", "from", "to"}, "read");
    auto path = knowledge::required_text(args, "path", knowledge::kMaxPathBytes);
    int from = static_cast<int>(knowledge::optional_int(args, "from", 1, 100000000).value_or(1));
    int to = static_cast<int>(knowledge::optional_int(args, "to", 1, 100000000).value_or(0));
    auto spec = spec_;
    auto r = lib_.engine().run([&](retrieval::Index&) { return read_document(*spec, path, from, to, false); },
                                   knowledge::Engine::Access::read);
    return json::object{{"path", r.path},
                        {"from", r.excerpt.from},
                        {"to", r.excerpt.to},
                        {"total", r.excerpt.total},
                        {"truncated", r.excerpt.truncated},
                        {"content", r.excerpt.text}};
}

void KbInstance::remove() {
    // The documents are the user's: only the index rows go. A folder Coffer created stays too
    // (delete it by hand; `coffer kb delete` says where it is).
    lib_.forget(*spec_);
    started_ = false;
}

std::unique_ptr<sdk::McpSessionState> KbInstance::open_mcp(sdk::McpSession, const json::object& info) {
    return std::make_unique<KbSession>(lib_, spec_->uid, info);
}

}  // namespace coffer::plugins::knowledge_base
