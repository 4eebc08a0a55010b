// An allocator for the vector store's large arrays (tens of MB): allocations of 4 MB and more are
// anonymous mappings advised to use transparent huge pages, so filling one takes a page fault per
// 2 MB rather than per 4 KB (on a virtual machine each fault is dear: loading 60,000 vectors
// spent most of its time faulting). Smaller ones come from the ordinary heap.
#pragma once

#include <cstddef>
#include <new>

namespace coffer::retrieval {

void* huge_allocate(std::size_t bytes);
void huge_deallocate(void* p, std::size_t bytes) noexcept;

template <typename T> struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() = default;
    template <typename U> HugePageAllocator(const HugePageAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(huge_allocate(n * sizeof(T))); }
    void deallocate(T* p, std::size_t n) noexcept { huge_deallocate(p, n * sizeof(T)); }
    template <typename U> bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
};

}  // namespace coffer::retrieval
