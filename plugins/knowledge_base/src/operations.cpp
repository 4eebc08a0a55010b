// The knowledge_base operations on the index worker (see operations.hpp).
#include "operations.hpp"

#include "confine.hpp"

#include <coffer/atomic_file.hpp>
#include <coffer/utf8.hpp>

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <sstream>

namespace coffer::plugins::knowledge_base {

namespace {

// One search over `specs`, which share their embedding settings.
retrieval::Answer search_group(retrieval::Index& index, const sdk::Host& host, const std::vector<SpecPtr>& specs,
                               const SearchRequest& req) {
    retrieval::Query q;
    q.text = req.args.query;
    q.mode = req.mode;
    q.top_k = req.args.top_k;
    q.regex = req.regex;
    q.path_prefix = req.path_prefix;
    std::vector<retrieval::Collection> roots;
    for (auto& s : specs) {
        q.collections.push_back(s->name);
        roots.push_back(s->collection());
    }
    return knowledge::search_degrading(index, host, knowledge::shared_embedders(), q, roots, specs.front()->embeddings);
}

std::string settings_key(const KbSpec& s) {
    if (!s.embeddings) return "";
    auto& e = *s.embeddings;
    return e.base_url + "\n" + e.model + "\n" + std::to_string(e.dimensions) + "\n" + e.api_key_ref;
}

std::string read_all(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Creates the folders of `rel` below `root` that are missing.
void make_parents(const fs::path& root, const std::string& rel) {
    auto parent = fs::path(rel).parent_path();
    if (parent.empty()) return;
    std::error_code ec;
    fs::create_directories(root / parent, ec);
    if (ec) throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot create the folder " + parent.generic_string() + ": " + ec.message());
}

}  // namespace

retrieval::Answer search(retrieval::Index& index, const sdk::Host& host, const std::vector<SpecPtr>& specs,
                         const SearchRequest& req) {
    if (specs.empty()) return {};
    bool semantic = req.mode == retrieval::Mode::vector || req.mode == retrieval::Mode::hybrid;
    std::map<std::string, std::vector<SpecPtr>> groups;
    for (auto& s : specs) groups[semantic ? settings_key(*s) : ""].push_back(s);
    if (groups.size() == 1) return search_group(index, host, groups.begin()->second, req);

    std::vector<retrieval::Answer> answers;
    for (auto& [key, group] : groups) answers.push_back(search_group(index, host, group, req));
    retrieval::Answer merged;
    for (auto& a : answers) {
        if (!a.degraded) continue;
        merged.degraded = true;
        if (merged.degraded_reason.find(a.degraded_reason) == std::string::npos)
            merged.degraded_reason += (merged.degraded_reason.empty() ? "" : "; ") + a.degraded_reason;
    }
    for (std::size_t rank = 0; merged.hits.size() < static_cast<std::size_t>(req.args.top_k); ++rank) {
        bool any = false;
        for (auto& a : answers)
            if (rank < a.hits.size() && merged.hits.size() < static_cast<std::size_t>(req.args.top_k)) {
                merged.hits.push_back(a.hits[rank]);
                any = true;
            }
        if (!any) break;
    }
    return merged;
}

ReadResult read_document(const KbSpec& spec, const std::string& path, int from, int to, bool numbered) {
    auto c = knowledge::confine(spec.root, path, false);
    std::error_code ec;
    if (!fs::is_regular_file(c.abs, ec))
        throw sdk::Error(COFFER_E_NOT_FOUND, "No document '" + c.rel + "' in knowledge base '" + spec.name +
                                                 "'; list the documents with the list tool");
    if (!knowledge::is_markdown_name(c.rel))
        throw sdk::Error(COFFER_E_INVALID, "'" + c.rel + "' is not a Markdown document (.md or .markdown)");
    if (to > 0 && to < from) throw sdk::Error(COFFER_E_INVALID, "to_line must not be smaller than from_line");
    ReadResult r{c.rel, knowledge::read_lines(c.abs, from, to, kMaxReadBytes)};
    if (!numbered) {
        // The same lines without their numbers.
        std::string plain;
        std::size_t at = 0;
        auto& t = r.excerpt.text;
        while (at < t.size()) {
            auto tab = t.find('\t', at);
            auto nl = t.find('\n', at);
            plain.append(t, tab + 1, nl - tab);
            at = nl + 1;
        }
        t = std::move(plain);
    }
    return r;
}

std::optional<WriteMode> parse_write_mode(std::string_view t) {
    if (t == "create") return WriteMode::create;
    if (t == "replace") return WriteMode::replace;
    if (t == "append") return WriteMode::append;
    return std::nullopt;
}

json::object write_document(retrieval::Index& index, Library& lib, const KbSpec& spec, const std::string& path,
                            const std::string& content, WriteMode mode, const std::string& agent) {
    if (!spec.writable)
        throw sdk::Error(COFFER_E_DENIED, "Knowledge base '" + spec.name + "' is read-only");
    auto c = knowledge::confine(spec.root, path, true);
    std::error_code ec;
    auto st = fs::symlink_status(c.abs, ec);
    bool exists = !ec && fs::exists(st);
    if (exists && !fs::is_regular_file(st))
        throw sdk::Error(COFFER_E_DENIED, "'" + c.rel + "' is not a regular file (a link or a folder); it is not written");
    if (exists && mode == WriteMode::create)
        throw sdk::Error(COFFER_E_CONFLICT, "'" + c.rel + "' exists already; use mode \"replace\" to overwrite it or "
                                                          "\"append\" to add to it");
    std::string text = content;
    if (mode == WriteMode::append && exists) {
        auto old = read_all(c.abs);
        if (!old.empty() && old.back() != '\n') old += '\n';
        text = old + content;
    }
    if (text.size() > kMaxWriteBytes)
        throw sdk::Error(COFFER_E_INVALID, "the document would be " + std::to_string(text.size()) + " bytes; at most " +
                                               std::to_string(kMaxWriteBytes));
    make_parents(spec.root, c.rel);
    c = knowledge::confine(spec.root, c.rel, true);  // again, now that the folders exist
    unsigned perms = 0644;
    struct stat sb{};
    if (exists && ::stat(c.abs.c_str(), &sb) == 0) perms = sb.st_mode & 07777;
    if (auto failed = coffer::write_file_atomic(c.abs, text, perms); !failed.empty())
        throw sdk::Error(COFFER_E_UNAVAILABLE, "cannot write '" + c.rel + "': " + failed);
    static const char* names[] = {"create", "replace", "append"};
    const char* mode_name = names[static_cast<int>(mode)];
    lib.host().audit("kb_document_written", "knowledge_base:" + spec.name,
                     json::object{{"path", c.rel}, {"mode", mode_name}, {"bytes", text.size()}, {"agent", agent}});
    lib.refresh(index, spec, c.rel);
    return json::object{{"path", c.rel}, {"mode", mode_name}, {"bytes", text.size()}, {"created", !exists}};
}

}  // namespace coffer::plugins::knowledge_base
