#include "credential/ref.hpp"

#include <boost/json.hpp>

namespace coffer::credential {

namespace {
void collect(const boost::json::value& v, std::set<std::string>& out, int depth) {
    if (depth > 64) return;
    if (auto* s = v.if_string()) {
        std::string_view text(*s);
        if (credref::is_credref(text)) out.emplace(credref::ref_of(text));
    } else if (auto* o = v.if_object()) {
        for (auto& [k, child] : *o) collect(child, out, depth + 1);
    } else if (auto* a = v.if_array()) {
        for (auto& child : *a) collect(child, out, depth + 1);
    }
}
}  // namespace


std::set<std::string> referenced_refs(const boost::json::value& config) {
    std::set<std::string> out;
    collect(config, out, 0);
    return out;
}

}  // namespace coffer::credential
