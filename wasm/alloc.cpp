// operator new and delete for the wasm modules: small blocks are kept on free lists by size and
// handed out again, so that the containers and strings of a call (the request's JSON tree, the
// texts of the results) cost a few loads and stores each instead of a trip through emmalloc,
// which took a sixth of a call's time in wasm (bench/NOTES.md, "Fourteenth pass"). A module runs
// one call at a time on one thread; blocks on a list are not given back to malloc, and a call
// reuses what the one before it freed. Larger blocks go to malloc and back. The native programs
// keep the platform's allocator.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

// Every block starts with a header of kHead bytes (malloc's alignment kept) holding its class:
// 1..kClasses for a block of that many kStep bytes, 0 for a large block straight from malloc.
constexpr std::size_t kHead = 16, kStep = 16, kClasses = 32;  // small: up to 512 bytes
struct Free {
  Free* next;
};
Free* lists[kClasses + 1] = {};

// A block no list holds: from malloc, with its header.
void* fresh(std::size_t n, std::size_t c) {
  if (n > SIZE_MAX / 2) throw std::bad_alloc();  // kHead + n, and the class's rounding, stay exact
  const bool small = c <= kClasses;
  char* p = static_cast<char*>(std::malloc(kHead + (small ? c * kStep : n)));
  if (!p) throw std::bad_alloc();
  *reinterpret_cast<std::size_t*>(p) = small ? c : 0;
  return p + kHead;
}

// Out of line: inlined into every new, the lists cost 3 to 7 KB gzipped a module.
[[gnu::noinline]] void* take(std::size_t n) {
  const std::size_t c = n > kClasses * kStep ? kClasses + 1 : n ? (n + kStep - 1) / kStep : 1;
  if (c <= kClasses && lists[c]) {
    Free* f = lists[c];
    lists[c] = f->next;
    return f;  // its header stands before it, unchanged
  }
  return fresh(n, c);
}

[[gnu::noinline]] void give(void* q) noexcept {
  if (!q) return;
  char* p = static_cast<char*>(q) - kHead;
  const std::size_t c = *reinterpret_cast<std::size_t*>(p);
  if (c == 0) return std::free(p);
  Free* f = static_cast<Free*>(q);
  f->next = lists[c];
  lists[c] = f;
}

}  // namespace

void* operator new(std::size_t n) { return take(n); }
void* operator new[](std::size_t n) { return take(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return take(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return take(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { give(p); }
void operator delete[](void* p) noexcept { give(p); }
void operator delete(void* p, std::size_t) noexcept { give(p); }
void operator delete[](void* p, std::size_t) noexcept { give(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { give(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { give(p); }
