// Tests of wrapgen_runtime.h's View and FromVector, built by
// runtime_test.go with -Wall -Wextra -Wshadow -Wconversion -Werror and
// sanitizers, and run: it prints "ok" or each failed check and exits 1.
#include <array>
#include <complex>
#include <cstdio>
#include <string>
#include <vector>

#include "wrapgen_runtime.h"

static int failures = 0;

#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      std::printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                   \
    }                                                               \
  } while (0)

static bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// HasDType says whether wrapgen::DTypeOf<T> gives T a dtype.
template <class T, class = void>
struct HasDType : std::false_type {};
template <class T>
struct HasDType<T, decltype(void(wrapgen::DTypeOf<T>::value))> : std::true_type {};

// The header matches std::complex without including <complex>: by its
// shape (value_type, real(), imag(), two of them), which nothing else
// here has.
static_assert(wrapgen::DTypeOf<std::complex<float>>::value == wrapgen::DType::kC64, "complex<float>");
static_assert(wrapgen::DTypeOf<std::complex<double>>::value == wrapgen::DType::kC128, "complex<double>");
static_assert(!HasDType<std::complex<long double>>::value, "complex<long double> has no dtype");
static_assert(!HasDType<std::array<float, 2>>::value, "an array of two floats is no complex");
static_assert(!HasDType<std::vector<float>>::value, "a vector is no element");
static_assert(!HasDType<char>::value && !HasDType<long double>::value, "types without a dtype");

static wrapgen::Tensor Want(std::initializer_list<int64_t> shape, std::initializer_list<int64_t> strides) {
  wrapgen::Tensor t;
  t.rank = static_cast<int>(shape.size());
  int i = 0;
  for (int64_t s : shape) t.shape[i++] = s;
  i = 0;
  for (int64_t s : strides) t.strides[i++] = s;
  return t;
}

int main() {
  using wrapgen::DType;

  // A pointer and a shape: row-major strides, bytes exactly the extent.
  float raw[6] = {0, 1, 2, 3, 4, 5};
  wrapgen::Tensor v = wrapgen::View(raw, DType::kF32, {2, 3});
  CHECK(v.rank == 2);
  CHECK(v.shape[0] == 2 && v.shape[1] == 3);
  CHECK(v.strides[0] == 3 && v.strides[1] == 1);
  CHECK(v.bytes == 24);
  CHECK(v.As<float>() == raw);
  CHECK(std::string(v.device) == "cpu");
  CHECK(wrapgen::CheckTensor("x", v, Want({2, 3}, {3, 1})).ok());

  // Explicit strides: the transpose of raw, whose extent is still 6 floats.
  wrapgen::Tensor tr = wrapgen::View(raw, DType::kF32, {3, 2}, {1, 3});
  CHECK(tr.strides[0] == 1 && tr.strides[1] == 3);
  CHECK(tr.bytes == 24);
  CHECK(tr.As<float>()[tr.strides[0] * 2 + tr.strides[1] * 1] == 5);

  // Shapes as vectors, from a computed rank.
  std::vector<int64_t> shape = {2, 1, 3};
  wrapgen::Tensor vv = wrapgen::View(raw, DType::kF32, shape);
  CHECK(vv.rank == 3 && vv.strides[0] == 3 && vv.strides[1] == 3 && vv.strides[2] == 1);
  CHECK(vv.bytes == 24);

  // What a Tensor cannot hold gives rank -1, which a wrapper refuses.
  wrapgen::Tensor deep = wrapgen::View(raw, DType::kF32, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(deep.rank == -1);
  wrapgen::Tensor mismatched = wrapgen::View(raw, DType::kF32, {2, 3}, {1});
  CHECK(mismatched.rank == -1);
  wrapgen::Status st = wrapgen::CheckTensor("x", mismatched, Want({2, 3}, {3, 1}));
  CHECK(!st.ok() && Contains(st.message(), "rank is -1"));

  // A std::vector: dtype from the element type, bytes from the vector.
  int64_t batch = 2;
  std::vector<float> x(static_cast<size_t>(batch * 3), 1.5f);
  wrapgen::Tensor fx = wrapgen::FromVector(x, {batch, 3});
  CHECK(fx.dtype == DType::kF32);
  CHECK(fx.bytes == 24);
  CHECK(fx.As<float>() == x.data());
  CHECK(wrapgen::CheckTensor("x", fx, Want({2, 3}, {3, 1})).ok());

  // A vector too short for the shape is refused by the wrapper's check,
  // naming the bytes it has and needs.
  std::vector<float> short_x(5);
  st = wrapgen::CheckTensor("x", wrapgen::FromVector(short_x, {2, 3}), Want({2, 3}, {3, 1}));
  CHECK(!st.ok() && Contains(st.message(), "data has 20 bytes, the view needs 24"));

  // A longer vector is fine: the view uses a prefix.
  std::vector<float> long_x(100);
  CHECK(wrapgen::CheckTensor("x", wrapgen::FromVector(long_x, {2, 3}), Want({2, 3}, {3, 1})).ok());

  // Every element type with a dtype.
  std::vector<int64_t> i64(4);
  CHECK(wrapgen::FromVector(i64, {4}).dtype == DType::kI64);
  std::vector<uint8_t> u8(4);
  CHECK(wrapgen::FromVector(u8, {2, 2}).dtype == DType::kU8);
  std::vector<double> f64(4);
  CHECK(wrapgen::FromVector(f64, std::vector<int64_t>{4}, std::vector<int64_t>{1}).bytes == 32);
  std::vector<std::complex<double>> c128(3);
  wrapgen::Tensor c = wrapgen::FromVector(c128, {3});
  CHECK(c.dtype == DType::kC128 && c.bytes == 48);
  CHECK(c.As<std::complex<double>>() == c128.data());
  std::vector<std::complex<float>> c64(3);
  CHECK(wrapgen::FromVector(c64, {3}).dtype == DType::kC64 && wrapgen::FromVector(c64, {3}).bytes == 24);

  // Strided view of a vector: every other element.
  std::vector<int32_t> every(8);
  wrapgen::Tensor half = wrapgen::FromVector(every, {4}, {2});
  CHECK(half.dtype == DType::kI32 && half.strides[0] == 2 && half.ExtentElements() == 7 && half.bytes == 32);

  // A byte size that overflows int64 is refused, not wrapped (the
  // sanitizers would report the signed overflow).
  wrapgen::Tensor huge;
  huge.rank = 2;
  huge.shape[0] = int64_t{1} << 62;
  huge.shape[1] = 4;
  huge.strides[0] = 4;
  huge.strides[1] = 1;
  huge.data = reinterpret_cast<uint8_t*>(long_x.data());
  huge.bytes = 400;
  st = wrapgen::CheckTensor("x", huge, Want({int64_t{1} << 62, 4}, {4, 1}));
  CHECK(!st.ok() && Contains(st.message(), "needs more bytes than an int64 holds"));

  // Shapes whose sizes overflow int64 make views every wrapper refuses,
  // without signed overflow (the sanitizers would report it): an extent
  // too large for its bytes gets -1 bytes, a row-major stride too large
  // for an int64 rank -1.
  {
    const int64_t big = int64_t{1} << 62;
    wrapgen::Tensor wide = wrapgen::View(raw, DType::kF32, {big, 4});
    CHECK(wide.rank == 2 && wide.shape[0] == big && wide.strides[0] == 4 && wide.bytes == -1);
    CHECK(wide.ExtentElements() == -1 && wide.NumElements() == -1);
    st = wrapgen::CheckTensor("x", wide, Want({2, 4}, {4, 1}));
    CHECK(!st.ok() && Contains(st.message(), "x: shape is [4611686018427387904, 4], want [2, 4]"));
    st = wrapgen::CheckTensor("x", wide, Want({big, 4}, {4, 1}));
    CHECK(!st.ok() && Contains(st.message(), "needs more bytes than an int64 holds"));
    CHECK(wrapgen::View(raw, DType::kF32, {big}).bytes == -1);  // the extent fits, its bytes do not
    CHECK(wrapgen::View(raw, DType::kF32, {2, big, 4}).rank == -1);
    CHECK(wrapgen::View(raw, DType::kF32, {big, 0}).bytes == 0);
    CHECK(wrapgen::View(raw, DType::kF32, {2, 2}, {big, big}).bytes == -1);
    CHECK(wrapgen::View(raw, DType::kF32, {INT64_MIN, 2}).bytes == -1);
    wrapgen::Tensor empty_wide = wrapgen::View(raw, DType::kF32, {big, 4, 0});
    CHECK(empty_wide.NumElements() == 0 && empty_wide.ExtentElements() == 0 && empty_wide.bytes == 0);
    // A shape that is scale*sym + bias for no int64 sym binds nothing.
    int64_t sym = 0;
    bool bound = false;
    st = wrapgen::BindSymbol(&sym, &bound, "n", "x", wrapgen::View(raw, DType::kF32, {INT64_MIN + 1, 1}), 2, 0, 1, 2);
    CHECK(!st.ok() && !bound && Contains(st.message(), "which is not 1*n + 2 for any n"));
  }

  // A symbol value that makes a size overflow stops Layout with the symbol
  // named, before any kernel sees a shape.
  {
    const int64_t code[] = {wrapgen::kIntSym, 0, 0, wrapgen::kIntConst, 16, 0, wrapgen::kIntMul, 0, 1, 0};
    const int32_t tensors[] = {static_cast<int32_t>(DType::kF32), 0, 1, 0, 0};
    const int32_t dims[] = {0, 1, 0};
    const char* const devices[] = {"cpu", nullptr};
    const char* const symbols[] = {"n", nullptr};
    const wrapgen::Plan plans[] = {{}};  // one plan, of every value, with no steps
    wrapgen::Program p{};
    p.graph = "g";
    p.code = code;
    p.num_values = 3;
    p.tensors = tensors;
    p.num_tensors = 1;
    p.devices = devices;
    p.dims = dims;
    p.num_dims = 2;
    p.symbol_names = symbols;
    p.plans = plans;
    p.num_plans = 1;
    wrapgen::FreshPools pools(nullptr);
    wrapgen::ProgramFrame f(&p, &pools, 1);
    f.sym[0] = int64_t{1} << 62;
    st = f.Layout();
    CHECK(!st.ok() && Contains(st.message(), "g: at n=4611686018427387904 the sizes do not fit an int64"));
    f.sym[0] = 8;
    CHECK(f.Layout().ok() && f.vals[2] == 128);
  }

  if (failures > 0) return 1;
  std::printf("ok\n");
  return 0;
}
