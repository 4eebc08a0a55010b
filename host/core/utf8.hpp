// The host's name for the one UTF-8 implementation, which lives in the SDK
// (sdk/include/coffer/utf8.hpp) because the skill plugin needs it too.
#pragma once

#include <coffer/utf8.hpp>

namespace coffer::core {
namespace utf8 = ::coffer::utf8;
}  // namespace coffer::core
