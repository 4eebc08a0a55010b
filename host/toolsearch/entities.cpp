#include "toolsearch/entities.hpp"

#include "toolsearch/tokenize.hpp"

#include <algorithm>
#include <cctype>

namespace coffer::toolsearch {

namespace {

constexpr std::string_view kTopLevelDomains[] = {"com", "org", "net", "io", "dev", "ai", "app", "co", "gov", "edu",
                                                 "info", "me", "cn", "uk", "de", "jp", "fr", "us"};

bool is_tld(std::string_view s) {
    return std::find(std::begin(kTopLevelDomains), std::end(kTopLevelDomains), s) != std::end(kTopLevelDomains);
}

bool all_of(std::string_view s, int (*pred)(int)) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return pred(static_cast<unsigned char>(c)) != 0; });
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// The request's whitespace-separated pieces, with surrounding punctuation trimmed.
std::vector<std::string_view> pieces(std::string_view q) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < q.size()) {
        while (i < q.size() && std::isspace(static_cast<unsigned char>(q[i]))) ++i;
        std::size_t j = i;
        while (j < q.size() && !std::isspace(static_cast<unsigned char>(q[j]))) ++j;
        auto p = q.substr(i, j - i);
        while (!p.empty() && std::string_view(",;!?\"'()[]<>").find(p.back()) != std::string_view::npos) p.remove_suffix(1);
        while (!p.empty() && p.back() == '.') p.remove_suffix(1);  // the sentence's full stop
        while (!p.empty() && std::string_view("\"'([<").find(p.front()) != std::string_view::npos) p.remove_prefix(1);
        if (!p.empty()) out.push_back(p);
        i = j;
    }
    return out;
}

// What one piece (lower-cased) is, as type words ("" when nothing).
std::string_view type_of(std::string_view s) {
    if (s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0 || s.rfind("www.", 0) == 0) return "url web page";
    if (auto at = s.find('@'); at != std::string_view::npos && at > 0 && s.find('.', at) != std::string_view::npos)
        return "email";
    if (s.rfind("/", 0) == 0 || s.rfind("~/", 0) == 0 || s.rfind("./", 0) == 0) {
        if (s.size() > 1) return "path directory";
        return "";
    }
    if (auto colon = s.rfind(':'); colon != std::string_view::npos && colon > 0 && all_of(s.substr(colon + 1), std::isdigit))
        return "port";
    if (auto dot = s.rfind('.'); dot != std::string_view::npos && dot > 0 && dot + 1 < s.size()) {
        auto ext = s.substr(dot + 1), base = s.substr(0, dot);
        if (is_tld(ext) && base.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-.") == std::string_view::npos)
            return "url web page site";
        if (ext.size() <= 5 && all_of(ext, std::isalnum) && !all_of(ext, std::isdigit) && !all_of(base, std::isdigit))
            return "file";
    }
    return "";
}

}  // namespace

std::vector<std::string> entity_terms(std::string_view query) {
    std::string words;
    int numbers = 0;
    const std::string lowered = lower(query);  // ASCII only: the pieces keep their byte offsets
    auto ps = pieces(lowered);
    for (std::size_t i = 0; i < ps.size(); ++i) {
        auto p = ps[i];
        if (all_of(p, std::isdigit) || (p.size() > 1 && p[0] == '-' && all_of(p.substr(1), std::isdigit))) ++numbers;
        if (auto t = type_of(p); !t.empty()) (words += ' ') += t;
        if (p == "who" || p == "whom" || p == "whose") words += " user people member";
        else if (p == "where") words += " location place address";
        else if (p == "when") words += " time date";
        else if (p == "how" && i + 1 < ps.size()) {
            auto next = ps[i + 1];
            if (next == "many" || next == "much") words += " count size";
            else if (next == "long") words += " duration time";
            else if (next == "far") words += " distance";
        }
    }
    if (numbers >= 2) words += " number";
    std::vector<std::string> out;
    tokenize(words, out);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

}  // namespace coffer::toolsearch
