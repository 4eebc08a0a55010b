#include "curation/uri_template.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace coffer::curation {

namespace {

// One part of a template: a literal, or an expression matching a span of the URI.
struct Part {
    bool literal = true;
    std::string_view text;  // the literal
    char op = '\0';         // the expression's operator ('\0': simple)
};

// The farthest end of what the expression `op` may expand to from uri[u] (RFC 6570 §3.2; values
// are percent-encoded, so only each operator's delimiters matter). Every shorter span from u
// fits too, down to the empty expansion (u itself).
std::size_t reach(char op, std::string_view uri, std::size_t u) {
    auto until = [&](std::string_view stop, std::size_t from) {
        auto at = uri.find_first_of(stop, from);
        return at == std::string_view::npos ? uri.size() : at;
    };
    bool starts = u < uri.size() && uri[u] == op;
    switch (op) {
        case '+': return uri.size();
        case '#': return starts ? uri.size() : u;
        case '/': return starts ? until("?#", u + 1) : u;
        case '.': case ';': return starts ? until("/?#", u + 1) : u;
        case '?': case '&': return starts ? until("#", u + 1) : u;
        default: return until("/?#", u);
    }
}

class Matcher {
public:
    Matcher(std::vector<Part> parts, std::string_view uri)
        : parts_(std::move(parts)), uri_(uri), failed_((parts_.size() + 1) * (uri.size() + 1), false) {}
    bool run() { return at(0, 0); }

private:
    bool at(std::size_t p, std::size_t u) {
        if (p == parts_.size()) return u == uri_.size();
        auto key = p * (uri_.size() + 1) + u;
        if (failed_[key]) return false;
        const auto& part = parts_[p];
        bool ok = false;
        if (part.literal) {
            ok = uri_.substr(u, part.text.size()) == part.text && at(p + 1, u + part.text.size());
        } else {
            // The longest span first, then every shorter one.
            for (std::size_t e = reach(part.op, uri_, u) + 1; e-- > u && !ok;) ok = at(p + 1, e);
        }
        if (!ok) failed_[key] = true;
        return ok;
    }

    std::vector<Part> parts_;
    std::string_view uri_;
    std::vector<bool> failed_;  // (part, position) already known not to match
};

}  // namespace

bool uri_template_matches(std::string_view tmpl, std::string_view uri) {
    if (tmpl.size() > 2048 || uri.size() > 2048) return tmpl == uri;  // beyond any name curation keeps
    std::vector<Part> parts;
    std::size_t i = 0;
    while (i < tmpl.size()) {
        auto open = tmpl.find('{', i);
        if (open == std::string_view::npos) {
            parts.push_back({true, tmpl.substr(i), '\0'});
            break;
        }
        auto close = tmpl.find('}', open);
        if (close == std::string_view::npos) return tmpl == uri;  // not a template: literally
        if (open > i) parts.push_back({true, tmpl.substr(i, open - i), '\0'});
        char op = close > open + 1 ? tmpl[open + 1] : '\0';
        if (std::string_view("+#./;?&").find(op) == std::string_view::npos) op = '\0';
        parts.push_back({false, {}, op});
        i = close + 1;
    }
    return Matcher(std::move(parts), uri).run();
}

}  // namespace coffer::curation
