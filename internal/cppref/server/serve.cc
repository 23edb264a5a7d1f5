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

// The first word of every request: a kernel call, or a prepare.
constexpr uint32_t kCallMagic = 0x51524757;
constexpr uint32_t kPrepareMagic = 0x50524757;

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

// Stored is an op's constant inputs as a prepare request sent them, kept
// for every later call of the op, with what wgref::Prepare made of them:
// the packed weights record where their source lies, so a call reads them
// only when its weights are these very bytes.
struct Stored {
  std::vector<std::vector<uint8_t>> inputs;
  wgref::Prepared prepared;
};

// ReadTensor reads one tensor of a request; a tensor sent as stored takes
// the bytes of input index of prepared op *stored (which must have them).
bool ReadTensor(Sent* s, const Stored* stored, size_t index) {
  uint8_t dtype = 0, has_data = 0, back = 0, from_store = 0;
  int32_t rank = 0;
  int64_t nbytes = 0;
  if (!Read(&dtype) || !Read(&has_data) || !Read(&back) || !Read(&from_store) || !Read(&rank) || rank < -1 ||
      rank > wrapgen::kMaxRank)
    return false;
  s->t = wrapgen::Tensor();
  s->t.dtype = static_cast<wrapgen::DType>(dtype);
  s->t.rank = rank;
  for (int i = 0; i < rank; i++)
    if (!Read(&s->t.shape[i])) return false;
  for (int i = 0; i < rank; i++)
    if (!Read(&s->t.strides[i])) return false;
  s->write_back = back != 0;
  if (from_store) {
    if (stored == nullptr || index >= stored->inputs.size() || stored->inputs[index].empty() || s->write_back) return false;
    s->bytes.clear();
    const std::vector<uint8_t>& b = stored->inputs[index];
    s->t.data = const_cast<uint8_t*>(b.data());
    s->t.bytes = static_cast<int64_t>(b.size());
    return true;
  }
  if (!Read(&nbytes) || nbytes < 0) return false;
  // Exactly the extent, no slack: the sanitizer builds see any access
  // beyond it.
  s->bytes.resize(static_cast<size_t>(nbytes));
  if (!ReadAll(s->bytes.data(), static_cast<size_t>(nbytes))) return false;
  static uint8_t empty;  // a view of no bytes still has data
  s->t.data = has_data ? (nbytes > 0 ? s->bytes.data() : &empty) : nullptr;
  s->t.bytes = nbytes;
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

// Request is one request as read: a kernel call, or (prepare) the
// constant call Prepare takes.
struct Request {
  std::string kernel;
  int32_t threads = 0;
  int64_t scratch_bytes = 0;
  int64_t prepared = -1;  // the prepared op a call reads, or -1
  uint32_t nout = 0, nin = 0;
  std::vector<Sent> tensors;
  std::vector<wgref::Attr> attrs;
  std::vector<std::string> strings;
  std::vector<std::vector<int64_t>> lists;
  std::vector<wrapgen::Tensor> views;
};

bool ReadAttr(Request* q, uint32_t i) {
  wgref::Attr& a = q->attrs[i];
  uint8_t kind = 0;
  if (!ReadString(&q->strings[2 * i]) || !Read(&kind)) return false;
  a.name = q->strings[2 * i].c_str();
  a.kind = static_cast<wgref::AttrKind>(kind);
  switch (a.kind) {
    case wgref::AttrKind::kInt:
      return Read(&a.i);
    case wgref::AttrKind::kFloat:
      return Read(&a.f);
    case wgref::AttrKind::kBool: {
      uint8_t b = 0;
      if (!Read(&b)) return false;
      a.b = b != 0;
      return true;
    }
    case wgref::AttrKind::kString:
      if (!ReadString(&q->strings[2 * i + 1])) return false;
      a.s = q->strings[2 * i + 1].c_str();
      return true;
    case wgref::AttrKind::kInts: {
      uint32_t n = 0;
      if (!Read(&n)) return false;
      q->lists[i].resize(n);
      if (!ReadAll(q->lists[i].data(), 8 * static_cast<size_t>(n))) return false;
      a.ints = wrapgen::Span<int64_t>(q->lists[i].data(), n);
      return true;
    }
  }
  return false;
}

// ReadRequest reads the rest of a request after its magic; stores are the
// prepared ops so far, whose inputs a call may take as stored.
bool ReadRequest(Request* q, const std::vector<Stored>& stores) {
  uint32_t nattr = 0;
  if (!ReadString(&q->kernel) || !Read(&q->threads) || !Read(&q->scratch_bytes) || !Read(&q->prepared) || !Read(&q->nout) ||
      !Read(&q->nin) || !Read(&nattr))
    return false;
  if (q->prepared < -1 || q->prepared >= static_cast<int64_t>(stores.size())) return false;
  const Stored* stored = q->prepared >= 0 ? &stores[static_cast<size_t>(q->prepared)] : nullptr;
  q->tensors.assign(q->nout + q->nin, Sent());
  for (size_t i = 0; i < q->tensors.size(); i++) {
    const bool input = i >= q->nout;
    if (!ReadTensor(&q->tensors[i], input ? stored : nullptr, input ? i - q->nout : 0)) return false;
  }
  q->attrs.assign(nattr, wgref::Attr());
  q->strings.assign(2 * nattr, std::string());
  q->lists.assign(nattr, std::vector<int64_t>());
  for (uint32_t i = 0; i < nattr; i++)
    if (!ReadAttr(q, i)) return false;
  q->views.clear();
  for (auto& s : q->tensors) q->views.push_back(s.t);
  return true;
}

// CallOf is q as a wgref::Call, without scratch or prepared weights.
wgref::Call CallOf(const Request& q) {
  wgref::Call c;
  c.kernel = q.kernel.c_str();
  c.outputs = q.views.data();
  c.num_outputs = static_cast<int>(q.nout);
  c.inputs = q.views.data() + q.nout;
  c.num_inputs = static_cast<int>(q.nin);
  c.attrs = q.attrs.data();
  c.num_attrs = static_cast<int>(q.attrs.size());
  c.threads = q.threads;
  return c;
}

void WriteError(const wrapgen::Status& st) {
  uint32_t n = static_cast<uint32_t>(st.message().size());
  WriteAll(&n, 4);
  WriteAll(st.message().data(), n);
}

// Prepare answers a prepare request: the op's constant inputs are kept
// (the packed weights point into them) and wgref::Prepare run on them;
// the answer is the prepared op's number (-1: nothing prepared) and the
// bytes Prepare allocated.
void Prepare(Request* q, std::vector<Stored>* stores) {
  Stored s;
  for (uint32_t i = q->nout; i < q->tensors.size(); i++) {
    Sent& t = q->tensors[i];
    s.inputs.push_back(t.t.data != nullptr ? std::move(t.bytes) : std::vector<uint8_t>());
    if (t.t.data != nullptr && !s.inputs.back().empty()) q->views[i].data = s.inputs.back().data();
  }
  wrapgen::Status st = wgref::Prepare(CallOf(*q), &s.prepared);
  uint8_t ok = st.ok() ? 1 : 0;
  WriteAll(&ok, 1);
  if (!st.ok()) {
    WriteError(st);
    return;
  }
  int64_t answer[2] = {-1, s.prepared.bytes()};
  if (s.prepared.data() != nullptr) {
    answer[0] = static_cast<int64_t>(stores->size());
    stores->push_back(std::move(s));
  }
  WriteAll(answer, sizeof answer);
}

}  // namespace

int main() {
  // WGREF_SERVE_COUNT_ALLOCS=1 runs each kernel a second time and fails a
  // call whose second run allocates.
  const char* env = std::getenv("WGREF_SERVE_COUNT_ALLOCS");
  const bool count_allocs = env != nullptr && std::strcmp(env, "1") == 0;
  std::vector<Stored> stores;
  Request q;
  std::vector<uint8_t> scratch;
  for (;;) {
    uint32_t magic = 0;
    if (!Read(&magic)) return 0;  // the client closed its end
    if (magic != kCallMagic && magic != kPrepareMagic) {
      std::fprintf(stderr, "serve: bad request\n");
      return 2;
    }
    if (!ReadRequest(&q, stores)) {
      std::fprintf(stderr, "serve: bad request\n");
      return 2;
    }
    if (magic == kPrepareMagic) {
      Prepare(&q, &stores);
      std::fflush(stdout);
      continue;
    }
    // Scratch holds garbage, as a pool's memory would.
    scratch.assign(static_cast<size_t>(q.scratch_bytes), 0xa5);
    wgref::Call c = CallOf(q);
    c.scratch = q.scratch_bytes > 0 ? scratch.data() : nullptr;
    c.scratch_bytes = q.scratch_bytes;
    c.prepared = q.prepared >= 0 ? stores[static_cast<size_t>(q.prepared)].prepared.data() : nullptr;
    // The kernel's own time, wall and process CPU (every thread's), so
    // that timings leave out handing the tensors over.
    const int64_t wall0 = Nanos(CLOCK_MONOTONIC), cpu0 = Nanos(CLOCK_PROCESS_CPUTIME_ID);
    wrapgen::Status st = RunKernel(c);
    const int64_t times[2] = {Nanos(CLOCK_MONOTONIC) - wall0, Nanos(CLOCK_PROCESS_CPUTIME_ID) - cpu0};
    bool mutates = false;
    for (size_t i = q.nout; i < q.tensors.size(); i++) mutates = mutates || q.tensors[i].write_back;
    if (st.ok() && count_allocs && !mutates) {
      // Again, as a steady call: the first may start the thread pool. The
      // tensors are the server's copies, so a second run writes the same
      // outputs (inputs an op mutates are not run twice).
      const int64_t before = g_news.load();
      st = RunKernel(c);
      const int64_t n = g_news.load() - before;
      if (st.ok() && n > 0) {
        st = wrapgen::Status::Error(q.kernel + ": a steady call allocated " + std::to_string(n) + " times (operator new)");
      }
    }
    uint8_t ok = st.ok() ? 1 : 0;
    WriteAll(&ok, 1);
    WriteAll(times, sizeof times);
    if (!st.ok()) {
      WriteError(st);
    } else {
      for (size_t i = 0; i < q.tensors.size(); i++) {
        if (i < q.nout || q.tensors[i].write_back) WriteAll(q.tensors[i].bytes.data(), q.tensors[i].bytes.size());
      }
    }
    std::fflush(stdout);
  }
}
