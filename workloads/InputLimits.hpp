#pragma once
// Bounds on the values a trace may give a job (docs/formats/limits.md). Each is far beyond any real trace or
// machine, and low enough that every sum and product the engine and the metrics form (end = submit +
// duration, energy = power x time, energy-delay product) stays a finite double. A job outside them is
// refused when read, with the bound in the message, instead of producing inf in the results.
#include "models/Job.hpp"

namespace colocsim {

struct JobLimits {
  /// Submit time, duration and think time, seconds: 1e10 s is 317 years. The longest public traces span a
  /// few years (Parallel Workloads Archive logs), and Unix timestamps (1.7e9 s in 2024) still fit.
  static constexpr double MAX_TIME_S = 1e10;
  /// Devices per job: 2^20 = 1,048,576, ten times the largest GPU clusters reported (about 10^5 GPUs).
  static constexpr int MAX_DEVICES = 1 << 20;
  /// Device and host memory per job, bytes: 2^50 = 1 PiB, thousands of times the largest device memory
  /// (256 GB) and host memory of a node (a few TB).
  static constexpr double MAX_BYTES = 1125899906842624.0;
  /// Host CPU cores per job: 2^20.
  static constexpr double MAX_CPUS = 1 << 20;
  /// Batch size: 2^20 samples per step, far beyond the largest published training batches (~65536).
  static constexpr int MAX_BATCH_SIZE = 1 << 20;
};

/// Throws InputError at the job's origin, naming the field and the bound, if a value of `job` is outside
/// JobLimits (or not a finite number).
void check_job_limits(const Job& job);

} // namespace colocsim
