#pragma once
// Output files of a run (docs/formats/outputs.md): summary.json, jobs.csv, timeseries.csv in an output
// directory that is never overwritten without --force, and the human summary table on stdout.
#include "sim/Engine.hpp"
#include "sim/Metrics.hpp"

#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>

namespace colocsim {

struct OutputOptions {
  std::filesystem::path dir = "colocsim-out";
  bool force = false;
  bool jobs = true;
  bool timeseries = true;
};

/// Prepares `dir`: creates it, or refuses (InputError) if it already holds another run's results and
/// force is not set. Never deletes anything else in the directory.
void prepare_output_dir(const OutputOptions& options);

/// Streams jobs.csv and timeseries.csv while the engine runs, and feeds the metrics.
class OutputWriter final : public RunObserver {
public:
  OutputWriter(const OutputOptions& options, MetricsCollector& metrics);
  void on_job_end(const JobRecord& r) override;
  void on_timepoint(const TimePoint& p) override;
  /// Flushes the last time point and closes the files.
  void finish();

private:
  void write_point(const TimePoint& p);
  MetricsCollector& metrics_;
  std::ofstream jobs_, series_;
  std::optional<TimePoint> pending_;
};

void write_summary_json(const Summary& s, const std::filesystem::path& file);
void print_summary(const Summary& s, std::ostream& os);

/// Shortest decimal text that reads back to the same double.
std::string format_double(double v);
/// A number for JSON: format_double(v), or null for infinity and NaN, which JSON cannot hold.
std::string json_number(double v);

} // namespace colocsim
