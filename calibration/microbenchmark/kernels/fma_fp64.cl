// fma_fp64: compute-bound double-precision vector kernel (class C); same shape as fma_fp32.cl: 16
// independent dependent-FMA chains per work-item, unrolled 4x per round (MAD_16 of clpeak / ze_peak, the
// ALCF FMA loop; reference §2.6, §2.7). Work per work-item: 128 * rounds flops.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define FMA16                                                                                                  \
  x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);                               \
  x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);                               \
  x8 = fma(x8, a, b); x9 = fma(x9, a, b); x10 = fma(x10, a, b); x11 = fma(x11, a, b);                           \
  x12 = fma(x12, a, b); x13 = fma(x13, a, b); x14 = fma(x14, a, b); x15 = fma(x15, a, b);

__kernel void fma_fp64(__global double* out, double a, double b, int rounds)
{
  const size_t gid = get_global_id(0);
  double x0 = (double)(gid & 1023) * 1e-3;
  double x1 = x0 + 0.01, x2 = x0 + 0.02, x3 = x0 + 0.03, x4 = x0 + 0.04, x5 = x0 + 0.05;
  double x6 = x0 + 0.06, x7 = x0 + 0.07, x8 = x0 + 0.08, x9 = x0 + 0.09, x10 = x0 + 0.10;
  double x11 = x0 + 0.11, x12 = x0 + 0.12, x13 = x0 + 0.13, x14 = x0 + 0.14, x15 = x0 + 0.15;
  for (int r = 0; r < rounds; ++r) {
    FMA16 FMA16 FMA16 FMA16
  }
  out[gid] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)) + ((x8 + x9) + (x10 + x11)) +
             ((x12 + x13) + (x14 + x15));
}
