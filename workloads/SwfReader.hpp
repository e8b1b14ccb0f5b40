#pragma once
// Standard Workload Format (Feitelson et al., Parallel Workloads Archive; docs/formats/swf.md): 18
// whitespace-separated fields per job, `;` header lines (MaxNodes/MaxProcs...), −1 for unknown. Streaming,
// with a bounded reorder window so that the non-canonical ALCF Theta files (unsorted submit times, nodes in
// fields 5 and 8) replay with a warning instead of an error.
//
// Mapping: id ← field 1; submit ← field 2; duration ← field 4 (run time); devices ← field 5 (allocated
// processors/nodes), or field 8 (requested) when 5 is −1, times `devices_per_proc`, divided by
// `procs_per_device`, rounded up. Rules: rows with run time ≤ 0 or no processor count are skipped (counted
// in warnings()); the status (field 11) filter is SwfStatusRule; the status is kept in Job::qos
// ("status=0"); memory is not read (SWF gives KB per processor of *host* memory).
#include "workloads/CsvLines.hpp"
#include "workloads/JobReader.hpp"
#include "workloads/ReorderWindow.hpp"

#include <array>
#include <istream>
#include <memory>
#include <string>
#include <vector>

namespace colocsim {

/// Which rows to replay by their SWF status (field 11: 1 completed, 0 failed, 5 cancelled, 2–4 partial
/// executions, −1 unknown). Every rule first needs a run time > 0: a job cancelled before it started has
/// none and is skipped.
enum class SwfStatusRule {
  ALL,           ///< every row that ran: failed and cancelled jobs held their processors for their run time
  NOT_CANCELLED, ///< skip status 5
  COMPLETED,     ///< status 1 only (and −1 unknown, which many logs use throughout)
};

struct SwfOptions {
  int procs_per_device = 1; ///< trace processors (nodes, for Theta) per simulated device
  int devices_per_proc = 1; ///< simulated devices per trace processor (e.g. 12 tiles per Aurora node)
  SwfStatusRule status = SwfStatusRule::ALL;
  std::size_t reorder_window = DEFAULT_REORDER_WINDOW;
};

class SwfReader final : public JobReader {
public:
  SwfReader(std::istream& in, std::string file_name, SwfOptions options);
  /// `reorder_window`: rows held to restore submit order (memory O(window)); a row older than every job
  /// already handed out is an error.
  SwfReader(std::istream& in, std::string file_name, int procs_per_device = 1,
            std::size_t reorder_window = DEFAULT_REORDER_WINDOW);
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override;
  /// SWF fields 17-18 (preceding job, think time) may name a dependency on any row.
  bool may_have_dependencies() const override { return true; }
  long long max_procs() const { return max_procs_; } ///< from the `; MaxProcs:` header, 0 if absent
  long long max_nodes() const { return max_nodes_; } ///< from the `; MaxNodes:` header, 0 if absent

private:
  bool read_row(); ///< parses the next usable data row into the window; false at end of input
  LineReader in_;  ///< the stream's lines (CsvLines.hpp)
  std::string file_;
  SwfOptions options_;
  int line_ = 0;
  long long max_procs_ = 0, max_nodes_ = 0;
  ReorderWindow window_;
  bool eof_ = false;
  std::size_t skipped_no_run_ = 0, skipped_status_ = 0;
  std::string text_;
};

std::unique_ptr<JobReader> open_swf(const std::string& path, SwfOptions options);
std::unique_ptr<JobReader> open_swf(const std::string& path, int procs_per_device = 1);

} // namespace colocsim
