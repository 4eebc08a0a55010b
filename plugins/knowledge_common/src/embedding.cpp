// Embedding settings and the embedder made from them (see embedding.hpp).
#include "embedding.hpp"

#include <coffer/credref.hpp>

namespace coffer::knowledge {

namespace {

std::string str(const json::object& o, std::string_view key) {
    auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

int integer(const json::object& o, std::string_view key, int fallback) {
    auto* v = o.if_contains(key);
    return v && v->is_int64() ? static_cast<int>(v->as_int64()) : fallback;
}

}  // namespace

std::optional<EmbeddingSettings> embedding_settings(const json::object& config) {
    auto* e = config.if_contains("embeddings");
    if (!e || !e->is_object()) return std::nullopt;
    auto& o = e->as_object();
    EmbeddingSettings s;
    s.base_url = str(o, "base_url");
    while (!s.base_url.empty() && s.base_url.back() == '/') s.base_url.pop_back();
    s.model = str(o, "model");
    s.api_key_ref = std::string(credref::ref_of(str(o, "api_key")));
    s.dimensions = integer(o, "dimensions", 0);
    s.batch = integer(o, "batch", 64);
    return s;
}

void validate_embeddings(const json::object& config, sdk::Validation& v) {
    auto* e = config.if_contains("embeddings");
    if (!e || !e->is_object()) return;
    auto& o = e->as_object();
    auto url = str(o, "base_url");
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
        v.fail("/embeddings/base_url", "must be an http:// or https:// URL such as https://api.openai.com/v1");
    if (auto* k = o.if_contains("api_key"); k && k->is_string()) {
        std::string_view key = k->as_string();
        if (!credref::is_credref(key))
            v.fail("/embeddings/api_key",
                   "must be a credential reference \"credref:<name>\"; store the key with `coffer credential set <name>`");
        else if (auto problem = credref::ref_problem(credref::ref_of(key)); !problem.empty())
            v.fail("/embeddings/api_key", problem);
    }
}

std::unique_ptr<retrieval::Embedder> make_embedder(const sdk::Host& host, const EmbeddingSettings& s) {
    retrieval::EmbeddingConfig c;
    c.base_url = s.base_url;
    c.model = s.model;
    c.dimensions = s.dimensions;
    c.batch = s.batch;
    if (!s.api_key_ref.empty()) {
        auto cred = host.resolve_credential(s.api_key_ref);
        if (!cred.ok()) {
            std::string why = cred.status == COFFER_E_NOT_FOUND     ? "no such credential"
                              : cred.status == COFFER_E_UNSUPPORTED ? "this daemon cannot resolve credentials"
                                                                    : "it cannot be read";
            throw sdk::Error(COFFER_E_UNAVAILABLE,
                             "the embeddings key credref:" + s.api_key_ref + " cannot be resolved (" + why + ")");
        }
        c.api_key = std::move(cred.value);
    }
    try {
        return retrieval::make_http_embedder(std::move(c));
    } catch (const retrieval::Error& e) {
        throw sdk::Error(COFFER_E_INVALID, std::string("embeddings: ") + e.what());
    }
}

std::shared_ptr<retrieval::Embedder> EmbedderCache::get(const sdk::Host& host, const EmbeddingSettings& s) {
    auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> g(mu_);
    std::erase_if(entries_, [&](const Entry& e) { return now - e.made >= kKeep; });
    for (auto& e : entries_)
        if (e.settings == s) return e.embedder;
    std::shared_ptr<retrieval::Embedder> made = make_embedder(host, s);
    entries_.push_back({s, made, now});
    return made;
}

void EmbedderCache::forget(const EmbeddingSettings& s) {
    std::lock_guard<std::mutex> g(mu_);
    std::erase_if(entries_, [&](const Entry& e) { return e.settings == s; });
}

EmbedderCache& shared_embedders() {
    static EmbedderCache cache;
    return cache;
}

retrieval::Answer search_degrading(retrieval::Index& index, const sdk::Host& host, EmbedderCache& cache,
                                   const retrieval::Query& q, const std::vector<retrieval::Collection>& roots,
                                   const std::optional<EmbeddingSettings>& settings) {
    bool semantic = q.mode == retrieval::Mode::vector || q.mode == retrieval::Mode::hybrid;
    std::shared_ptr<retrieval::Embedder> embedder;
    std::string why_not;
    if (semantic && settings) {
        try {
            embedder = cache.get(host, *settings);
        } catch (const sdk::Error& e) {
            why_not = e.what();
        }
    }
    retrieval::Answer a;
    try {
        a = index.search(q, roots, embedder.get());
    } catch (const retrieval::Error& e) {
        if (!embedder || e.code() != retrieval::Error::Code::unavailable) throw;
        why_not = std::string("the embeddings endpoint is unavailable (") + e.what() + ")";
        a = index.search(q, roots, nullptr);
    }
    if (a.degraded && embedder && settings) cache.forget(*settings);  // the endpoint failed: resolve again next time
    if (semantic && !why_not.empty()) {
        a.degraded = true;
        a.degraded_reason = why_not;
    }
    return a;
}

}  // namespace coffer::knowledge
