// fma_fp32: compute-bound vector kernel (class C). 16 independent dependent-FMA chains per work-item,
// unrolled 4x per round, after the MAD_16 kernels of clpeak / level-zero-tests ze_peak and the ALCF
// node-performance FMA loop (reference §2.6, §2.7). Work per work-item: 16 chains x 4 x rounds FMAs
// = 128 * rounds flops. a and b keep the chains bounded (x -> b / (1 - a)), so no inf/denormal paths.
#define FMA16                                                                                                  \
  x0 = fma(x0, a, b); x1 = fma(x1, a, b); x2 = fma(x2, a, b); x3 = fma(x3, a, b);                               \
  x4 = fma(x4, a, b); x5 = fma(x5, a, b); x6 = fma(x6, a, b); x7 = fma(x7, a, b);                               \
  x8 = fma(x8, a, b); x9 = fma(x9, a, b); x10 = fma(x10, a, b); x11 = fma(x11, a, b);                           \
  x12 = fma(x12, a, b); x13 = fma(x13, a, b); x14 = fma(x14, a, b); x15 = fma(x15, a, b);

__kernel void fma_fp32(__global float* out, float a, float b, int rounds)
{
  const size_t gid = get_global_id(0);
  float x0 = (float)(gid & 1023) * 1e-3f;
  float x1 = x0 + 0.01f, x2 = x0 + 0.02f, x3 = x0 + 0.03f, x4 = x0 + 0.04f, x5 = x0 + 0.05f;
  float x6 = x0 + 0.06f, x7 = x0 + 0.07f, x8 = x0 + 0.08f, x9 = x0 + 0.09f, x10 = x0 + 0.10f;
  float x11 = x0 + 0.11f, x12 = x0 + 0.12f, x13 = x0 + 0.13f, x14 = x0 + 0.14f, x15 = x0 + 0.15f;
  for (int r = 0; r < rounds; ++r) {
    FMA16 FMA16 FMA16 FMA16
  }
  out[gid] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7)) + ((x8 + x9) + (x10 + x11)) +
             ((x12 + x13) + (x14 + x15));
}
