// The memory store (see store.hpp).
#include "store.hpp"

#include <coffer/atomic_file.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>

namespace coffer::plugins::memory {

namespace {

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

FactFile load(const fs::path& file, const std::string& scope) {
    FactFile f{parse(read_all(file)), scope, file};
    if (f.fact.id.empty()) f.fact.id = id_from_name(file.filename().string());
    return f;
}

// The fact files of one collection, by name.
std::vector<fs::path> files_of(const retrieval::Collection& c) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(c.root, ec), end; !ec && it != end; it.increment(ec)) {
        auto name = it->path().filename().string();
        std::error_code st;
        if (!name.empty() && name[0] != '.' && it->is_regular_file(st) && !it->is_symlink(st) &&
            name.size() > 3 && name.substr(name.size() - 3) == ".md")
            out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

std::string now_iso() {
    auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

json::object fact_json(const FactFile& f) {
    json::array tags;
    for (auto& t : f.fact.tags) tags.push_back(json::value(t));
    return json::object{{"id", f.fact.id},         {"scope", f.scope},          {"path", f.file.string()},
                        {"created", f.fact.created}, {"updated", f.fact.updated}, {"tags", std::move(tags)},
                        {"source", f.fact.source}, {"project", f.fact.project}, {"text", f.fact.text}};
}

Store::Store(const sdk::Host& host) : host_(host), engine_(host), watcher_(host) {}

void Store::start() {
    root_ = fs::path(host_.vault_dir()) / "memory";
    std::error_code ec;
    fs::create_directories(root_ / "global", ec);
    fs::create_directories(root_ / "projects", ec);
    if (ec) host_.warn("cannot create " + root_.string() + ": " + ec.message());
    engine_.start(fs::path(host_.data_dir()) / "index.sqlite");
    watcher_.start([this](const std::string&, const std::vector<std::string>& rels, bool rescan) { on_changes(rels, rescan); });
    watcher_.watch("memory", root_);
    engine_.post([this](retrieval::Index& index) { sync_all(index); });
}

void Store::stop() {
    watcher_.stop();
    engine_.stop();
}

void Store::configure(Settings s) {
    std::lock_guard<std::mutex> g(mu_);
    settings_ = std::move(s);
}

Settings Store::settings() const {
    std::lock_guard<std::mutex> g(mu_);
    return settings_;
}

std::size_t Store::facts() const {
    std::lock_guard<std::mutex> g(mu_);
    return facts_;
}

std::vector<retrieval::Collection> Store::every() const {
    std::vector<retrieval::Collection> out{global()};
    std::error_code ec;
    std::vector<std::string> ids;
    for (fs::directory_iterator it(root_ / "projects", ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code st;
        auto name = it->path().filename().string();
        if (!name.empty() && name[0] != '.' && it->is_directory(st) && !it->is_symlink(st)) ids.push_back(name);
    }
    std::sort(ids.begin(), ids.end());
    for (auto& id : ids) out.push_back({"projects/" + id, root_ / "projects" / id});
    return out;
}

std::vector<retrieval::Collection> Store::visible(const std::optional<Project>& p) const {
    std::vector<retrieval::Collection> out;
    if (p) out.push_back(project(*p));
    out.push_back(global());
    return out;
}

void Store::sync_all(retrieval::Index& index) {
    for (auto& c : every()) {
        try {
            index.sync(c, {}, [this] { engine_.let_reads_in(); });
            embed(index, c);
        } catch (const std::exception& e) {
            host_.warn("memory '" + c.name + "' could not be indexed: " + e.what());
        }
    }
    count(index);
}

void Store::count(retrieval::Index& index) {
    std::size_t n = 0;
    for (auto& c : every()) n += index.stats(c.name).documents;
    std::lock_guard<std::mutex> g(mu_);
    facts_ = n;
}

void Store::embed(retrieval::Index& index, const retrieval::Collection& c) {
    auto s = settings();
    if (!s.embeddings) return;
    auto st = index.stats(c.name);
    if (st.vectors >= st.chunks && st.embedding_model.rfind(s.embeddings->model, 0) == 0) return;
    try {
        auto embedder = knowledge::shared_embedders().get(host_, *s.embeddings);
        index.embed_pending(c.name, *embedder);
    } catch (const std::exception& e) {
        host_.warn("memory '" + c.name + "': embeddings not updated: " + e.what());
    }
}

FactFile Store::remember(retrieval::Index& index, const std::string& text, const std::optional<Project>& project,
                         const std::vector<std::string>& tags, const std::string& source) {
    auto c = project ? this->project(*project) : global();
    std::error_code ec;
    fs::create_directories(c.root, ec);
    if (ec) throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot create " + c.root.string() + ": " + ec.message());
    FactFile f;
    f.scope = c.name;
    f.fact.created = f.fact.updated = now_iso();
    f.fact.tags = tags;
    f.fact.source = source;
    if (project) f.fact.project = project->root.string();
    f.fact.text = text;
    do {
        f.fact.id = new_id();
        f.file = c.root / file_name(f.fact);
    } while (fs::exists(f.file, ec));
    if (auto failed = coffer::write_file_atomic(f.file, render(f.fact), 0600); !failed.empty())
        throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot write the fact: " + failed);
    // The fact's text is the user's data: the audit row names the file, not what it says.
    host_.audit("memory_remembered", "memory:" + c.name,
                json::object{{"id", f.fact.id}, {"file", f.file.filename().string()}, {"agent", source}});
    index.refresh(c, f.file.filename().string());
    count(index);
    return f;
}

retrieval::Answer Store::search(retrieval::Index& index, const knowledge::SearchArgs& args,
                                const std::vector<retrieval::Collection>& within) {
    auto s = settings();
    retrieval::Query q;
    q.text = args.query;
    q.mode = args.mode.value_or(s.default_mode);
    q.top_k = args.top_k;
    std::vector<retrieval::Collection> roots;
    std::error_code ec;
    for (auto& c : within)
        if (fs::is_directory(c.root, ec)) {
            q.collections.push_back(c.name);
            roots.push_back(c);
        }
    if (roots.empty()) return {};
    return knowledge::search_degrading(index, host_, knowledge::shared_embedders(), q, roots, s.embeddings);
}

std::optional<FactFile> Store::find(const std::string& ref, const std::vector<retrieval::Collection>& within) const {
    // An id, a file name, or a path ending in one: the id in it decides.
    std::string id = valid_id(ref) ? ref : id_from_name(fs::path(ref).filename().string());
    if (id.empty()) return std::nullopt;
    std::string suffix = "-" + id + ".md";
    for (auto& c : within)
        for (auto& file : files_of(c)) {
            auto name = file.filename().string();
            if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
                return load(file, c.name);
        }
    return std::nullopt;
}

std::vector<FactFile> Store::list(const std::vector<retrieval::Collection>& within) const {
    std::vector<FactFile> out;
    for (auto& c : within)
        for (auto& file : files_of(c)) out.push_back(load(file, c.name));
    return out;
}

FactFile Store::forget(retrieval::Index& index, const std::string& ref, const std::vector<retrieval::Collection>& within,
                       const std::string& actor) {
    auto f = find(ref, within);
    if (!f) throw sdk::Error(COFFER_E_NOT_FOUND, "No memory '" + ref + "' here (give the id shown by recall)");
    std::error_code ec;
    if (!fs::remove(f->file, ec) || ec)
        throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot delete " + f->file.string() + ": " + ec.message());
    host_.audit("memory_forgotten", "memory:" + f->scope,
                json::object{{"id", f->fact.id}, {"file", f->file.filename().string()}, {"agent", actor}});
    for (auto& c : within)
        if (c.name == f->scope) index.refresh(c, f->file.filename().string());
    count(index);
    return *f;
}

void Store::on_changes(const std::vector<std::string>& rels, bool rescan) {
    if (rescan) {
        engine_.post([this](retrieval::Index& index) { sync_all(index); });
        return;
    }
    engine_.post([this, rels](retrieval::Index& index) {
        for (auto& rel : rels) {
            // "global/<file>" or "projects/<id>/<file>…"
            if (rel.rfind("global/", 0) == 0) {
                index.refresh(global(), rel.substr(7));
            } else if (rel.rfind("projects/", 0) == 0) {
                auto slash = rel.find('/', 9);
                if (slash == std::string::npos) continue;
                auto id = rel.substr(9, slash - 9);
                index.refresh({"projects/" + id, root_ / "projects" / id}, rel.substr(slash + 1));
            }
        }
        count(index);
    });
}

}  // namespace coffer::plugins::memory
