// Two wrappers of different graphs (mlp, cnn) linked into one program with
// one copy of the runtime (wrapgen_runtime.cc): TestCppWrappersShareOneRuntime
// builds it and checks what it prints. Each wrapper's tables reach the
// shared runtime's checks, which name each one's own graph.
#include <cstdio>
#include <map>
#include <string>

#include "mlp.h"
#include "cnn.h"

int main() {
  std::map<std::string, wrapgen::Tensor> stray;
  float x = 0;
  stray["stray"] = wrapgen::View(&x, wrapgen::DType::kF32, {1});
  mlp::Params mp;
  cnn::Params cp;
  std::printf("%s\n", mlp::ParamsFrom(stray, &mp).message().c_str());
  std::printf("%s\n", cnn::ParamsFrom(stray, &cp).message().c_str());
  std::printf("%s\n", mlp::LoadParams("no/such.safetensors", &mp).message().c_str());
  return 0;
}
