// `colocsim calibrate check`'s gates on a hand-made measurements file whose errors are worked out in the
// comments: each gate passes just above the measured statistic and fails just below it, with exit status 1
// (the message naming the gate goes to the process's stderr).
#include "calibration/Calibration.hpp"
#include "calibration/CalibrationWriter.hpp"
#include "calibration/microbenchmark/Kernels.hpp"
#include "calibration/microbenchmark/Measurements.hpp"
#include "tests/CatchCompat.hpp"
#include "tests/calibration/MeasurementRowSupport.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include <fstream>

using namespace colocsim;
using namespace colocsim::test;

namespace {

MeasurementRow job(int run, const std::string& set, const std::string& kind, const std::string& kernel,
                   int n_procs, int rank, double t_iter_s)
{
  return colocsim::test::measurement_row(run, kind, set, kernel, n_procs, rank, t_iter_s);
}

} // namespace

TEST_CASE("calibrate check gates: mean, median, bias, trivial predictors", "[cli][calibration]")
{
  const auto dir = fresh_dir("calcheck", "gates");
  // Solo runs at 10 ms; a fit pair observed at 2.0 and 2.2 (mean 2.1); a held-out triple at 3.0, 3.3, 6.0.
  {
    std::ofstream csv(dir / "m.csv");
    write_measurement_header(csv);
    int run = 0;
    for (const char* k : {"fma_fp32", "triad", "l2_triad"})
      write_measurement_row(csv, job(++run, "fit", "solo", k, 1, 0, 0.010));
    ++run;
    write_measurement_row(csv, job(run, "fit", "corun", "fma_fp32", 2, 0, 0.020));
    write_measurement_row(csv, job(run, "fit", "corun", "triad", 2, 1, 0.022));
    ++run;
    write_measurement_row(csv, job(run, "check", "corun", "fma_fp32", 3, 0, 0.030));
    write_measurement_row(csv, job(run, "check", "corun", "triad", 3, 1, 0.033));
    write_measurement_row(csv, job(run, "check", "corun", "l2_triad", 3, 2, 0.060));
  }
  // Pure time-slice sharing (θ = ε = 0; the default table applies only to overlapping modes): 3 for each
  // job of the triple. Errors 0, -0.3/3.3, -0.5: mean |error| 0.19697, median 0.09091, bias -0.19697.
  // Trivial predictors: 1 → mean 0.73232; 2.1 → mean 0.43788, the better one (ratio 0.44983).
  auto cal = load_calibration(read_source_file("calibration/data/max1550-aurora-default.yaml"), "d.yaml");
  cal.time_slice.collision.value = 0;
  cal.time_slice.switch_overhead.value = 0;
  std::ofstream(dir / "c.yaml") << format_calibration(cal, {});
  const std::vector<std::string> base{"calibrate", "check", (dir / "m.csv").string(), "--calibration",
                                      (dir / "c.yaml").string()};
  auto check = [&](std::vector<std::string> gate) {
    auto args = base;
    args.insert(args.end(), gate.begin(), gate.end());
    return cli(args);
  };
  const auto plain = check({});
  INFO(plain.out << plain.err);
  REQUIRE(plain.status == 0);
  CHECK_THAT(plain.out, ContainsSubstring("mean |error| 19.7%, median |error| 9.1%, bias -19.7%"));
  CHECK_THAT(plain.out, ContainsSubstring("trivial predictor, mean fit-set slowdown (every slowdown 2.1"));

  CHECK(check({"--max-error", "0.2"}).status == 0);
  CHECK(check({"--max-error", "0.19"}).status == 1);
  CHECK(check({"--max-median-error", "0.1"}).status == 0);
  CHECK(check({"--max-median-error", "0.09"}).status == 1);
  CHECK(check({"--max-bias", "0.2"}).status == 0);
  CHECK(check({"--max-bias", "0.19"}).status == 1);
  CHECK(check({"--max-baseline-ratio", "0.46"}).status == 0);
  CHECK(check({"--max-baseline-ratio", "0.44"}).status == 1);
  CHECK(check({"--max-baseline-ratio", "0"}).status == 2); // a ratio must be > 0
}
