#pragma once
// Standard Workload Format (Feitelson et al., Parallel Workloads Archive; docs/formats/swf.md): 18
// whitespace-separated fields per job, `;` header lines (MaxNodes/MaxProcs...), −1 for unknown. Streaming,
// with a bounded reorder buffer so that the non-canonical ALCF Theta files (unsorted submit times,
// nodes in fields 5 and 8) replay with a warning instead of an error.
//
// Mapping: id ← field 1; submit ← field 2; duration ← field 4 (run time); devices ← field 5 (allocated
// processors/nodes), or field 8 (requested) when 5 is −1, divided by `procs_per_device` and rounded up.
// Rules: rows with run time ≤ 0 or no processor count are skipped (counted in warnings()); the status
// (field 11) is kept as free text in Job::qos ("status=0"); memory is not read (SWF gives KB per processor
// of *host* memory).
#include "workloads/JobReader.hpp"

#include <istream>
#include <memory>
#include <queue>
#include <string>
#include <vector>

namespace colocsim {

class SwfReader final : public JobReader {
public:
  /// `reorder_window`: rows held to restore submit order (memory O(window)); a row older than every job
  /// already handed out is an error.
  SwfReader(std::istream& in, std::string file_name, int procs_per_device = 1,
            std::size_t reorder_window = 16384);
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override;
  long long max_procs() const { return max_procs_; } ///< from the `; MaxProcs:` header, 0 if absent

private:
  bool read_row(); ///< parses the next data row into the buffer; false at end of input
  struct Later {
    bool operator()(const Job& a, const Job& b) const
    {
      return a.submit_s != b.submit_s ? a.submit_s > b.submit_s : a.origin.line > b.origin.line;
    }
  };
  std::istream& in_;
  std::string file_;
  int procs_per_device_;
  std::size_t window_;
  int line_ = 0;
  long long max_procs_ = 0;
  std::priority_queue<Job, std::vector<Job>, Later> buffer_;
  double last_out_ = -1e300;
  bool eof_ = false;
  std::size_t skipped_ = 0, reordered_ = 0;
  double last_read_ = -1e300;
};

std::unique_ptr<JobReader> open_swf(const std::string& path, int procs_per_device = 1);

} // namespace colocsim
