// im2col_check runs Im2colPanels (templates/wgref/im2col.h) on the
// packer ThisIsa picks (WGREF_ISA caps it) over random 1-D to 3-D
// geometries, blocks and panel widths (12, 16 and 32 lanes), and checks
// every float of every block against im2col computed here element by
// element from the definition, and that nothing before or past the block
// is written. It prints the ISA and "ok", or the first difference and
// exits 1.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "wgref/im2col.h"
#include "wgref/isa.h"

using wgref::detail::ConvGeo;
using wgref::detail::Im2colPanels;

namespace {

// Reference is element (row, col) of the im2col matrix: the input that
// tap (channel, kernel position) reads at output position col, 0 in the
// padding.
float Reference(const std::vector<float>& x, int64_t xsc, const ConvGeo& g, int64_t row, int64_t col) {
  const int64_t taps = g.k[0] * g.k[1] * g.k[2];
  const int64_t ci = row / taps, kp = row % taps;
  const int64_t kpos[3] = {kp / (g.k[1] * g.k[2]), kp / g.k[2] % g.k[1], kp % g.k[2]};
  const int64_t opos[3] = {col / (g.out[1] * g.out[2]), col / g.out[2] % g.out[1], col % g.out[2]};
  int64_t off = ci * xsc;
  for (int a = 0; a < 3; a++) {
    const int64_t pos = opos[a] * g.s[a] - g.p[a] + kpos[a] * g.d[a];
    if (pos < 0 || pos >= g.in[a]) return 0;
    off += pos * g.xs[a];
  }
  return x[static_cast<size_t>(off)];
}

int64_t Pick(std::mt19937& r, int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(r); }

}  // namespace

int main() {
  std::mt19937 r(5);
  const float kGuard = -12345.5f;
  const int lanes_of[3] = {12, 16, 32};
  int64_t checked = 0;
  for (int iter = 0; iter < 3000; iter++) {
    const int rank = 1 + iter % 3;
    ConvGeo g;
    for (int a = 0; a < 3; a++) {
      g.in[a] = g.out[a] = g.k[a] = g.s[a] = g.d[a] = 1;
      g.p[a] = 0;
    }
    for (int a = 3 - rank; a < 3; a++) {
      const bool wide = a == 2;
      g.k[a] = Pick(r, 1, wide && iter % 7 == 0 ? 7 : 5);
      g.s[a] = Pick(r, 1, 3);
      g.d[a] = Pick(r, 1, 2);
      g.p[a] = Pick(r, 0, 3);
      const int64_t end_pad = Pick(r, 0, 3);
      const int64_t ext = (g.k[a] - 1) * g.d[a] + 1;
      // The output width sweeps 1..40; other axes stay small.
      const int64_t want = wide ? 1 + iter % 40 : Pick(r, 1, rank == 3 ? 4 : 9);
      g.in[a] = std::max<int64_t>(1, (want - 1) * g.s[a] + ext - g.p[a] - end_pad);
      g.out[a] = std::max<int64_t>(0, (g.in[a] + g.p[a] + end_pad - ext) / g.s[a] + 1);
    }
    if (g.out[0] * g.out[1] * g.out[2] == 0) continue;
    // Rows padded by a few floats now and then, channels apart by more.
    const int64_t row_pad = iter % 5 == 0 ? Pick(r, 1, 5) : 0;
    g.xs[2] = 1;
    g.xs[1] = g.in[2] + row_pad;
    g.xs[0] = g.xs[1] * g.in[1];
    const int64_t channels = Pick(r, 1, 12), xsc = g.xs[0] * g.in[0] + (iter % 3 == 0 ? 3 : 0);
    std::vector<float> x(static_cast<size_t>(xsc * channels));
    for (auto& v : x) v = static_cast<float>(Pick(r, -1000, 1000)) / 8 + 0.0625f;
    const Im2colPanels src(x.data(), xsc, g);
    const int64_t depth = channels * g.k[0] * g.k[1] * g.k[2], n = g.out[0] * g.out[1] * g.out[2];
    const int lanes = lanes_of[iter % 3];
    const int64_t p0 = Pick(r, 0, depth - 1), kc = Pick(r, 1, std::min<int64_t>(256, depth - p0));
    const int64_t j0 = Pick(r, 0, n - 1), nc = Pick(r, 1, n - j0);
    const int64_t panels = (nc + lanes - 1) / lanes, size = panels * lanes * kc;
    constexpr int64_t kPad = 64;
    std::vector<float> dst(static_cast<size_t>(size + 2 * kPad), kGuard);
    src.Pack(dst.data() + kPad, p0, j0, kc, nc, lanes);
    for (int64_t i = 0; i < kPad; i++) {
      if (dst[static_cast<size_t>(i)] != kGuard || dst[static_cast<size_t>(kPad + size + i)] != kGuard) {
        std::printf("iter %d: wrote outside its block (lanes %d, kc %lld, nc %lld)\n", iter, lanes, static_cast<long long>(kc),
                    static_cast<long long>(nc));
        return 1;
      }
    }
    for (int64_t q = 0; q < panels; q++) {
      for (int64_t p = 0; p < kc; p++) {
        for (int c = 0; c < lanes; c++) {
          const int64_t col = q * lanes + c;
          const float want = col < nc ? Reference(x, xsc, g, p0 + p, j0 + col) : 0.0f;
          const float got = dst[static_cast<size_t>(kPad + q * lanes * kc + p * lanes + c)];
          if (std::memcmp(&want, &got, sizeof(float)) != 0) {
            std::printf(
                "iter %d rank %d: in %lldx%lldx%lld out %lldx%lldx%lld k %lldx%lldx%lld s %lld,%lld,%lld d %lld,%lld,%lld p "
                "%lld,%lld,%lld lanes %d: row %lld col %lld: got %g, want %g\n",
                iter, rank, (long long)g.in[0], (long long)g.in[1], (long long)g.in[2], (long long)g.out[0],
                (long long)g.out[1], (long long)g.out[2], (long long)g.k[0], (long long)g.k[1], (long long)g.k[2],
                (long long)g.s[0], (long long)g.s[1], (long long)g.s[2], (long long)g.d[0], (long long)g.d[1],
                (long long)g.d[2], (long long)g.p[0], (long long)g.p[1], (long long)g.p[2], lanes,
                static_cast<long long>(p0 + p), static_cast<long long>(j0 + col), got, want);
            return 1;
          }
          checked++;
        }
      }
    }
  }
  std::printf("%s ok (%lld floats)\n", wgref::detail::IsaName(wgref::detail::ThisIsa()), static_cast<long long>(checked));
  return 0;
}
