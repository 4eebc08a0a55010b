// Watches folders of Markdown files with inotify, recursively, on one thread, and reports what
// changed in batches: files by relative path, or "rescan" when a folder appeared, vanished or
// moved (or the kernel's event queue overflowed) and only a full sync can tell what changed.
// Events are gathered for a short quiet period first, so an editor's save (temporary, rename)
// or a `git checkout` arrives as one batch. The watcher is a hint: searches still check each
// hit's file (retrieval::Index), so a missed event costs freshness of unhit files only.
#pragma once

#include <coffer/sdk.hpp>

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace coffer::knowledge {

class Watcher {
public:
    // key: what the caller named the folder (a resource uid); rels: changed .md/.markdown files,
    // '/'-separated, relative to the root; rescan: sync the whole folder.
    using Sink = std::function<void(const std::string& key, const std::vector<std::string>& rels, bool rescan)>;

    explicit Watcher(const coffer::sdk::Host& host) : host_(host) {}
    ~Watcher() { stop(); }
    Watcher(const Watcher&) = delete;
    Watcher& operator=(const Watcher&) = delete;

    // Starts the thread; false (logged) when inotify is unavailable — then nothing is watched.
    bool start(Sink sink);
    void stop();
    // Watches `root` and every folder below it (hidden ones and symlinks skipped) under `key`,
    // replacing what `key` watched before. Any thread.
    void watch(const std::string& key, const std::filesystem::path& root);
    void unwatch(const std::string& key);

private:
    struct Place {
        std::string key;
        std::string rel;  // the folder, relative to the key's root ("" for the root)
    };
    struct Pending {
        std::set<std::string> rels;
        bool rescan = false;
    };

    void loop();
    void read_events(std::map<std::string, Pending>& batch);
    void add_tree(const std::string& key, const std::filesystem::path& root);  // mu_ held
    void drop_key(const std::string& key);                                    // mu_ held
    void add_one(const std::string& key, const std::filesystem::path& dir, const std::string& rel);  // mu_ held

    const coffer::sdk::Host& host_;
    Sink sink_;
    int fd_ = -1;
    int wake_[2] = {-1, -1};
    std::thread thread_;
    std::mutex mu_;
    std::map<int, std::vector<Place>> places_;             // watch descriptor → who watches it
    std::map<std::string, std::filesystem::path> roots_;  // key → root
    bool full_warned_ = false;
};

}  // namespace coffer::knowledge
