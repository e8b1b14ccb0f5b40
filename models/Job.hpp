#pragma once
// The canonical job: what a trace asked for (docs/architecture.md, Jobs and profiles). How the job behaves is
// its profile (ProfileCatalog), bound by name. Times are seconds from the trace origin.
#include "base/Errors.hpp"

#include <string>
#include <vector>

namespace colocsim {

struct Job {
  std::string id;
  double submit_s = 0;
  double duration_s = 0;        ///< runtime alone on `devices` reference devices at the reference frequency
  int devices = 1;              ///< devices requested (gang size)
  int gpu_milli = 1000;         ///< per-device share requested, 1..1000 (1000 = a whole device)
  double mem_request_bytes = 0; ///< device memory the trace declares per device; 0 = not stated
  std::string profile;          ///< profile name (catalog key)
  std::string qos;              ///< free text from the trace (e.g. LS, BE); may be empty
  SourceLocation origin;        ///< file:line the job was read from (for messages)
  /// Device types the job may run on, `|`-separated as in the trace (Alibaba openb gpu_spec, PAI gpu_type,
  /// e.g. "V100M16|V100M32"); empty = any. Parsed by models/GpuTypes.hpp (the engine resolves each distinct
  /// text once).
  std::string gpu_types;
  /// Jobs (by id) that must complete before this one is submitted (a DAG: each names a job that came earlier
  /// in the trace). The engine holds the job until they have all completed, then submits it after
  /// `think_time_s`; if one of them fails for good, is rejected or cancelled, this job is cancelled.
  std::vector<std::string> depends_on;
  double think_time_s = 0;   ///< delay between the last dependency's completion and this job's submission
  std::string user;          ///< who submitted it (user, group or virtual cluster); may be empty
  std::string trace_status;  ///< its outcome in the trace (e.g. completed, failed, killed); may be empty
  double cpus = 0;           ///< host CPU cores requested; 0 = not stated
  double host_mem_bytes = 0; ///< host memory requested; 0 = not stated
  /// The trace's own label for the kind of job (ElasticFlow model_name, Batsim profile name, PAI task_name);
  /// empty if none. The profile mapping (ProfileMapper) reads it; the engine does not.
  std::string trace_class;
  /// Run time the user requested (the walltime a resource manager kills the job at: SWF field 9, Batsim
  /// walltime); 0 = not stated. Used only when the replay's estimates are `requested` or `predicted`.
  double requested_s = 0;
  /// Batch size the job runs at (samples per step or per inference call); 0 = not stated. A profile with a
  /// batch table (compute_share_by_batch, mig_speed_by_batch; docs/formats/profiles.md) reads it.
  int batch_size = 0;
};

} // namespace colocsim
