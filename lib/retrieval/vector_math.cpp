// Dot product and normalisation (see vector_math.hpp).
#include "retrieval/vector_math.hpp"

#include <cmath>

namespace coffer::retrieval {

float dot(const float* a, const float* b, std::size_t n) noexcept {
    // Sixteen independent sums: GCC turns the inner loop into SIMD multiplies and adds at -O2
    // (it may not reorder a single running float sum on its own).
    constexpr std::size_t W = 16;
    float acc[W] = {};
    std::size_t i = 0;
    for (; i + W <= n; i += W)
        for (std::size_t k = 0; k < W; ++k) acc[k] += a[i + k] * b[i + k];
    float s = 0;
    for (; i < n; ++i) s += a[i] * b[i];
    for (std::size_t k = 0; k < W; ++k) s += acc[k];
    return s;
}

bool normalise(std::vector<float>& v) noexcept {
    double sum = 0;
    for (float x : v) sum += static_cast<double>(x) * x;
    if (!(sum > 0) || !std::isfinite(sum)) return false;
    auto scale = static_cast<float>(1.0 / std::sqrt(sum));
    for (float& x : v) x *= scale;
    return true;
}

}  // namespace coffer::retrieval
