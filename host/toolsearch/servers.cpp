#include "toolsearch/servers.hpp"

#include "toolsearch/tokenize.hpp"

#include <algorithm>
#include <cctype>

namespace coffer::toolsearch {

void Servers::add_tool(std::string_view namespaced_name) {
    auto sep = namespaced_name.find("__");
    if (sep == std::string_view::npos || sep == 0) {
        tool_server_.push_back(kNone);
        return;
    }
    auto server = namespaced_name.substr(0, sep);
    // Tools of one server usually come together: the last server first.
    for (std::uint32_t i = static_cast<std::uint32_t>(names_.size()); i-- > 0;)
        if (names_[i] == server) {
            tool_server_.push_back(i);
            return;
        }
    auto id = static_cast<std::uint32_t>(names_.size());
    names_.emplace_back(server);
    tool_server_.push_back(id);
    // Its words (tokenized: "desktop-commander" → desktop, command) and the name as one word.
    auto words = tokenize(server);
    std::string whole;
    for (char c : server)
        if (std::isalnum(static_cast<unsigned char>(c))) whole += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!whole.empty()) words.push_back(whole);
    for (auto& w : words) {
        auto entry = std::make_pair(std::move(w), id);
        auto at = std::lower_bound(words_.begin(), words_.end(), entry);
        if (at == words_.end() || *at != entry) words_.insert(at, std::move(entry));
    }
}

// Marks the servers `candidate` names: a word of theirs equal to it, starting with it (when it has
// kMinPrefix letters or more), or a word of kMinPrefix letters or more that it starts with.
void Servers::mark(std::string_view candidate, std::vector<bool>& out) const {
    auto from = [&](std::string_view key) {
        return std::lower_bound(words_.begin(), words_.end(), key,
                                [](const auto& e, std::string_view k) { return std::string_view(e.first) < k; });
    };
    for (auto it = from(candidate); it != words_.end() && std::string_view(it->first).substr(0, candidate.size()) == candidate;
         ++it)
        if (it->first.size() == candidate.size() || candidate.size() >= kMinPrefix) out[it->second] = true;
    for (std::size_t n = kMinPrefix; n < candidate.size(); ++n)
        for (auto it = from(candidate.substr(0, n)); it != words_.end() && it->first == candidate.substr(0, n); ++it)
            out[it->second] = true;
}

std::vector<bool> Servers::named(const std::vector<std::string>& terms) const {
    std::vector<bool> out(names_.size(), false);
    if (names_.empty()) return out;
    std::string pair;
    for (std::size_t i = 0; i < terms.size(); ++i) {
        mark(terms[i], out);
        if (i + 1 < terms.size()) {
            pair.assign(terms[i]).append(terms[i + 1]);
            mark(pair, out);
        }
    }
    return out;
}

}  // namespace coffer::toolsearch
