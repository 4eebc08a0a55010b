#include "core/random.hpp"

#include <sys/random.h>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace coffer::core {

namespace {
void fill(unsigned char* p, std::size_t n) {
    while (n > 0) {
        auto got = getrandom(p, n, 0);
        if (got < 0) throw std::runtime_error("getrandom failed");
        p += got;
        n -= static_cast<std::size_t>(got);
    }
}
}  // namespace

std::string random_hex(std::size_t bytes) {
    std::vector<unsigned char> buf(bytes);
    fill(buf.data(), bytes);
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(bytes * 2);
    for (auto b : buf) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 15]);
    }
    return out;
}

std::string trace_id() {
    constexpr std::size_t kPool = 256, kBytes = 8;
    thread_local unsigned char pool[kPool];
    thread_local std::size_t used = kPool;
    if (used + kBytes > kPool) {
        fill(pool, kPool);
        used = 0;
    }
    static const char* digits = "0123456789abcdef";
    std::string out(kBytes * 2, '0');
    for (std::size_t i = 0; i < kBytes; ++i) {
        unsigned char b = pool[used + i];
        out[2 * i] = digits[b >> 4];
        out[2 * i + 1] = digits[b & 15];
    }
    used += kBytes;
    return out;
}

std::string new_uid() {
    unsigned char b[16];
    fill(b, sizeof b);
    b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    char out[37];
    std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                  b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return out;
}

bool constant_time_equal(const std::string& a, const std::string& b) {
    if (a.size() != b.size()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace coffer::core
