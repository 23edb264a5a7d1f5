// Runs the C++ wrapper of nonzero.json: NonZero reports k, the number of
// nonzeros, and writes its [2, k] result compactly at the start of an
// output laid out at [2, 3n]; Neg and the output then see [k, 2].
#include <cstdio>
#include <cstring>
#include <vector>

#include "nonzero.h"

struct Kernels : nonzero::Kernels {
  wrapgen::Status NonZero(const wrapgen::Tensor& y, const wrapgen::Tensor& count, const wrapgen::Tensor& x) override {
    int64_t bound = 0;
    std::memcpy(&bound, count.data, sizeof bound);
    if (bound != y.shape[1]) return wrapgen::Status::Error("the count does not hold the bound");
    std::vector<int64_t> rows, cols;
    for (int64_t i = 0; i < x.shape[0]; i++) {
      for (int64_t j = 0; j < x.shape[1]; j++) {
        if (x.As<float>()[i * x.strides[0] + j * x.strides[1]] != 0) {
          rows.push_back(i);
          cols.push_back(j);
        }
      }
    }
    const int64_t k = static_cast<int64_t>(rows.size());
    for (size_t e = 0; e < rows.size(); e++) {
      y.As<int64_t>()[e] = rows[e];
      y.As<int64_t>()[static_cast<size_t>(k) + e] = cols[e];
    }
    std::memcpy(count.data, &k, sizeof k);
    return wrapgen::Status();
  }
  wrapgen::Status Neg(const wrapgen::Tensor& z, const wrapgen::Tensor& yt) override {
    for (int64_t i = 0; i < z.shape[0]; i++) {
      for (int64_t j = 0; j < z.shape[1]; j++) {
        z.As<int64_t>()[i * z.strides[0] + j * z.strides[1]] = -yt.As<int64_t>()[i * yt.strides[0] + j * yt.strides[1]];
      }
    }
    return wrapgen::Status();
  }
};

int main() {
  Kernels k;
  nonzero::Params params;
  nonzero::Runner runner(params);
  for (int n : {1, 4, 5}) {
    std::vector<float> xs(static_cast<size_t>(3 * n));
    for (int e = 0; e < 3 * n; e++) {
      if (e % 3 != 1 && e % 4 != 0) xs[static_cast<size_t>(e)] = static_cast<float>(e);
    }
    nonzero::Inputs in;
    in.x.rank = 2;
    in.x.shape[0] = n;
    in.x.shape[1] = 3;
    in.x.strides[0] = 3;
    in.x.strides[1] = 1;
    in.x.data = reinterpret_cast<uint8_t*>(xs.data());
    in.x.bytes = static_cast<int64_t>(xs.size() * sizeof(float));
    nonzero::Outputs out;
    std::vector<int64_t> buffer(static_cast<size_t>(2 * 3 * n));
    if (n == 5) {  // the caller's buffer, at the bound: it takes the size reported
      out.z.dtype = wrapgen::DType::kI64;
      out.z.rank = 2;
      out.z.shape[0] = 3 * n;
      out.z.shape[1] = 2;
      out.z.strides[0] = 2;
      out.z.strides[1] = 1;
      out.z.data = reinterpret_cast<uint8_t*>(buffer.data());
      out.z.bytes = static_cast<int64_t>(buffer.size() * sizeof(int64_t));
    }
    wrapgen::Status st = runner.Run(k, in, &out);
    if (!st.ok()) {
      std::printf("error: %s\n", st.message().c_str());
      return 1;
    }
    std::printf("n=%d z[%lld, %lld]:", n, static_cast<long long>(out.z.shape[0]), static_cast<long long>(out.z.shape[1]));
    for (int64_t i = 0; i < out.z.shape[0]; i++) {
      const int64_t* z = out.z.As<int64_t>() + i * out.z.strides[0];
      std::printf(" (%lld %lld)", static_cast<long long>(z[0]), static_cast<long long>(z[out.z.strides[1]]));
    }
    std::printf("%s\n", n == 5 && out.z.data != reinterpret_cast<uint8_t*>(buffer.data()) ? " (not in the caller's buffer)" : "");
  }
}
