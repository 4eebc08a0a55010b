// Guarded calls into plugin code: serialized per plugin, exceptions contained, replies decoded.
#pragma once

#include "core/result.hpp"
#include "plugin/plugin.hpp"

#include <boost/json/value.hpp>

#include <functional>
#include <string_view>

namespace coffer::plugin {

inline coffer_str cstr(std::string_view s) { return coffer_str{s.data(), s.size()}; }

// Runs `fn(reply)` under the plugin's lock. On COFFER_OK returns the reply's JSON (null if none);
// otherwise an Error mapped from the status, with the plugin's message and details. A C++
// exception thrown through the C boundary is caught and reported as PLUGIN_ERROR.
core::Result<boost::json::value> call(Plugin& p, std::string_view hook,
                                      const std::function<coffer_status(coffer_reply*)>& fn);

}  // namespace coffer::plugin
