#pragma once
// The run figures of `colocsim plot` (cli/CliPlot.cpp reads the files, this draws them), in a size bounded
// by the figure's pixels, not by the run's length:
//   gantt.svg        jobs on devices in a time window and device range: bars (a job per bar, co-located jobs
//                    stacked in lanes) or, with more than GANTT_MAX_BARS bars, a density view (device × time
//                    heat map of the mean number of jobs per device, one cell per pixel column);
//   power.svg        total, device and node power: the exact steps when there are fewer steps than pixel
//                    columns, else per pixel column the min–max envelope of the step function and the mean
//                    power (energy of the column ÷ its width);
//   utilisation.svg  busy devices ÷ devices (%), running and waiting jobs (queue length), bounded the same
//   way.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace colocsim::plot {

/// Bars a Gantt chart draws before it switches to the density view (view automatic): 2,000 bars with their
/// tooltips are about 400 kB of SVG, and more than the eye separates on 900 pixel columns.
inline constexpr std::size_t GANTT_MAX_BARS = 2000;
/// Pixel columns of a figure's time axis: the resolution of the envelopes and of the density view.
inline constexpr std::size_t PLOT_COLUMNS = 900;

/// One pixel column (time bin) of a step function: the least and greatest value it takes in the bin (a step
/// shorter than the bin counts) and its mean (integral over the bin ÷ the bin's width). `any` is false for a
/// bin the function does not reach (before its first row).
struct Bin {
  double min = 0, max = 0, mean = 0;
  bool any = false;
};

/// The envelope of the step function that takes v[k] on [t[k], t[k+1]) (the last value from t.back() on) over
/// [t0, t1] cut into `bins` equal bins, exactly: bin i is [t0 + (t1−t0)·i/bins, t0 + (t1−t0)·(i+1)/bins),
/// the last one closed at t1. A row at t1 itself (the state after the last event) counts in the last bin's
/// min and max; a row's mean counts only the time it lasts inside the bin. `t` must be non-decreasing.
std::vector<Bin> envelope(const std::vector<double>& t, const std::vector<double>& v, double t0, double t1,
                          std::size_t bins);

/// timeseries.csv, by column.
struct Series {
  std::vector<double> t, device_w, node_w, total_w, busy, running, waiting;
};

/// A row of jobs.csv, as the Gantt chart needs it.
struct JobRow {
  std::string id, profile, status, attempts;
  double submit = 0;
  std::optional<double> start, end, slowdown;
  std::vector<std::size_t> devices;
};

enum class GanttView { AUTOMATIC, BARS, DENSITY };
enum class GanttColour { JOB, PROFILE, SLOWDOWN };

struct RunPlotOptions {
  std::optional<double> from, to;                             ///< time window (s); default: the whole run
  std::optional<std::pair<std::size_t, std::size_t>> devices; ///< device range A..B, inclusive
  std::size_t max_devices = 64; ///< bars view without --devices: the first N devices
  /// Devices d·N to d·N + N − 1 are node d's (--devices-per-node N): the bars view groups its rows per node
  /// (a band and a label per node, a line between nodes) and joins a job's bars across nodes. 0 or 1: no
  /// grouping.
  std::size_t devices_per_node = 0;
  GanttView view = GanttView::AUTOMATIC;
  GanttColour colour = GanttColour::JOB;
};

/// The density view's cells: devices first_device..last_device (a row each, or a row per `group`
/// consecutive devices beyond 600) × `cols` equal time columns of [t0, t1]; a cell (value[row × cols +
/// column]) is the mean number of jobs per device of the row over the column: job-seconds ÷ (column width ×
/// devices of the row), exact from the jobs' start and end (1 = one job all the time, 0 = idle).
struct Density {
  std::size_t rows = 0, cols = 0, group = 1;
  std::vector<double> value;
};
Density density(const std::vector<JobRow>& jobs, double t0, double t1, std::size_t first_device,
                std::size_t last_device, std::size_t cols);

/// The Gantt chart; throws UsageError for a window or device range outside the run.
std::string gantt_svg(const std::vector<JobRow>& jobs, const RunPlotOptions& options);
std::string power_svg(const Series& series, const RunPlotOptions& options);
/// `devices`: the platform's device count (busy devices ÷ devices = utilisation); without it the first
/// panel shows busy devices as a count.
std::string utilisation_svg(const Series& series, std::optional<double> devices,
                            const RunPlotOptions& options);

} // namespace colocsim::plot
