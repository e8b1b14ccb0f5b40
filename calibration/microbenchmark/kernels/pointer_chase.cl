// pointer_chase: dependent loads through a random cyclic permutation (class L: latency bound, low compute
// and bandwidth use; reference §2.7). Each work-item starts at its own index and follows `steps` links;
// the host fills `next` with one random cycle (Sattolo's algorithm), so no prefetcher can guess the next
// address. Per step: one 4-byte load whose latency is the whole cost.
__kernel void pointer_chase(__global const uint* next, __global uint* out, int steps)
{
  uint p = (uint)get_global_id(0);
  for (int s = 0; s < steps; ++s)
    p = next[p];
  out[get_global_id(0)] = p;
}
