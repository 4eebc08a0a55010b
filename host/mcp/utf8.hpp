// UTF-8 validation (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
#pragma once

#include <string_view>

namespace coffer::mcp {

bool valid_utf8(std::string_view s) noexcept;

}  // namespace coffer::mcp
