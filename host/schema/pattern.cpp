#include "schema/pattern.hpp"

#include <exception>

namespace coffer::schema::detail {

std::optional<Pattern> compile_pattern(std::string_view source, std::string& why) {
    try {
        // ECMAScript is Boost's perl syntax; no_mod_m / no_mod_s turn off Perl's multi-line "^$"
        // and dot-matches-newline defaults so the semantics are ECMAScript's.
        const auto flags = boost::regex::ECMAScript | boost::regex::no_mod_m | boost::regex::no_mod_s;
        return Pattern{std::string(source), boost::regex(source.begin(), source.end(), flags)};
    } catch (const boost::regex_error& e) {
        why = e.what();
    } catch (const std::exception& e) {
        why = e.what();
    }
    return std::nullopt;
}

std::optional<bool> pattern_matches(const Pattern& pattern, std::string_view text) noexcept {
    try {
        return boost::regex_search(text.begin(), text.end(), pattern.re, boost::match_default);
    } catch (...) {
        return std::nullopt;  // complexity or memory limit of the matcher
    }
}

}  // namespace coffer::schema::detail
