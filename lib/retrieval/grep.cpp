// The grep engine (see grep.hpp).
#include "retrieval/grep.hpp"

#include "retrieval/snippet.hpp"
#include "retrieval/spawn.hpp"

#include <boost/json.hpp>

namespace coffer::retrieval {
namespace fs = std::filesystem;
namespace {

constexpr std::chrono::seconds kTimeout{10};
constexpr std::size_t kMaxOutput = 16 * 1024 * 1024;

std::vector<std::string> rg_argv(const Query& q, const fs::path& root) {
    std::vector<std::string> a = {"rg",          "--json",       "--no-config", "--no-ignore",
                                  "--smart-case", "--line-number", "--sort",      "path",
                                  "--iglob",      "*.md",          "--iglob",     "*.markdown"};
    if (!q.regex) a.push_back("--fixed-strings");
    a.push_back("-e");
    a.push_back(q.text);
    a.push_back("--");
    a.push_back(root.string());
    return a;
}

// Title and heading path of the indexed chunk holding `line` (the nearest one before it when the
// line falls between chunks); the file stem and no heading when the file is not indexed.
void describe(sql::Db& db, Hit& h) {
    sql::Stmt st(db,
                 "SELECT d.title, c.heading FROM documents d LEFT JOIN chunks c ON c.doc_id = d.id AND c.line_from <= ?3 "
                 "WHERE d.collection = ?1 AND d.path = ?2 ORDER BY c.line_from DESC LIMIT 1");
    st.bind(1, h.collection).bind(2, h.path).bind(3, h.line_from);
    if (st.step()) {
        h.title = st.text(0);
        h.heading = st.text(1);
    } else {
        h.title = fs::path(h.path).stem().string();
    }
}

// One `"type":"match"` record of rg --json as a hit (without title and heading); false for other
// records and for paths that are not UTF-8 (rg sends those as base64 "bytes").
bool parse_match(std::string_view line, const Collection& c, Hit& h) {
    boost::system::error_code ec;
    auto v = boost::json::parse(line, ec);
    if (ec || !v.is_object()) return false;
    const auto& o = v.as_object();
    if (auto* t = o.if_contains("type"); !t || !t->is_string() || t->as_string() != "match") return false;
    const auto* data = o.if_contains("data");
    if (!data || !data->is_object()) return false;
    const auto* path = data->as_object().if_contains("path");
    const auto* lines = data->as_object().if_contains("lines");
    const auto* number = data->as_object().if_contains("line_number");
    if (!path || !lines || !number || !number->is_int64()) return false;
    const auto* ptext = path->is_object() ? path->as_object().if_contains("text") : nullptr;
    const auto* ltext = lines->is_object() ? lines->as_object().if_contains("text") : nullptr;
    if (!ptext || !ptext->is_string()) return false;
    h.collection = c.name;
    h.path = fs::path(std::string(ptext->as_string())).lexically_relative(c.root).generic_string();
    h.line_from = h.line_to = static_cast<int>(number->as_int64());
    std::string text = ltext && ltext->is_string() ? std::string(ltext->as_string()) : std::string();
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    h.snippet = cut_utf8(text, kSnippetBytes);
    h.score = 1;
    h.engine = "grep";
    return !h.path.empty() && h.path.rfind("..", 0) != 0;
}

[[noreturn]] void fail(const SpawnResult& r) {
    std::string msg = r.stderr_text.substr(0, 500);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (msg.find("regex") != std::string::npos) throw Error(Error::Code::invalid, "invalid regular expression: " + msg);
    throw Error(Error::Code::io, "ripgrep failed: " + msg);
}

}  // namespace

std::vector<Hit> grep_search(sql::Db& db, const Query& q, const std::vector<Collection>& roots) {
    std::vector<Hit> hits;
    const auto want = static_cast<std::size_t>(q.top_k);
    for (const auto& c : roots) {
        if (hits.size() >= want) break;
        auto r = spawn_lines(rg_argv(q, c.root), kTimeout, kMaxOutput, [&](std::string_view line) {
            Hit h;
            if (parse_match(line, c, h) && h.path.compare(0, q.path_prefix.size(), q.path_prefix) == 0)
                hits.push_back(std::move(h));
            return hits.size() < want;
        });
        // rg: 0 found, 1 nothing found, 2 an error (possibly after some matches).
        if (r.exit_code == 2 && hits.empty()) fail(r);
        if (r.timed_out && hits.empty()) throw Error(Error::Code::unavailable, "ripgrep timed out");
    }
    for (auto& h : hits) describe(db, h);
    return hits;
}

}  // namespace coffer::retrieval
