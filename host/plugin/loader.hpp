// Loads one plugin library described by a manifest (Boost.DLL, RTLD_NOW|RTLD_LOCAL), negotiates
// the ABI and calls init. Never throws; a refusal is recorded in the Plugin with its reason.
#pragma once

#include "plugin/plugin.hpp"

namespace coffer::plugin {

void load(Plugin& p, const Manifest& m, HostServices* services);

}  // namespace coffer::plugin
