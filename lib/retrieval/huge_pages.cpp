// Huge-page backed allocations (see huge_pages.hpp).
#include "retrieval/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdlib>

namespace coffer::retrieval {
namespace {
constexpr std::size_t kHuge = 2 * 1024 * 1024;
constexpr std::size_t kMapFrom = 4 * 1024 * 1024;
std::size_t rounded(std::size_t bytes) { return (bytes + kHuge - 1) / kHuge * kHuge; }
}  // namespace

void* huge_allocate(std::size_t bytes) {
    if (bytes < kMapFrom) {
        if (void* p = std::malloc(bytes ? bytes : 1)) return p;
        throw std::bad_alloc();
    }
    void* p = ::mmap(nullptr, rounded(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, rounded(bytes), MADV_HUGEPAGE);  // advice: without THP it is ordinary memory
#endif
    return p;
}

void huge_deallocate(void* p, std::size_t bytes) noexcept {
    if (!p) return;
    if (bytes < kMapFrom) return std::free(p);
    ::munmap(p, rounded(bytes));
}

}  // namespace coffer::retrieval
