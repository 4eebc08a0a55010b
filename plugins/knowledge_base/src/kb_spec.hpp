// One knowledge base as the index worker and the MCP sessions see it: an immutable snapshot of
// the resource's config, replaced as a whole when the config changes (so a job that holds one
// never sees half an update).
#pragma once

#include "embedding.hpp"

#include "retrieval/index.hpp"

#include <coffer/sdk.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace coffer::plugins::knowledge_base {

namespace json = boost::json;
namespace sdk = coffer::sdk;
namespace fs = std::filesystem;

// Longest name such that "<name>__search" fits the gateway's 64-character tool names.
inline constexpr std::size_t kMaxNameLength = 56;

struct KbSpec {
    std::string uid, name, description;
    fs::path root;
    bool managed = false;  // the folder is $COFFER_HOME/knowledge/<name>/ (Coffer creates it)
    bool writable = false;
    retrieval::Mode default_mode = retrieval::Mode::keyword;
    std::optional<knowledge::EmbeddingSettings> embeddings;

    retrieval::Collection collection() const { return {name, root}; }
};

// "" when `name` can be a knowledge base's name (it becomes the MCP server name of its tools).
std::string name_problem(const std::string& name);

// The spec of resource `info` with config `config` in the vault `vault_dir`.
KbSpec make_spec(const sdk::ResourceInfo& info, const json::object& config, const fs::path& vault_dir);

// What the schema cannot say: the folder is absolute and exists; embeddings settings are sound.
void validate_config(const json::object& config, sdk::Validation& v);

}  // namespace coffer::plugins::knowledge_base
