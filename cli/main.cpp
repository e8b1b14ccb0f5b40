// colocsim: see cli/Cli.cpp and README.md.
#include "cli/Cli.hpp"

#include <malloc.h>

#include <iostream>

int main(int argc, char** argv)
{
  std::ios::sync_with_stdio(false);
  // No glibc fastbins (the per-thread cache still serves small blocks): SimGrid callocs every job actor's
  // 8 KiB stack, and each such request first consolidates the fastbins (malloc_consolidate, unlink_chunk:
  // 8 % of a 200k-job `colocsim bench` in perf). About 7 % less CPU there, the same peak RSS and
  // byte-identical outputs (BENCHMARKS.md, "A million jobs"). The allocator does not change what is
  // simulated.
  mallopt(M_MXFAST, 0);
  return colocsim::run_cli(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
