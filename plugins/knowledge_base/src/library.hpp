// Everything the knowledge_base plugin shares between its resources: the one index
// ($COFFER_HOME/data/knowledge_base/index.sqlite, a collection per knowledge base, named after
// it), the worker thread that owns it, the folder watcher, the running knowledge bases by uid and
// what each one's status shows. Hooks and MCP sessions read the registry and the status
// snapshots under a mutex; only jobs on the worker touch the index.
#pragma once

#include "kb_spec.hpp"

#include "engine.hpp"
#include "watcher.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace coffer::plugins::knowledge_base {

using SpecPtr = std::shared_ptr<const KbSpec>;

// What status() shows of one knowledge base; written by the worker.
struct KbState {
    retrieval::CollectionStats stats;
    retrieval::SyncStats last;  // of the last completed sync
    std::string last_sync;      // when it completed (UTC, ISO 8601); "" before the first
    std::string last_error;     // of the last sync or embedding pass; "" when it worked
    bool syncing = false;
    std::size_t done = 0, total = 0;  // files of the sync running now
    std::size_t syncs = 0;            // completed syncs (a caller waits for this to grow)
};

class Library {
public:
    explicit Library(const sdk::Host& host);

    void start();  // at plugin init
    void stop();   // at plugin shutdown

    // A knowledge base starts (or its config changed): registered, watched, synced in the
    // background. Returns at once.
    void open(SpecPtr spec);
    // It stops: no longer watched nor searchable. Its index rows stay (a restart needs no full
    // re-index).
    void close(const std::string& uid);
    // It was deleted: its index rows and status go too.
    void forget(const KbSpec& spec);

    SpecPtr by_uid(const std::string& uid) const;
    SpecPtr by_name(const std::string& name) const;
    std::vector<SpecPtr> all() const;
    KbState state(const std::string& uid) const;

    // Worker side: sync `spec`'s folder now, update its state, then embed what lacks vectors.
    retrieval::SyncStats sync(retrieval::Index& index, const KbSpec& spec);
    // Worker side: one file changed (written through a tool, or seen by the watcher).
    void refresh(retrieval::Index& index, const KbSpec& spec, const std::string& rel);
    // Worker side: embeds the chunks of `spec` that have no vector yet (no-op without embeddings).
    void embed(retrieval::Index& index, const KbSpec& spec);
    // Queues a background sync of `uid` (if still open).
    void post_sync(const std::string& uid);

    knowledge::Engine& engine() { return engine_; }
    const sdk::Host& host() const { return host_; }

private:
    void update_stats(retrieval::Index& index, const KbSpec& spec);
    void on_changes(const std::string& uid, const std::vector<std::string>& rels, bool rescan);

    const sdk::Host& host_;
    knowledge::Engine engine_;
    knowledge::Watcher watcher_;
    mutable std::mutex mu_;
    std::map<std::string, SpecPtr> open_;  // uid → spec
    std::map<std::string, KbState> states_;
};

// Now, as UTC ISO 8601 with seconds ("2025-06-01T12:00:00Z").
std::string now_iso();

}  // namespace coffer::plugins::knowledge_base
