// The knowledge_base plugin's shared state (see library.hpp).
#include "library.hpp"

#include <chrono>
#include <ctime>

namespace coffer::plugins::knowledge_base {

std::string now_iso() {
    auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

Library::Library(const sdk::Host& host) : host_(host), engine_(host), watcher_(host) {}

void Library::start() {
    engine_.start(fs::path(host_.data_dir()) / "index.sqlite");
    watcher_.start([this](const std::string& uid, const std::vector<std::string>& rels, bool rescan) {
        on_changes(uid, rels, rescan);
    });
}

void Library::stop() {
    watcher_.stop();
    engine_.stop();
}

void Library::open(SpecPtr spec) {
    {
        std::lock_guard<std::mutex> g(mu_);
        open_[spec->uid] = spec;
        states_[spec->uid].syncing = true;
    }
    watcher_.watch(spec->uid, spec->root);
    post_sync(spec->uid);
}

void Library::close(const std::string& uid) {
    {
        std::lock_guard<std::mutex> g(mu_);
        open_.erase(uid);
    }
    watcher_.unwatch(uid);
}

void Library::forget(const KbSpec& spec) {
    close(spec.uid);
    {
        std::lock_guard<std::mutex> g(mu_);
        states_.erase(spec.uid);
    }
    engine_.post([name = spec.name](retrieval::Index& index) { index.drop(name); });
}

SpecPtr Library::by_uid(const std::string& uid) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = open_.find(uid);
    return it == open_.end() ? nullptr : it->second;
}

SpecPtr Library::by_name(const std::string& name) const {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [uid, spec] : open_)
        if (spec->name == name) return spec;
    return nullptr;
}

std::vector<SpecPtr> Library::all() const {
    std::lock_guard<std::mutex> g(mu_);
    std::vector<SpecPtr> out;
    for (auto& [uid, spec] : open_) out.push_back(spec);
    return out;
}

KbState Library::state(const std::string& uid) const {
    std::lock_guard<std::mutex> g(mu_);
    auto it = states_.find(uid);
    return it == states_.end() ? KbState{} : it->second;
}

void Library::post_sync(const std::string& uid) {
    engine_.post([this, uid](retrieval::Index& index) {
        if (auto spec = by_uid(uid)) sync(index, *spec);  // closed meanwhile: nothing to do
    });
}

retrieval::SyncStats Library::sync(retrieval::Index& index, const KbSpec& spec) {
    {
        std::lock_guard<std::mutex> g(mu_);
        auto& st = states_[spec.uid];
        st.syncing = true;
        st.done = st.total = 0;
    }
    retrieval::SyncStats stats;
    std::string error;
    try {
        std::error_code ec;
        if (!fs::is_directory(spec.root, ec)) throw sdk::Error(COFFER_E_UNAVAILABLE, "the folder " + spec.root.string() + " is missing");
        stats = index.sync(spec.collection(), [this, uid = spec.uid](std::size_t done, std::size_t total) {
            std::lock_guard<std::mutex> g(mu_);
            auto& st = states_[uid];
            st.done = done;
            st.total = total;
        }, [this] { engine_.let_reads_in(); });  // searches answer during a long first index
    } catch (const std::exception& e) {
        error = e.what();
        host_.warn("knowledge base '" + spec.name + "' could not be indexed: " + error);
    }
    {
        std::lock_guard<std::mutex> g(mu_);
        auto& st = states_[spec.uid];
        st.syncing = false;
        st.last_error = error;
        if (error.empty()) {
            st.last = stats;
            st.last_sync = now_iso();
        }
        ++st.syncs;
    }
    update_stats(index, spec);
    if (!error.empty()) throw sdk::Error(COFFER_E_UNAVAILABLE, error);
    embed(index, spec);
    return stats;
}

void Library::refresh(retrieval::Index& index, const KbSpec& spec, const std::string& rel) {
    index.refresh(spec.collection(), rel);
    update_stats(index, spec);
}

void Library::embed(retrieval::Index& index, const KbSpec& spec) {
    if (!spec.embeddings) return;
    {
        // Every chunk has a vector of this model already: no need to resolve the key (each
        // resolution is audited) or to ask the endpoint.
        std::lock_guard<std::mutex> g(mu_);
        auto& st = states_[spec.uid].stats;
        if (st.vectors >= st.chunks && st.embedding_model.rfind(spec.embeddings->model, 0) == 0) return;
    }
    try {
        auto embedder = knowledge::shared_embedders().get(host_, *spec.embeddings);
        index.embed_pending(spec.name, *embedder);
    } catch (const std::exception& e) {
        host_.warn("knowledge base '" + spec.name + "': embeddings not updated: " + e.what());
        std::lock_guard<std::mutex> g(mu_);
        states_[spec.uid].last_error = std::string("embeddings: ") + e.what();
    }
    update_stats(index, spec);
}

void Library::update_stats(retrieval::Index& index, const KbSpec& spec) {
    retrieval::CollectionStats stats;
    try {
        stats = index.stats(spec.name);
    } catch (const std::exception& e) {
        host_.warn("knowledge base '" + spec.name + "': no statistics: " + e.what());
        return;
    }
    std::lock_guard<std::mutex> g(mu_);
    states_[spec.uid].stats = stats;
}

void Library::on_changes(const std::string& uid, const std::vector<std::string>& rels, bool rescan) {
    if (rescan) return post_sync(uid);
    engine_.post([this, uid, rels](retrieval::Index& index) {
        auto spec = by_uid(uid);
        if (!spec) return;
        for (auto& rel : rels) index.refresh(spec->collection(), rel);
        update_stats(index, *spec);
        embed(index, *spec);
    });
}

}  // namespace coffer::plugins::knowledge_base
