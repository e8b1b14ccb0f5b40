#pragma once
// Raw measurements of the microbenchmark: one CSV row per process per run (idle runs: one row), as
// written by `colocsim calibrate run` and read by `fit` and `check`. Format and a tested example:
// docs/formats/measurements.md. Each column is declared once (measurement_columns()): the declaration
// drives the writer, the reader and the documentation table. An unavailable number (no energy meter, no
// context time on OpenCL) is an empty field, read back as NaN; nothing is filled in.
#include <iosfwd>
#include <limits>
#include <string>
#include <vector>

namespace colocsim {

struct MeasurementRow {
  static constexpr double UNAVAILABLE = std::numeric_limits<double>::quiet_NaN();
  int run_id = 0;
  int repetition = 0;
  std::string set = "fit"; ///< fit | check
  std::string kind;        ///< idle | idle-context | solo | corun
  std::string date;        ///< run start, UTC, ISO 8601
  std::string host;
  std::string backend; ///< level-zero | opencl
  std::string device;  ///< device name as the backend reports it
  std::string mode;    ///< time-slice | ccs1 | ccs2 | ccs4
  int n_procs = 0;     ///< processes in the run (0 for idle)
  int rank = -1;       ///< this process, 0..n_procs-1 (-1: idle row)
  std::string kernel;
  long long n = 0, k = 0, m = 0;
  double duty = UNAVAILABLE;    ///< requested duty cycle
  double sleep_s = UNAVAILABLE; ///< host sleep after each launch
  std::string co_runners;       ///< the other processes, "kernel@duty;..."
  double freq_set_mhz = UNAVAILABLE;
  double freq_actual_mhz = UNAVAILABLE;
  int reps = 0;                       ///< launches completed inside the window
  double t_global_s = UNAVAILABLE;    ///< median device time per launch (global timestamps)
  double t_context_s = UNAVAILABLE;   ///< median device time while this context ran (Level Zero only)
  double t_host_s = UNAVAILABLE;      ///< median host time from launch to completion
  double t_iter_s = UNAVAILABLE;      ///< host time per iteration (launch + wait + sleep): inverse throughput
  double t_iter_cv = UNAVAILABLE;     ///< coefficient of variation of the iteration times
  int samples = 0;                    ///< sub-windows with a finished launch (0: not recorded)
  double t_iter_lo_s = UNAVAILABLE;   ///< smallest sub-window mean of the iteration times
  double t_iter_hi_s = UNAVAILABLE;   ///< largest sub-window mean of the iteration times
  double cpu_util = UNAVAILABLE;      ///< CPU time of the worker process over the window ÷ the window
  double duty_measured = UNAVAILABLE; ///< t_global_s / t_iter_s
  double flops = UNAVAILABLE;         ///< per launch
  double bytes = UNAVAILABLE;         ///< per launch
  double window_s = UNAVAILABLE;
  double energy_j = UNAVAILABLE; ///< device energy over the window (all processes of the run)
  double power_w = UNAVAILABLE;  ///< energy_j / window_s
  std::string energy_source;     ///< e.g. zes:tile0, rapl:package-0; empty when unavailable
  std::string notes;
};

/// One column: the declaration behind the writer, the reader and the docs table.
struct MeasurementColumn {
  std::string name;
  std::string type; ///< "integer", "number", "text"
  std::string help;
  bool optional = false; ///< may be missing from a file (added later; older files lack it)
};

const std::vector<MeasurementColumn>& measurement_columns();

/// Writes the header line.
void write_measurement_header(std::ostream& out);
/// Writes one row (numbers as the shortest text that reads back to the same double; NaN as empty).
void write_measurement_row(std::ostream& out, const MeasurementRow& row);

/// Reads a measurements CSV: the header (any column order; unknown columns and missing non-optional columns
/// are errors; a missing optional column reads as 0 / empty / NaN), then
/// rows. Every problem is collected and thrown as one InputError at `file:line`, naming the column and
/// what was expected. Blank lines and lines starting with '#' are skipped.
std::vector<MeasurementRow> read_measurements(std::istream& in, const std::string& file);
std::vector<MeasurementRow> read_measurements_file(const std::string& path);

} // namespace colocsim
