// The arithmetic of the vector engine: a dot product written so the compiler vectorises it
// without -ffast-math (independent partial sums), L2 normalisation, and the int8 codes of the
// first pass of vector search (vector_store.hpp) with the bounds that keep that search exact.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace coffer::retrieval {

float dot(const float* a, const float* b, std::size_t n) noexcept;

// Scales `v` to length 1; false (and `v` untouched) for a zero or non-finite vector.
bool normalise(std::vector<float>& v) noexcept;

// A vector x as int8 codes c with x ≈ scale · c, |c_i| ≤ 127, and bounds on what the codes lose:
// error ≥ ‖x − scale·c‖₂ and norm ≥ ‖x‖₂ (both rounded up, computed in double).
struct Quantised {
    float scale = 0, error = 0, norm = 0;
};
// Writes dim codes to `codes` (the caller zeroes any padding after them).
Quantised quantise(const float* x, std::size_t dim, std::int8_t* codes) noexcept;

// out[r] = Σ_i q[i] · rows[r·stride + i] for `n` rows of `stride` codes (stride a multiple of 32,
// padding zero). Exact integer arithmetic; AVX2 when the CPU has it.
void dot_codes(const std::int8_t* q, const std::int8_t* rows, std::size_t stride, std::size_t n,
               std::int32_t* out) noexcept;

}  // namespace coffer::retrieval
