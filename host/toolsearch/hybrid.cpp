#include "toolsearch/hybrid.hpp"

#include "retrieval/embedder.hpp"
#include "retrieval/fusion.hpp"
#include "retrieval/vector_math.hpp"

#include <coffer/utf8.hpp>

#include <algorithm>

namespace coffer::toolsearch {

namespace {

// "create_pull_request" → "create pull request"; "API-get-users" → "API get users".
std::string spaced(std::string_view name) {
    std::string out;
    for (char c : name) out += (c == '_' || c == '-' || c == '.') ? ' ' : c;
    return out;
}

}  // namespace

std::unique_ptr<retrieval::Embedder> make_embedder(const HybridSettings& settings, std::chrono::milliseconds timeout,
                                                   int attempts) {
    retrieval::EmbeddingConfig config;
    config.base_url = settings.base_url;
    config.model = settings.model;
    config.api_key = settings.api_key;
    config.timeout = timeout;
    config.max_attempts = attempts;
    return retrieval::make_http_embedder(std::move(config));
}

std::string embedding_text(const ToolText& tool) {
    std::string_view name = tool.name;
    std::string text;
    if (auto sep = name.find("__"); sep != std::string_view::npos && sep > 0) {
        text = std::string(name.substr(0, sep)) + ": ";
        name = name.substr(sep + 2);
    }
    text += spaced(name);
    if (!tool.description.empty()) text += ". " + tool.description;
    if (!tool.parameters.empty()) {
        text += " (";
        for (std::size_t i = 0; i < tool.parameters.size(); ++i) text += (i ? ", " : "") + tool.parameters[i];
        text += ")";
    }
    text.resize(utf8::cut_before(text, kMaxEmbeddingText));
    return text;
}

std::optional<std::vector<float>> VectorCache::find(const std::string& space, const std::string& text) {
    std::lock_guard lock(mutex_);
    if (space != space_) return std::nullopt;
    auto it = kept_.find(text);
    if (it == kept_.end()) return std::nullopt;
    it->second.used = ++clock_;
    return it->second.vector;
}

void VectorCache::put(const std::string& space, const std::string& text, std::vector<float> vector) {
    std::lock_guard lock(mutex_);
    // Another endpoint or model, or the same one answering with another length: a new space.
    if (space != space_ || (!kept_.empty() && kept_.begin()->second.vector.size() != vector.size())) {
        kept_.clear();
        floats_ = 0;
        space_ = space;
    }
    auto& slot = kept_[text];
    floats_ = floats_ - slot.vector.size() + vector.size();
    slot = Kept{std::move(vector), ++clock_};
    if (floats_ <= max_floats_) return;
    // Over the budget: drop the least recently used down to nine tenths of it at once, not one
    // per put (ages are unique: each use takes the next clock value).
    std::vector<std::pair<std::uint64_t, decltype(kept_)::iterator>> by_age;
    by_age.reserve(kept_.size());
    for (auto it = kept_.begin(); it != kept_.end(); ++it) by_age.emplace_back(it->second.used, it);
    std::sort(by_age.begin(), by_age.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto& entry : by_age) {
        if (floats_ <= max_floats_ - max_floats_ / 10) break;
        auto it = entry.second;
        floats_ -= it->second.vector.size();
        kept_.erase(it);  // erasing one element leaves the other iterators valid
    }
}

std::size_t VectorCache::size() const {
    std::lock_guard lock(mutex_);
    return kept_.size();
}

ToolVectors::ToolVectors(const std::vector<ToolText>& tools, retrieval::Embedder& embedder,
                         const std::function<bool()>& stop, VectorCache* cache, std::string space) {
    model_ = embedder.model_id();
    if (space.empty()) space = model_;
    std::vector<std::string> texts;
    std::vector<std::vector<float>> vectors(tools.size());
    std::vector<std::size_t> missing;  // the tools whose text the cache does not hold
    texts.reserve(tools.size());
    for (std::size_t i = 0; i < tools.size(); ++i) {
        texts.push_back(embedding_text(tools[i]));
        if (auto kept = cache ? cache->find(space, texts.back()) : std::nullopt) vectors[i] = std::move(*kept);
        else missing.push_back(i);
    }
    std::vector<std::string> batch;
    for (std::size_t at = 0; at < missing.size(); at += kEmbedBatch) {
        if (stop && stop()) return;
        batch.clear();
        for (std::size_t k = at; k < std::min(missing.size(), at + kEmbedBatch); ++k) batch.push_back(texts[missing[k]]);
        auto made = embedder.embed(batch);
        if (made.size() != batch.size()) return;
        for (std::size_t k = 0; k < made.size(); ++k) {
            auto i = missing[at + k];
            if (cache && !made[k].empty()) cache->put(space, texts[i], made[k]);
            vectors[i] = std::move(made[k]);
        }
        embedded_ += batch.size();
    }
    std::size_t dim = vectors.empty() ? 0 : vectors.front().size();
    for (auto& v : vectors)
        if (v.empty() || v.size() != dim) return;  // vectors of one space have one length
    rows_.reserve(vectors.size() * dim);
    for (auto& v : vectors) rows_.insert(rows_.end(), v.begin(), v.end());
    dim_ = dim;
}

std::vector<Hit> ToolVectors::nearest(const std::vector<float>& query, std::size_t limit) const {
    std::vector<Hit> hits;
    if (dim_ == 0 || query.size() != dim_) return hits;
    std::size_t n = rows_.size() / dim_;
    hits.reserve(n);
    for (std::size_t t = 0; t < n; ++t) hits.push_back({t, retrieval::dot(query.data(), rows_.data() + t * dim_, dim_)});
    auto better = [](const Hit& a, const Hit& b) { return a.score != b.score ? a.score > b.score : a.tool < b.tool; };
    keep_best(hits, limit, better);
    return hits;
}

std::vector<Hit> fuse(const std::vector<Hit>& keyword, const std::vector<Hit>& vector, std::size_t limit,
                      double vector_weight) {
    auto ranked = [](const std::vector<Hit>& hits) {
        std::vector<retrieval::Ranked> out;
        out.reserve(hits.size());
        for (auto& h : hits) out.push_back({static_cast<std::int64_t>(h.tool), h.score});
        return out;
    };
    auto fused = retrieval::fuse_rrf(ranked(keyword), ranked(vector), limit ? limit : keyword.size() + vector.size(), vector_weight);
    std::vector<Hit> out;
    out.reserve(fused.size());
    // The fused value, scaled so that first in both lists is 1: the scores fall with the rank, as
    // keyword scores do (each list's own scores are on scales of their own).
    const double top = (1.0 + vector_weight) / (retrieval::kRrfK + 1.0);
    for (auto& f : fused) out.push_back({static_cast<std::size_t>(f.chunk_id), f.rrf / top});
    return out;
}

}  // namespace coffer::toolsearch
