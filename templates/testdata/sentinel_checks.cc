// Tests of sentinel.h's Checker, built by sentinel_test.go with -Wall
// -Wextra -Wshadow -Wconversion -Werror and sanitizers, and run: it prints
// "ok" or each failed check and exits 1. The checker goes by contiguous
// runs when it can and element by element when it must; both ways must
// find the same corruption, name the same element and byte, and count
// never-written bytes the same.
#include <cstdio>
#include <string>
#include <vector>

#include "sentinel.h"

static int failures = 0;

#define CHECK(cond)                                                 \
  do {                                                              \
    if (!(cond)) {                                                  \
      std::printf("%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                                   \
    }                                                               \
  } while (0)

using wrapgen::DType;
using wrapgen::Tensor;
using wrapgen_sentinel::Checker;

static bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// View is a tensor over mem from byte off.
static Tensor View(std::vector<uint8_t>& mem, int64_t off, DType dtype, std::initializer_list<int64_t> shape,
                   std::initializer_list<int64_t> strides) {
  Tensor t;
  t.dtype = dtype;
  t.rank = static_cast<int>(shape.size());
  int i = 0;
  for (int64_t s : shape) t.shape[i++] = s;
  i = 0;
  for (int64_t s : strides) t.strides[i++] = s;
  t.data = mem.data() + off;
  t.bytes = t.ExtentElements() * wrapgen::DTypeSize(dtype);
  return t;
}

// OneOp is an op of one input or one output (nullptr for none).
struct OneOp {
  const char* in[1];
  const char* out[1];
  wrapgen::Op op;
  OneOp(int index, const char* input, const char* output) : in{input}, out{output}, op{} {
    op.index = index;
    op.place = "test";
    op.kernel = "k";
    op.inputs = in;
    op.num_inputs = input != nullptr ? 1 : 0;
    op.outputs = out;
    op.num_outputs = output != nullptr ? 1 : 0;
  }
};

static wrapgen::Status WriteOp(Checker& c, int index, const char* name, const Tensor& t) {
  OneOp o(index, nullptr, name);
  c.BeginOp(o.op);
  return c.Call({&t}, nullptr, 0);
}

static wrapgen::Status ReadOp(Checker& c, int index, const char* name, const Tensor& t) {
  OneOp o(index, name, nullptr);
  c.BeginOp(o.op);
  const Tensor* ins[1] = {&t};
  return c.Call({}, ins, 1);
}

// Corrupt flips a byte and says what the checker must report of it.
static std::string Corrupt(uint8_t* p, int64_t elem, int64_t byte) {
  const uint8_t was = *p;
  *p = static_cast<uint8_t>(was ^ 0x5A);
  return "element " + std::to_string(elem) + " byte " + std::to_string(byte) + " is " + std::to_string(static_cast<int>(*p)) +
         ", but " + std::to_string(static_cast<int>(was)) + " was written there";
}

// A 3x5 f32 tensor, contiguous (one run), transposed in memory (strides
// 1, 3: a permuted block, checked as a block, then element by element to
// name the bad one) and with gaps (strides 1, 4: element by element): a
// byte flipped in element 7 (row 1, column 2) is reported as element 7
// every way, and an untouched tensor reads clean.
static void TestSameVerdicts() {
  const Checker::StorageEntry storages[] = {{"a", 60}, {"b", 60}, {"c", 80}};
  const Checker::ViewEntry views[] = {{"a", 0, 0}, {"b", 1, 0}, {"c", 2, 0}};
  Checker c(storages, 3, views, 3, nullptr, 0);
  std::vector<uint8_t> ma(60), mb(60), mc(80);
  const Tensor a = View(ma, 0, DType::kF32, {3, 5}, {5, 1});
  const Tensor b = View(mb, 0, DType::kF32, {3, 5}, {1, 3});
  const Tensor g = View(mc, 0, DType::kF32, {3, 5}, {1, 4});
  c.BeginCall();
  CHECK(WriteOp(c, 0, "a", a).ok());
  CHECK(WriteOp(c, 1, "b", b).ok());
  CHECK(WriteOp(c, 2, "c", g).ok());
  CHECK(c.bytes_written == 180);
  CHECK(ReadOp(c, 3, "a", a).ok());
  CHECK(ReadOp(c, 4, "b", b).ok());
  CHECK(ReadOp(c, 5, "c", g).ok());
  CHECK(c.bytes_read == 180);
  const std::string want_a = Corrupt(&ma[(1 * 5 + 2) * 4 + 3], 7, 3);
  const std::string want_b = Corrupt(&mb[(1 * 1 + 2 * 3) * 4 + 3], 7, 3);
  const std::string want_c = Corrupt(&mc[(1 * 1 + 2 * 4) * 4 + 3], 7, 3);
  wrapgen::Status sa = ReadOp(c, 6, "a", a), sb = ReadOp(c, 7, "b", b), sc = ReadOp(c, 8, "c", g);
  CHECK(!sa.ok() && Contains(sa.message(), "input \"a\" (storage of \"a\") is corrupted: " + want_a));
  CHECK(!sb.ok() && Contains(sb.message(), "input \"b\" (storage of \"b\") is corrupted: " + want_b));
  CHECK(!sc.ok() && Contains(sc.message(), "input \"c\" (storage of \"c\") is corrupted: " + want_c));
  // The elements before the corrupt one were read whole.
  CHECK(c.bytes_read == 180 + 3 * 7 * 4);
  CHECK(c.never_written_bytes == 0);
  CHECK(c.first_error() == sa.message());
  // Put back, c reads clean, and a byte in a gap of c is no element's.
  mc[(1 * 1 + 2 * 4) * 4 + 3] ^= 0x5A;
  mc[3 * 4] ^= 1;
  CHECK(ReadOp(c, 9, "c", g).ok());
}

// A stale block: a contiguous run holds, in its middle, bytes of an
// earlier write to the same place. The first byte that differs is named.
static void TestStaleBlock() {
  const Checker::StorageEntry storages[] = {{"s", 4096}};
  const Checker::ViewEntry views[] = {{"t", 0, 0}};
  Checker c(storages, 1, views, 1, nullptr, 0);
  std::vector<uint8_t> mem(4096);
  const Tensor t = View(mem, 0, DType::kF16, {2048}, {1});
  CHECK(WriteOp(c, 0, "t", t).ok());
  const std::vector<uint8_t> first = mem;
  CHECK(WriteOp(c, 1, "t", t).ok());
  int same = 0;
  for (size_t i = 0; i < mem.size(); i++) same += mem[i] == first[i];
  CHECK(same < 4096 / 64);  // a new write changes (nearly) every byte
  // Bytes 1001..1040 go back to the first write's.
  size_t bad = 0;
  for (size_t i = 1001; i < 1041; i++) {
    if (bad == 0 && mem[i] != first[i]) bad = i;
    mem[i] = first[i];
  }
  CHECK(bad >= 1001 && bad < 1016);  // each 8-byte word differs somewhere
  wrapgen::Status s = ReadOp(c, 2, "t", t);
  const std::string want = "element " + std::to_string(bad / 2) + " byte " + std::to_string(bad % 2) + " is " +
                           std::to_string(static_cast<int>(first[bad])) + ", but ";
  CHECK(!s.ok() && Contains(s.message(), want));
  CHECK(c.bytes_read == static_cast<int64_t>(bad / 2 * 2));
}

// Bytes no op wrote are counted, not held against the plan: a base read
// whole after a strided view wrote every other element of it (the gaps,
// unknown, may hold anything), and corruption of a written one is still
// found with the base's element number.
static void TestNeverWritten() {
  const Checker::StorageEntry storages[] = {{"base", 80}};
  const Checker::ViewEntry views[] = {{"even", 0, 0}, {"base", 0, 0}, {"wide", 0, 0}};
  Checker c(storages, 1, views, 3, nullptr, 0);
  std::vector<uint8_t> mem(80);
  const Tensor even = View(mem, 0, DType::kC128, {3}, {2});  // elements 0, 2, 4 of 16 bytes
  const Tensor base = View(mem, 0, DType::kF64, {10}, {1});
  CHECK(WriteOp(c, 0, "even", even).ok());
  CHECK(c.bytes_written == 48);
  for (int i = 16; i < 32; i++) mem[static_cast<size_t>(i)] = 0xEE;  // a gap
  CHECK(ReadOp(c, 1, "base", base).ok());
  CHECK(c.never_written_bytes == 32);
  CHECK(c.bytes_read == 80);
  // The same read element by element: a strided view over the same bytes
  // as 2x5 with strides (1, 2) walks them out of order.
  const Tensor cols = View(mem, 0, DType::kF64, {2, 5}, {1, 2});
  CHECK(ReadOp(c, 2, "base", cols).ok());
  CHECK(c.never_written_bytes == 64);
  CHECK(c.bytes_read == 160);
  const std::string want = Corrupt(&mem[8 * 8 + 5], 8, 5);
  wrapgen::Status s = ReadOp(c, 3, "base", base);
  CHECK(!s.ok() && Contains(s.message(), want));
  // Unknown bytes before the corrupt one (16..31, 48..63) were counted.
  CHECK(c.never_written_bytes == 64 + 32);
  CHECK(c.bytes_read == 160 + 8 * 8);
  // Dims of size 1 (any stride) do not break a run; a new pass forgets.
  const Tensor wide = View(mem, 0, DType::kU8, {2, 1, 40}, {40, 7, 1});
  c.BeginCall();
  CHECK(ReadOp(c, 4, "wide", wide).ok());
  CHECK(WriteOp(c, 5, "wide", wide).ok());
  CHECK(ReadOp(c, 6, "base", base).ok());
  CHECK(c.never_written_bytes == 96);
}

int main() {
  TestSameVerdicts();
  TestStaleBlock();
  TestNeverWritten();
  if (failures != 0) return 1;
  std::printf("ok\n");
  return 0;
}
