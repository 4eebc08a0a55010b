// WWW-Authenticate parsing (see challenge.hpp). A challenge is `scheme [token68 | param, …]`; a
// comma separates both parameters and challenges, so a name not followed by '=' starts the next
// challenge.
#include "oauth/challenge.hpp"

#include <strings.h>

#include <cctype>

namespace coffer::oauth {

namespace {

bool token_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

struct Reader {
    std::string_view s;
    std::size_t i = 0;
    void spaces() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    }
    void separators() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',')) ++i;
    }
    std::string_view token() {
        auto from = i;
        while (i < s.size() && token_char(s[i])) ++i;
        return s.substr(from, i - from);
    }
    bool quoted(std::string& out) {
        if (i >= s.size() || s[i] != '"') return false;
        for (++i; i < s.size(); ++i) {
            if (s[i] == '\\' && i + 1 < s.size()) out += s[++i];
            else if (s[i] == '"') return ++i, true;
            else out += s[i];
        }
        return false;  // unterminated
    }
};

}  // namespace

std::optional<std::string> Challenge::param(const std::string& name) const {
    auto it = params.find(name);
    if (it == params.end()) return std::nullopt;
    return it->second;
}

std::vector<Challenge> parse_challenges(std::string_view header) {
    std::vector<Challenge> out;
    Reader r{header};
    r.separators();
    while (r.i < r.s.size()) {
        auto scheme = r.token();
        if (scheme.empty()) return out;  // unreadable from here on
        Challenge c{lower(scheme), {}};
        r.spaces();
        // Parameters until a name without '=' (the next scheme) or the end.
        for (;;) {
            r.separators();
            auto save = r.i;
            auto name = r.token();
            if (name.empty()) break;
            r.spaces();
            if (r.i >= r.s.size() || r.s[r.i] != '=') {
                r.i = save;  // a new challenge starts here
                break;
            }
            ++r.i;
            // token68 ends in '=' padding: "abc==" reads as name "abc", then '=' '=': skip them.
            r.spaces();
            std::string value;
            if (r.i < r.s.size() && r.s[r.i] == '"') {
                if (!r.quoted(value)) return out;
            } else {
                value = std::string(r.token());
            }
            c.params.emplace(lower(name), std::move(value));
        }
        out.push_back(std::move(c));
        r.separators();
    }
    return out;
}

std::optional<Challenge> bearer_challenge(const std::vector<std::string>& header_values) {
    for (const auto& v : header_values)
        for (auto& c : parse_challenges(v))
            if (c.scheme == "bearer") return c;
    return std::nullopt;
}

std::optional<Challenge> bearer_challenge_of(const http_client::Reply& reply) {
    std::vector<std::string> values;
    for (const auto& [name, value] : reply.headers)
        if (name.size() == 16 && ::strncasecmp(name.c_str(), "www-authenticate", 16) == 0) values.push_back(value);
    return bearer_challenge(values);
}

}  // namespace coffer::oauth
