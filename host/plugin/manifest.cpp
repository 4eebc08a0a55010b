#include "plugin/manifest.hpp"

#include "core/files.hpp"

#include <boost/json.hpp>

#include <regex>

namespace coffer::plugin {

namespace json = boost::json;
using core::Error;

namespace {
Error bad(const std::filesystem::path& p, const std::string& why) {
    return Error::make(core::code::bad_request, "malformed manifest " + p.filename().string() + ": " + why);
}
bool valid_ident(const std::string& s) {
    static const std::regex re("^[a-z][a-z0-9_]{0,31}$");
    return std::regex_match(s, re);
}
}  // namespace

core::Result<Manifest> parse_manifest(const std::filesystem::path& path) {
    auto text = core::read_file(path);
    if (!text) return text.error();
    return parse_manifest_text(*text, path);
}

core::Result<Manifest> parse_manifest_text(const std::string& text, const std::filesystem::path& path) {
    boost::system::error_code ec;
    auto v = json::parse(text, ec);
    if (ec) return bad(path, "not valid JSON (" + ec.message() + ")");
    if (!v.is_object()) return bad(path, "must be a JSON object");
    auto& o = v.as_object();
    Manifest m;
    m.path = path;
    auto str = [&](const char* key, std::string& out) -> bool {
        auto* p = o.if_contains(key);
        if (!p || !p->is_string() || p->as_string().empty()) return false;
        out = std::string(p->as_string());
        return true;
    };
    if (!str("name", m.name)) return bad(path, "\"name\" must be a non-empty string");
    if (!valid_ident(m.name)) return bad(path, "\"name\" must match ^[a-z][a-z0-9_]{0,31}$");
    if (!str("version", m.version)) return bad(path, "\"version\" must be a non-empty string");
    std::string lib;
    if (!str("library", lib)) return bad(path, "\"library\" must be a non-empty string");
    std::filesystem::path libp(lib);
    if (libp.is_absolute() || lib.find("..") != std::string::npos || libp.has_parent_path())
        return bad(path, "\"library\" must be a file name beside the manifest");
    m.library = path.parent_path() / libp;
    auto* abi = o.if_contains("abi");
    if (!abi || !abi->is_object()) return bad(path, "\"abi\" must be an object {\"major\",\"minor\"}");
    auto* major = abi->as_object().if_contains("major");
    auto* minor = abi->as_object().if_contains("minor");
    if (!major || !major->is_int64() || !minor || !minor->is_int64())
        return bad(path, "\"abi.major\" and \"abi.minor\" must be integers");
    m.abi_major = static_cast<int>(major->as_int64());
    m.abi_minor = static_cast<int>(minor->as_int64());
    auto* kinds = o.if_contains("kinds");
    if (!kinds || !kinds->is_array()) return bad(path, "\"kinds\" must be an array of kind names");
    for (auto& k : kinds->as_array()) {
        if (!k.is_string() || !valid_ident(std::string(k.as_string())))
            return bad(path, "every kind must be a string matching ^[a-z][a-z0-9_]{0,31}$");
        m.kinds.emplace_back(k.as_string());
    }
    return m;
}

}  // namespace coffer::plugin
