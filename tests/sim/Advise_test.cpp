// `colocsim advise`'s analysis (cli/AdviseAnalysis.hpp) on numbers worked out by hand: t-intervals, the
// interval rule of dominance, a front of three options, an option better on the means only, options that
// lose jobs, and the recommendation's words.
#include "tests/CatchCompat.hpp"

#include "cli/AdviseAnalysis.hpp"

#include <algorithm>
#include <limits>

using namespace colocsim;
using Catch::Approx;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

namespace {

/// An option with one replicate per seed 1, 2, 3..., energy_total_j and jct_mean_s from the lists, and
/// `extra` numbers the same in every replicate.
AdviseOptionRuns option(const std::string& label, const std::vector<double>& energy,
                        const std::vector<double>& jct,
                        const std::map<std::string, std::vector<double>>& extra = {})
{
  AdviseOptionRuns r{label, energy.size(), {}};
  for (std::size_t i = 0; i < energy.size(); ++i) {
    AdviseReplicate rep;
    rep.seed = static_cast<long long>(i + 1);
    rep.numbers["energy_total_j"] = energy[i];
    rep.numbers["jct_mean_s"] = jct[i];
    rep.numbers["jobs_read"] = 10;
    rep.numbers["jobs_completed"] = 10;
    for (const auto& [k, v] : extra)
      rep.numbers[k] = v[i];
    r.ok.push_back(rep);
  }
  return r;
}

const AdviseOptionStats& stats(const AdviseAnalysis& a, const std::string& label)
{
  const auto it =
      std::find_if(a.options.begin(), a.options.end(), [&](const auto& o) { return o.label == label; });
  REQUIRE(it != a.options.end());
  return *it;
}

const std::string BASE = "exclusive/exclusive-fcfs";

} // namespace

TEST_CASE("t quantiles and 95 % intervals match the tables", "[advise]")
{
  CHECK(t_quantile_975(1) == Approx(12.7062).epsilon(1e-5));
  CHECK(t_quantile_975(4) == Approx(2.7764).epsilon(1e-5));
  CHECK(t_quantile_975(30) == Approx(2.0423).epsilon(1e-5));
  // Beyond the table: the exact values 2.0211 (40), 1.9799 (120), 1.9623 (1000).
  CHECK(t_quantile_975(40) == Approx(2.0211).margin(1e-4));
  CHECK(t_quantile_975(120) == Approx(1.9799).margin(1e-4));
  CHECK(t_quantile_975(1000) == Approx(1.9623).margin(1e-4));
  // {1, 2, 3}: mean 2, s = 1, half = 4.3027 / sqrt(3) = 2.48417.
  const Interval iv = t_interval({1, 2, 3});
  CHECK(iv.n == 3);
  CHECK(iv.mean == Approx(2));
  CHECK(iv.half == Approx(2.48417).epsilon(1e-5));
  CHECK(iv.low == Approx(2 - 2.48417).margin(1e-4));
  CHECK(iv.high == Approx(2 + 2.48417).margin(1e-4));
  const Interval one = t_interval({7});
  CHECK(one.single);
  CHECK(one.low == 7);
  CHECK(one.high == 7);
  CHECK(t_interval({}).n == 0);
}

TEST_CASE("a front of three options, the baseline dominated, the best that beats it recommended", "[advise]")
{
  // Each list is mean ± 1, so every interval is mean ± 2.484 (3 replicates).
  const std::vector<AdviseOptionRuns> runs{
      option(BASE, {99, 100, 101}, {9, 10, 11}),
      option("mps/fgd", {79, 80, 81}, {11, 12, 13}), // energy better beyond doubt, JCT overlaps base
      option("time-slice-2/first-fit", {89, 90, 91}, {4, 5, 6}), // both better beyond doubt than base
      option("time-slice-4/fgd", {119, 120, 121}, {29, 30, 31}), // worse than everything
      option("ccs-2/best-fit", {69, 70, 71}, {19, 20, 21}),      // least energy, JCT worse than base
  };
  const AdviseAnalysis a = analyse_advice(runs, {"energy", "jct"}, BASE);
  CHECK(a.compared == std::vector<std::string>{"energy", "jct"});
  CHECK(stats(a, "mps/fgd").metrics.at("energy").mean == Approx(80));
  CHECK(stats(a, "mps/fgd").metrics.at("energy").half == Approx(2.48417).epsilon(1e-5));
  CHECK(a.front == std::vector<std::string>{"mps/fgd", "time-slice-2/first-fit", "ccs-2/best-fit"});
  CHECK(stats(a, BASE).dominated_by == std::vector<std::string>{"mps/fgd", "time-slice-2/first-fit"});
  CHECK(stats(a, "time-slice-4/fgd").dominated_by.size() == 4);
  CHECK(stats(a, "ccs-2/best-fit").on_front);
  // mps/fgd against base, paired by seed: energy (79-99)/99, (80-100)/100, (81-101)/101 → −20.0013 % ±
  // 0.4969; JCT 2/9, 2/10, 2/11 → +20.1347 % ± 5.0268.
  const auto& e = stats(a, "mps/fgd").change.at("energy");
  CHECK(e.mean == Approx(-20.00133).epsilon(1e-5));
  CHECK(e.half == Approx(0.496886).epsilon(1e-4));
  CHECK(stats(a, "mps/fgd").change.at("jct").mean == Approx(20.13468).epsilon(1e-5));
  CHECK(stats(a, "mps/fgd").change.at("jct").half == Approx(5.02682).epsilon(1e-4));
  // Both mps/fgd and time-slice-2/first-fit dominate the baseline; mps/fgd uses less energy.
  CHECK(a.recommended == "mps/fgd");
  CHECK(a.recommendation == "mps/fgd: \u221220.0 % \u00b1 0.5 % energy, +20.1 % \u00b1 5.0 % mean JCT "
                            "against exclusive/exclusive-fcfs. "
                            "exclusive/exclusive-fcfs and time-slice-4/fgd are dominated.");
}

TEST_CASE("an option better on both means but not beyond its intervals does not dominate", "[advise]")
{
  // X: energy 95 ± 12.42, JCT 10 ± 4.97; base: 100 ± 12.42, 11 ± 4.97. Better means, overlapping intervals.
  const std::vector<AdviseOptionRuns> runs{option(BASE, {95, 100, 105}, {9, 11, 13}),
                                           option("mps/first-fit", {90, 95, 100}, {8, 10, 12})};
  const AdviseAnalysis a = analyse_advice(runs, {"energy", "jct"}, BASE);
  CHECK(stats(a, "mps/first-fit").metrics.at("energy").mean < stats(a, BASE).metrics.at("energy").mean);
  CHECK(stats(a, "mps/first-fit").metrics.at("jct").mean < stats(a, BASE).metrics.at("jct").mean);
  CHECK_FALSE(dominates(stats(a, "mps/first-fit"), stats(a, BASE), a.compared));
  CHECK(a.front == std::vector<std::string>{BASE, "mps/first-fit"});
  CHECK(a.recommended == BASE);
  CHECK_THAT(a.recommendation,
             ContainsSubstring("Keep exclusive/exclusive-fcfs: no option is at least as good"));
  CHECK_THAT(a.recommendation, ContainsSubstring("Trade-offs on the front: mps/first-fit "));
}

TEST_CASE("interval comparisons: strictly better only when the intervals do not overlap", "[advise]")
{
  Interval a, b;
  a.n = b.n = 3;
  a.low = 1, a.high = 3;
  b.low = 3, b.high = 5;
  CHECK_FALSE(strictly_better(a, b, true)); // touching is not beyond doubt
  CHECK(better_or_equal(a, b, true));
  CHECK(better_or_equal(b, a, true)); // b's low 3 <= a's high 3: not worse beyond doubt either
  b.low = 3.5;
  CHECK(strictly_better(a, b, true));
  CHECK_FALSE(better_or_equal(b, a, true));
  CHECK(strictly_better(b, a, false)); // more is better (throughput)
}

TEST_CASE("an option that loses jobs is compared on energy per completed job and flagged", "[advise]")
{
  // lossy: half the energy of base, but per completed job 30 % more; two jobs failed per run.
  const std::vector<AdviseOptionRuns> runs{
      option(BASE, {99, 100, 101}, {9, 10, 11},
             {{"energy_per_completed_job_j", {9.9, 10, 10.1}}, {"jobs_failed", {0, 0, 0}}}),
      option("time-slice-4/first-fit", {49, 50, 51}, {4, 5, 6},
             {{"energy_per_completed_job_j", {12.9, 13, 13.1}}, {"jobs_failed", {2, 2, 2}}}),
  };
  const AdviseAnalysis a = analyse_advice(runs, {"energy", "jct"}, BASE);
  CHECK(stats(a, "time-slice-4/first-fit").lossy);
  CHECK(stats(a, "time-slice-4/first-fit").jobs_failed == Approx(2));
  CHECK_FALSE(stats(a, BASE).lossy);
  CHECK(a.compared == std::vector<std::string>{"energy_per_job", "jct"});
  // On energy it would dominate the baseline; per completed job it does not.
  CHECK(a.front == std::vector<std::string>{BASE, "time-slice-4/first-fit"});
  CHECK(a.recommended == BASE);
  CHECK_THAT(a.recommendation, ContainsSubstring("time-slice-4/first-fit loses jobs"));
  CHECK_THAT(a.recommendation, ContainsSubstring("compared on energy per completed job"));
}

TEST_CASE("a lossy option that still beats the baseline is recommended only with a warning", "[advise]")
{
  const std::vector<AdviseOptionRuns> runs{
      option(BASE, {99, 100, 101}, {9, 10, 11}, {{"energy_per_completed_job_j", {9.9, 10, 10.1}}}),
      option("mps/first-fit", {49, 50, 51}, {4, 5, 6},
             {{"energy_per_completed_job_j", {5.9, 6, 6.1}}, {"oom_events", {1, 0, 2}}}),
  };
  const AdviseAnalysis a = analyse_advice(runs, {"energy", "jct"}, BASE);
  CHECK(a.recommended == "mps/first-fit");
  CHECK_THAT(a.recommendation, ContainsSubstring("Warning: mps/first-fit loses jobs"));
  CHECK_THAT(a.recommendation, ContainsSubstring("1 out-of-memory events"));
  // A loss-free option that also beats the baseline goes first, even with more energy.
  auto more = runs;
  more.push_back(option("mps/fgd", {69, 70, 71}, {4, 5, 6}, {{"energy_per_completed_job_j", {6.9, 7, 7.1}}}));
  const AdviseAnalysis b = analyse_advice(more, {"energy", "jct"}, BASE);
  CHECK(b.recommended == "mps/fgd");
  CHECK_THAT(b.recommendation, ContainsSubstring("mps/first-fit loses jobs"));
}

TEST_CASE("jobs the baseline loses too are the workload's, not an option's", "[advise]")
{
  // Two of 10 jobs are too large for the platform: every option, the baseline too, rejects them. An option
  // that rejects those two only loses nothing; one that rejects a third in one seed (seed 2) loses a job.
  const auto losing = [](const std::string& label, const std::vector<double>& rejected) {
    auto r = option(label, {99, 100, 101}, {9, 10, 11},
                    {{"energy_per_completed_job_j", {12.4, 12.5, 12.6}}, {"jobs_rejected", rejected}});
    for (std::size_t i = 0; i < r.ok.size(); ++i)
      r.ok[i].numbers["jobs_completed"] = 10 - rejected[i];
    return r;
  };
  const std::vector<AdviseOptionRuns> runs{losing(BASE, {2, 2, 2}), losing("mps/fgd", {2, 2, 2}),
                                           losing("mps/first-fit", {2, 3, 2})};
  const AdviseAnalysis a = analyse_advice(runs, {"energy", "jct"}, BASE);
  CHECK_FALSE(stats(a, BASE).lossy);
  CHECK_FALSE(stats(a, "mps/fgd").lossy);
  CHECK(stats(a, "mps/first-fit").lossy);
  CHECK(a.compared == std::vector<std::string>{"energy_per_job", "jct"}); // one option loses a job
  // By hand: the baseline completes 8 of 10 in every seed.
  CHECK_THAT(a.recommendation, ContainsSubstring("The baseline itself completes 8 of 10 jobs"));
  CHECK_THAT(a.recommendation, ContainsSubstring("mps/first-fit loses jobs"));
  CHECK_THAT(a.recommendation, !ContainsSubstring("mps/fgd loses"));
}

TEST_CASE("bad metrics and a missing baseline are refused", "[advise]")
{
  const std::vector<AdviseOptionRuns> runs{option(BASE, {1, 2}, {1, 2})};
  CHECK_THROWS_AS(analyse_advice(runs, {"energy"}, BASE), std::invalid_argument);
  CHECK_THROWS_AS(analyse_advice(runs, {"energy", "speed"}, BASE), std::invalid_argument);
  CHECK_THROWS_AS(analyse_advice(runs, {"energy", "jct"}, "mps/fgd"), std::invalid_argument);
  // A baseline without a successful run: no recommendation, said so.
  const AdviseAnalysis a = analyse_advice({AdviseOptionRuns{BASE, 2, {}}, option("mps/fgd", {1, 2}, {1, 2})},
                                          {"energy", "jct"}, BASE);
  CHECK(a.recommended.empty());
  CHECK_THAT(a.recommendation, ContainsSubstring("No recommendation"));
}

TEST_CASE("advise --budget: fewer replicates first, then fewer options, the baseline always",
          "[advise][budget]")
{
  // Five options in three groups; 3 replicates asked: 15 runs.
  const std::vector<std::string> labels{"exclusive/exclusive-fcfs", "exclusive/exclusive-easy",
                                        "time-slice-2/first-fit", "time-slice-2/fgd", "mps/first-fit"};
  const std::string base = "exclusive/exclusive-fcfs";
  const std::vector<std::size_t> all{0, 1, 2, 3, 4};
  auto c = choose_within_budget(15, labels, base, 3); // everything fits
  CHECK(c.replicates == 3);
  CHECK(c.kept == all);
  c = choose_within_budget(1000, labels, base, 3); // more than enough: no more replicates than asked
  CHECK(c.replicates == 3);
  CHECK(c.kept == all);
  c = choose_within_budget(14, labels, base, 3); // one run short: 2 replicates of every option
  CHECK(c.replicates == 2);
  CHECK(c.kept == all);
  c = choose_within_budget(5, labels, base, 3); // one run of each
  CHECK(c.replicates == 1);
  CHECK(c.kept == all);
  // Fewer than one run per option: the baseline, then the first option of each group in order, then the
  // second of each: 4 → baseline, exclusive-easy, time-slice-2/first-fit, mps/first-fit.
  c = choose_within_budget(4, labels, base, 3);
  CHECK(c.replicates == 1);
  CHECK(c.kept == std::vector<std::size_t>{0, 1, 2, 4});
  c = choose_within_budget(2, labels, base, 3);
  CHECK(c.kept == std::vector<std::size_t>{0, 1});
  // Nothing fits (the timing run alone took the budget): the baseline's one run all the same.
  for (const long long none : {0LL, -3LL}) {
    c = choose_within_budget(none, labels, base, 3);
    CHECK(c.replicates == 1);
    CHECK(c.kept == std::vector<std::size_t>{0});
  }
  // The baseline anywhere in the list is kept first.
  c = choose_within_budget(1, {"mps/first-fit", base}, base, 5);
  CHECK(c.kept == std::vector<std::size_t>{1});
}

TEST_CASE("numbers that differ only by rounding compare as equal", "[advise]")
{
  // Seen on a whole ITP cluster: EASY backfilling did the same work as exclusive FCFS, its energy per
  // completed job summed in another order, 91875224.59538038 J against FCFS's 91875224.59538035 J (every
  // replicate the same: intervals of width 0), and a mean JCT 5.9 % shorter. It is as good on energy and
  // better on JCT, so it dominates FCFS and, losing no job, is recommended.
  const double fcfs = 91875224.59538035, easy = 91875224.59538038;
  const std::vector<AdviseOptionRuns> runs{
      option(BASE, {fcfs, fcfs, fcfs}, {24718.6, 24718.6, 24718.6}),
      option("exclusive/exclusive-easy", {easy, easy, easy}, {23272.0, 23272.0, 23272.0})};
  const AdviseAnalysis a = analyse_advice(runs, {"energy", "jct"}, BASE);
  const auto& e = stats(a, "exclusive/exclusive-easy");
  CHECK(better_or_equal(e.metrics.at("energy"), stats(a, BASE).metrics.at("energy"), true));
  CHECK_FALSE(strictly_better(stats(a, BASE).metrics.at("energy"), e.metrics.at("energy"), true));
  CHECK(dominates(e, stats(a, BASE), a.compared));
  CHECK(a.recommended == "exclusive/exclusive-easy");
  CHECK(a.front == std::vector<std::string>{"exclusive/exclusive-easy"});
  // A real difference, 1e-6 of the value, still counts.
  Interval x, y;
  x.n = y.n = 1;
  x.mean = x.low = x.high = 100.0;
  y.mean = y.low = y.high = 100.0001;
  CHECK(strictly_better(x, y, true));
  CHECK_FALSE(better_or_equal(y, x, true));
}

TEST_CASE("an option the deadline left with too few replicates is not compared, and the advice says what the "
          "deadline left out",
          "[advise][budget][deadline]")
{
  // 3 replicates planned. mps/fgd is far better than the baseline on its one run, but one run gives no
  // interval: it must not dominate, be on the front or be recommended. time-slice-2/first-fit got 2 of 3
  // (enough, and better beyond doubt); ccs-2/best-fit none.
  auto mps = option("mps/fgd", {10}, {1});
  mps.not_run = 2;
  auto ts = option("time-slice-2/first-fit", {79, 81}, {4, 6});
  ts.not_run = 1;
  AdviseOptionRuns ccs{"ccs-2/best-fit", 0, {}};
  ccs.not_run = 3;
  const std::vector<AdviseOptionRuns> runs{option(BASE, {99, 100, 101}, {9, 10, 11}), mps, ts, ccs};
  const AdviseAnalysis a = analyse_advice(runs, {"energy", "jct"}, BASE, 2);
  CHECK(a.min_replicates == 2);
  CHECK(stats(a, "mps/fgd").too_few);
  CHECK_FALSE(stats(a, "mps/fgd").on_front);
  CHECK(stats(a, BASE).dominated_by == std::vector<std::string>{"time-slice-2/first-fit"});
  CHECK(stats(a, "mps/fgd").not_run == 2);
  CHECK(a.recommended == "time-slice-2/first-fit");
  CHECK(a.front == std::vector<std::string>{"time-slice-2/first-fit"});
  CHECK_THAT(a.recommendation,
             ContainsSubstring("The deadline left out ccs-2/best-fit: no run of it finished "
                               "within the budget."));
  CHECK_THAT(a.recommendation,
             ContainsSubstring("The deadline left mps/fgd (1 of 3) with fewer replicates than the 2 an "
                               "interval needs: not compared."));
  CHECK_THAT(a.recommendation,
             ContainsSubstring("The deadline left fewer replicates than planned to time-slice-2/first-fit "
                               "(2 of 3)."));
  CHECK_THAT(a.recommendation, !ContainsSubstring("No run of ccs-2/best-fit succeeded")); // not a failure

  // Without the minimum (1, as when 1 replicate was planned), the one run is compared and wins.
  const AdviseAnalysis one = analyse_advice(runs, {"energy", "jct"}, BASE, 1);
  CHECK_FALSE(stats(one, "mps/fgd").too_few);
  CHECK(one.recommended == "mps/fgd");

  // Every other option left out or short: no verdict on them, only the baseline kept for now.
  const AdviseAnalysis alone =
      analyse_advice({option(BASE, {99, 100, 101}, {9, 10, 11}), mps, ccs}, {"energy", "jct"}, BASE, 2);
  CHECK(alone.recommended == BASE);
  CHECK_THAT(alone.recommendation,
             StartsWith("Keep " + BASE + " for now: no other option has the runs to be compared with it"));
  CHECK_THAT(alone.recommendation, !ContainsSubstring("no option is at least as good"));
  CHECK_THAT(alone.recommendation, ContainsSubstring("The deadline left out ccs-2/best-fit"));

  // A baseline the deadline left with one replicate: nothing to compare with.
  auto base1 = option(BASE, {100}, {10});
  base1.not_run = 2;
  const AdviseAnalysis none = analyse_advice({base1, ts}, {"energy", "jct"}, BASE, 2);
  CHECK(none.recommended.empty());
  CHECK_THAT(none.recommendation, ContainsSubstring("No recommendation: the deadline left the baseline " +
                                                    BASE + " with 1 replicate(s), and an interval needs 2"));
}

TEST_CASE("advise's numbers are written without exponents, to their significant digits", "[advise]")
{
  // The report's cells (mean to 4 digits, half-width to 2) and the loss counts (3): printf's %g wrote
  // 2.7e+02 kWh and 3.88e+03 failed jobs.
  CHECK(significant_text(270.4, 2) == "270");
  CHECK(significant_text(3878, 3) == "3880");
  CHECK(significant_text(736123.9, 4) == "736100");
  CHECK(significant_text(654.83, 4) == "654.8");
  CHECK(significant_text(16.6296, 4) == "16.63");
  CHECK(significant_text(0.0372, 2) == "0.037");
  CHECK(significant_text(0.01, 2) == "0.01");
  CHECK(significant_text(0.0000123, 2) == "0.000012");
  CHECK(significant_text(9.9996, 4) == "10");
  CHECK(significant_text(-2.5, 2) == "-2.5");
  CHECK(significant_text(0.0, 2) == "0");
  CHECK(significant_text(-0.0, 2) == "0");
  CHECK(significant_text(std::numeric_limits<double>::quiet_NaN(), 2) == "-");
}
