// Tests of wrapgen_runtime.h's size buckets, built by runtime_test.go with
// -Wall -Wextra -Wshadow -Wconversion -Werror and sanitizers, and run: it
// prints "ok" or each failed check and exits 1. A program with two plans
// runs the one whose ranges hold the symbols; a KeptPools keeps one plan's
// pools, reused while the plan stays and freed when it changes (the Go
// runtime's TestExecPicksPlanByRanges, in C++).
#include <cstdio>
#include <string>

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

// Counting allocates on the CPU and counts what it allocates and frees.
class Counting : public wrapgen::Allocator {
 public:
  void* Allocate(int64_t bytes, int64_t align) override {
    allocs++;
    return wrapgen::CpuAllocator::Default()->Allocate(bytes, align);
  }
  void Deallocate(void* p, int64_t bytes, int64_t align) override {
    frees++;
    wrapgen::CpuAllocator::Default()->Deallocate(p, bytes, align);
  }
  int allocs = 0;
  int frees = 0;
};

// Calls counts the ops called, and fails none.
class Calls : public wrapgen::OpCaller {
 public:
  wrapgen::Status CallOp(int i) override {
    (void)i;
    n++;
    return wrapgen::Status();
  }
  int n = 0;
};

// One symbol n; v0 = n, v1 = 16, v2 = 16*n. Plan 0 holds n in [1, 8] and
// has one pool of 16*n bytes; plan 1 holds n >= 9 and has two, of 16*n and
// 16 bytes, the second on another device.
const int64_t kCode[] = {wrapgen::kIntSym, 0, 0, wrapgen::kIntConst, 16, 0, wrapgen::kIntMul, 0, 1};
const char* const kSymbolNames[] = {"n", nullptr};
const char* const kOps[] = {"ops[0]"};
const int64_t kRanges0[] = {0, 1, 8};
const int64_t kRanges1[] = {0, 9, -1};
const char* const kDevices0[] = {"cpu", nullptr};
const char* const kDevices1[] = {"cpu", "other", nullptr};
const int32_t kSteps0[] = {wrapgen::kStepAcquire, 0, 2, -1, -1, wrapgen::kStepCall, 0, wrapgen::kStepRelease, 0};
const int32_t kSteps1[] = {wrapgen::kStepAcquire, 0, 2, -1, -1, wrapgen::kStepAcquire, 1, 1, -1, -1, wrapgen::kStepCall, 0,
                           wrapgen::kStepRelease, 1, wrapgen::kStepRelease, 0};
const int32_t kNone[] = {0};

static wrapgen::Program TwoPlans(const wrapgen::Plan* plans, int num_plans) {
  static const wrapgen::Op op = {0, kOps[0], "k", nullptr, 0, nullptr, 0, nullptr, 0, nullptr, 0};
  wrapgen::Program p{};
  p.graph = "g";
  p.code = kCode;
  p.num_values = 3;
  p.ops = &op;
  p.plans = plans;
  p.num_plans = num_plans;
  p.align = 64;
  p.symbol_names = kSymbolNames;
  p.devices = kDevices1;
  return p;
}

int main() {
  const wrapgen::Plan plans[] = {
      {kRanges0, 1, kSteps0, static_cast<int>(sizeof(kSteps0) / sizeof(kSteps0[0])), kDevices0, 1, kNone, 0, kNone, kNone, 0},
      {kRanges1, 1, kSteps1, static_cast<int>(sizeof(kSteps1) / sizeof(kSteps1[0])), kDevices1, 2, kNone, 0, kNone, kNone, 0},
  };
  const wrapgen::Program p = TwoPlans(plans, 2);

  // A Runner's pools: reused within a plan (grown when a call needs more),
  // freed when the plan changes.
  {
    Counting cpu, other;
    wrapgen::Allocators allocators;
    allocators.Set("cpu", &cpu);
    allocators.Set("other", &other);
    {
      wrapgen::KeptPools pools(&allocators);
      wrapgen::ProgramFrame f(&p, &pools, 1);
      Calls calls;
      struct Case {
        int64_t n;
        int plan, allocs, frees;
      };
      const Case cases[] = {{1, 0, 1, 0}, {8, 0, 2, 1}, {8, 0, 2, 1}, {9, 1, 4, 2}, {100, 1, 5, 3}, {9, 1, 5, 3}, {2, 0, 6, 5}};
      for (const Case& c : cases) {
        f.sym[0] = c.n;
        wrapgen::Status st = f.Layout();
        CHECK(st.ok());
        st = f.Exec(calls);
        CHECK(st.ok());
        f.ReleaseAll();
        CHECK(f.plan() == c.plan);
        const int allocs = cpu.allocs + other.allocs, frees = cpu.frees + other.frees;
        if (allocs != c.allocs || frees != c.frees) {
          std::printf("n=%lld: %d allocations and %d frees, want %d and %d\n", static_cast<long long>(c.n), allocs, frees, c.allocs, c.frees);
          failures++;
        }
      }
      CHECK(calls.n == 7);
      CHECK(other.allocs == 1 && other.frees == 1);  // plan 1's pool 1, freed when plan 0 came back

      // No plan holds n = 0: an error naming the symbols, nothing run.
      f.sym[0] = 0;
      wrapgen::Status st = f.Layout();
      CHECK(!st.ok() && Contains(st.message(), "g: no plan holds n=0"));
    }
    CHECK(cpu.allocs == cpu.frees && other.allocs == other.frees);  // the pools' destructor frees what they kept
  }

  // Fresh pools: every pool of the plan that runs, allocated and freed on
  // its device; a failed run releases what it holds on the device it came
  // from, whatever plan runs next.
  {
    Counting cpu, other;
    wrapgen::Allocators allocators;
    allocators.Set("cpu", &cpu);
    allocators.Set("other", &other);
    wrapgen::FreshPools pools(&allocators);
    wrapgen::ProgramFrame f(&p, &pools, 1);
    Calls calls;
    f.sym[0] = 3;
    CHECK(f.Layout().ok());
    CHECK(f.Exec(calls).ok());
    CHECK(f.plan() == 0 && cpu.allocs == 1 && cpu.frees == 1 && other.allocs == 0);
    f.sym[0] = 30;
    CHECK(f.Layout().ok());
    CHECK(f.Exec(calls).ok());
    CHECK(f.plan() == 1 && cpu.allocs == 2 && cpu.frees == 2 && other.allocs == 1 && other.frees == 1);

    class Failing : public wrapgen::OpCaller {
     public:
      wrapgen::Status CallOp(int) override { return wrapgen::Status::Error("no"); }
    } failing;
    wrapgen::Status st = f.Exec(failing);
    CHECK(!st.ok() && Contains(st.message(), "g: ops[0] (kernel \"k\"): no"));
    CHECK(other.allocs == 2 && other.frees == 1);
    f.sym[0] = 4;
    CHECK(f.Layout().ok() && f.plan() == 0);
    f.ReleaseAll();
    CHECK(cpu.allocs == cpu.frees && other.allocs == 2 && other.frees == 2);
  }

  // One plan without ranges holds every value.
  {
    const wrapgen::Plan every[] = {{nullptr, 0, kSteps1, static_cast<int>(sizeof(kSteps1) / sizeof(kSteps1[0])), kDevices1, 2, kNone, 0, kNone, kNone, 0}};
    const wrapgen::Program one = TwoPlans(every, 1);
    wrapgen::Allocators allocators;
    allocators.Set("other", wrapgen::CpuAllocator::Default());
    wrapgen::FreshPools pools(&allocators);
    wrapgen::ProgramFrame f(&one, &pools, 1);
    Calls calls;
    for (int64_t n : {0, 1, 1000}) {
      f.sym[0] = n;
      CHECK(f.Layout().ok() && f.plan() == 0);
      CHECK(f.Exec(calls).ok());
    }
    CHECK(calls.n == 3);
  }

  if (failures > 0) return 1;
  std::printf("ok\n");
  return 0;
}
