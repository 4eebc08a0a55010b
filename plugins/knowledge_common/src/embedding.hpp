// The `embeddings` member of a knowledge_base or memory config: an OpenAI-compatible endpoint
// for the vector engine. The API key is only ever a credential reference ("credref:<name>"); it
// is resolved through the host each time an embedder is made (a search, an embedding pass), so a
// changed credential takes effect at once and the secret is never kept, stored or logged.
#pragma once

#include "retrieval/embedder.hpp"

#include <coffer/sdk.hpp>

#include <memory>
#include <optional>
#include <string>

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

}  // namespace coffer::knowledge
