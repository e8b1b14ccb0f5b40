// copy: STREAM copy in double precision, c[i] = a[i] (class MS). One element per work-item; per element
// 1 load + 1 store = 16 bytes, no flops (reference §2.7).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void copy(__global double* c, __global const double* a)
{
  const size_t i = get_global_id(0);
  c[i] = a[i];
}
