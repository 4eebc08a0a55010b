// Credential reference names and the `credref:<ref>` values that point at them.
#pragma once

#include <boost/json/value.hpp>

#include <set>
#include <string>
#include <string_view>

namespace coffer::credential {

inline constexpr std::string_view kCredrefPrefix = "credref:";
inline constexpr std::size_t kMaxRefLength = 64;
inline constexpr std::size_t kMaxValueBytes = 64 * 1024;

// "" when `ref` is a valid name: 1–64 characters of [A-Za-z0-9._-], starting with a letter or
// digit. Otherwise what is wrong (without repeating the text).
std::string ref_problem(std::string_view ref);

// Every <ref> named by a string "credref:<ref>" anywhere in `config` (objects and arrays,
// any depth).
std::set<std::string> referenced_refs(const boost::json::value& config);

}  // namespace coffer::credential
