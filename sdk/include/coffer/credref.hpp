// Credential references, decided once for the host and every plugin: a configuration string
// "credref:<ref>" stands for the secret stored under <ref> (docs/credentials.md). A <ref> is 1–64
// characters of [A-Za-z0-9._-] starting with a letter or digit. The host validates names it
// stores; a plugin validates the references in its resources' configs with the same rule, so a
// config never names a credential the store could not hold.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace coffer::credref {

inline constexpr std::string_view kPrefix = "credref:";
inline constexpr std::size_t kMaxRefLength = 64;

// True when `value` is a credential reference (starts with "credref:").
inline bool is_credref(std::string_view value) { return value.substr(0, kPrefix.size()) == kPrefix; }

// The <ref> of a "credref:<ref>" value (the value itself when it has no prefix).
inline std::string_view ref_of(std::string_view value) {
    return is_credref(value) ? value.substr(kPrefix.size()) : value;
}

// "" when `ref` is a valid reference name; otherwise what is wrong, as a sentence.
inline std::string ref_problem(std::string_view ref) {
    auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
    if (ref.empty()) return "a credential reference must not be empty";
    if (ref.size() > kMaxRefLength)
        return "a credential reference is at most " + std::to_string(kMaxRefLength) + " characters";
    if (!alnum(ref.front())) return "a credential reference must start with a letter or a digit";
    for (char c : ref)
        if (!alnum(c) && c != '.' && c != '_' && c != '-')
            return "a credential reference may contain only letters, digits, '.', '_' and '-'";
    return {};
}

}  // namespace coffer::credref
