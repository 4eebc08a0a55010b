// The Markdown chunker: splits one file into heading-aware chunks with 1-based line ranges, and
// finds the document's title. Sections start at ATX headings (`#` … `######`); a section longer
// than kMaxChunkBytes is split further at paragraph boundaries (blank lines); a fenced code block
// (``` or ~~~) is never split, and a `#` inside one is not a heading. YAML frontmatter (a first
// line `---` up to the next `---` or `...`) is not chunked; its `title:` names the document.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace coffer::retrieval {

inline constexpr std::size_t kMaxChunkBytes = 2000;

struct Chunk {
    std::string heading;  // "Install > Debian"; empty before the first heading
    int line_from = 0;    // 1-based, inclusive, counted in the whole file (frontmatter included)
    int line_to = 0;
    std::string text;     // those lines, '\n'-joined (a trailing '\r' removed)
};

struct ParsedDocument {
    std::string title;  // frontmatter title, else the first H1, else `fallback_title`
    std::vector<Chunk> chunks;
};

ParsedDocument parse_markdown(std::string_view text, std::string_view fallback_title);

}  // namespace coffer::retrieval
