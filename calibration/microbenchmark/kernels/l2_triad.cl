// l2_triad: triad over a working set small enough to stay in the L2 / last-level cache (class M: memory
// bound but light on device memory; reference §2.7 "l2_resident_triad", working set <= 150 MB per tile).
// n elements per array (24 n bytes in all), `passes` sweeps inside one launch so the launch overhead does
// not dominate. Work-item w handles elements w, w + G, w + 2G, ... (G = global size), so neighbouring
// work-items touch neighbouring addresses. Per pass and element: 24 bytes, 2 flops.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

__kernel void l2_triad(__global double* a, __global const double* b, __global const double* c, double s, int n,
                       int passes)
{
  const int g = (int)get_global_size(0);
  for (int p = 0; p < passes; ++p) {
    const double sp = s + (double)p; // a pass-dependent scalar keeps every pass a real store
    for (int i = (int)get_global_id(0); i < n; i += g)
      a[i] = b[i] + sp * c[i];
  }
}
