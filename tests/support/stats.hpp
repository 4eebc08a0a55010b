// Figures for the benchmarks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace coffer::test {

// The p-quantile (0..1) of the samples, nearest rank; 0 for none.
inline double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    auto idx = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(idx, v.size() - 1)];
}

}  // namespace coffer::test
