#pragma once
// Alibaba cluster-trace-gpu-v2023 pod lists ("openb", Weng et al., USENIX ATC'23;
// docs/formats/alibaba-openb.md):
// `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,
// scheduled_time`, and the request-only `multigpuNN` variant with the first five columns only.
//
// Mapping: id ← name; submit ← creation_time; duration ← deletion_time − scheduled_time; devices ← num_gpu;
// gpu_milli ← gpu_milli (per device); gpu_types ← gpu_spec (checked against the known GPU types); qos ← qos.
// cpus ← cpu_milli / 1000; host_mem_bytes ← memory_mib (the engine does not read them; the packing study,
// packing/Packing.hpp, does); the trace has no GPU memory request. Rules (counted in warnings()): CPU-only
// pods (num_gpu = 0) are skipped; pending pods (no scheduled_time) follow OpenbPendingRule; the re-sampled
// variants are not sorted by creation_time and are put in order within a reorder window (every openb file
// fits in the default window).
#include "workloads/CsvLines.hpp"
#include "workloads/JobReader.hpp"
#include "workloads/ReorderWindow.hpp"

#include <istream>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

/// Pods that were never scheduled (Pending at the end of the trace: 897 of the 8,152 in `default`).
enum class OpenbPendingRule {
  SKIP, ///< leave them out (default): the trace says nothing about how long they would have run
  KEEP, ///< submit them at creation_time with OpenbOptions::pending_duration_s
};

struct OpenbOptions {
  OpenbPendingRule pending = OpenbPendingRule::SKIP;
  double pending_duration_s = 616;   ///< KEEP: run time of a pending pod (default: the trace's median run)
  double untimed_duration_s = 616;   ///< 5-column variant: every pod's run time
  double untimed_interarrival_s = 0; ///< 5-column variant: pod i is submitted at i × this (0: all at once)
  /// Accepted gpu_spec names (the openb node list's models).
  std::vector<std::string> gpu_types{"A10", "G2", "G3", "P100", "T4", "V100M16", "V100M32"};
  std::size_t reorder_window = DEFAULT_REORDER_WINDOW;
  /// Requests only (the FGD packing study, packing/Packing.hpp): every row becomes a job in file order
  /// (submit = row number − 1, run time untimed_duration_s), CPU-only pods included (devices 0, gpu_milli 0),
  /// pending and zero-run-time pods kept; times are still checked when the file has them.
  bool requests_only = false;
};

class OpenbPodReader final : public JobReader {
public:
  /// Reads the header at once (throws InputError on a bad one). The stream must outlive the reader.
  OpenbPodReader(std::istream& in, std::string file_name, OpenbOptions options = {});
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override;
  bool timed() const { return timed_; } ///< false for the 5-column request-only variant

private:
  bool read_row(); ///< parses rows until one yields a job (pushed to the window); false at the end
  enum Col { NAME, CPU, MEM, NUM_GPU, GPU_MILLI, GPU_SPEC, QOS, PHASE, CREATION, DELETION, SCHEDULED, COLS };

  std::string file_;
  OpenbOptions options_;
  CsvLines csv_;
  int col_[COLS];
  std::size_t width_ = 0;
  bool timed_ = true;
  long long row_ = 0; ///< data rows read
  ReorderWindow window_;
  bool eof_ = false;
  std::size_t cpu_only_ = 0, pending_skipped_ = 0, pending_kept_ = 0, zero_runtime_ = 0;
};

/// Opens a pod list, plain or gzip-compressed (`.csv.gz`, read through base/Gzip.hpp's GzipIfstream; the
/// content decides, not the name). A gzip file cut short or corrupt is an InputError naming the file.
std::unique_ptr<JobReader> open_openb(const std::string& path, OpenbOptions options = {});

} // namespace colocsim
