// The `embeddings` member of a knowledge_base or memory config: an OpenAI-compatible endpoint
// for the vector engine. The API key is only ever a credential reference ("credref:<name>"); it
// is resolved through the host when an embedder is made, and an embedder is reused for at most
// a few minutes (EmbedderCache), so a changed credential takes effect soon and the secret is
// never written anywhere, stored or logged.
#pragma once

#include "retrieval/embedder.hpp"
#include "retrieval/index.hpp"

#include <coffer/sdk.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace coffer::knowledge {

namespace json = boost::json;

struct EmbeddingSettings {
    std::string base_url, model;
    std::string api_key_ref;  // the <name> of "credref:<name>"; empty = no key
    int dimensions = 0;
    int batch = 64;
    bool operator==(const EmbeddingSettings&) const = default;
};

// config["embeddings"], when present (the schema has checked its shape).
std::optional<EmbeddingSettings> embedding_settings(const json::object& config);

// What a schema cannot say: the reference names a valid credential name, the URL parses.
void validate_embeddings(const json::object& config, sdk::Validation& v);

// An embedder for `s`, the key resolved now. Throws sdk::Error(COFFER_E_UNAVAILABLE) when the
// credential cannot be resolved (the message names the reference, never a value).
std::unique_ptr<retrieval::Embedder> make_embedder(const sdk::Host& host, const EmbeddingSettings& s);

// Embedders by settings, each kept for a few minutes: the key is resolved (and each resolution
// audited by the host) once per period instead of at every search, so the audit log records
// use, not traffic. A changed credential takes effect when the period ends, or at once after the
// endpoint failed (forget). Thread-safe; the key lives only in memory, inside the embedder.
class EmbedderCache {
public:
    static constexpr std::chrono::minutes kKeep{5};
    std::shared_ptr<retrieval::Embedder> get(const sdk::Host& host, const EmbeddingSettings& s);
    void forget(const EmbeddingSettings& s);

private:
    struct Entry {
        EmbeddingSettings settings;
        std::shared_ptr<retrieval::Embedder> embedder;
        std::chrono::steady_clock::time_point made;
    };
    std::mutex mu_;
    std::vector<Entry> entries_;
};

// The plugin's one cache (each plugin module has its own).
EmbedderCache& shared_embedders();

// Runs `q` with an embedder for `settings` when the mode needs one. Without embeddings, with a key
// that cannot be resolved, or with an endpoint that fails, the answer is the keyword engine's,
// marked degraded with the reason — never an error.
retrieval::Answer search_degrading(retrieval::Index& index, const sdk::Host& host, EmbedderCache& cache,
                                   const retrieval::Query& q, const std::vector<retrieval::Collection>& roots,
                                   const std::optional<EmbeddingSettings>& settings);

}  // namespace coffer::knowledge
