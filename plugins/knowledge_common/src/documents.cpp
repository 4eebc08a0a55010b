// Listing and reading Markdown documents from their files (see documents.hpp).
#include "documents.hpp"

#include "confine.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

namespace coffer::knowledge {

namespace fs = std::filesystem;

namespace {

std::string trim(std::string_view s) {
    auto b = s.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(" \t\r");
    return std::string(s.substr(b, e - b + 1));
}

std::string unquote(std::string s) {
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) return s.substr(1, s.size() - 2);
    return s;
}

std::string head_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string buf(8192, '\0');
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.resize(static_cast<std::size_t>(in.gcount()));
    return buf;
}

}  // namespace

std::string title_of(std::string_view text, std::string_view stem) {
    std::size_t at = 0;
    bool in_front = text.substr(0, 4) == "---\n" || text.substr(0, 5) == "---\r\n";
    bool first = true;
    while (at < text.size()) {
        auto nl = text.find('\n', at);
        auto line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
        at = nl == std::string_view::npos ? text.size() : nl + 1;
        if (in_front) {
            if (!first && trim(line) == "---") in_front = false;
            else if (line.substr(0, 6) == "title:") {
                auto t = unquote(trim(line.substr(6)));
                if (!t.empty()) return t;
            }
            first = false;
            continue;
        }
        if (line.substr(0, 2) == "# ") {
            auto t = trim(line.substr(2));
            if (!t.empty()) return t;
        }
    }
    return std::string(stem);
}

std::vector<DocumentInfo> list_documents(const fs::path& root, std::string_view prefix, std::size_t limit,
                                         bool* truncated) {
    std::vector<DocumentInfo> out;
    if (truncated) *truncated = false;
    std::error_code ec;
    auto croot = fs::canonical(root, ec);
    if (ec) return out;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        const auto& e = *it;
        auto name = e.path().filename().string();
        std::error_code st;
        if (!name.empty() && name[0] == '.') {
            if (e.is_directory(st)) it.disable_recursion_pending();
            continue;
        }
        if (e.is_symlink(st)) {
            it.disable_recursion_pending();
            auto target = fs::canonical(e.path(), st);
            auto r = croot.generic_string();
            if (st || target.generic_string().compare(0, r.size() + 1, r + "/") != 0 || !fs::is_regular_file(target, st))
                continue;
        } else if (!e.is_regular_file(st)) {
            continue;
        }
        if (!is_markdown_name(name)) continue;
        auto rel = e.path().lexically_relative(root).generic_string();
        if (rel.compare(0, prefix.size(), prefix) != 0) continue;
        out.push_back(DocumentInfo{rel, title_of(head_of(e.path()), e.path().stem().string()), e.file_size(st)});
    }
    std::sort(out.begin(), out.end(), [](const DocumentInfo& a, const DocumentInfo& b) { return a.path < b.path; });
    if (out.size() > limit) {
        out.resize(limit);
        if (truncated) *truncated = true;
    }
    return out;
}

Excerpt read_lines(const fs::path& file, int from, int to, std::size_t max_bytes) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + file.filename().string());
    Excerpt out;
    out.from = std::max(1, from);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (n < out.from || (to > 0 && n > to) || out.truncated) continue;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        std::string numbered = std::to_string(n) + "\t" + line + "\n";
        if (out.text.size() + numbered.size() > max_bytes && n > out.from) {
            out.truncated = true;
            continue;
        }
        out.text += numbered;
        out.to = n;
    }
    out.total = n;
    if (out.to == 0) out.to = std::min(out.total, out.from - 1);
    return out;
}

}  // namespace coffer::knowledge
