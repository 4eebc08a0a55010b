// Hybrid tool search (SPEC G-24): when an OpenAI-compatible embeddings endpoint is configured,
// every tool also gets a vector, a request is embedded too, and the keyword list (index.hpp) and
// the nearest tools by cosine are fused by reciprocal rank — the same embeddings client and the
// same fusion as the knowledge base and memory kinds (lib/retrieval), not a second copy. Keyword
// search stays the default and the fallback: without an endpoint, or when it fails, the keyword
// list is the answer.
#pragma once

#include "toolsearch/index.hpp"
#include "toolsearch/schema_fields.hpp"

#include <chrono>
#include <cstddef>
#include <functional>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace coffer::retrieval {
class Embedder;
}

namespace coffer::toolsearch {

// Where tool vectors come from: an OpenAI-compatible embeddings endpoint (daemon settings
// $COFFER_TOOLSEARCH_EMBEDDINGS_*). Empty base_url: keyword search only, the default.
struct HybridSettings {
    std::string base_url;  // e.g. "http://127.0.0.1:11434/v1"
    std::string model;     // e.g. "nomic-embed-text"
    std::string api_key;   // the resolved secret (never logged); empty: no Authorization header
    float vector_weight = 1.0f;  // Options::vector_weight
    bool enabled() const { return !base_url.empty(); }
    bool operator==(const HybridSettings&) const = default;
};

// The client for `settings` (lib/retrieval's), with this per-request timeout and attempts. Throws
// retrieval::Error(invalid) for a bad URL or no model.
std::unique_ptr<retrieval::Embedder> make_embedder(const HybridSettings& settings, std::chrono::milliseconds timeout,
                                                   int attempts);

// What a tool's vector is made from: its server, the words of its own name, its title-less
// description, and its parameter names — "github: create pull request. Create a new pull
// request in a GitHub repository (owner, repo, title, head, base)". At most kMaxEmbeddingText
// bytes, cut at a character boundary.
inline constexpr std::size_t kMaxEmbeddingText = 1000;
std::string embedding_text(const ToolText& tool);

// Vectors already made, by the text they were made from, for one embeddings configuration: a
// catalog that changed (a server added, a tool's description upgraded) embeds only its new and
// changed tools, not the whole catalog again. Shared by the threads that build indexes (guarded
// by a mutex); at most `max_floats` floats of vectors (64 MiB by default: 10,000 tools at 1,536
// dimensions), the least recently used dropped first.
class VectorCache {
public:
    explicit VectorCache(std::size_t max_floats = std::size_t{16} << 20) : max_floats_(max_floats) {}
    // The vector made from `text` in the vector space `space` (which endpoint, which model), if
    // kept. Vectors of one space only: the first put() of another space drops the rest.
    std::optional<std::vector<float>> find(const std::string& space, const std::string& text);
    void put(const std::string& space, const std::string& text, std::vector<float> vector);
    std::size_t size() const;

private:
    struct Kept {
        std::vector<float> vector;
        std::uint64_t used = 0;
    };
    mutable std::mutex mutex_;
    std::size_t max_floats_;
    std::size_t floats_ = 0;
    std::uint64_t clock_ = 0;
    std::string space_;  // vectors of another space are dropped when one of it arrives
    std::unordered_map<std::string, Kept> kept_;
};

class ToolVectors {
public:
    ToolVectors() = default;
    // Embeds every tool through `embedder`, kEmbedBatch at a time (it retries each). Throws what
    // the embedder throws (retrieval::Error) when the endpoint cannot be reached or answers
    // nonsense; stops (leaving the vectors empty) when `stop` says so between batches.
    static constexpr std::size_t kEmbedBatch = 64;
    // With a cache, only texts it holds for `space` are not sent to the endpoint, and what comes
    // back is kept there; `space` names the endpoint and model (empty: the embedder's model id).
    ToolVectors(const std::vector<ToolText>& tools, retrieval::Embedder& embedder,
                const std::function<bool()>& stop = {}, VectorCache* cache = nullptr, std::string space = {});

    bool empty() const { return dim_ == 0; }
    std::size_t dimensions() const { return dim_; }
    // The embedder's model id the vectors were made with ("model@dims").
    const std::string& model() const { return model_; }
    // How many tool texts were sent to the endpoint to make these (the rest came from the cache).
    std::size_t embedded() const { return embedded_; }
    // The `limit` tools nearest to an L2-normalised query vector, best first (cosine as score);
    // empty for a vector of another length.
    std::vector<Hit> nearest(const std::vector<float>& query, std::size_t limit) const;

private:
    std::size_t dim_ = 0;
    std::vector<float> rows_;  // tool-major, dim_ floats per tool, each L2-normalised
    std::string model_;
    std::size_t embedded_ = 0;
};

// How deep each list goes before fusing: enough for the fused top 20 to draw on both.
inline constexpr std::size_t kFusionDepth = 50;

// The keyword and vector lists fused by reciprocal rank (retrieval::fuse_rrf), best first, at
// most `limit`, the vector list's reciprocal ranks weighed by `vector_weight`. A fused hit's score
// is its fused value scaled so that first in both lists scores 1 — falling with the rank, unlike
// the two lists' own scores, which are on different scales.
std::vector<Hit> fuse(const std::vector<Hit>& keyword, const std::vector<Hit>& vector, std::size_t limit,
                      double vector_weight);

}  // namespace coffer::toolsearch
