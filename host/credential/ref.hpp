// Credential reference names and the `credref:<ref>` values that point at them.
#pragma once

#include <coffer/credref.hpp>

#include <boost/json/value.hpp>

#include <set>
#include <string>
#include <string_view>

namespace coffer::credential {

// The reference rule is the SDK's (coffer/credref.hpp), shared with the plugins.
inline constexpr std::size_t kMaxValueBytes = 64 * 1024;
using credref::ref_problem;

// Every <ref> named by a string "credref:<ref>" anywhere in `config` (objects and arrays,
// any depth).
std::set<std::string> referenced_refs(const boost::json::value& config);

}  // namespace coffer::credential
