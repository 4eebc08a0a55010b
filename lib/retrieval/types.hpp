// The retrieval library's vocabulary: what a search asks (Query), what it answers (Hit, Answer),
// and how a failure travels (Error). Shared by the knowledge_base and memory plugins (and, later,
// the gateway's tool search): one retrieval library, not one per kind. See
// docs/knowledge-and-memory.md and docs/decisions/0031-retrieval-index.md.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace coffer::retrieval {

// A failure of the library. Inside plugins it is thrown and turned into a coffer_status at the
// ABI edge by the SDK (docs/style.md, "inside a plugin"); a host caller catches it at the call.
class Error : public std::runtime_error {
public:
    enum class Code { invalid, not_found, unavailable, io, internal };
    Error(Code code, const std::string& message) : std::runtime_error(message), code_(code) {}
    Code code() const noexcept { return code_; }

private:
    Code code_;
};

enum class Mode { grep, keyword, vector, hybrid };
const char* to_string(Mode m) noexcept;
std::optional<Mode> parse_mode(std::string_view text) noexcept;  // "grep", "keyword", "vector", "hybrid"

struct Query {
    std::string text;                      // the user's words (or a pattern for grep)
    std::vector<std::string> collections;  // which collections to search; empty = none (never "all" by accident)
    Mode mode = Mode::keyword;
    int top_k = 10;                        // 1..100
    bool regex = false;                    // grep only: the text is a regular expression, not a literal
    std::string path_prefix;               // only documents whose relative path starts with this
};

struct Hit {
    std::string collection;  // the knowledge base (or memory scope) it came from
    std::string path;        // relative to the collection's root, '/'-separated
    std::string title;       // the document's title (frontmatter title, first H1, or the file stem)
    std::string heading;     // the heading path of the chunk, "Install > Debian"; empty before any heading
    int line_from = 0;       // 1-based, inclusive, in the file as it is on disk now
    int line_to = 0;
    double score = 0;        // the engine's own score (bm25 negated so higher is better, cosine, 1 for grep)
    std::string engine;      // "grep", "keyword", "vector" (hybrid: the engine that ranked it best)
    std::string snippet;     // a short excerpt, at most ~300 bytes, valid UTF-8
};

struct Answer {
    std::vector<Hit> hits;  // best first
    bool degraded = false;  // e.g. vector asked for but no embeddings configured: keyword results instead
    std::string degraded_reason;
};

}  // namespace coffer::retrieval
