// vecmath_check runs every row function of templates/wgref/vecmath.h on
// the path WGREF_ISA leaves (vecmath_test.go runs it once per path) and
// checks what a comparison through the server cannot see: a row computed
// in place (y == x, or y == a or b for two rows) gives the bits it gives
// into another buffer; nothing past a row's end is written (masked and
// stack tails); rows at every alignment; and the path agrees with the
// portable forms. It prints the path, a line per failure, and a summary,
// and exits 1 on any failure.
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "wgref/isa.h"
#include "wgref/vecmath.h"

namespace {

using wgref::detail::Isa;
using wgref::detail::vecmath::RowTable;

int64_t checks = 0, failures = 0;

void Fail(const char* fn, int64_t n, const char* what, int64_t i, float x, float got, float want) {
  failures++;
  if (failures <= 40) {
    std::printf("FAIL %s n=%" PRId64 ": %s at %" PRId64 " (x %.9g): got %.9g, want %.9g\n", fn, n, what, i, x, got, want);
  }
}

bool SameBits(float a, float b) { return std::memcmp(&a, &b, 4) == 0 || (a != a && b != b); }

const float kSentinel = 12345.678f;

// Inputs: specials among values in [-12, 12], from a fixed generator.
std::vector<float> Inputs(int64_t n, uint32_t seed) {
  static const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 88.8f, -88.8f, 1e-30f, -1e-30f, 1e-40f, -1e-40f,
                                   1.4e-45f, -1.4e-45f, 0.625f, -0.625f, 4.0f, -4.0f, 100.0f, -100.0f, 1.0f, -1.0f, -3.0f, 3.0f};
  std::vector<float> v(static_cast<size_t>(n));
  uint32_t s = seed * 2654435761u + 1;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    if ((s >> 28) < 3) {
      x = specials[(s >> 8) % (sizeof specials / sizeof specials[0])];
    } else {
      x = (static_cast<float>(s >> 8) / 16777216.0f * 2 - 1) * 12;
    }
  }
  return v;
}

// Near is the portable form's agreement: the node tests' tolerance, and
// |x|·1e-6 for GELU (its 1 + erf cancels for large negative x).
bool Near(float got, float want, float x) {
  if (want != want) return got != got;
  if (std::isinf(want)) return got == want;
  const double d = std::fabs(static_cast<double>(got) - want);
  return d <= 1e-7 + 1e-3 * std::fabs(static_cast<double>(want)) + 1e-6 * std::fabs(static_cast<double>(x));
}

// CheckUnary checks path against portable: exact the same bits, or Near.
template <class Run, class Ref>
void CheckUnary(const char* name, int64_t n, int misalign, const Run& path, const Ref& portable, bool exact = false) {
  const std::vector<float> inv = Inputs(n, static_cast<uint32_t>(n * 7 + misalign));
  const float* in = inv.data();
  std::vector<float> xb(static_cast<size_t>(n + 24), kSentinel), yb(static_cast<size_t>(n + 24), kSentinel);
  std::vector<float> zb(static_cast<size_t>(n + 24), kSentinel), pb(static_cast<size_t>(n + 24), kSentinel);
  float* x = xb.data() + misalign;
  float* y = yb.data() + misalign;
  float* z = zb.data() + misalign;
  float* p = pb.data() + misalign;
  for (int64_t i = 0; i < n; i++) x[i] = z[i] = in[i];
  path(x, y, n);
  path(z, z, n);
  portable(x, p, n);
  checks++;
  for (int64_t i = 0; i < n; i++) {
    if (!SameBits(x[i], in[i])) Fail(name, n, "input changed", i, in[i], x[i], in[i]);
    if (!SameBits(z[i], y[i])) Fail(name, n, "in place differs", i, x[i], z[i], y[i]);
    if (exact ? !SameBits(y[i], p[i]) : !Near(y[i], p[i], x[i])) Fail(name, n, "portable differs", i, x[i], y[i], p[i]);
  }
  for (int64_t i = n; i < n + 24 - misalign; i++) {
    if (!SameBits(y[i], kSentinel) || !SameBits(z[i], kSentinel)) Fail(name, n, "wrote past the end", i, 0, y[i], kSentinel);
  }
  for (int i = 0; i < misalign; i++) {
    const float before = yb[static_cast<size_t>(i)];
    if (!SameBits(before, kSentinel)) Fail(name, n, "wrote before the start", i, 0, before, kSentinel);
  }
}

using BinaryFn = wgref::detail::vecmath::BinaryFn;
using ScalarFn = wgref::detail::vecmath::ScalarFn;

void CheckBinary(const char* name, int64_t n, int misalign, BinaryFn path, BinaryFn portable) {
  const std::vector<float> ia = Inputs(n, static_cast<uint32_t>(n * 11 + misalign));
  const std::vector<float> ib = Inputs(n, static_cast<uint32_t>(n * 13 + 5));
  const size_t size = static_cast<size_t>(n + 24);
  std::vector<float> ab(size, kSentinel), bb(size, kSentinel), yb(size, kSentinel), pb(size, kSentinel), a2(size, kSentinel),
      b2(size, kSentinel);
  float *a = ab.data() + misalign, *b = bb.data() + misalign, *y = yb.data() + misalign, *p = pb.data() + misalign;
  float *ia2 = a2.data() + misalign, *ib2 = b2.data() + misalign;
  for (int64_t i = 0; i < n; i++) {
    a[i] = ia2[i] = ia[static_cast<size_t>(i)];
    b[i] = ib2[i] = ib[static_cast<size_t>(i)];
  }
  path(a, b, y, n);
  portable(a, b, p, n);
  checks++;
  for (int64_t i = 0; i < n; i++) {
    if (!SameBits(y[i], p[i])) Fail(name, n, "portable differs", i, a[i], y[i], p[i]);
  }
  path(ia2, b, ia2, n);  // y == a
  path(a, ib2, ib2, n);  // y == b
  for (int64_t i = 0; i < n; i++) {
    if (!SameBits(ia2[i], y[i])) Fail(name, n, "in place (y == a) differs", i, a[i], ia2[i], y[i]);
    if (!SameBits(ib2[i], y[i])) Fail(name, n, "in place (y == b) differs", i, a[i], ib2[i], y[i]);
  }
  for (int64_t i = n; i < n + 24 - misalign; i++) {
    if (!SameBits(y[i], kSentinel) || !SameBits(ia2[i], kSentinel) || !SameBits(ib2[i], kSentinel)) {
      Fail(name, n, "wrote past the end", i, 0, y[i], kSentinel);
    }
  }
}

void CheckScalar(const char* name, int64_t n, int misalign, ScalarFn path, ScalarFn portable) {
  const float scalars[] = {1.5f, -0.0f, 0.0f, NAN, INFINITY, -3.25f, 1e-40f};
  for (float s : scalars) {
    CheckUnary(
        name, n, misalign, [path, s](const float* x, float* y, int64_t m) { path(x, s, y, m); },
        [portable, s](const float* x, float* y, int64_t m) { portable(x, s, y, m); });
  }
}

}  // namespace

int main() {
  const Isa isa = wgref::detail::ThisIsa();
  std::printf("isa %s\n", wgref::detail::IsaName(isa));
  const RowTable t = wgref::detail::vecmath::TableFor(isa), p = wgref::detail::vecmath::TableFor(Isa::kPortable);
  // The dispatching entry points are the path's.
  {
    const std::vector<float> in = Inputs(37, 99);
    float y[64], want[64];
    wgref::detail::vecmath::SigmoidRow(in.data(), y, 37);
    t.sigmoid(in.data(), want, 37);
    checks++;
    for (int i = 0; i < 37; i++) {
      if (!SameBits(y[i], want[i])) Fail("SigmoidRow", 37, "dispatch differs", i, in[static_cast<size_t>(i)], y[i], want[i]);
    }
  }
  std::vector<int64_t> lengths;
  for (int64_t n = 0; n <= 67; n++) lengths.push_back(n);
  lengths.push_back(1000);
  lengths.push_back(4097);
  using U = wgref::detail::vecmath::UnaryFn;
  struct Named {
    const char* name;
    U path, portable;
  };
  const Named unary[] = {{"exp", t.exp, p.exp},
                         {"sigmoid", t.sigmoid, p.sigmoid},
                         {"tanh", t.tanh, p.tanh},
                         {"erf", t.erf, p.erf},
                         {"gelu_erf", t.gelu_erf, p.gelu_erf},
                         {"gelu_tanh", t.gelu_tanh, p.gelu_tanh},
                         {"relu", t.relu, p.relu},
                         {"hard_swish", t.hard_swish, p.hard_swish}};
  for (int64_t n : lengths) {
    for (int misalign = 0; misalign < 4; misalign += (n < 70 ? 1 : 3)) {
      for (const Named& u : unary) CheckUnary(u.name, n, misalign, u.path, u.portable, u.path == t.relu);
      CheckUnary(
          "hard_sigmoid", n, misalign, [&t](const float* x, float* y, int64_t m) { t.hard_sigmoid(x, y, m, 0.2f, 0.5f); },
          [&p](const float* x, float* y, int64_t m) { p.hard_sigmoid(x, y, m, 0.2f, 0.5f); });
      CheckUnary(
          "clip", n, misalign, [&t](const float* x, float* y, int64_t m) { t.clip(x, y, m, -1.5f, 6.0f); },
          [&p](const float* x, float* y, int64_t m) { p.clip(x, y, m, -1.5f, 6.0f); }, true);
      CheckUnary(
          "clip lo>hi", n, misalign, [&t](const float* x, float* y, int64_t m) { t.clip(x, y, m, 2.0f, -2.0f); },
          [&p](const float* x, float* y, int64_t m) { p.clip(x, y, m, 2.0f, -2.0f); }, true);
      CheckUnary(
          "leaky_relu", n, misalign, [&t](const float* x, float* y, int64_t m) { t.leaky_relu(x, y, m, 0.01f); },
          [&p](const float* x, float* y, int64_t m) { p.leaky_relu(x, y, m, 0.01f); }, true);
      CheckUnary(
          "leaky_relu -2", n, misalign, [&t](const float* x, float* y, int64_t m) { t.leaky_relu(x, y, m, -2.0f); },
          [&p](const float* x, float* y, int64_t m) { p.leaky_relu(x, y, m, -2.0f); }, true);
      CheckBinary("add", n, misalign, t.add, p.add);
      CheckBinary("sub", n, misalign, t.sub, p.sub);
      CheckBinary("mul", n, misalign, t.mul, p.mul);
      CheckBinary("div", n, misalign, t.div, p.div);
      CheckScalar("add_s", n, misalign, t.add_s, p.add_s);
      CheckScalar("sub_s", n, misalign, t.sub_s, p.sub_s);
      CheckScalar("mul_s", n, misalign, t.mul_s, p.mul_s);
      CheckScalar("div_s", n, misalign, t.div_s, p.div_s);
      CheckScalar("s_sub", n, misalign, t.s_sub, p.s_sub);
      CheckScalar("s_div", n, misalign, t.s_div, p.s_div);
    }
  }
  std::printf("%" PRId64 " checks, %" PRId64 " failures\n", checks, failures);
  return failures > 0 ? 1 : 0;
}
