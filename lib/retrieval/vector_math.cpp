// Dot products, normalisation and int8 codes (see vector_math.hpp).
#include "retrieval/vector_math.hpp"

#include <algorithm>
#include <cmath>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define COFFER_RETRIEVAL_X86 1
#endif

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

Quantised quantise(const float* x, std::size_t dim, std::int8_t* codes) noexcept {
    float max = 0;
    for (std::size_t i = 0; i < dim; ++i) max = std::max(max, std::fabs(x[i]));
    Quantised q;
    q.scale = max > 0 ? max / 127.0f : 1.0f;
    double err = 0, norm = 0;
    for (std::size_t i = 0; i < dim; ++i) {
        long c = std::lround(static_cast<double>(x[i]) / q.scale);
        c = std::clamp(c, -127L, 127L);
        codes[i] = static_cast<std::int8_t>(c);
        double d = static_cast<double>(x[i]) - static_cast<double>(q.scale) * static_cast<double>(c);
        err += d * d;
        norm += static_cast<double>(x[i]) * x[i];
    }
    // Rounded up so that the bounds built from them stay bounds after float rounding.
    q.error = static_cast<float>(std::sqrt(err) * (1 + 1e-6) + 1e-12);
    q.norm = static_cast<float>(std::sqrt(norm) * (1 + 1e-6));
    return q;
}

namespace {

void dot_codes_plain(const std::int8_t* q, const std::int8_t* rows, std::size_t stride, std::size_t n,
                     std::int32_t* out) noexcept {
    for (std::size_t r = 0; r < n; ++r) {
        const std::int8_t* row = rows + r * stride;
        std::int32_t s = 0;
        for (std::size_t i = 0; i < stride; ++i) s += static_cast<std::int32_t>(q[i]) * row[i];
        out[r] = s;
    }
}

#ifdef COFFER_RETRIEVAL_X86
// |q| times (row with q's signs) in unsigned × signed byte pairs (vpmaddubsw): |q_i|·|row_i| ≤
// 127·127, so a pair sum (≤ 32,258) never saturates; then pairs of those into int32 (vpmaddwd).
__attribute__((target("avx2"))) void dot_codes_avx2(const std::int8_t* q, const std::int8_t* rows, std::size_t stride,
                                                    std::size_t n, std::int32_t* out) noexcept {
    const __m256i ones = _mm256_set1_epi16(1);
    for (std::size_t r = 0; r < n; ++r) {
        const std::int8_t* row = rows + r * stride;
        __m256i acc = _mm256_setzero_si256();
        for (std::size_t i = 0; i < stride; i += 32) {
            __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i));
            __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i));
            __m256i pairs = _mm256_maddubs_epi16(_mm256_abs_epi8(a), _mm256_sign_epi8(b, a));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(pairs, ones));
        }
        __m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
        s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
        out[r] = _mm_cvtsi128_si32(s);
    }
}
#endif

using DotCodes = void (*)(const std::int8_t*, const std::int8_t*, std::size_t, std::size_t, std::int32_t*) noexcept;

DotCodes pick_dot_codes() noexcept {
#ifdef COFFER_RETRIEVAL_X86
    if (__builtin_cpu_supports("avx2")) return dot_codes_avx2;
#endif
    return dot_codes_plain;
}

}  // namespace

void dot_codes(const std::int8_t* q, const std::int8_t* rows, std::size_t stride, std::size_t n,
               std::int32_t* out) noexcept {
    static const DotCodes impl = pick_dot_codes();
    impl(q, rows, stride, n, out);
}

}  // namespace coffer::retrieval
