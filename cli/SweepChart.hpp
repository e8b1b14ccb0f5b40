#pragma once
// The figures of a sweep (`colocsim plot SWEEPDIR`): one SVG chart per metric of sweep.csv, grouped by the
// sweep's axes — x = a numeric axis (the load, say), colour = a categorical one (the policy), a point at the
// mean over seeds with a min–max error bar, a legend box — in the units people read (kWh, h, %), named from
// the one table of summary.json's fields (summary_fields(), sim/Outputs.hpp).
#include <cstddef>
#include <string>
#include <vector>

namespace colocsim {

/// sweep.csv as read (docs/formats/sweep.md): `run`, `status`, one column per axis, `seed`, then the
/// numbers of each run's summary.json; `lines` holds each row's line number in `file` for errors.
struct SweepTable {
  std::string file;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;
};

/// Which axes to draw along x and in colour; empty = chosen (see sweep_chart).
struct SweepChartOptions {
  std::string x;
  std::string colour;
};

/// The axis columns of a sweep.csv: the columns between `status` and `seed`. InputError (file:1) if the
/// table has no `run`, `status` or `seed` column.
std::vector<std::string> sweep_axes(const SweepTable& sweep);

/// The metrics a sweep.csv holds: the columns after `seed` that are numbers of summary.json.
std::vector<std::string> sweep_metrics(const SweepTable& sweep);

/// What one chart shows: its axes, the unit it draws in and, per point, the statistics over seeds (in that
/// unit). Exposed so that a test can compare the figure with numbers it works out itself.
struct SweepSeries {
  std::string x_axis;      ///< the sweep axis along x; empty: none (one slot)
  std::string colour_axis; ///< the sweep axis in colour; empty: none (one colour)
  bool numeric_x = false;  ///< x values are numbers (a linear scale), else evenly spaced categories
  std::string label;       ///< the metric's name for people (summary_fields())
  std::string unit;        ///< the unit drawn: "kWh", "h", "%", ... ("" for a plain number)
  double scale = 1;        ///< drawn value = value in summary.json × scale
  struct Point {
    std::string colour_value;          ///< the colour axis's value
    std::string style;                 ///< the values of the other axes, "axis=value, ..." ("" if none vary)
    std::string x_value;               ///< the x axis's value as in sweep.csv
    double mean = 0, min = 0, max = 0; ///< over the seeds' runs that succeeded, in `unit`
    std::size_t runs = 0, failed = 0;
    /// Over the runs that succeeded: Σ jobs completed and Σ jobs read (sweep.csv's jobs_completed and
    /// jobs_read, 0 when it has no such columns), and whether some run completed fewer than it read.
    double jobs_completed = 0, jobs_read = 0;
    bool incomplete = false;
  };
  std::vector<Point> points; ///< in the order of their first row in sweep.csv
};

/// The statistics behind the chart of `metric`. UsageError if `metric` is no metric of the sweep, or an
/// option names no axis of it (or x and colour the same one); InputError at file:line for a cell that is
/// not a number. Defaults: colour = `policy` if it is an axis, else the first axis whose values are not all
/// numbers; x = the first numeric axis that is not the colour one, else the first other axis, else the
/// colour axis itself.
SweepSeries sweep_series(const SweepTable& sweep, const std::string& metric,
                         const SweepChartOptions& options);

/// The SVG chart of `metric` (plain SVG 1.1 text; the same table gives the same bytes).
std::string sweep_chart(const SweepTable& sweep, const std::string& metric, const SweepChartOptions& options);

} // namespace colocsim
