#include "workloads/InputLimits.hpp"
#include "base/Units.hpp"

#include <cmath>

namespace colocsim {

void check_job_limits(const Job& job)
{
  // Called for every job: no string is built unless a value is out of bounds.
  DiagnosticSink sink;
  auto check = [&](const char* field, double v, double min, double max, const char* expected) {
    if (!std::isfinite(v) || v < min || v > max)
      sink.add(job.origin, field,
               "out of bounds (got " + number_text(v) + "); expected " + expected +
                   " (docs/formats/limits.md)");
  };
  const char* const time = "seconds in [0, 1e10] (1e10 s = 317 years)";
  check("submit_s", job.submit_s, 0, JobLimits::MAX_TIME_S, time);
  check("duration_s", job.duration_s, 0, JobLimits::MAX_TIME_S, time);
  check("think_time_s", job.think_time_s, 0, JobLimits::MAX_TIME_S, time);
  check("devices", job.devices, 1, JobLimits::MAX_DEVICES, "a whole number of devices in [1, 1048576]");
  check("gpu_milli", job.gpu_milli, 1, 1000, "thousandths of a device in [1, 1000]");
  check("mem", job.mem_request_bytes, 0, JobLimits::MAX_BYTES, "bytes in [0, 2^50] (1 PiB)");
  check("host_mem", job.host_mem_bytes, 0, JobLimits::MAX_BYTES, "bytes in [0, 2^50] (1 PiB)");
  check("cpus", job.cpus, 0, JobLimits::MAX_CPUS, "cores in [0, 1048576]");
  check("batch_size", job.batch_size, 0, JobLimits::MAX_BATCH_SIZE,
        "a whole batch size in [1, 1048576], or 0 = not stated");
  sink.throw_if_any();
}

} // namespace colocsim
