// serve runs wgref's C++ kernels for package cppref's tests: it reads
// kernel calls from standard input and answers each on standard output
// (the protocol is cppref's client.go), so that one build of the kernels
// serves every node test and model a Go test runs through them.
#include <time.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "wgref/wgref.h"
#include "wrapgen_runtime.h"

// Every operator new of the process is counted (allocs.cc), so that a
// kernel that allocates in a steady call is caught (see main).
extern std::atomic<int64_t> g_news;

namespace {

int64_t Nanos(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool ReadAll(void* p, size_t n) { return n == 0 || std::fread(p, 1, n, stdin) == n; }
void WriteAll(const void* p, size_t n) {
  if (n > 0) std::fwrite(p, 1, n, stdout);
}

template <class T>
bool Read(T* v) {
  return ReadAll(v, sizeof(T));
}

bool ReadString(std::string* s) {
  uint32_t n = 0;
  if (!Read(&n)) return false;
  s->resize(n);
  return ReadAll(&(*s)[0], n);
}

// A tensor as sent: its view, its bytes (the view's extent) and whether
// its bytes go back with the answer.
struct Sent {
  wrapgen::Tensor t;
  std::vector<uint8_t> bytes;
  bool write_back = false;
};

bool ReadTensor(Sent* s) {
  uint8_t dtype = 0, has_data = 0, back = 0;
  int32_t rank = 0;
  int64_t nbytes = 0;
  if (!Read(&dtype) || !Read(&has_data) || !Read(&back) || !Read(&rank) || rank < 0 || rank > wrapgen::kMaxRank) return false;
  s->t.dtype = static_cast<wrapgen::DType>(dtype);
  s->t.rank = rank;
  for (int i = 0; i < rank; i++)
    if (!Read(&s->t.shape[i])) return false;
  for (int i = 0; i < rank; i++)
    if (!Read(&s->t.strides[i])) return false;
  if (!Read(&nbytes) || nbytes < 0) return false;
  // Exactly the extent, no slack: the sanitizer builds see any access
  // beyond it.
  s->bytes.resize(static_cast<size_t>(nbytes));
  if (!ReadAll(s->bytes.data(), static_cast<size_t>(nbytes))) return false;
  static uint8_t empty;  // a view of no bytes still has data
  s->t.data = has_data ? (nbytes > 0 ? s->bytes.data() : &empty) : nullptr;
  s->t.bytes = nbytes;
  s->write_back = back != 0;
  return true;
}

// RunKernel runs c, or, for the kernel name "serve.Allocate", a kernel
// that allocates on every call: the negative control of the allocation
// count (cppref's TestServerCountsAllocations).
wrapgen::Status RunKernel(const wgref::Call& c) {
  if (std::strcmp(c.kernel, "serve.Allocate") == 0) {
    std::vector<int64_t> v(16, 1);
    return v[15] == 1 ? wrapgen::Status() : wrapgen::Status::Error("unreachable");
  }
  return wgref::Run(c);
}

}  // namespace

int main() {
  // WGREF_SERVE_COUNT_ALLOCS=1 runs each kernel a second time and fails a
  // call whose second run allocates.
  const char* env = std::getenv("WGREF_SERVE_COUNT_ALLOCS");
  const bool count_allocs = env != nullptr && std::strcmp(env, "1") == 0;
  std::vector<Sent> tensors;
  std::vector<wrapgen::Tensor> views;
  std::vector<wgref::Attr> attrs;
  std::vector<std::string> strings;
  std::vector<std::vector<int64_t>> lists;
  std::vector<uint8_t> scratch;
  for (;;) {
    uint32_t magic = 0;
    if (!Read(&magic)) return 0;  // the client closed its end
    if (magic != 0x51524757) {
      std::fprintf(stderr, "serve: bad request\n");
      return 2;
    }
    std::string kernel;
    int32_t threads = 0;
    int64_t scratch_bytes = 0;
    uint32_t nout = 0, nin = 0, nattr = 0;
    if (!ReadString(&kernel) || !Read(&threads) || !Read(&scratch_bytes) || !Read(&nout) || !Read(&nin) || !Read(&nattr)) return 2;
    tensors.assign(nout + nin, Sent());
    for (auto& s : tensors)
      if (!ReadTensor(&s)) return 2;
    attrs.assign(nattr, wgref::Attr());
    strings.assign(2 * nattr, std::string());
    lists.assign(nattr, std::vector<int64_t>());
    for (uint32_t i = 0; i < nattr; i++) {
      wgref::Attr& a = attrs[i];
      uint8_t kind = 0;
      if (!ReadString(&strings[2 * i]) || !Read(&kind)) return 2;
      a.name = strings[2 * i].c_str();
      a.kind = static_cast<wgref::AttrKind>(kind);
      switch (a.kind) {
        case wgref::AttrKind::kInt:
          if (!Read(&a.i)) return 2;
          break;
        case wgref::AttrKind::kFloat:
          if (!Read(&a.f)) return 2;
          break;
        case wgref::AttrKind::kBool: {
          uint8_t b = 0;
          if (!Read(&b)) return 2;
          a.b = b != 0;
          break;
        }
        case wgref::AttrKind::kString:
          if (!ReadString(&strings[2 * i + 1])) return 2;
          a.s = strings[2 * i + 1].c_str();
          break;
        case wgref::AttrKind::kInts: {
          uint32_t n = 0;
          if (!Read(&n)) return 2;
          lists[i].resize(n);
          if (!ReadAll(lists[i].data(), 8 * static_cast<size_t>(n))) return 2;
          a.ints = wrapgen::Span<int64_t>(lists[i].data(), n);
          break;
        }
      }
    }
    views.clear();
    for (auto& s : tensors) views.push_back(s.t);
    // Scratch holds garbage, as a pool's memory would.
    scratch.assign(static_cast<size_t>(scratch_bytes), 0xa5);
    wgref::Call c;
    c.kernel = kernel.c_str();
    c.outputs = views.data();
    c.num_outputs = static_cast<int>(nout);
    c.inputs = views.data() + nout;
    c.num_inputs = static_cast<int>(nin);
    c.attrs = attrs.data();
    c.num_attrs = static_cast<int>(nattr);
    c.scratch = scratch_bytes > 0 ? scratch.data() : nullptr;
    c.scratch_bytes = scratch_bytes;
    c.threads = threads;
    // The kernel's own time, wall and process CPU (every thread's), so
    // that timings leave out handing the tensors over.
    const int64_t wall0 = Nanos(CLOCK_MONOTONIC), cpu0 = Nanos(CLOCK_PROCESS_CPUTIME_ID);
    wrapgen::Status st = RunKernel(c);
    const int64_t times[2] = {Nanos(CLOCK_MONOTONIC) - wall0, Nanos(CLOCK_PROCESS_CPUTIME_ID) - cpu0};
    bool mutates = false;
    for (size_t i = nout; i < tensors.size(); i++) mutates = mutates || tensors[i].write_back;
    if (st.ok() && count_allocs && !mutates) {
      // Again, as a steady call: the first may start the thread pool. The
      // tensors are the server's copies, so a second run writes the same
      // outputs (inputs an op mutates are not run twice).
      const int64_t before = g_news.load();
      st = RunKernel(c);
      const int64_t n = g_news.load() - before;
      if (st.ok() && n > 0) {
        st = wrapgen::Status::Error(kernel + ": a steady call allocated " + std::to_string(n) + " times (operator new)");
      }
    }
    uint8_t ok = st.ok() ? 1 : 0;
    WriteAll(&ok, 1);
    WriteAll(times, sizeof times);
    if (!st.ok()) {
      uint32_t n = static_cast<uint32_t>(st.message().size());
      WriteAll(&n, 4);
      WriteAll(st.message().data(), n);
    } else {
      for (size_t i = 0; i < tensors.size(); i++) {
        if (i < nout || tensors[i].write_back) WriteAll(tensors[i].bytes.data(), tensors[i].bytes.size());
      }
    }
    std::fflush(stdout);
  }
}
