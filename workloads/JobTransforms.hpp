#pragma once
// Transforms of a workload, as JobReader decorators (docs/formats/transforms.md). Each but tune and shuffle
// streams: memory does not depend on the number of jobs. They are written as `name=value` items separated by
// ',' and applied in the order written (scenario key workload.transforms, `colocsim replay --transform`):
//   window=A..B   keep jobs submitted in [A, B) (durations: 3600, 2h, 1.5d; either bound may be left out);
//                 stops reading the trace at B
//   rebase        shift submit times so that the first job is submitted at 0 (value-less)
//   load=F        compress inter-arrival times by F > 0 (F = 2: twice the arrival rate, same jobs):
//                 submit' = t0 + (submit − t0) / F, t0 the first job's submit time
//   sample=P      keep each job with probability P in (0, 1], a seeded draw per job id
//   inflate=X     clone jobs until the workload requests X × the platform's devices (X = 1.3 or 130%), as in
//                 the FGD paper's workload inflation: reads the trace twice (a sizing pass, then the
//                 replay); each job is emitted ⌊r⌋ or ⌈r⌉ times (seeded per job id), r = target / requested,
//                 clones named `<id>#2`, `<id>#3`, ... with the same submit time. Never removes jobs.
//   tune=X        FGD's own tuning rule: the jobs, then seeded draws with replacement until the next draw's
//                 per-device share would pass X × the platform's devices (or seeded removals down to it);
//                 buffers the whole trace, replays in submit order
//   shuffle       a seeded permutation of the jobs on the trace's own submit times; buffers the whole trace
// "Requested" counts devices × gpu_milli / 1000 per job (a fractional pod requests its share).
#include "workloads/JobReader.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

/// Makes a fresh reader of the same jobs (inflate reads the trace twice).
using ReaderFactory = std::function<std::unique_ptr<JobReader>()>;

struct TransformContext {
  std::uint64_t seed = 1;
  double capacity_devices = 0; ///< the platform's device count (inflate); 0 = unknown
};

/// One declared transform: the single declaration behind parsing, `colocsim formats` and the docs.
struct TransformInfo {
  std::string name;
  std::string value_help; ///< what the value looks like; empty for value-less transforms
  std::string help;
};
const std::vector<TransformInfo>& transform_infos();

/// A parsed transform list.
class TransformChain {
public:
  /// Parses "window=0..7d,load=2,sample=0.5". Throws InputError at `where`, path `path`, naming the valid
  /// transforms or what a value should look like.
  static TransformChain parse(const std::string& text, const SourceLocation& where,
                              const std::string& path = "transforms");
  bool empty() const { return steps_.empty(); }
  /// Wraps `base` in every transform, in order. Throws InputError if inflate needs a capacity it lacks.
  ReaderFactory apply(ReaderFactory base, const TransformContext& context) const;
  std::string text() const; ///< canonical form, "" if empty

  struct Step {
    std::string name;
    double a = 0, b = 0; ///< window bounds; load factor; sample probability; inflate target fraction
    bool has_a = false, has_b = false;
  };
  const std::vector<Step>& steps() const { return steps_; }

private:
  std::vector<Step> steps_;
  SourceLocation where_;
  std::string path_;
};

} // namespace colocsim
