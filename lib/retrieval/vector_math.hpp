// The arithmetic of the vector engine: a dot product written so the compiler vectorises it
// without -ffast-math (independent partial sums), and L2 normalisation.
#pragma once

#include <cstddef>
#include <vector>

namespace coffer::retrieval {

float dot(const float* a, const float* b, std::size_t n) noexcept;

// Scales `v` to length 1; false (and `v` untouched) for a zero or non-finite vector.
bool normalise(std::vector<float>& v) noexcept;

}  // namespace coffer::retrieval
