// allocs.cc replaces the global operator new and delete of the kernel
// server to count allocations (serve.cc reads the count). A file of its
// own: inlined into serve.cc's code, GCC would take free() of memory from
// the replaced operator new for a mismatch.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

std::atomic<int64_t> g_news{0};

void* operator new(size_t n) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n > 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
