#include "credential/ref.hpp"

#include <boost/json.hpp>

namespace coffer::credential {

namespace {
bool alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

void collect(const boost::json::value& v, std::set<std::string>& out, int depth) {
    if (depth > 64) return;
    if (auto* s = v.if_string()) {
        std::string_view text(*s);
        if (text.substr(0, kCredrefPrefix.size()) == kCredrefPrefix) out.emplace(text.substr(kCredrefPrefix.size()));
    } else if (auto* o = v.if_object()) {
        for (auto& [k, child] : *o) collect(child, out, depth + 1);
    } else if (auto* a = v.if_array()) {
        for (auto& child : *a) collect(child, out, depth + 1);
    }
}
}  // namespace

std::string ref_problem(std::string_view ref) {
    if (ref.empty()) return "a credential reference must not be empty";
    if (ref.size() > kMaxRefLength)
        return "a credential reference is at most " + std::to_string(kMaxRefLength) + " characters";
    if (!alnum(ref.front())) return "a credential reference must start with a letter or a digit";
    for (char c : ref)
        if (!alnum(c) && c != '.' && c != '_' && c != '-')
            return "a credential reference may contain only letters, digits, '.', '_' and '-'";
    return {};
}

std::set<std::string> referenced_refs(const boost::json::value& config) {
    std::set<std::string> out;
    collect(config, out, 0);
    return out;
}

}  // namespace coffer::credential
