// Numbers JSON can carry but a double cannot: Boost.JSON reads 1e400 as infinity and 0e400 as NaN,
// and writes them back as `Infinity`/`NaN`, which is not JSON. The gateway refuses a message that
// holds one (mcp::rpc::parse); strict parsing refuses it while parsing (core::parse_strict_json);
// fuzz targets skip equality checks on such values (NaN equals nothing).
#pragma once

#include <boost/json/value.hpp>

#include <cmath>

namespace coffer::core {

// True when `v` holds a double that is infinite or NaN, at any depth (recursion as deep as `v`,
// which its parser already bounded).
inline bool has_non_finite(const boost::json::value& v) {
    if (v.is_double()) return !std::isfinite(v.get_double());
    if (auto* a = v.if_array())
        for (auto& e : *a)
            if (has_non_finite(e)) return true;
    if (auto* o = v.if_object())
        for (auto& kv : *o)
            if (has_non_finite(kv.value())) return true;
    return false;
}

}  // namespace coffer::core
