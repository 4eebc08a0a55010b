// Test support: JSON assertions by value (see json_check.hpp).
#include "json_check.hpp"

namespace coffer::test {

namespace json = boost::json;

json::value parse(std::string_view text) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec) return json::value(nullptr);
    return v;
}

std::string string_at(const json::value& doc, std::string_view pointer) {
    boost::system::error_code ec;
    auto* v = doc.find_pointer(pointer, ec);
    if (!v || !v->is_string()) return "<no string at " + std::string(pointer) + ">";
    return std::string(v->get_string());
}

std::string string_at(std::string_view text, std::string_view pointer) { return string_at(parse(text), pointer); }

bool has_member(const json::value& doc, std::string_view pointer, std::string_view key, std::string_view value) {
    boost::system::error_code ec;
    auto* v = doc.find_pointer(pointer, ec);
    if (!v || !v->is_array()) return false;
    for (auto& e : v->get_array()) {
        auto* o = e.if_object();
        if (!o) continue;
        auto* m = o->if_contains(key);
        if (m && m->is_string() && m->get_string() == value) return true;
    }
    return false;
}

}  // namespace coffer::test
