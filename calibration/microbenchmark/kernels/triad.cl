// triad: STREAM triad in double precision, a[i] = b[i] + s * c[i] (class MS: saturates device memory
// bandwidth when the arrays exceed the last-level cache). One element per work-item; per element 2 loads +
// 1 store = 24 bytes and 2 flops (reference §2.7; ALCF triad with 2 loads + 1 store).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void triad(__global double* a, __global const double* b, __global const double* c, double s)
{
  const size_t i = get_global_id(0);
  a[i] = b[i] + s * c[i];
}
