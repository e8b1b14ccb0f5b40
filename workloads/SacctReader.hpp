#pragma once
// Slurm accounting as `sacct --parsable2` prints it (docs/formats/sacct.md): '|'-separated fields, a header
// line naming the columns, which may come in any order and are found by name (case-insensitive). Required:
// JobID, Submit, Start, End, State and AllocTRES or ReqTRES; optional: Timelimit, Elapsed, User, Partition,
// QOS, AllocNodes. Streaming, with a bounded reorder window (sacct lists jobs by id, not by submit time).
//
// Mapping: id ← JobID (array tasks 123_4 and heterogeneous components 123+0 are jobs; steps 123.batch,
// 123.0, 123.extern are skipped); submit ← Submit, in seconds after the Submit of the first job replayed;
// duration ← End − Start (or Elapsed, option duration=elapsed); devices ← the TRES string's gres/gpu count
// (AllocTRES, or ReqTRES where AllocTRES is absent or empty); gpu_types ← the typed entries
// (gres/gpu:a100=2 → a100); a MIG entry (gres/gpu:a100_1g.5gb=1) is a share of one GPU: gpu_milli =
// round(1000 × g / 7) for a `<g>g.<mem>gb` profile and gpu_types ← the model before it (a100); cpus ← cpu=;
// host memory ← mem=; requested_s ← Timelimit; user ← User; trace_class ← Partition; qos ← QOS;
// trace_status ← the State's first word.
//
// States: COMPLETED, FAILED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE and
// CANCELLED (also "CANCELLED by UID") ran from Start to End when Start is a time; with Start Unknown or None,
// or AllocNodes 0 (how Slurm prints a job cancelled while it waited: Start = End), they never started and
// are skipped (counted). PENDING, RUNNING, REQUEUED, SUSPENDED and the other states of
// a job that has not ended are skipped (counted). Jobs without a GPU are skipped (counted). Times are
// `YYYY-MM-DDTHH:MM:SS` as sacct prints them (read without a time zone), or whole Unix seconds
// (SLURM_TIME_FORMAT=%s); `Unknown` and `None` mean no time.
#include "workloads/CsvLines.hpp"
#include "workloads/JobReader.hpp"
#include "workloads/ReorderWindow.hpp"

#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace colocsim {

/// Where a job's run time comes from.
enum class SacctDuration {
  SPAN,    ///< End − Start: the time the job held its devices, suspended time included
  ELAPSED, ///< the Elapsed column (Slurm leaves out the time a job was suspended); needs the column
};

struct SacctOptions {
  SacctDuration duration = SacctDuration::SPAN;
  std::size_t reorder_window = DEFAULT_REORDER_WINDOW;
};

/// Most columns a header may name: `sacct --helpformat` lists about 110 fields.
inline constexpr std::size_t SACCT_MAX_COLUMNS = 256;

/// Seconds since 1970-01-01T00:00:00 of a sacct time (`2024-03-01T12:00:00`, read as UTC, or whole Unix
/// seconds); nullopt for `Unknown`, `None` and empty. Throws InputError at `at`, naming `field`, for
/// anything else.
std::optional<double> parse_sacct_time(const std::string& text, const SourceLocation& at,
                                       const std::string& field);
/// Seconds of a Slurm duration (`[D-]HH:MM:SS`, `MM:SS`, `MM`, `D-HH`, `D-HH:MM`, optionally with
/// `.fraction` seconds); nullopt for `UNLIMITED`, `Partition_Limit`, `INVALID` and empty. Throws InputError
/// for anything else.
std::optional<double> parse_slurm_duration(const std::string& text, const SourceLocation& at,
                                           const std::string& field);

class SacctReader final : public JobReader {
public:
  SacctReader(std::istream& in, std::string file_name, SacctOptions options = {});
  std::optional<Job> next() override;
  std::vector<std::string> warnings() const override;
  /// The time that became submit 0 (once a job has been handed out).
  std::string describe() const override;

private:
  bool read_row();
  int column(const char* name) const; ///< index in the header, -1 if absent

  std::string file_;
  SacctOptions options_;
  CsvLines csv_;
  std::vector<std::string> header_;
  int id_ = -1, submit_ = -1, start_ = -1, end_ = -1, state_ = -1, alloc_tres_ = -1, req_tres_ = -1,
      timelimit_ = -1, elapsed_ = -1, user_ = -1, partition_ = -1, qos_ = -1, alloc_nodes_ = -1;
  ReorderWindow window_;
  bool eof_ = false;
  std::optional<double> origin_s_; ///< absolute Submit of the first job handed out
  std::size_t steps_ = 0, unfinished_ = 0, no_gpu_ = 0, zero_runtime_ = 0, no_end_ = 0, mixed_shares_ = 0;
  std::map<std::string, std::size_t> not_started_; ///< by state: ended without ever starting
};

std::unique_ptr<JobReader> open_sacct(const std::string& path, SacctOptions options = {});

} // namespace colocsim
