// Test support: a deterministic embedding for the retrieval tests and benchmark — a hashed bag of
// words (each lower-cased ASCII word adds ±1 to one of `dim` slots), normalised. Texts sharing
// words are neighbours, so a test can choose which documents a query should find.
#pragma once

#include "retrieval/embedder.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace coffer::test {

inline std::vector<float> bag_of_words(const std::string& text, int dim) {
    std::vector<float> v(static_cast<std::size_t>(dim), 0.0f);
    std::uint64_t h = 1469598103934665603ull;
    bool in_word = false;
    auto finish = [&] {
        if (!in_word) return;
        v[h % static_cast<std::uint64_t>(dim)] += (h >> 40) & 1 ? 1.0f : -1.0f;
        h = 1469598103934665603ull;
        in_word = false;
    };
    for (unsigned char c : text) {
        bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!word) {
            finish();
            continue;
        }
        h = (h ^ static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c)) * 1099511628211ull;
        in_word = true;
    }
    finish();
    double s = 0;
    for (float x : v) s += x * x;
    if (s == 0) {
        v[0] = 1;
        return v;
    }
    for (float& x : v) x = static_cast<float>(x / std::sqrt(s));
    return v;
}

// The same embedding as an in-process Embedder; counts the texts it was asked for.
class BagOfWordsEmbedder : public retrieval::Embedder {
public:
    explicit BagOfWordsEmbedder(int dim = 384, std::string model = "bow") : dim_(dim), model_(std::move(model)) {}
    std::string model_id() const override { return model_ + "@" + std::to_string(dim_); }
    std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) override {
        texts_embedded += texts.size();
        std::vector<std::vector<float>> out;
        for (const auto& t : texts) out.push_back(bag_of_words(t, dim_));
        return out;
    }
    std::size_t texts_embedded = 0;

private:
    int dim_;
    std::string model_;
};

}  // namespace coffer::test
