// `calibrate check`'s statistics on a hand-made campaign whose errors are worked out below: the mean and the
// median |relative error|, the two trivial predictors (no interference; the fit set's mean slowdown), and
// co-run readings faster than solo left out as impossible. Also the repeated timings inside one window
// (sub-window means) and the optional measurement columns.
#include "calibration/microbenchmark/MeasurementSet.hpp"
#include "calibration/microbenchmark/Measurements.hpp"
#include "calibration/microbenchmark/Microbenchmark.hpp"
#include "calibration/microbenchmark/ModelCheck.hpp"
#include "tests/CatchCompat.hpp"
#include "tests/calibration/MeasurementRowSupport.hpp"

#include <cmath>
#include <sstream>

using namespace colocsim;
using namespace colocsim::test;

namespace {

int next_run = 0;

MeasurementRow row(const std::string& kind, const std::string& set, const std::string& kernel, int n_procs,
                   int rank, double t_iter_s)
{
  return colocsim::test::measurement_row(next_run, kind, set, kernel, n_procs, rank, t_iter_s);
}

/// Solo fma_fp32, triad, l2_triad at 10 ms each; co-runs given as (set, kernels, slowdowns).
std::vector<MeasurementRow>
campaign(const std::vector<std::tuple<std::string, std::vector<std::string>, std::vector<double>>>& coruns)
{
  next_run = 0;
  std::vector<MeasurementRow> rows;
  for (const char* k : {"fma_fp32", "triad", "l2_triad"}) {
    ++next_run;
    rows.push_back(row("solo", "fit", k, 1, 0, 0.010));
  }
  for (const auto& [set, kernels, slowdowns] : coruns) {
    ++next_run;
    for (std::size_t i = 0; i < kernels.size(); ++i)
      rows.push_back(row("corun", set, kernels[i], static_cast<int>(kernels.size()), static_cast<int>(i),
                         0.010 * slowdowns[i]));
  }
  return rows;
}

/// Pure time-slice sharing: slowdown = Σ duty cycles (θ = 0, ε = 0, no table under time-slice).
Calibration sharing_only()
{
  auto c = load_calibration(read_source_file("calibration/data/max1550-aurora-default.yaml"), "default.yaml");
  c.time_slice.collision.value = 0;
  c.time_slice.switch_overhead.value = 0;
  c.table_modes.clear();
  return c;
}

} // namespace

TEST_CASE("check reports the mean and median error and scores the trivial predictors", "[calibration][check]")
{
  // Fit set: one pair observed at 2.0 and 2.2 (mean 2.1). Held out: a triple observed at 3.0, 3.3, 6.0,
  // which pure sharing predicts at 3 each.
  const MeasurementSet data(campaign({{"fit", {"fma_fp32", "triad"}, {2.0, 2.2}},
                                      {"check", {"fma_fp32", "triad", "l2_triad"}, {3.0, 3.3, 6.0}}}));
  const auto rep = check_calibration(sharing_only(), data, "check");
  INFO(rep.text());
  REQUIRE(rep.overall.n == 3);
  // Model: errors 0, 3/3.3 - 1 = -0.0909, 3/6 - 1 = -0.5: mean 0.19697, median 0.0909.
  CHECK_THAT(rep.overall.mape, WithinAbs((0.0 + 0.3 / 3.3 + 0.5) / 3, 1e-9));
  CHECK_THAT(rep.overall.median_abs, WithinAbs(0.3 / 3.3, 1e-9));
  REQUIRE(rep.baselines.size() == 2);
  // No interference (1): errors -2/3, -2.3/3.3, -5/6: mean 0.73232, median 0.69697.
  CHECK(rep.baselines[0].prediction == 1.0);
  CHECK_THAT(rep.baselines[0].errors.mape, WithinAbs((2.0 / 3 + 2.3 / 3.3 + 5.0 / 6) / 3, 1e-9));
  CHECK_THAT(rep.baselines[0].errors.median_abs, WithinAbs(2.3 / 3.3, 1e-9));
  // Mean fit-set slowdown 2.1: errors -0.9/3, -1.2/3.3, -3.9/6: mean 0.43788, median 0.36364.
  CHECK_THAT(rep.baselines[1].prediction, WithinAbs(2.1, 1e-12));
  CHECK_THAT(rep.baselines[1].errors.mape, WithinAbs((0.3 + 1.2 / 3.3 + 0.65) / 3, 1e-9));
  CHECK_THAT(rep.baselines[1].errors.median_abs, WithinAbs(1.2 / 3.3, 1e-9));
  CHECK_THAT(rep.best_baseline_mape(), WithinAbs((0.3 + 1.2 / 3.3 + 0.65) / 3, 1e-9));
  CHECK_THAT(rep.text(), ContainsSubstring("median |error| 9.1%"));
  CHECK_THAT(rep.text(), ContainsSubstring("trivial predictor, no interference (every slowdown 1.000): mean "
                                           "|error| 73.2%, median |error| 69.7%"));

  // A model that predicts no interference scores exactly like the first trivial predictor.
  auto nothing = sharing_only();
  const MeasurementSet solo_only(campaign({{"check", {"fma_fp32", "triad"}, {2.0, 2.5}}}));
  const auto r2 = check_calibration(nothing, solo_only, "check");
  CHECK(r2.baselines.size() == 1); // no fit-set co-run: only the no-interference predictor
  CHECK_THAT(r2.overall.mape, WithinAbs((0.0 + 0.5 / 2.5) / 2, 1e-9)); // predicted 2 and 2
}

TEST_CASE("co-run readings faster than solo beyond noise are left out", "[calibration][check]")
{
  // triad at 0.5 x its solo time while sharing the device: impossible; the run is skipped with a note. At
  // 0.85 (within the 20 % noise allowance) the reading is kept.
  const MeasurementSet data(campaign(
      {{"check", {"fma_fp32", "triad"}, {2.0, 0.5}}, {"check", {"fma_fp32", "l2_triad"}, {2.0, 0.85}}}));
  std::vector<std::string> skipped;
  const auto runs = data.coruns("check", nullptr, &skipped);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].run_id == 5);
  REQUIRE(skipped.size() == 1);
  CHECK_THAT(skipped[0], ContainsSubstring("run 4 (co-run): impossible reading: triad@1 ran 0.5 x its solo"));
  const auto rep = check_calibration(sharing_only(), data, "check");
  CHECK(rep.overall.n == 2);
  CHECK_THAT(rep.text(), ContainsSubstring("note: run 4 (co-run): impossible reading"));
}

TEST_CASE("repeated timings: the median of sub-window means", "[calibration][measurements]")
{
  // Window 1 s in 4 sub-windows [0, .25), [.25, .5), [.5, .75), [.75, 1). Iterations start at 0, .1, .2
  // (1st: mean of 10, 12, 11 ms = 11), .3 (2nd: 30 ms, one disturbed stretch), none in the 3rd, .8
  // and .9 (4th: (9 + 13) / 2 = 11).
  const std::vector<double> start{0.0, 0.1, 0.2, 0.3, 0.8, 0.9};
  const std::vector<double> iter{0.010, 0.012, 0.011, 0.030, 0.009, 0.013};
  const auto parts = sub_window_means(start, iter, 1.0, 4);
  REQUIRE(parts.size() == 3);
  CHECK_THAT(parts[0], WithinAbs(0.011, 1e-15));
  CHECK_THAT(parts[1], WithinAbs(0.030, 1e-15));
  CHECK_THAT(parts[2], WithinAbs(0.011, 1e-15));
  CHECK_THAT(median(parts), WithinAbs(0.011, 1e-15)); // the disturbed stretch does not move it
  // One sub-window: the plain mean (85 / 6 ms); a start at the very end belongs to the last sub-window.
  CHECK_THAT(sub_window_means(start, iter, 1.0, 1)[0], WithinAbs(0.085 / 6, 1e-15));
  CHECK(sub_window_means({1.0}, {0.5}, 1.0, 3).size() == 1);
}

TEST_CASE("repeated timings: a bimodal sub-window counts at its throughput, not its median",
          "[calibration][measurements]")
{
  // A 1 ms kernel beside a co-runner that holds the core in 4 ms turns (pocl, HZ=250): three launches
  // finish in 1 ms each, the fourth waits out the co-runner's turn (1 + 4 = 5 ms), and so on: launches
  // start at 0, 1, 2 (1 ms), 3 (5 ms), 8, 9, 10 (1 ms), 11 (5 ms), ... Twelve such 8 ms cycles fill a
  // 96 ms window with 48 launches: 2 ms each, a slowdown of 2 (the core shared equally). The median of the
  // iteration times is 1 ms: slowdown 1, as if nothing shared the core.
  std::vector<double> start, iter;
  double t = 0;
  for (int i = 0; i < 48; ++i) {
    const double d = i % 4 == 3 ? 0.005 : 0.001;
    start.push_back(t);
    iter.push_back(d);
    t += d;
  }
  CHECK_THAT(t, WithinAbs(0.096, 1e-12));
  CHECK_THAT(median(iter), WithinAbs(0.001, 1e-15));
  const auto parts = sub_window_means(start, iter, 0.096, 1);
  REQUIRE(parts.size() == 1);
  CHECK_THAT(parts[0], WithinAbs(0.002, 1e-12)); // 96 ms / 48 launches
}

TEST_CASE("the repeated-timing columns are optional: older files load", "[calibration][measurements]")
{
  std::ostringstream full;
  write_measurement_header(full);
  auto r = row("solo", "fit", "triad", 1, 0, 0.01);
  r.samples = 5;
  r.t_iter_lo_s = 0.009;
  r.t_iter_hi_s = 0.012;
  write_measurement_row(full, r);
  std::istringstream in(full.str());
  const auto back = read_measurements(in, "new.csv");
  REQUIRE(back.size() == 1);
  CHECK(back[0].samples == 5);
  CHECK(back[0].t_iter_lo_s == 0.009);
  CHECK(back[0].t_iter_hi_s == 0.012);

  // The same file without the three columns (as written before they existed).
  std::string text = full.str();
  for (const std::string col : {",samples", ",t_iter_lo_s", ",t_iter_hi_s"})
    text.erase(text.find(col), col.size());
  for (const std::string v : {",5,0.009,0.012"})
    text.erase(text.find(v), v.size());
  std::istringstream old(text);
  const auto rows = read_measurements(old, "old.csv");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].samples == 0);
  CHECK(std::isnan(rows[0].t_iter_lo_s));
  CHECK(rows[0].t_iter_s == 0.01);
}

TEST_CASE("repeated co-runs are one observation with each job's median slowdown", "[calibration][check]")
{
  // Three repetitions of fma_fp32 + triad; the second caught triad in a disturbed stretch (6.0). Medians:
  // fma_fp32 of {2.0, 2.2, 1.9} = 2.0, triad of {2.1, 6.0, 2.05} = 2.1. Pure sharing predicts 2 and 2:
  // errors 0 and -0.0476 (with the mean over runs instead, triad's 3.383 would give -0.409).
  const MeasurementSet data(campaign({{"check", {"fma_fp32", "triad"}, {2.0, 2.1}},
                                      {"check", {"fma_fp32", "triad"}, {2.2, 6.0}},
                                      {"check", {"fma_fp32", "triad"}, {1.9, 2.05}},
                                      {"check", {"triad", "fma_fp32"}, {2.4, 2.0}}}));
  const auto runs = data.coruns("check");
  REQUIRE(runs.size() == 2); // triad + fma_fp32 (other rank order) is another co-run
  CHECK(runs[0].run_id == 4);
  CHECK(runs[0].repetitions == 3);
  CHECK_THAT(runs[0].jobs[0].slowdown, WithinAbs(2.0, 1e-12));
  CHECK_THAT(runs[0].jobs[1].slowdown, WithinAbs(2.1, 1e-12));
  CHECK(runs[1].repetitions == 1);
  CHECK_THAT(runs[1].jobs[0].slowdown, WithinAbs(2.4, 1e-12));
  const auto rep = check_calibration(sharing_only(), data, "check");
  CHECK(rep.overall.n == 4);
  CHECK_THAT(rep.overall.mape, WithinAbs((0.0 + 0.1 / 2.1 + 0.4 / 2.4 + 0.0) / 4, 1e-9));
}
