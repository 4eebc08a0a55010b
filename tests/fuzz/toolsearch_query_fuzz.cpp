// Fuzz target: tool search's handling of what agents and upstreams send it (host/toolsearch).
// A `coffer__search_tools` query is any text an agent writes, and a tool definition is whatever
// an upstream lists. For any bytes:
//   - tokenize() gives non-empty, valid UTF-8 terms;
//   - phrases() gives WordNet phrases of two or three lower-case ASCII words;
//   - Index::query() over a fixed catalog returns at most `limit` tools, each once, with finite
//     positive scores, best first, and the same answer when asked again;
//   - when the bytes are a JSON object, tool_text() reads it as a tool definition, and an index
//     holding it beside the fixed catalog answers a query for its own description the same way.
#include "fuzz_check.hpp"
#include "toolsearch/index.hpp"
#include "toolsearch/lexicon.hpp"
#include "toolsearch/schema_fields.hpp"
#include "toolsearch/tokenize.hpp"

#include <coffer/utf8.hpp>

#include <boost/json.hpp>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace ts = coffer::toolsearch;

std::vector<ts::ToolText> catalog() {
    return {
        {"fs__read_text_file", "Read the complete contents of a file as text", {"path", "head", "tail"},
         {"Path of the file to read"}, "Files under the allowed directories."},
        {"fs__move_file", "Move or rename files and directories", {"source", "destination"}, {}, ""},
        {"git__git_reset", "Reset current HEAD to the specified state; unstage changes", {"mode", "target"}, {}, ""},
        {"db__drop-index", "Drop an index for the provided database and collection", {"database", "collection"}, {}, ""},
        {"maps__maps_geocode", "将地址转换为经纬度坐标 (geocode an address)", {"address"}, {"地址"}, "地图服务"},
        {"chart__generate_pie_chart", "Generate a pie chart to show the proportion of parts", {"data", "title"}, {}, ""},
        {"memory__delete_entities", "Delete multiple entities and their associated relations", {"entityNames"}, {}, ""},
    };
}

void check_hits(const std::vector<ts::Hit>& hits, std::size_t limit, std::size_t tools) {
    FUZZ_CHECK(limit == 0 || hits.size() <= limit);
    std::set<std::size_t> seen;
    for (std::size_t i = 0; i < hits.size(); ++i) {
        FUZZ_CHECK(hits[i].tool < tools);
        FUZZ_CHECK(seen.insert(hits[i].tool).second);
        FUZZ_CHECK(std::isfinite(hits[i].score) && hits[i].score > 0);
        if (i) FUZZ_CHECK(hits[i - 1].score >= hits[i].score);
    }
}

void check_query(const ts::Index& index, std::string_view text, std::size_t tools) {
    for (std::size_t limit : {std::size_t{0}, std::size_t{3}}) {
        auto hits = index.query(text, limit);
        check_hits(hits, limit, tools);
        auto again = index.query(text, limit);
        FUZZ_CHECK(again.size() == hits.size());
        for (std::size_t i = 0; i < hits.size(); ++i)
            FUZZ_CHECK(again[i].tool == hits[i].tool && again[i].score == hits[i].score);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(bytes), size);
    static const auto tools = catalog();
    static const ts::Index index(tools);

    for (auto& term : ts::tokenize(text)) FUZZ_CHECK(!term.empty() && coffer::utf8::valid(term));
    for (auto& p : ts::phrases(text)) {
        FUZZ_CHECK(p.words.size() == 2 || p.words.size() == 3);
        FUZZ_CHECK(!p.related.empty());
        for (auto& w : p.words) {
            FUZZ_CHECK(!w.empty());
            for (char c : w) FUZZ_CHECK(c >= 'a' && c <= 'z');
        }
    }
    check_query(index, text, tools.size());

    boost::system::error_code ec;
    auto v = boost::json::parse(text, ec);
    if (ec || !v.is_object()) return 0;
    auto more = tools;
    more.push_back(ts::tool_text(v.as_object()));
    FUZZ_CHECK(more.back().parameters.size() <= ts::kMaxParameters);
    ts::Index with(more);
    check_query(with, more.back().description, more.size());
    check_query(with, more.back().name, more.size());
    return 0;
}
