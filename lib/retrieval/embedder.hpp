// Text embeddings for the vector engine: any OpenAI-compatible POST <base_url>/embeddings
// (OpenAI, Ollama, llama.cpp server, vLLM). Batched, retried with backoff on 429/5xx/network
// errors, with a per-request timeout.
#pragma once

#include "retrieval/types.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace coffer::retrieval {

struct EmbeddingConfig {
    std::string base_url;  // e.g. "https://api.openai.com/v1" or "http://127.0.0.1:11434/v1"
    std::string model;     // e.g. "text-embedding-3-small", "nomic-embed-text"
    std::string api_key;   // the resolved secret (never logged); empty: no Authorization header
    int dimensions = 0;    // 0: the model's own; else sent as "dimensions"
    int batch = 64;        // texts per request
    int max_attempts = 4;  // per batch, with exponential backoff (honouring Retry-After)
    std::chrono::milliseconds timeout{30000};
    std::chrono::milliseconds backoff{500};  // the first retry's wait, doubled for each next one
};

class Embedder {
public:
    virtual ~Embedder() = default;
    // Names the vector space: model and dimensions, e.g. "nomic-embed-text@768". Vectors of
    // another id are stale.
    virtual std::string model_id() const = 0;
    // One L2-normalised vector per text, in order. Throws Error(unavailable) when the endpoint
    // cannot be reached or keeps failing, Error(invalid) on an answer of the wrong shape.
    virtual std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) = 0;
};

// The HTTP(S) client for an OpenAI-compatible endpoint. Throws Error(invalid) for a bad URL.
std::unique_ptr<Embedder> make_http_embedder(EmbeddingConfig config);

}  // namespace coffer::retrieval
