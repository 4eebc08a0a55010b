#include "toolsearch/servers.hpp"

#include "toolsearch/tokenize.hpp"

#include <algorithm>
#include <cctype>

namespace coffer::toolsearch {

namespace {

bool prefix_match(std::string_view a, std::string_view b) {
    if (a.size() > b.size()) std::swap(a, b);
    return a.size() >= Servers::kMinPrefix && b.substr(0, a.size()) == a;
}

bool names(const std::vector<std::string>& words, std::string_view term) {
    for (auto& w : words)
        if (w == term || prefix_match(w, term)) return true;
    return false;
}

}  // namespace

void Servers::add_tool(std::string_view namespaced_name) {
    auto sep = namespaced_name.find("__");
    if (sep == std::string_view::npos || sep == 0) {
        tool_server_.push_back(kNone);
        return;
    }
    auto server = namespaced_name.substr(0, sep);
    for (std::uint32_t i = names_.size(); i-- > 0;)
        if (names_[i].name == server) {
            tool_server_.push_back(i);
            return;
        }
    Server s{std::string(server), tokenize(server)};
    std::string whole;
    for (char c : server)
        if (std::isalnum(static_cast<unsigned char>(c))) whole += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!whole.empty() && std::find(s.words.begin(), s.words.end(), whole) == s.words.end()) s.words.push_back(whole);
    names_.push_back(std::move(s));
    tool_server_.push_back(static_cast<std::uint32_t>(names_.size() - 1));
}

std::vector<bool> Servers::named(const std::vector<std::string>& terms) const {
    std::vector<bool> out(names_.size(), false);
    for (std::size_t s = 0; s < names_.size(); ++s) {
        for (std::size_t i = 0; i < terms.size() && !out[s]; ++i) {
            if (names(names_[s].words, terms[i])) out[s] = true;
            else if (i + 1 < terms.size() && names(names_[s].words, terms[i] + terms[i + 1])) out[s] = true;
        }
    }
    return out;
}

}  // namespace coffer::toolsearch
