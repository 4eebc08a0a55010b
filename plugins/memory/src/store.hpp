// The memory store: $COFFER_HOME/memory/ (global/ and projects/<id>/, one fact per file), its
// index ($COFFER_HOME/data/memory/index.sqlite: collection "global" and one "projects/<id>" per
// project folder), the worker thread that owns the index and a watcher on the folder so hand
// edits are picked up. One store per plugin: every memory resource is a way in to the same facts.
// Methods marked "worker" run in jobs on the engine; the others are safe from any thread.
#pragma once

#include "fact.hpp"
#include "project.hpp"

#include "embedding.hpp"
#include "engine.hpp"
#include "tool_args.hpp"
#include "watcher.hpp"

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace coffer::plugins::memory {

namespace json = boost::json;
namespace sdk = coffer::sdk;
namespace fs = std::filesystem;

struct FactFile {
    Fact fact;
    std::string scope;  // "global" or "projects/<id>" (the collection)
    fs::path file;
};

struct Settings {
    std::optional<knowledge::EmbeddingSettings> embeddings;
    retrieval::Mode default_mode = retrieval::Mode::keyword;
};

class Store {
public:
    explicit Store(const sdk::Host& host);

    void start();  // at plugin init: folders, index, watcher, a first sync
    void stop();

    void configure(Settings s);
    Settings settings() const;
    knowledge::Engine& engine() { return engine_; }
    const sdk::Host& host() const { return host_; }
    const fs::path& root() const { return root_; }
    std::size_t facts() const;  // as of the last index update

    retrieval::Collection global() const { return {"global", root_ / "global"}; }
    retrieval::Collection project(const Project& p) const { return {p.collection(), root_ / "projects" / p.id}; }
    // "global" and every project folder that exists.
    std::vector<retrieval::Collection> every() const;
    // The project's collection (when there is a project) and global: what a session may see.
    std::vector<retrieval::Collection> visible(const std::optional<Project>& p) const;

    // worker: makes the index agree with every folder.
    void sync_all(retrieval::Index& index);
    // worker: writes a new fact file, audits, indexes it before returning.
    FactFile remember(retrieval::Index& index, const std::string& text, const std::optional<Project>& project,
                      const std::vector<std::string>& tags, const std::string& source);
    // worker: searches `within`.
    retrieval::Answer search(retrieval::Index& index, const knowledge::SearchArgs& args,
                             const std::vector<retrieval::Collection>& within);
    // worker: deletes the fact `ref` (an id, a file name or a path below memory/) found in
    // `within`, audits, refreshes the index. Throws NOT_FOUND when it is not there.
    FactFile forget(retrieval::Index& index, const std::string& ref, const std::vector<retrieval::Collection>& within,
                    const std::string& actor);
    // Any thread (reads files only).
    std::optional<FactFile> find(const std::string& ref, const std::vector<retrieval::Collection>& within) const;
    std::vector<FactFile> list(const std::vector<retrieval::Collection>& within) const;

    // worker: embeds the chunks of `c` without a vector (no-op without embeddings).
    void embed(retrieval::Index& index, const retrieval::Collection& c);

private:
    void count(retrieval::Index& index);
    void on_changes(const std::vector<std::string>& rels, bool rescan);

    const sdk::Host& host_;
    fs::path root_;
    knowledge::Engine engine_;
    knowledge::Watcher watcher_;
    mutable std::mutex mu_;
    Settings settings_;
    std::size_t facts_ = 0;
};

// A fact file as JSON: {id, scope, path, created, updated, tags, source, project, text}.
json::object fact_json(const FactFile& f);

// Now, as UTC ISO 8601 with seconds.
std::string now_iso();

}  // namespace coffer::plugins::memory
