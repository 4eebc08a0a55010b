// Scope: a list of {machine, agents} entries; "*" matches anything.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>

namespace coffer::resource {

boost::json::array default_scope();
// Checks a user-supplied scope; returns the problem (with its JSON pointer) or nothing.
std::optional<std::pair<std::string, std::string>> check_scope(const boost::json::value& scope);
bool in_machine_scope(const boost::json::array& scope, const std::string& machine);
// G-30: an entry for this machine whose agents list "*" or, when the session has an identity,
// that agent. A session without identity (empty `agent`) matches only "*".
bool in_agent_scope(const boost::json::array& scope, const std::string& machine, const std::string& agent);
// This machine's identity: $COFFER_MACHINE or the host name.
std::string this_machine();

}  // namespace coffer::resource
