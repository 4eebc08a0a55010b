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

ToolVectors::ToolVectors(const std::vector<ToolText>& tools, retrieval::Embedder& embedder,
                         const std::function<bool()>& stop) {
    model_ = embedder.model_id();
    std::size_t dim = 0;
    std::vector<std::string> texts;
    for (std::size_t at = 0; at < tools.size(); at += kEmbedBatch) {
        if (stop && stop()) {
            rows_.clear();
            return;
        }
        texts.clear();
        for (std::size_t i = at; i < std::min(tools.size(), at + kEmbedBatch); ++i) texts.push_back(embedding_text(tools[i]));
        auto vectors = embedder.embed(texts);
        if (vectors.size() != texts.size()) {
            rows_.clear();
            return;
        }
        for (auto& v : vectors) {
            if (dim == 0) dim = v.size();
            if (v.empty() || v.size() != dim) {  // vectors of one space have one length
                rows_.clear();
                return;
            }
            rows_.insert(rows_.end(), v.begin(), v.end());
        }
    }
    dim_ = rows_.empty() ? 0 : dim;
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
