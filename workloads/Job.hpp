#pragma once
// The canonical job: what a trace asked for (DESIGN.md §1 Jobs). How the job behaves is its profile
// (ProfileCatalog), bound by name. Times are seconds from the trace origin.
#include "models/Errors.hpp"

#include <string>

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
  /// e.g. "V100M16|V100M32"); empty = any. Kept for heterogeneous platforms; the engine does not read it yet.
  std::string gpu_types;
  /// The trace's own label for the kind of job (ElasticFlow model_name, Batsim profile name, PAI task_name);
  /// empty if none. The profile mapping (ProfileMapper) reads it; the engine does not.
  std::string trace_class;
};

} // namespace colocsim
