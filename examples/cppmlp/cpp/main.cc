// Runs the MLP wrapper with C++ kernels and checks it against a direct
// computation in double precision, through Run and through a Runner (also
// writing into a caller's output buffer), at several batch sizes.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "kernels.h"

// Every allocation through operator new is counted, so the example can
// show that a Runner's steady state allocates nothing.
static std::atomic<long> g_allocations{0};

static void* Counted(size_t n, size_t align) {
  g_allocations++;
  size_t a = align < sizeof(void*) ? sizeof(void*) : align;
  return std::aligned_alloc(a, (n + a - 1) / a * a + (n == 0 ? a : 0));
}
void* operator new(size_t n) {
  if (void* p = Counted(n, 0)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void* operator new(size_t n, std::align_val_t a) {
  if (void* p = Counted(n, static_cast<size_t>(a))) return p;
  throw std::bad_alloc();
}
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return Counted(n, static_cast<size_t>(a)); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }

namespace {

wrapgen::Tensor View(std::vector<float>& v, std::initializer_list<int64_t> shape) {
  wrapgen::Tensor t;
  std::vector<int64_t> s(shape);
  std::vector<int64_t> strides(s.size());
  int64_t st = 1;
  for (size_t i = s.size(); i-- > 0;) {
    strides[i] = st;
    st *= s[i];
  }
  t.rank = static_cast<int>(s.size());
  for (size_t i = 0; i < s.size(); i++) {
    t.shape[i] = s[i];
    t.strides[i] = strides[i];
  }
  t.dtype = wrapgen::DType::kF32;
  t.device = "cpu";
  t.data = reinterpret_cast<uint8_t*>(v.data());
  t.bytes = static_cast<int64_t>(v.size() * sizeof(float));
  return t;
}

std::vector<double> Reference(const std::vector<float>& x, const std::vector<std::vector<float>>& w, int64_t batch) {
  const int64_t dims[] = {784, 128, 64, 10};
  std::vector<double> h(x.begin(), x.end());
  for (int l = 0; l < 3; l++) {
    int64_t k = dims[l], n = dims[l + 1];
    std::vector<double> o(static_cast<size_t>(batch * n));
    for (int64_t i = 0; i < batch; i++)
      for (int64_t j = 0; j < n; j++) {
        double s = w[2 * l + 1][j];
        for (int64_t p = 0; p < k; p++) s += h[i * k + p] * w[2 * l][p * n + j];
        o[i * n + j] = l < 2 ? std::max(s, 0.0) : s;
      }
    h = o;
  }
  for (int64_t i = 0; i < batch; i++) {
    double m = h[i * 10], sum = 0;
    for (int j = 0; j < 10; j++) m = std::max(m, h[i * 10 + j]);
    for (int j = 0; j < 10; j++) sum += (h[i * 10 + j] = std::exp(h[i * 10 + j] - m));
    for (int j = 0; j < 10; j++) h[i * 10 + j] /= sum;
  }
  return h;
}

// Inputs binds the batch x and the six weight tensors to the wrapper's
// inputs (no copies: the views point into the vectors).
mlp::Inputs MakeInputs(std::vector<float>& x, std::vector<std::vector<float>>& w, int64_t batch) {
  mlp::Inputs in;
  in.x = View(x, {batch, 784});
  in.w1 = View(w[0], {784, 128});
  in.b1 = View(w[1], {128});
  in.w2 = View(w[2], {128, 64});
  in.b2 = View(w[3], {64});
  in.w3 = View(w[4], {64, 10});
  in.b3 = View(w[5], {10});
  return in;
}

bool Close(const std::vector<double>& want, const float* got, const char* what, int64_t batch) {
  for (size_t i = 0; i < want.size(); i++) {
    if (std::fabs(want[i] - got[i]) > 1e-4) {
      std::fprintf(stderr, "%s at batch %lld: element %zu is %g, want %g\n", what, static_cast<long long>(batch), i, got[i], want[i]);
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.1f);
  const int64_t sizes[][2] = {{784, 128}, {128, 1}, {128, 64}, {64, 1}, {64, 10}, {10, 1}};
  std::vector<std::vector<float>> w;
  for (auto& s : sizes) {
    std::vector<float> v(static_cast<size_t>(s[0] * s[1]));
    for (float& f : v) f = normal(rng);
    w.push_back(v);
  }
  CpuKernels k;
  const mlp::Params params;  // the graph takes its weights as inputs: no params
  mlp::Runner runner(params);
  for (int64_t batch : {1, 8, 33, 8}) {
    std::vector<float> x(static_cast<size_t>(batch * 784));
    for (float& f : x) f = normal(rng) * 10;
    mlp::Inputs in = MakeInputs(x, w, batch);
    std::vector<double> want = Reference(x, w, batch);

    mlp::Outputs out;
    wrapgen::Status s = mlp::Run(k, params, in, &out);
    if (!s.ok()) return std::fprintf(stderr, "Run: %s\n", s.message().c_str()), 1;
    if (!Close(want, out.y.As<float>(), "Run", batch)) return 1;

    std::vector<float> y(static_cast<size_t>(batch * 10));
    mlp::Outputs mine;
    static_cast<wrapgen::Tensor&>(mine.y) = View(y, {batch, 10});
    s = runner.Run(k, in, &mine);
    if (!s.ok()) return std::fprintf(stderr, "Runner: %s\n", s.message().c_str()), 1;
    if (!Close(want, y.data(), "Runner into a caller buffer", batch)) return 1;
  }
  // Steady state: the same batch again and again through the Runner, into
  // the caller's buffer, allocates nothing.
  {
    const int64_t batch = 8;
    std::vector<float> x(static_cast<size_t>(batch * 784), 0.5f), y(static_cast<size_t>(batch * 10));
    mlp::Inputs in = MakeInputs(x, w, batch);
    mlp::Outputs mine;
    static_cast<wrapgen::Tensor&>(mine.y) = View(y, {batch, 10});
    if (!runner.Run(k, in, &mine).ok()) return 1;
    long before = g_allocations.load();
    for (int i = 0; i < 100; i++) {
      if (!runner.Run(k, in, &mine).ok()) return 1;
    }
    long steady = g_allocations.load() - before;
    std::printf("cppmlp: steady Runner calls: %ld allocations in 100 calls\n", steady);
    if (steady != 0) return 1;
  }
  // A wrong input is an error status, not undefined behaviour.
  std::vector<float> x(784 * 2);
  mlp::Inputs bad;
  bad.x = View(x, {2, 784});
  bad.w1 = View(w[0], {128, 784});
  mlp::Outputs out;
  wrapgen::Status s = mlp::Run(k, params, bad, &out);
  if (s.ok() || s.message().find("mlp: input w1: shape is [128, 784], want [784, 128]") == std::string::npos) {
    std::fprintf(stderr, "a wrong input shape was not reported: %s\n", s.message().c_str());
    return 1;
  }
  // A wrong rank names both shapes, as the Go wrapper does.
  bad.w1 = View(w[0], {784, 128});
  bad.b1 = View(w[1], {1, 128});
  s = mlp::Run(k, params, bad, &out);
  if (s.ok() || s.message().find("mlp: input b1: rank is 2 (shape [1, 128]), want 1 (shape [128])") == std::string::npos) {
    std::fprintf(stderr, "a wrong input rank was not reported: %s\n", s.message().c_str());
    return 1;
  }
  std::printf("cppmlp: ok\n");
  return 0;
}
