// Query expansion: extra terms added to a query (never to the index), each with a weight.
//
// - CJK words of a small built-in glossary of tool vocabulary bring their English equivalents,
//   so "创建一个仓库" also looks for "create" and "repository" in English descriptions.
// - Common abbreviations bring their full form (repo → repository, k8s → kubernetes) at full weight.
// - A few near-synonyms of tool verbs and objects (ticket ~ issue, find ~ search) at half weight.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coffer::toolsearch {

struct WeightedTerm {
    std::string term;  // already tokenized and stemmed
    float weight = 1;
};

// Expansion terms for `query`, whose own terms are `query_terms` (tokenize(query)).
std::vector<WeightedTerm> expand(std::string_view query, const std::vector<std::string>& query_terms);

}  // namespace coffer::toolsearch
