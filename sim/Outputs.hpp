#pragma once
// Output files of a run (docs/formats/outputs.md): summary.json, jobs.csv, timeseries.csv in an output
// directory that is never overwritten without --force and appears only complete (written into a staging
// directory, then moved into place), every write checked; and the human summary table on stdout.
#include "sim/Engine.hpp"
#include "sim/Metrics.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace colocsim {

struct OutputOptions {
  std::filesystem::path dir = "colocsim-out";
  bool force = false;
  bool jobs = true;
  bool timeseries = true;
  /// The event log (sim/EventLog.hpp): `events_file` (--log-events FILE), else DIR/events.jsonl if `events`
  /// (scenario key outputs.events); neither: none.
  bool events = false;
  std::filesystem::path events_file;
};

/// A write that failed (disk full, I/O error, ...): the message names the file and the OS error.
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws OutputError naming `file` and the OS error if a write to `s` failed.
void check_written(const std::ostream& s, const std::filesystem::path& file);

/// The output directory of a run, filled so that it never looks complete before it is: the files are
/// written into a staging directory next to it (".NAME.partial-PID") and moved into place by commit(),
/// summary.json last. A run that fails or is interrupted leaves nothing (the destructor removes the
/// staging directory); an earlier run's results stay as they were until commit().
class OutputStage {
public:
  /// Checks `options.dir`: InputError if it exists and is not a directory, or already holds another run's
  /// results (summary.json, jobs.csv, timeseries.csv) and force is not set. Creates the staging directory.
  explicit OutputStage(const OutputOptions& options);
  ~OutputStage();
  OutputStage(const OutputStage&) = delete;
  OutputStage& operator=(const OutputStage&) = delete;
  /// Where this run writes its files.
  const std::filesystem::path& dir() const { return staging_; }
  /// Moves every staged file into the target directory (created if needed; with force, earlier results
  /// this run did not write are removed). OutputError if a move fails.
  void commit();

private:
  std::filesystem::path target_, staging_;
  bool force_ = false, committed_ = false;
};

/// Streams jobs.csv and timeseries.csv while the engine runs, and feeds the metrics. Every row is checked:
/// a failed write throws OutputError (with the file and the OS error) at once.
class OutputWriter final : public RunObserver {
public:
  /// Writes into `dir` the files `options` asks for.
  OutputWriter(const OutputOptions& options, const std::filesystem::path& dir, MetricsCollector& metrics);
  /// Writes to the given streams (null: that file is not written); `jobs_name` and `series_name` name
  /// them in errors. For tests that inject failing streams.
  OutputWriter(std::unique_ptr<std::ostream> jobs, std::string jobs_name,
               std::unique_ptr<std::ostream> series, std::string series_name, MetricsCollector& metrics);
  void on_job_end(const JobRecord& r) override;
  void on_timepoint(const TimePoint& p) override;
  /// Writes the last time point, flushes and closes the files; OutputError if anything failed.
  void finish();

private:
  void write_point(const TimePoint& p);
  void write_headers();
  MetricsCollector& metrics_;
  std::unique_ptr<std::ostream> jobs_, series_;
  std::string jobs_name_, series_name_;
  std::optional<TimePoint> pending_;
};

/// What a field of summary.json holds: text, a list, a map of counts, or a number (a JSON number or null).
enum class SummaryFieldKind { TEXT, LIST, MAP, NUMBER };

/// One top-level field of summary.json: its name, kind, its name for people and its unit (the unit column
/// of docs/formats/outputs.md: "s", "J", "J·s", "fraction" (0..1), "ratio", "count", "jobs", "jobs/h",
/// "device-s", or "—" for none; figures draw from them, `colocsim plot`), and its value as JSON text.
struct SummaryField {
  const char* name;
  SummaryFieldKind kind;
  const char* label;
  const char* unit;
  std::string (*json)(const Summary&);
};

/// The fields of summary.json, in file order: the one list that the writer, `colocsim sweep`'s metric
/// names and the docs test read (docs/formats/outputs.md documents each).
const std::vector<SummaryField>& summary_fields();

/// The names of the NUMBER fields of summary.json, in file order: what a sweep's `metrics` may name.
std::vector<std::string> summary_number_names();

/// The field of summary.json called `name`; nullptr if there is none.
const SummaryField* find_summary_field(const std::string& name);

/// Writes summary.json (flushed, closed and checked: OutputError if a write failed).
void write_summary_json(const Summary& s, const std::filesystem::path& file);
void print_summary(const Summary& s, std::ostream& os);

/// Shortest decimal text that reads back to the same double.
std::string format_double(double v);
/// A number for JSON: format_double(v), or null for infinity and NaN, which JSON cannot hold.
std::string json_number(double v);

} // namespace colocsim
