// cppcnn runs the CNN of ../make.py (cnn.onnx) with wrapgen's C++ reference
// kernels: it loads the params, reads a batch of images, runs the model
// through a Runner, compares the logits with PyTorch's and times a few
// calls at one and two threads. It exits 1 when the largest difference
// from PyTorch passes 1e-4 of the largest |expected| logit, so the example
// is also a check. Build it with CMakeLists.txt (one directory up).
//
//   cppcnn [DIR]   # DIR holds cnn.safetensors, input.npy and expected.npy (default .)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cnn.h"
#include "wgref/wgref.h"

namespace {

// Npy is an f32 array read from a .npy file.
struct Npy {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// ReadNpy reads a little-endian f32 .npy file in C order (what numpy.save
// writes for a float32 array), or says why it cannot.
bool ReadNpy(const std::string& path, Npy* out, std::string* error) {
  std::ifstream f(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (!f.good() && !f.eof()) {
    *error = path + ": cannot read";
    return false;
  }
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) {
    *error = path + ": not a .npy file";
    return false;
  }
  const auto byte = [&](size_t i) { return static_cast<size_t>(static_cast<unsigned char>(bytes[i])); };
  const int major = bytes[6];
  size_t start = 10, header_len = byte(8) | byte(9) << 8;
  if (major >= 2) {
    if (bytes.size() < 12) {
      *error = path + ": truncated header";
      return false;
    }
    start = 12;
    header_len = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
  }
  if (bytes.size() < start + header_len) {
    *error = path + ": truncated header";
    return false;
  }
  const std::string header = bytes.substr(start, header_len);
  if (header.find("'descr': '<f4'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos) {
    *error = path + ": want a little-endian float32 array in C order, header " + header;
    return false;
  }
  const size_t open = header.find('(', header.find("'shape':"));
  const size_t close = header.find(')', open);
  if (open == std::string::npos || close == std::string::npos) {
    *error = path + ": no shape in header " + header;
    return false;
  }
  out->shape.clear();
  int64_t n = 1;
  for (size_t at = open + 1; at < close;) {
    char* end = nullptr;
    const long long d = std::strtoll(header.c_str() + at, &end, 10);
    const size_t next = static_cast<size_t>(end - header.c_str());
    if (next == at) break;  // "(2,)": nothing after the last comma
    out->shape.push_back(d);
    n *= d;
    at = header.find_first_not_of(", ", next);
  }
  const size_t data_at = start + header_len;
  if (bytes.size() - data_at != static_cast<size_t>(n) * sizeof(float)) {
    *error = path + ": " + std::to_string(bytes.size() - data_at) + " data bytes, want " +
             std::to_string(n * static_cast<int64_t>(sizeof(float)));
    return false;
  }
  out->data.resize(static_cast<size_t>(n));
  std::memcpy(out->data.data(), bytes.data() + data_at, bytes.size() - data_at);
  return true;
}

// MaxDiff is max |got - want| over a rank-2 output (read through its
// strides: an output the Runner returns views its pools).
double MaxDiff(const wrapgen::Tensor& got, const std::vector<float>& want) {
  const float* g = got.As<float>();
  double diff = 0;
  for (int64_t i = 0; i < got.shape[0]; i++) {
    for (int64_t j = 0; j < got.shape[1]; j++) {
      const double d = g[i * got.strides[0] + j * got.strides[1]] - want[static_cast<size_t>(i * got.shape[1] + j)];
      diff = std::max(diff, std::fabs(d));
    }
  }
  return diff;
}

int Fail(const std::string& msg) {
  std::fprintf(stderr, "cppcnn: %s\n", msg.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? std::string(argv[1]) + "/" : "";

  // The params (weights) once, from the safetensors file `wrapgen import
  // -weights` wrote; they must outlive every Runner bound to them.
  cnn::Params params;
  wrapgen::Status s = cnn::LoadParams(dir + "cnn.safetensors", &params);
  if (!s.ok()) return Fail(s.message());

  Npy image, expected;
  std::string error;
  if (!ReadNpy(dir + "input.npy", &image, &error) || !ReadNpy(dir + "expected.npy", &expected, &error)) {
    return Fail(error);
  }
  if (image.shape.size() != 4) return Fail("input.npy: want images [batch, 3, 64, 64]");
  // The input is a view of the caller's vector: nothing is copied, and the
  // wrapper checks its dtype, shape and length (the batch is dynamic).
  cnn::Inputs in;
  in.image = wrapgen::FromVector(image.data, image.shape);

  cnn::RefKernels kernels;
  s = kernels.CheckKernels();
  if (!s.ok()) return Fail(s.message());

  double peak = 0;
  for (float v : expected.data) peak = std::max(peak, static_cast<double>(std::fabs(v)));
  const double bound = 1e-4 * peak;
  bool ok = true;
  for (int threads : {1, 2}) {
    cnn::Options opts;
    opts.threads = threads;         // per kernel (0: std::thread::hardware_concurrency())
    opts.prepare = wgref::Prepare;  // pack the weights once, when the Runner binds the params
    cnn::Runner runner(params, opts);
    cnn::Outputs out;
    s = runner.Run(kernels, in, &out);  // the first call checks the params and sizes the pools
    if (!s.ok()) return Fail(s.message());
    const wrapgen::Tensor& logits = out.logits;
    if (logits.rank != 2 || expected.shape.size() != 2 || logits.shape[0] != expected.shape[0] ||
        logits.shape[1] != expected.shape[1]) {
      return Fail("logits are " + wrapgen::DimsText(logits.shape, logits.rank) + ", expected.npy " +
                  wrapgen::DimsText(expected.shape.data(), static_cast<int>(expected.shape.size())));
    }
    const double diff = MaxDiff(logits, expected.data);
    std::printf("threads %d: logits %s %s, max |diff| from PyTorch %.3g (max |expected| %.3g, bound %.3g)\n", threads,
                wrapgen::DTypeName(logits.dtype), wrapgen::DimsText(logits.shape, logits.rank).c_str(), diff, peak,
                bound);
    if (!(diff <= bound)) ok = false;

    // The Runner keeps its pools between calls.
    std::vector<double> ms;
    for (int call = 0; call < 20; call++) {
      out = cnn::Outputs();  // no caller data: the logits view the Runner's memory
      const auto t0 = std::chrono::steady_clock::now();
      s = runner.Run(kernels, in, &out);
      const auto t1 = std::chrono::steady_clock::now();
      if (!s.ok()) return Fail(s.message());
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    if (MaxDiff(out.logits, expected.data) != diff) {  // the same numbers call after call
      std::fprintf(stderr, "cppcnn: threads %d: the logits changed from one call to the next\n", threads);
      ok = false;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("threads %d: %zu calls at batch %lld, min %.3f ms, median %.3f ms per call\n", threads, ms.size(),
                static_cast<long long>(image.shape[0]), ms.front(), ms[ms.size() / 2]);
  }
  // The batch is dynamic: the first image alone gives the first row.
  {
    cnn::Runner runner(params);
    cnn::Inputs one;
    one.image = wrapgen::View(image.data.data(), wrapgen::DType::kF32, {1, image.shape[1], image.shape[2], image.shape[3]});
    cnn::Outputs out;
    s = runner.Run(kernels, one, &out);
    if (!s.ok()) return Fail(s.message());
    const std::vector<float> row(expected.data.begin(), expected.data.begin() + expected.shape[1]);
    const double diff = MaxDiff(out.logits, row);
    std::printf("batch 1: logits %s, max |diff| from PyTorch's first row %.3g\n",
                wrapgen::DimsText(out.logits.shape, out.logits.rank).c_str(), diff);
    if (!(diff <= bound)) ok = false;
  }
  if (!ok) return Fail("failed: the logits are not PyTorch's (to 1e-4 of max |expected|) or not the same every call");
  std::printf("cppcnn: ok\n");
  return 0;
}
