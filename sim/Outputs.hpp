#pragma once
// Output files of a run (docs/formats/outputs.md): summary.json, jobs.csv, timeseries.csv in an output
// directory that is never overwritten without --force and appears only complete (written into a staging
// directory, then moved into place), every write checked; and the human summary table on stdout.
#include "sim/Engine.hpp"
#include "sim/Metrics.hpp"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// outputs.compress: how jobs.csv and timeseries.csv are written.
enum class Compression {
  NONE, ///< plain jobs.csv, timeseries.csv
  GZIP, ///< jobs.csv.gz, timeseries.csv.gz
  AUTO, ///< plain, and gzip for a file once it passes OutputOptions::auto_gzip_rows rows
};

/// outputs.timeseries: auto's thresholds (docs/formats/outputs.md gives the measured sizes behind them).
inline constexpr std::uint64_t AUTO_SERIES_ROWS = 100000; ///< auto: every event up to this many rows
inline constexpr double AUTO_SERIES_INTERVAL_S = 60;      ///< auto: then one row per minute
inline constexpr std::uint64_t AUTO_GZIP_ROWS = 100000;   ///< compress auto: gzip past this many rows

struct OutputOptions {
  std::filesystem::path dir = "colocsim-out";
  bool force = false;
  bool jobs = true;
  bool timeseries = true; ///< false: outputs.timeseries off
  /// The event log (sim/EventLog.hpp): `events_file` (--log-events FILE), else DIR/events.jsonl if `events`
  /// (scenario key outputs.events); neither: none.
  bool events = false;
  std::filesystem::path events_file;
  /// > 0: one timeseries row per this many seconds of simulated time (interval mode); 0: one per event.
  double timeseries_interval_s = 0;
  /// > 0 (outputs.timeseries auto): a row per event while the run has at most this many, else interval
  /// rows of timeseries_interval_s (the whole file: the rows are held until the choice is made).
  std::uint64_t timeseries_auto_rows = 0;
  Compression compress = Compression::NONE;
  std::uint64_t auto_gzip_rows = AUTO_GZIP_ROWS; ///< Compression::AUTO's threshold
  /// The outputs.timeseries text as given ("auto", "every-event", "60s", ...), for messages.
  std::string timeseries_text = "every-event";
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
/// staging directory); an earlier run's results stay as they were until commit(). A process that dies
/// without unwinding (SIGKILL, a crash, os._exit in a Python policy) leaves its staging directory: the
/// next stage of the same directory reports it (leftovers()) and never deletes or reuses it.
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
  /// One sentence per staging directory of the same target found next to it when this stage was made
  /// (left by a process that died, or in use by one still running), for the caller to print as notes.
  const std::vector<std::string>& leftovers() const { return leftovers_; }

private:
  std::filesystem::path target_, staging_;
  bool force_ = false, committed_ = false;
  std::vector<std::string> leftovers_;
};

/// Interval rows of timeseries.csv (outputs.timeseries: DURATION): fed the cluster state after each
/// instant, it writes one row per `interval_s` of simulated time from the first state's time t0: row k at
/// t0 + k·interval with the mean device, node and total power over [t_k, t_k+1) (energy / time, the energy
/// integrated exactly from the piecewise-constant power), the cumulative energy up to t_k, and the largest
/// busy-device, running and waiting counts in force during [t_k, t_k+1); then one last row at the end of
/// the run with the state there and the whole run's energy (docs/formats/outputs.md).
class IntervalSeries {
public:
  explicit IntervalSeries(double interval_s) : interval_s_(interval_s) {}
  /// The header line; with `link_column`, busiest_link_util last (TimePoint::link_outputs).
  static std::string header(bool link_column = false);
  /// The state after the last event of an instant (instants in increasing order); appends finished rows.
  void add(const TimePoint& p, std::string& rows);
  /// Appends the row of the interval that the end of the run cuts short, and the last row.
  void finish(std::string& rows);

private:
  void advance(double t); ///< integrates the current power from last_t_ to t
  void append_interval_row(double end_t, std::string& rows);
  double interval_s_;
  bool started_ = false;
  double t0_ = 0, row_t_ = 0, last_t_ = 0, next_t_ = 0;
  std::uint64_t k_ = 0;                   ///< index of the row being accumulated
  double e_dev_ = 0, e_node_ = 0;         ///< cumulative energy up to last_t_
  double row_e_dev_ = 0, row_e_node_ = 0; ///< energy from row_t_ to last_t_
  double row_start_e_ = 0;                ///< cumulative (device + node) energy up to row_t_
  TimePoint cur_;                         ///< the state in force since last_t_
  std::uint32_t max_busy_ = 0, max_running_ = 0, max_waiting_ = 0;
  /// The busiest link's utilisation from cur_ to the next time point (constant there:
  /// TimePoint::link_util_s), and its integral from row_t_ to last_t_.
  double link_util_ = 0, row_link_s_ = 0;
};

/// Streams jobs.csv and timeseries.csv while the engine runs, and feeds the metrics. Every row is checked:
/// a failed write throws OutputError (with the file and the OS error) at once.
class OutputWriter final : public RunObserver {
public:
  /// Writes into `dir` the files `options` asks for.
  OutputWriter(const OutputOptions& options, const std::filesystem::path& dir, MetricsCollector& metrics);
  /// Writes to the given streams (null: that file is not written); `jobs_name` and `series_name` name
  /// them in errors. For tests that inject failing streams. `options` gives the timeseries mode (its
  /// compression is not applied: the streams are written as they are).
  OutputWriter(std::unique_ptr<std::ostream> jobs, std::string jobs_name,
               std::unique_ptr<std::ostream> series, std::string series_name, MetricsCollector& metrics,
               const OutputOptions& options = {});
  ~OutputWriter() override;
  void on_job_end(const JobRecord& r) override;
  void on_timepoint(const TimePoint& p) override;
  /// Writes the last time point, flushes and closes the files; OutputError if anything failed.
  void finish();
  /// The file names written (jobs.csv or jobs.csv.gz, ...), after finish().
  std::vector<std::string> files() const;
  /// What an `auto` setting chose for a large run (a line each, for stderr), after finish().
  const std::vector<std::string>& notes() const { return notes_; }

private:
  /// A row for `p`; `next`: the time point after it (the busiest link's mean utilisation between them), null
  /// for the last.
  void write_point(const TimePoint& p, const TimePoint* next);
  /// timeseries.csv's header (every-event or interval), with busiest_link_util when `link_column`.
  void write_series_header(bool interval, bool link_column);
  void write_series_rows(const std::string& rows);
  void switch_to_interval();
  void maybe_gzip(std::unique_ptr<std::ostream>& stream, std::string& name, std::uint64_t rows);
  /// jobs.csv's header, with the communication columns if `comm_columns` (JobRecord::comm_outputs): written
  /// with the first row, or by finish() for a run without jobs.
  void write_jobs_header(bool comm_columns);
  MetricsCollector& metrics_;
  OutputOptions options_;
  std::unique_ptr<std::ostream> jobs_, series_;
  std::string jobs_name_, series_name_;
  std::optional<TimePoint> pending_;
  bool from_files_ = false;                ///< the first constructor: auto may gzip the files
  std::optional<IntervalSeries> interval_; ///< interval mode, or auto after its switch
  std::vector<TimePoint> held_;            ///< auto before its choice: the rows so far
  bool holding_ = false;                   ///< auto, choice not made yet
  std::uint64_t job_rows_ = 0, series_rows_ = 0;
  bool jobs_header_written_ = false;
  bool comm_columns_ = false; ///< jobs.csv has nodes and comm_slowdown
  bool series_header_written_ = false;
  bool link_column_ = false; ///< timeseries.csv has busiest_link_util (TimePoint::link_outputs)
  std::string buffer_;
  std::vector<std::string> notes_;
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
/// Appends `s` as a JSON string (quoted; quote, backslash and control characters escaped; bytes that are not
/// UTF-8 written as the text `\xNN`, base/Utf8.hpp): summary.json and the event log's lines.
void append_json_string(std::string& out, std::string_view s);
/// The same, as a new string.
std::string json_string(std::string_view s);

} // namespace colocsim
