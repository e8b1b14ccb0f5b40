// intensity: a flops/byte knob between memory-bound and compute-bound (reference §2.7 "mix(k)"): each
// work-item reads x[i], applies k dependent FMAs and writes y[i]. Per element 8 bytes (fp32 load + store)
// and 2 k flops: arithmetic intensity k / 4 flop/byte. k = 1 behaves like a stream kernel, large k like
// fma_fp32 with one chain per work-item.
__kernel void intensity(__global float* y, __global const float* x, float a, float b, int k)
{
  const size_t i = get_global_id(0);
  float v = x[i];
  for (int j = 0; j < k; ++j)
    v = fma(v, a, b);
  y[i] = v;
}
