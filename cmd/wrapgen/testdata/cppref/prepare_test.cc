// The C++ reference kernels' weights prepared once (wgref::Prepare) and a
// generated Runner that prepares them (Options::prepare), checked from
// C++: cmd/wrapgen's TestGenCppRefPrepare compiles this file with the
// wrapper of testdata/cppref/convmatmul.json and the kernels, and runs it.
//
//  - kernels: every product kernel's float32 paths (Conv 1-D to 3-D,
//    strided, dilated, grouped, pointwise, its depth cut by a small
//    scratch, and the depthwise and stem ones, which pack nothing;
//    FusedConv with a bias, a sum, in place; MatMul, one matrix or a
//    batch, B strided; Gemm transposed, with C; FusedGemm, FusedMatMul),
//    each at 1 and 3 threads, give the same bits with their weights
//    prepared and without, and with another op's prepared weights, or
//    weights moved; and read the prepared panels (a weight changed in
//    place after Prepare changes only the unprepared call).
//  - the Runner: with prepare and without, the same bytes, PreparedBytes
//    above 0 and 0; steady Runner::Run calls with prepare at threads 2
//    allocate nothing (global operator new counted), nor without it.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <vector>

#include "conv_matmul.h"
#include "wgref/wgref.h"

// g_allocs counts every allocation through the global operator new
// (prepare_allocs.cc, a file of its own: inlined here, GCC would take
// free() of memory from the replaced operator new for a mismatch).
extern std::atomic<long> g_allocs;

namespace {

int g_failures = 0;

void Fail(const std::string& what) {
  std::printf("FAIL %s\n", what.c_str());
  g_failures++;
}

// Random fills v with values in [-1, 1) from a fixed sequence.
void Random(std::vector<float>* v, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (float& x : *v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
}

int64_t Prod(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// Array is a float32 tensor's memory, shape and strides (none:
// row-major); T views it.
struct Array {
  std::vector<float> data;
  std::vector<int64_t> shape, strides;
  wrapgen::Tensor T() { return wrapgen::View(data.data(), wrapgen::DType::kF32, shape, strides); }
};

Array Make(const std::vector<int64_t>& shape, uint32_t seed) {
  Array a;
  a.data.resize(static_cast<size_t>(Prod(shape)));
  Random(&a.data, seed);
  a.shape = shape;
  return a;
}

wgref::Attr Ints(const char* name, const std::vector<int64_t>& v) {
  wgref::Attr a;
  a.name = name;
  a.kind = wgref::AttrKind::kInts;
  a.ints = wrapgen::Span<int64_t>(v.data(), v.size());
  return a;
}

wgref::Attr Int(const char* name, int64_t v) {
  wgref::Attr a;
  a.name = name;
  a.kind = wgref::AttrKind::kInt;
  a.i = v;
  return a;
}

wgref::Attr Float(const char* name, double v) {
  wgref::Attr a;
  a.name = name;
  a.kind = wgref::AttrKind::kFloat;
  a.f = v;
  return a;
}

wgref::Attr String(const char* name, const char* v) {
  wgref::Attr a;
  a.name = name;
  a.kind = wgref::AttrKind::kString;
  a.s = v;
  return a;
}

// Case is one kernel call: its inputs (the weight is inputs[1]), the
// output's shape, its attributes and scratch; sum_is_out makes the
// output the last input's memory (a fused sum in place).
struct Case {
  std::string name;
  const char* kernel;
  std::vector<Array> inputs;
  std::vector<int64_t> out_shape;
  std::vector<wgref::Attr> attrs;
  int64_t scratch_floats = 0;
  bool sum_is_out = false;
  bool packs = true;   // Prepare packs the weight (the activation's layout known)
  bool serves = true;  // and the call reads what it packed
};

// Run calls the case's kernel with prepared (null: none), returning the
// output's bits.
std::vector<float> Run(const Case& k, const std::vector<wrapgen::Tensor>& ins, int threads, const void* prepared) {
  std::vector<float> out(static_cast<size_t>(Prod(k.out_shape)));
  std::vector<float> sum;
  wrapgen::Tensor o = wrapgen::FromVector(out, k.out_shape);
  std::vector<wrapgen::Tensor> in = ins;
  if (k.sum_is_out) {
    sum = k.inputs.back().data;
    o = wrapgen::FromVector(sum, k.out_shape);
    in.back() = o;
  }
  std::vector<uint8_t> scratch(static_cast<size_t>(4 * k.scratch_floats));
  wgref::Call c;
  c.kernel = k.kernel;
  c.outputs = &o;
  c.num_outputs = 1;
  c.inputs = in.data();
  c.num_inputs = static_cast<int>(in.size());
  c.attrs = k.attrs.data();
  c.num_attrs = static_cast<int>(k.attrs.size());
  c.scratch = scratch.empty() ? nullptr : scratch.data();
  c.scratch_bytes = static_cast<int64_t>(scratch.size());
  c.prepared = prepared;
  c.threads = threads;
  wrapgen::Status st = wgref::Run(c);
  if (!st.ok()) Fail(k.name + ": " + st.message());
  return k.sum_is_out ? sum : out;
}

// Prepare prepares the case's call: its inputs, the first (the
// activation) with its layout only when known is false.
wgref::Prepared Prepare(const Case& k, const std::vector<wrapgen::Tensor>& ins, bool known) {
  std::vector<wrapgen::Tensor> in = ins;
  for (size_t i = 0; i < in.size(); i++) {
    if (i == 1) continue;  // the weight, a param
    in[i].data = nullptr;
    if (i == 0 && !known) in[i].rank = -1;
  }
  wgref::Call c;
  c.kernel = k.kernel;
  c.inputs = in.data();
  c.num_inputs = static_cast<int>(in.size());
  c.attrs = k.attrs.data();
  c.num_attrs = static_cast<int>(k.attrs.size());
  wgref::Prepared p;
  wrapgen::Status st = wgref::Prepare(c, &p);
  if (!st.ok()) Fail(k.name + ": Prepare: " + st.message());
  return p;
}

bool Same(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
}

std::vector<int64_t> g_k3 = {3, 3}, g_s1 = {1, 1}, g_s2 = {2, 2}, g_p1 = {1, 1, 1, 1}, g_p0 = {0, 0, 0, 0}, g_d1 = {1, 1},
                     g_d2 = {2, 2}, g_k1 = {1, 1}, g_k5 = {5}, g_one = {1}, g_pad2 = {2, 2}, g_k333 = {3, 3, 3},
                     g_s111 = {1, 1, 1}, g_p111 = {1, 1, 1, 1, 1, 1};

std::vector<wgref::Attr> ConvAttrs(const std::vector<int64_t>& k, const std::vector<int64_t>& s, const std::vector<int64_t>& p,
                                   const std::vector<int64_t>& d, int64_t group) {
  return {Ints("kernel_shape", k), Ints("strides", s), Ints("pads", p), Ints("dilations", d), Int("group", group)};
}

std::vector<wgref::Attr> WithAct(std::vector<wgref::Attr> a, const char* act) {
  a.push_back(String("activation", act));
  a.push_back(Float("activation_alpha", 0));
  a.push_back(Float("activation_beta", 0));
  return a;
}

std::vector<Case> Cases() {
  std::vector<Case> cs;
  uint32_t seed = 1;
  auto arr = [&](const std::vector<int64_t>& s) { return Make(s, seed++); };
  cs.push_back({"conv 3x3", "Conv", {arr({2, 20, 9, 9}), arr({24, 20, 3, 3}), arr({24})}, {2, 24, 9, 9},
                ConvAttrs(g_k3, g_s1, g_p1, g_d1, 1), 1 << 16});
  // Depth 360 in cuts of 256 (Sgemm's blocks: the packed filters serve)
  // and of 100 (they do not: packed per call).
  cs.push_back({"conv depth cut 256", "Conv", {arr({1, 40, 7, 7}), arr({10, 40, 3, 3})}, {1, 10, 7, 7},
                ConvAttrs(g_k3, g_s1, g_p1, g_d1, 1), 256 * 49});
  Case cut{"conv depth cut 100", "Conv", {arr({1, 40, 7, 7}), arr({10, 40, 3, 3})}, {1, 10, 7, 7},
           ConvAttrs(g_k3, g_s1, g_p1, g_d1, 1), 100 * 49};
  cut.serves = false;
  cs.push_back(cut);
  cs.push_back({"conv strided dilated", "Conv", {arr({2, 6, 15, 13}), arr({9, 6, 3, 3}), arr({9})}, {2, 9, 6, 5},
                ConvAttrs(g_k3, g_s2, g_p1, g_d2, 1), 1 << 16});
  cs.push_back({"conv grouped", "Conv", {arr({2, 8, 10, 10}), arr({12, 4, 3, 3}), arr({12})}, {2, 12, 10, 10},
                ConvAttrs(g_k3, g_s1, g_p1, g_d1, 2), 1 << 16});
  cs.push_back({"conv pointwise", "Conv", {arr({2, 16, 7, 7}), arr({24, 16, 1, 1})}, {2, 24, 7, 7},
                ConvAttrs(g_k1, g_s1, g_p0, g_d1, 1), 1 << 10});
  cs.push_back({"conv 1-D", "Conv", {arr({2, 6, 30}), arr({10, 6, 5}), arr({10})}, {2, 10, 30},
                ConvAttrs(g_k5, g_one, g_pad2, g_one, 1), 1 << 16});
  cs.push_back({"conv 3-D", "Conv", {arr({1, 4, 5, 6, 7}), arr({6, 4, 3, 3, 3})}, {1, 6, 5, 6, 7},
                ConvAttrs(g_k333, g_s111, g_p111, g_s111, 1), 1 << 16});
  Case dw{"conv depthwise", "Conv", {arr({2, 8, 9, 9}), arr({8, 1, 3, 3})}, {2, 8, 9, 9}, ConvAttrs(g_k3, g_s1, g_p1, g_d1, 8),
          1 << 16};
  dw.packs = false;  // tap rows: nothing to pack
  cs.push_back(dw);
  Case stem{"conv stem", "Conv", {arr({2, 3, 16, 16}), arr({16, 3, 3, 3}), arr({16})}, {2, 16, 8, 8},
            ConvAttrs(g_k3, g_s2, g_p1, g_d1, 1), 1 << 16};
  stem.packs = false;  // blocks of channels: the filters read in place
  cs.push_back(stem);
  cs.push_back({"fused conv bias relu", "FusedConv", {arr({2, 20, 9, 9}), arr({24, 20, 3, 3}), arr({24})}, {2, 24, 9, 9},
                WithAct(ConvAttrs(g_k3, g_s1, g_p1, g_d1, 1), "Relu"), 1 << 16});
  cs.push_back({"fused conv pointwise sum", "FusedConv",
                {arr({2, 16, 7, 7}), arr({24, 16, 1, 1}), arr({24}), arr({2, 24, 7, 7})}, {2, 24, 7, 7},
                WithAct(ConvAttrs(g_k1, g_s1, g_p0, g_d1, 1), "Relu"), 1 << 10});
  Case inplace{"fused conv sum in place", "FusedConv", {arr({2, 8, 6, 6}), arr({8, 8, 3, 3}), arr({8}), arr({2, 8, 6, 6})},
               {2, 8, 6, 6}, WithAct(ConvAttrs(g_k3, g_s1, g_p1, g_d1, 1), "Relu"), 1 << 16};
  inplace.sum_is_out = true;
  cs.push_back(inplace);
  // In place, in chunks of a few output channels: of whole panels (the
  // packed filters' rows serve them), also per group; and of fewer
  // channels than a panel (they do not).
  Case chunks{"fused conv sum in place, chunks", "FusedConv",
              {arr({1, 8, 28, 28}), arr({40, 8, 3, 3}), arr({40}), arr({1, 40, 28, 28})}, {1, 40, 28, 28},
              WithAct(ConvAttrs(g_k3, g_s1, g_p1, g_d1, 1), "Relu"), 1 << 16};
  chunks.sum_is_out = true;
  cs.push_back(chunks);
  Case gchunks{"fused conv sum in place, grouped chunks", "FusedConv",
               {arr({1, 16, 28, 28}), arr({44, 8, 3, 3}), arr({44}), arr({1, 44, 28, 28})}, {1, 44, 28, 28},
               WithAct(ConvAttrs(g_k3, g_s1, g_p1, g_d1, 2), ""), 1 << 16};  // chunks of more than 2 channels for MR 6 and 8
  gchunks.sum_is_out = true;
  cs.push_back(gchunks);
  Case narrow{"fused conv sum in place, narrow chunks", "FusedConv",
              {arr({1, 8, 56, 56}), arr({12, 8, 3, 3}), arr({12}), arr({1, 12, 56, 56})}, {1, 12, 56, 56},
              WithAct(ConvAttrs(g_k3, g_s1, g_p1, g_d1, 1), "Relu"), 1 << 16};
  narrow.sum_is_out = true;
  narrow.serves = false;
  cs.push_back(narrow);
  cs.push_back({"matmul", "MatMul", {arr({3, 7, 50}), arr({50, 70})}, {3, 7, 70}, {}, 0});
  cs.push_back({"matmul depth 300", "MatMul", {arr({9, 300}), arr({300, 40})}, {9, 40}, {}, 0});
  Case bt{"matmul strided b", "MatMul", {arr({3, 7, 50}), arr({70, 50})}, {3, 7, 70}, {}, 0};
  bt.inputs[1].shape = {50, 70};
  bt.inputs[1].strides = {1, 50};
  cs.push_back(bt);
  Case uneven{"matmul uneven rows", "MatMul", {arr({3, 8, 50}), arr({50, 70})}, {3, 7, 70}, {}, 0};
  uneven.inputs[0].shape = {3, 7, 50};
  uneven.inputs[0].strides = {400, 50, 1};
  cs.push_back(uneven);
  Case few{"matmul few rows", "MatMul", {arr({2, 50}), arr({50, 70})}, {2, 70}, {}, 0};
  few.packs = false;  // row by row: B read in place
  cs.push_back(few);
  cs.push_back({"gemm transB bias", "Gemm", {arr({11, 300}), arr({48, 300}), arr({48})}, {11, 48},
                {Float("alpha", 1), Float("beta", 1), Int("transA", 0), Int("transB", 1)}, 0});
  cs.push_back({"gemm transA alpha", "Gemm", {arr({30, 13}), arr({30, 20}), arr({13, 20})}, {13, 20},
                {Float("alpha", 0.5), Float("beta", 2), Int("transA", 1), Int("transB", 0)}, 0});
  cs.push_back({"fused gemm", "FusedGemm", {arr({11, 64}), arr({64, 33}), arr({33})}, {11, 33},
                WithAct({Float("alpha", 1), Float("beta", 1), Int("transA", 0), Int("transB", 0)}, "Relu"), 0});
  cs.push_back({"fused matmul bias", "FusedMatMul", {arr({4, 6, 40}), arr({40, 24}), arr({24})}, {4, 6, 24}, WithAct({}, "Gelu"),
                0});
  return cs;
}

void CheckKernels() {
  std::vector<Case> cases = Cases();
  wgref::Prepared other;  // another op's: the first MatMul's
  for (Case& k : cases) {
    std::vector<wrapgen::Tensor> ins;
    for (Array& a : k.inputs) ins.push_back(a.T());
    if (std::strcmp(k.kernel, "MatMul") == 0 && other.data() == nullptr) other = Prepare(k, ins, true);
  }
  int prepared_cases = 0;
  for (Case& k : cases) {
    std::vector<wrapgen::Tensor> ins;
    for (Array& a : k.inputs) ins.push_back(a.T());
    for (bool known : {true, false}) {
      wgref::Prepared p = Prepare(k, ins, known);
      if ((known && k.packs != (p.bytes() > 0)) || (k.packs && p.bytes() == 0)) {
        Fail(k.name + ": Prepare packed " + std::to_string(p.bytes()) + " bytes");
      }
      if (p.bytes() > 0) prepared_cases++;
      for (int threads : {1, 3}) {
        const std::vector<float> plain = Run(k, ins, threads, nullptr);
        const std::string at = k.name + (known ? "" : " (activation unknown)") + " at " + std::to_string(threads) + " threads";
        if (!Same(plain, Run(k, ins, threads, p.data()))) Fail(at + ": prepared and unprepared bits differ");
        if (!Same(plain, Run(k, ins, threads, other.data()))) Fail(at + ": another op's prepared weights change the bits");
      }
    }
    // The weight moved (same values elsewhere): packed per call.
    wgref::Prepared p = Prepare(k, ins, true);
    std::vector<float> moved = k.inputs[1].data;
    std::vector<wrapgen::Tensor> ins2 = ins;
    ins2[1].data = reinterpret_cast<uint8_t*>(moved.data());
    if (!Same(Run(k, ins, 1, nullptr), Run(k, ins2, 1, p.data()))) Fail(k.name + ": weights moved: the bits differ");
    // The weight changed in place: the prepared call reads the panels
    // packed from the old values.
    if (p.bytes() == 0 || !k.serves) continue;
    const std::vector<float> before = Run(k, ins, 1, nullptr);
    for (float& x : k.inputs[1].data) x = -x;
    if (!Same(before, Run(k, ins, 1, p.data()))) Fail(k.name + ": the prepared call does not read the prepared panels");
    if (Same(before, Run(k, ins, 1, nullptr))) Fail(k.name + ": negating the weight changes nothing");
    for (float& x : k.inputs[1].data) x = -x;
  }
  std::printf("kernels: %d cases, %d prepared\n", static_cast<int>(cases.size()), prepared_cases);
}

// ---- The Runner of conv_matmul.

struct Model {
  std::map<std::string, Array> arrays;
  convMatmul::Params params;
  convMatmul::Inputs in;
};

void Fill(Model* m, int64_t batch) {
  const std::map<std::string, std::vector<int64_t>> shapes = {
      {"w1", {32, 3, 3, 3}}, {"b1", {32}}, {"w2", {16, 32, 3, 3}}, {"w3", {8, 16, 1, 1}}, {"w4", {8, 4, 3, 3}},
      {"wm", {40, 24}},      {"bm", {24}}, {"wg", {48, 300}},      {"bg", {48}},          {"x", {batch, 3, 12, 12}},
      {"u", {batch, 5, 40}}, {"v", {batch, 300}}};
  uint32_t seed = 100;
  for (const auto& s : shapes) m->arrays[s.first] = Make(s.second, seed++);
  std::map<std::string, wrapgen::Tensor> ps;
  for (const char* n : {"w1", "b1", "w2", "w3", "w4", "wm", "bm", "wg", "bg"}) ps[n] = m->arrays[n].T();
  wrapgen::Status st = convMatmul::ParamsFrom(ps, &m->params);
  if (!st.ok()) Fail("ParamsFrom: " + st.message());
  m->in.x = m->arrays["x"].T();
  m->in.u = m->arrays["u"].T();
  m->in.v = m->arrays["v"].T();
}

std::vector<uint8_t> Bytes(const convMatmul::Outputs& out) {
  std::vector<uint8_t> b;
  for (const wrapgen::OwnedTensor* t : {&out.y1, &out.y2, &out.y3}) {
    const int64_t n = t->NumElements() * 4;
    b.insert(b.end(), t->data, t->data + n);
  }
  return b;
}

void CheckRunner() {
  Model m;
  Fill(&m, 5);
  convMatmul::RefKernels k;
  wrapgen::Status st = k.CheckKernels();
  if (!st.ok()) Fail(st.message());
  convMatmul::Options with, without;
  with.threads = without.threads = 2;
  with.prepare = wgref::Prepare;
  convMatmul::Runner prepared(m.params, with), plain(m.params, without);
  std::vector<uint8_t> want;
  {
    convMatmul::Outputs out;
    st = plain.Run(k, m.in, &out);
    if (!st.ok()) Fail("plain Run: " + st.message());
    want = Bytes(out);
  }
  {
    convMatmul::Outputs out;
    st = prepared.Run(k, m.in, &out);
    if (!st.ok()) Fail("prepared Run: " + st.message());
    if (Bytes(out) != want) Fail("the prepared Runner's outputs differ from the unprepared one's");
  }
  {
    convMatmul::Outputs out;
    st = convMatmul::Run(k, m.params, m.in, &out, with);  // Run ignores prepare
    if (!st.ok()) Fail("Run: " + st.message());
    if (Bytes(out) != want) Fail("Run's outputs differ from the Runner's");
  }
  if (prepared.PreparedBytes() <= 0) Fail("PreparedBytes is " + std::to_string(prepared.PreparedBytes()) + " with prepare");
  if (plain.PreparedBytes() != 0) Fail("PreparedBytes is " + std::to_string(plain.PreparedBytes()) + " without prepare");
  std::printf("runner: prepared %lld bytes\n", static_cast<long long>(prepared.PreparedBytes()));
  // Steady calls allocate nothing, on 2 threads, prepared or not.
  for (convMatmul::Runner* r : {&prepared, &plain}) {
    convMatmul::Outputs last;
    bool ok = true;
    const long before = g_allocs.load();
    for (int i = 0; i < 5; i++) {
      convMatmul::Outputs out;
      ok = r->Run(k, m.in, &out).ok() && ok;
      last = out;
    }
    const long n = g_allocs.load() - before;
    if (!ok) Fail("a steady Run failed");
    if (Bytes(last) != want) Fail("a steady call's outputs differ");
    const char* which = r == &prepared ? "prepared" : "unprepared";
    if (n != 0) Fail(std::string(which) + ": 5 steady Runner::Run calls allocated " + std::to_string(n) + " times");
    std::printf("runner %s: 5 steady calls at 2 threads, %ld allocations\n", which, n);
  }
  // At another batch, and 1 thread: the same bits prepared or not.
  Model m3;
  Fill(&m3, 3);
  with.threads = without.threads = 1;
  convMatmul::Runner p1(m3.params, with), u1(m3.params, without);
  convMatmul::Outputs o1, o2;
  st = p1.Prepare();
  if (!st.ok()) Fail("Prepare: " + st.message());
  const wrapgen::Status s1 = p1.Run(k, m3.in, &o1), s2 = u1.Run(k, m3.in, &o2);
  if (!s1.ok() || !s2.ok()) Fail("batch 3: " + s1.message() + s2.message());
  if (Bytes(o1) != Bytes(o2)) Fail("batch 3, 1 thread: prepared and unprepared outputs differ");
}

}  // namespace

int main() {
  CheckKernels();
  CheckRunner();
  if (g_failures > 0) {
    std::printf("%d failures\n", g_failures);
    return 1;
  }
  std::printf("ok\n");
  return 0;
}
