// Query validation (see validate.hpp).
#include "retrieval/validate.hpp"

#include <coffer/utf8.hpp>

#include <algorithm>

namespace coffer::retrieval {
namespace {
[[noreturn]] void invalid(const std::string& msg) { throw Error(Error::Code::invalid, msg); }
}  // namespace

std::vector<Collection> validate_query(const Query& q, const std::vector<Collection>& known) {
    if (q.text.empty()) invalid("the query is empty");
    if (q.text.size() > kMaxQueryBytes)
        invalid("the query is " + std::to_string(q.text.size()) + " bytes; at most " + std::to_string(kMaxQueryBytes));
    if (!utf8::valid(q.text)) invalid("the query is not valid UTF-8");
    if (!utf8::valid(q.path_prefix)) invalid("path_prefix is not valid UTF-8");
    if (q.top_k < 1 || q.top_k > kMaxTopK)
        invalid("top_k must be between 1 and " + std::to_string(kMaxTopK) + ", not " + std::to_string(q.top_k));
    std::vector<Collection> roots;
    for (const auto& name : q.collections) {
        auto it = std::find_if(known.begin(), known.end(), [&](const Collection& c) { return c.name == name; });
        if (it == known.end()) invalid("unknown collection '" + utf8::escape_invalid(name) + "'");
        if (std::none_of(roots.begin(), roots.end(), [&](const Collection& c) { return c.name == name; }))
            roots.push_back(*it);
    }
    return roots;
}

}  // namespace coffer::retrieval
