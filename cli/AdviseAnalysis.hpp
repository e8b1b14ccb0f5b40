#pragma once
// The numbers behind `colocsim advise` (docs/advise.md): per option, the mean and a 95 % t-interval over its
// replicates of each metric; the options that lose jobs; the Pareto front on two metrics, compared by their
// intervals; the change of each option from the baseline (exclusive FCFS), paired by seed; and the
// recommendation in words. Plain numbers in, plain numbers and text out: no files, no simulation.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace colocsim {

/// A metric advise compares: its name on the command line (--metrics), the summary.json field it reads,
/// words for people, the unit of that field, and whether less is better.
struct AdviseMetric {
  std::string name;  ///< energy, jct, makespan, p95_wait, throughput, energy_per_job
  std::string field; ///< energy_total_j, jct_mean_s, ...
  std::string label; ///< "energy", "mean JCT", ...
  std::string unit;  ///< "J", "s", "jobs/h"
  bool lower_is_better = true;
};

/// Every metric advise knows, in a fixed order.
const std::vector<AdviseMetric>& advise_metrics();
/// `x` to `digits` significant digits as people read it: never in exponent notation (270, not 2.7e+02;
/// 736000; 0.0079), trailing zeros dropped as `%g` drops them; "-" where x is not finite.
std::string significant_text(double x, int digits);

/// The metric named `name`, or nullptr.
const AdviseMetric* find_advise_metric(const std::string& name);

/// One replicate of an option that ran: its seed and the numbers of its summary.json by field name.
struct AdviseReplicate {
  long long seed = 0;
  std::string run; ///< its folder in the sweep (run-NNNN)
  std::map<std::string, double> numbers;
};

/// What the runs of one option gave.
struct AdviseOptionRuns {
  std::string label;
  std::size_t runs = 0; ///< replicates that ran (ok or not)
  std::vector<AdviseReplicate> ok;
  std::size_t not_run = 0; ///< replicates the deadline (--budget) stopped or never started: not in `runs`
};

/// A mean with its 95 % confidence interval [low, high] from the t-distribution with n - 1 degrees of
/// freedom: mean ± t(0.975, n-1) × s / √n. With one value the interval is the value itself (half = 0) and
/// `single` is set; with none every number is NaN.
struct Interval {
  double mean = 0, low = 0, high = 0, half = 0;
  std::size_t n = 0;
  bool single = false;
};

/// t(0.975, df): the two-sided 95 % quantile of Student's t with df ≥ 1 degrees of freedom (a table to 30,
/// then the Cornish-Fisher expansion, within 1e-4 of the exact value).
double t_quantile_975(std::size_t df);
/// The interval of `xs` (NaNs and infinities left out).
Interval t_interval(const std::vector<double>& xs);

/// One option analysed.
struct AdviseOptionStats {
  std::string label;
  std::size_t runs = 0, ok = 0;
  std::size_t not_run = 0; ///< replicates the deadline left out (AdviseOptionRuns::not_run)
  /// Fewer ok replicates than the analysis' min_replicates (but some): no interval to compare, so it is
  /// neither on the front nor recommended, nor does it dominate anything.
  bool too_few = false;
  std::map<std::string, Interval> metrics;  ///< by metric name (advise_metrics()), over the ok replicates
  double jobs_completed = 0, jobs_read = 0; ///< means over the ok replicates
  /// Some ok replicate lost jobs: jobs failed, rejected or out-of-memory events > 0 (means below).
  bool lossy = false;
  double jobs_failed = 0, jobs_rejected = 0, oom_events = 0;
  /// Change from the baseline in %, per metric: the t-interval of the per-seed changes
  /// 100 × (x_seed − base_seed) / |base_seed| over the seeds both ran (empty for the baseline itself).
  std::map<std::string, Interval> change;
  bool on_front = false;
  std::vector<std::string> dominated_by; ///< labels of the options that dominate it
};

/// The whole analysis.
struct AdviseAnalysis {
  std::vector<std::string> metrics; ///< the two compared (front, recommendation), as given
  /// The metrics actually compared: `metrics` with energy replaced by energy_per_job when some option is
  /// lossy (then every option is compared on energy per completed job).
  std::vector<std::string> compared;
  std::string baseline;
  std::size_t min_replicates = 1;         ///< the fewest ok replicates an option is compared with
  std::vector<AdviseOptionStats> options; ///< in the order given; those without an ok run have n = 0
  std::vector<std::string> front;         ///< labels on the Pareto front, in option order
  /// Every option with 2 or more replicates gave the same numbers with each (nothing in the scenario depends
  /// on the seed): the intervals have width 0 and say nothing about variability (said in the recommendation).
  bool replicates_identical = false;
  std::string recommended;    ///< the label advised (the baseline when nothing beats it)
  std::string recommendation; ///< the advice in words
};

/// Whether interval `a` is better than `b` beyond doubt (their intervals do not overlap: for a metric where
/// less is better, a.high < b.low), and whether it is at least as good (not worse beyond doubt:
/// a.low <= b.high). Bounds within 1e-9 of their size count as equal: the same work summed in another
/// order differs in the last bits.
bool strictly_better(const Interval& a, const Interval& b, bool lower_is_better);
bool better_or_equal(const Interval& a, const Interval& b, bool lower_is_better);

/// Whether option `a` dominates `b` on the metrics `compared`: better or equal on every one and strictly
/// better on at least one (both need an interval on each metric).
bool dominates(const AdviseOptionStats& a, const AdviseOptionStats& b,
               const std::vector<std::string>& compared);

/// The analysis of `runs` comparing `metrics` (two names of advise_metrics()) against the option labelled
/// `baseline`, comparing only options with at least `min_replicates` ok replicates (advise --budget: 2, the
/// fewest that give an interval, unless 1 was planned; the others are named as too few). The
/// recommendation also names the options the deadline left out (no run, some not run) and those it left
/// with fewer replicates. std::invalid_argument for an unknown metric or a baseline that is not among the
/// options.
AdviseAnalysis analyse_advice(const std::vector<AdviseOptionRuns>& runs,
                              const std::vector<std::string>& metrics, const std::string& baseline,
                              std::size_t min_replicates = 1);

/// What fits a budget of `capacity` runs (--budget): the replicates per option and the options kept.
struct BudgetChoice {
  long long replicates = 0;
  std::vector<std::size_t> kept; ///< indices into the labels given, in their order
};

/// `labels`: the options as "group/policy", the baseline among them. Everything when capacity ≥ labels ×
/// replicates; else fewer replicates, capacity / labels (rounded down); when that is 0 (not one run of each
/// option fits): 1 replicate of as many options as `capacity` (at least the baseline), kept in the order
/// baseline, the first option of each group (in the labels' order), the second of each, and so on.
BudgetChoice choose_within_budget(long long capacity, const std::vector<std::string>& labels,
                                  const std::string& baseline, long long replicates);

/// "−18 % ± 4 %" (a change in % with its interval's half-width; U+2212 for the minus sign).
std::string change_text(const Interval& change);

} // namespace colocsim
