// What fuzz targets that compare JSON values need: whether a parsed value holds a number that is
// not finite. Boost.JSON reads 1e400 as infinity and 0e400 as NaN (never equal to itself), so
// such values cannot be compared for equality and are checked another way.
#pragma once

#include <boost/json/value.hpp>

#include <cmath>

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
