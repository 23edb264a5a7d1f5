// C++ kernels of the MLP example: row-major f32, no allocation.
#ifndef CPPMLP_KERNELS_H_
#define CPPMLP_KERNELS_H_

#include <algorithm>
#include <cmath>
#include <string>

#include "../gen/mlp.h"

class CpuKernels : public mlp::Kernels {
 public:
  wrapgen::Status Matmul(const wrapgen::Tensor& out0, const wrapgen::Tensor& in0, const wrapgen::Tensor& in1) override {
    int64_t m = in0.shape[0], k = in0.shape[1], n = in1.shape[1];
    if (in1.shape[0] != k || out0.shape[0] != m || out0.shape[1] != n) return wrapgen::Status::Error("matmul: shapes differ");
    const float* a = in0.As<float>();
    const float* b = in1.As<float>();
    float* c = out0.As<float>();
    for (int64_t i = 0; i < m; i++) {
      float* row = c + i * n;
      std::fill(row, row + n, 0.0f);
      for (int64_t p = 0; p < k; p++) {
        float av = a[i * k + p];
        const float* brow = b + p * n;
        for (int64_t j = 0; j < n; j++) row[j] += av * brow[j];
      }
    }
    return wrapgen::Status();
  }

  wrapgen::Status BiasAdd(const wrapgen::Tensor& out0, const wrapgen::Tensor& in0, const wrapgen::Tensor& in1) override {
    int64_t n = in1.shape[0], total = in0.NumElements();
    const float* x = in0.As<float>();
    const float* b = in1.As<float>();
    float* y = out0.As<float>();
    for (int64_t i = 0; i < total; i++) y[i] = x[i] + b[i % n];
    return wrapgen::Status();
  }

  wrapgen::Status Relu_(const wrapgen::Tensor& out0, const wrapgen::Tensor& in0) override {
    const float* x = in0.As<float>();
    float* y = out0.As<float>();
    for (int64_t i = 0, n = out0.NumElements(); i < n; i++) y[i] = std::max(x[i], 0.0f);
    return wrapgen::Status();
  }

  wrapgen::Status Softmax(const wrapgen::Tensor& out0, const wrapgen::Tensor& in0, int64_t dim) override {
    if (dim != -1 && dim != in0.rank - 1) return wrapgen::Status::Error("softmax: only the last dimension, got " + std::to_string(dim));
    int64_t n = in0.shape[in0.rank - 1], rows = in0.NumElements() / n;
    const float* x = in0.As<float>();
    float* y = out0.As<float>();
    for (int64_t r = 0; r < rows; r++) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      float m = *std::max_element(xr, xr + n), sum = 0;
      for (int64_t i = 0; i < n; i++) sum += (yr[i] = std::exp(xr[i] - m));
      for (int64_t i = 0; i < n; i++) yr[i] /= sum;
    }
    return wrapgen::Status();
  }
};

#endif  // CPPMLP_KERNELS_H_
