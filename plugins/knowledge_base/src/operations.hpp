// What the knowledge_base tools and actions do, on the index worker: search one or several
// knowledge bases, read a document's lines, list documents, write a document (confined, atomic,
// audited, indexed before returning). Each throws sdk::Error with a message for the caller.
#pragma once

#include "library.hpp"

#include "documents.hpp"
#include "tool_args.hpp"

#include <string>
#include <vector>

namespace coffer::plugins::knowledge_base {

inline constexpr std::size_t kMaxReadBytes = 64 * 1024;
inline constexpr std::size_t kMaxWriteBytes = 1024 * 1024;
inline constexpr std::size_t kMaxListed = 1000;

struct SearchRequest {
    knowledge::SearchArgs args;
    retrieval::Mode mode = retrieval::Mode::keyword;  // args.mode, else the asking KB's default
    bool regex = false;                               // grep: the query is a regular expression
    std::string path_prefix;
};

// Knowledge bases with different embedding settings are searched separately (their vectors live
// in different spaces) and their hit lists interleaved by rank.
retrieval::Answer search(retrieval::Index& index, const sdk::Host& host, const std::vector<SpecPtr>& specs,
                         const SearchRequest& req);

// Lines from..to of a document (numbered when `numbered`), at most kMaxReadBytes.
struct ReadResult {
    std::string path;
    knowledge::Excerpt excerpt;
};
ReadResult read_document(const KbSpec& spec, const std::string& path, int from, int to, bool numbered);

enum class WriteMode { create, replace, append };
std::optional<WriteMode> parse_write_mode(std::string_view text);

// Writes `content` to `path` in `spec`'s folder and indexes it before returning.
// Returns {path, mode, bytes, created}.
json::object write_document(retrieval::Index& index, Library& lib, const KbSpec& spec, const std::string& path,
                            const std::string& content, WriteMode mode, const std::string& agent);

}  // namespace coffer::plugins::knowledge_base
