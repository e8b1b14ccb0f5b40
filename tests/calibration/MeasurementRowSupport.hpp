#pragma once
// One measurements.csv row of a hand-made campaign, for tests of `calibrate check` (its statistics in
// tests/calibration/ModelCheck_test.cpp, its gates through the CLI in tests/sim/CliCalibrateCheck_test.cpp):
// the kernel's quick configuration on the OpenCL backend, time-sliced, duty cycle 1, t_iter as given.
#include "calibration/microbenchmark/Kernels.hpp"
#include "calibration/microbenchmark/Measurements.hpp"

#include <string>

namespace colocsim::test {

inline MeasurementRow measurement_row(int run, const std::string& kind, const std::string& set,
                                      const std::string& kernel, int n_procs, int rank, double t_iter_s)
{
  MeasurementRow r;
  r.run_id = run;
  r.kind = kind;
  r.set = set;
  r.backend = "opencl";
  r.mode = "time-slice";
  r.n_procs = n_procs;
  r.rank = rank;
  const auto cfg = find_kernel(kernel).quick;
  r.kernel = cfg.kernel;
  r.n = cfg.n;
  r.k = cfg.k;
  r.m = cfg.m;
  r.duty = 1;
  r.reps = 10;
  r.t_iter_s = r.t_global_s = t_iter_s; // duty cycle 1 alone
  r.duty_measured = 1;
  return r;
}

} // namespace colocsim::test
