// Path confinement (see confine.hpp).
#include "confine.hpp"

#include <coffer/utf8.hpp>

#include <algorithm>
#include <cctype>

namespace coffer::knowledge {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void invalid(const std::string& m) { throw sdk::Error(COFFER_E_INVALID, m); }

bool inside(const fs::path& canonical_root, const fs::path& p) {
    auto r = canonical_root.generic_string();
    auto s = p.generic_string();
    return s == r || (s.size() > r.size() && s.compare(0, r.size(), r) == 0 && s[r.size()] == '/');
}

std::string normalised(std::string_view rel) {
    if (rel.empty()) invalid("The path must not be empty");
    if (rel.size() > kMaxPathBytes) invalid("The path is too long (at most " + std::to_string(kMaxPathBytes) + " bytes)");
    if (!utf8::valid(rel)) invalid("The path is not valid UTF-8");
    if (rel.find('\0') != std::string_view::npos) invalid("The path contains a NUL character");
    if (rel.find('\\') != std::string_view::npos) invalid("The path must use '/' as separator, not '\\'");
    if (rel.front() == '/' || rel.front() == '~')
        invalid("The path must be relative to the knowledge base's folder, not absolute");
    while (rel.size() > 2 && rel.substr(0, 2) == "./") rel.remove_prefix(2);
    std::string out;
    std::size_t at = 0;
    while (at <= rel.size()) {
        auto slash = rel.find('/', at);
        auto part = rel.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
        if (part.empty()) invalid("The path has an empty component ('//' or a trailing '/')");
        if (part == "..") invalid("The path must not contain '..': documents stay inside the knowledge base's folder");
        if (part == ".") invalid("The path must not contain '.' components");
        if (part.front() == '.') invalid("Hidden names (starting with '.') are not documents: '" + std::string(part) + "'");
        if (part.size() > 255) invalid("A path component is longer than 255 bytes");
        out += (out.empty() ? "" : "/") + std::string(part);
        if (slash == std::string_view::npos) break;
        at = slash + 1;
    }
    return out;
}

}  // namespace

bool is_markdown_name(std::string_view name) {
    auto ends = [&](std::string_view suffix) {
        if (name.size() <= suffix.size()) return false;
        auto tail = name.substr(name.size() - suffix.size());
        return std::equal(tail.begin(), tail.end(), suffix.begin(),
                          [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
    };
    return ends(".md") || ends(".markdown");
}

Confined confine(const fs::path& root, std::string_view rel_in, bool markdown_only) {
    Confined out;
    out.rel = normalised(rel_in);
    if (markdown_only && !is_markdown_name(out.rel))
        invalid("Only Markdown documents (.md or .markdown) can be written: '" + out.rel + "'");
    out.abs = root / fs::path(out.rel);

    std::error_code ec;
    auto croot = fs::canonical(root, ec);
    if (ec) throw sdk::Error(COFFER_E_UNAVAILABLE, "the folder " + root.string() + " cannot be opened: " + ec.message());
    // Each existing prefix: a symbolic link must resolve inside the root.
    fs::path walk = root;
    for (auto& part : fs::path(out.rel)) {
        walk /= part;
        auto st = fs::symlink_status(walk, ec);
        if (ec || !fs::exists(st)) break;  // the rest does not exist yet
        if (fs::is_symlink(st)) {
            auto target = fs::canonical(walk, ec);
            if (ec || !inside(croot, target))
                throw sdk::Error(COFFER_E_DENIED, "'" + out.rel + "' leads outside the knowledge base's folder through a "
                                                  "symbolic link");
        }
    }
    return out;
}

}  // namespace coffer::knowledge
