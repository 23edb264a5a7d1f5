// Reads placement problems from standard input and prints where
// wrapgen::PlaceBest puts each storage, for TestPlaceMatchesGo: each
// problem is "n align" then n lines "size begin end"; each answer is the
// arena's size then the n offsets, on one line.
#include <cstdio>
#include <vector>

#include "wrapgen_runtime.h"

int main() {
  int n = 0;
  long long align = 0;
  while (std::scanf("%d %lld", &n, &align) == 2) {
    std::vector<int64_t> size(static_cast<size_t>(n) + 1), off(size.size()), scratch(size.size());
    std::vector<int32_t> begin(size.size()), end(size.size()), order(size.size()), placed(size.size());
    for (size_t i = 0; i < static_cast<size_t>(n); i++) {
      long long s = 0;
      int b = 0, e = 0;
      if (std::scanf("%lld %d %d", &s, &b, &e) != 3) return 1;
      size[i] = s;
      begin[i] = b;
      end[i] = e;
      order[i] = static_cast<int32_t>(i);
    }
    const int64_t arena =
        wrapgen::PlaceBest(order.data(), n, placed.data(), size.data(), off.data(), scratch.data(), begin.data(), end.data(), align);
    std::printf("%lld", static_cast<long long>(arena));
    for (size_t i = 0; i < static_cast<size_t>(n); i++) std::printf(" %lld", static_cast<long long>(off[i]));
    std::printf("\n");
  }
  return 0;
}
