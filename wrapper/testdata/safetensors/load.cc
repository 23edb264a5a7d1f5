// load reads each safetensors file named on the command line with the C++
// runtime's wrapgen::LoadSafetensors and describes what it made of it, in
// the form of manifest.json: "ok" and a line a tensor (quoted name, dtype,
// shape, bytes in hex), or "error: " and the message after the file name.
// wgrt's safetensors tests build it under the sanitizers and compare.
#include <cstdint>
#include <cstdio>
#include <string>

#include "wrapgen_runtime.h"

static const char* DTypeText(wrapgen::DType d) {
  static const char* const names[] = {"BOOL", "I8", "U8", "I16", "U16", "I32", "U32", "I64", "U64",
                                      "F16", "BF16", "F32", "F64", "C64", "C128", "F8_E4M3", "F8_E5M2"};
  return names[static_cast<int>(d)];
}

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    const std::string path = argv[i];
    wrapgen::Safetensors st;
    wrapgen::Status s = wrapgen::LoadSafetensors(path, &st);
    std::printf("== %s\n", path.c_str());
    if (!s.ok()) {
      const std::string& m = s.message();
      const bool named = m.compare(0, path.size() + 2, path + ": ") == 0;
      std::printf("error: %s\n", named ? m.c_str() + path.size() + 2 : ("(the message does not begin with the file's name) " + m).c_str());
      if (!st.tensors.empty() || st.storage != nullptr) std::printf("a failed load changed its output\n");
      continue;
    }
    std::printf("ok\n");
    for (const auto& kv : st.tensors) {
      const wrapgen::Tensor& t = kv.second;
      std::string line = wrapgen::detail::QuoteName(kv.first) + " " + DTypeText(t.dtype) + " " + wrapgen::DimsText(t.shape, t.rank) + " ";
      int64_t want_stride = 1;
      for (int d = t.rank - 1; d >= 0; d--) {
        if (t.strides[d] != want_stride) line += "(not row-major) ";
        want_stride *= t.shape[d];
      }
      if (reinterpret_cast<uintptr_t>(t.data) % 64 != 0) line += "(not aligned to 64) ";
      if (t.bytes != t.ExtentElements() * wrapgen::DTypeSize(t.dtype)) line += "(bytes are not the extent's) ";
      static const char hex[] = "0123456789abcdef";
      for (int64_t b = 0; b < t.bytes; b++) {
        line += hex[t.data[b] >> 4];
        line += hex[t.data[b] & 15];
      }
      if (t.bytes == 0) line += "-";
      std::printf("%s\n", line.c_str());
    }
  }
  return 0;
}
