#include "cli/AdviseAnalysis.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace colocsim {

const std::vector<AdviseMetric>& advise_metrics()
{
  static const std::vector<AdviseMetric> m{
      {"energy", "energy_total_j", "energy", "J", true},
      {"jct", "jct_mean_s", "mean JCT", "s", true},
      {"makespan", "makespan_s", "makespan", "s", true},
      {"p95_wait", "wait_p95_s", "p95 wait", "s", true},
      {"throughput", "throughput_jobs_per_h", "throughput", "jobs/h", false},
      {"energy_per_job", "energy_per_completed_job_j", "energy per completed job", "J", true},
  };
  return m;
}

std::string significant_text(double x, int digits)
{
  if (!std::isfinite(x)) return "-";
  if (x == 0) return "0"; // and -0
  // Rounded to `digits` significant digits first, then its decimals from the rounded value's magnitude:
  // 9.9996 to 4 digits is 10 (the decimals of 9.9996 would print 10.000).
  std::ostringstream probe;
  probe << std::scientific << std::setprecision(digits - 1) << x;
  const double rounded = std::stod(probe.str());
  const int decimals = std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(std::fabs(rounded)))));
  std::ostringstream os;
  os << std::fixed << std::setprecision(decimals) << rounded;
  std::string t = os.str();
  if (t.find('.') != std::string::npos) {
    t.erase(t.find_last_not_of('0') + 1);
    if (t.back() == '.') t.pop_back();
  }
  return t;
}

const AdviseMetric* find_advise_metric(const std::string& name)
{
  for (const auto& m : advise_metrics())
    if (m.name == name) return &m;
  return nullptr;
}

double t_quantile_975(std::size_t df)
{
  static const double table[] = {12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060,
                                 2.2622,  2.2281, 2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199,
                                 2.1098,  2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
                                 2.0595,  2.0555, 2.0518, 2.0484, 2.0452, 2.0423};
  if (df == 0) return std::numeric_limits<double>::quiet_NaN();
  if (df <= 30) return table[df - 1];
  // Cornish-Fisher expansion of t around the normal quantile (Abramowitz & Stegun 26.7.5).
  const double z = 1.959963984540054, v = static_cast<double>(df);
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
  const double g1 = (z3 + z) / 4, g2 = (5 * z5 + 16 * z3 + 3 * z) / 96,
               g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384,
               g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160;
  return z + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
}

Interval t_interval(const std::vector<double>& all)
{
  std::vector<double> xs;
  std::copy_if(all.begin(), all.end(), std::back_inserter(xs), [](double x) { return std::isfinite(x); });
  Interval iv;
  iv.n = xs.size();
  if (xs.empty()) {
    iv.mean = iv.low = iv.high = iv.half = std::numeric_limits<double>::quiet_NaN();
    return iv;
  }
  double sum = 0;
  for (double x : xs)
    sum += x;
  iv.mean = sum / static_cast<double>(xs.size());
  if (xs.size() == 1) {
    iv.single = true;
    iv.low = iv.high = iv.mean;
    return iv;
  }
  double ss = 0;
  for (double x : xs)
    ss += (x - iv.mean) * (x - iv.mean);
  const double sd = std::sqrt(ss / static_cast<double>(xs.size() - 1));
  // Below 1e-9 of the mean the spread is rounding (sums in another order), not a difference of replicates.
  const double s = sd <= 1e-9 * std::fabs(iv.mean) ? 0.0 : sd;
  iv.half = t_quantile_975(xs.size() - 1) * s / std::sqrt(static_cast<double>(xs.size()));
  iv.low = iv.mean - iv.half;
  iv.high = iv.mean + iv.half;
  return iv;
}

namespace {
/// Bounds closer than 1e-9 of their size are the same number: two runs that do the same work add their
/// numbers in another order (each policy its own), and a last-bit difference must not decide a comparison.
double rounding(const Interval& a, const Interval& b)
{
  return 1e-9 * std::max({std::fabs(a.low), std::fabs(a.high), std::fabs(b.low), std::fabs(b.high)});
}
} // namespace

bool strictly_better(const Interval& a, const Interval& b, bool lower_is_better)
{
  if (a.n == 0 || b.n == 0) return false;
  const double eps = rounding(a, b);
  return lower_is_better ? a.high < b.low - eps : a.low > b.high + eps;
}

bool better_or_equal(const Interval& a, const Interval& b, bool lower_is_better)
{
  if (a.n == 0 || b.n == 0) return false;
  const double eps = rounding(a, b);
  return lower_is_better ? a.low <= b.high + eps : a.high >= b.low - eps;
}

bool dominates(const AdviseOptionStats& a, const AdviseOptionStats& b,
               const std::vector<std::string>& compared)
{
  bool strict = false;
  for (const auto& name : compared) {
    const AdviseMetric* m = find_advise_metric(name);
    const auto ia = a.metrics.find(name), ib = b.metrics.find(name);
    if (!m || ia == a.metrics.end() || ib == b.metrics.end()) return false;
    if (!better_or_equal(ia->second, ib->second, m->lower_is_better)) return false;
    strict = strict || strictly_better(ia->second, ib->second, m->lower_is_better);
  }
  return strict;
}

std::string change_text(const Interval& c)
{
  if (c.n == 0) return "n/a";
  std::ostringstream os;
  os << std::fixed << std::setprecision(1);
  const double mean = std::fabs(c.mean) < 0.05 ? 0.0 : c.mean;
  os << (mean < 0 ? "\u2212" : "+") << std::fabs(mean) << " %";
  if (!c.single) os << " \u00b1 " << c.half << " %";
  return os.str();
}

namespace {

bool has_interval(const AdviseOptionStats& o, const std::vector<std::string>& compared)
{
  return !o.too_few && std::all_of(compared.begin(), compared.end(), [&](const std::string& m) {
    const auto it = o.metrics.find(m);
    return it != o.metrics.end() && it->second.n > 0;
  });
}

std::string number_text(double x)
{
  return significant_text(x, 3);
}

/// "−18.0 % ± 4.0 % energy, +3.0 % ± 2.0 % mean JCT"
std::string changes_text(const AdviseOptionStats& o, const std::vector<std::string>& compared)
{
  std::string t;
  for (const auto& name : compared) {
    const auto it = o.change.find(name);
    t += (t.empty() ? "" : ", ") + (it == o.change.end() ? std::string("n/a") : change_text(it->second)) +
         " " + find_advise_metric(name)->label;
  }
  return t;
}

std::string loss_text(const AdviseOptionStats& o)
{
  return "loses jobs (per run on average " + number_text(o.jobs_failed) + " failed, " +
         number_text(o.jobs_rejected) + " rejected, " + number_text(o.oom_events) + " out-of-memory events)";
}

void recommend(AdviseAnalysis& a)
{
  const auto base_it = std::find_if(a.options.begin(), a.options.end(),
                                    [&](const AdviseOptionStats& o) { return o.label == a.baseline; });
  const AdviseOptionStats& base = *base_it;
  std::string t;
  if (base.too_few) {
    a.recommended.clear();
    a.recommendation = "No recommendation: the deadline left the baseline " + a.baseline + " with " +
                       std::to_string(base.ok) + " replicate(s), and an interval needs " +
                       std::to_string(a.min_replicates) +
                       ": give a longer --budget, or fewer --replicates (--resume without --budget runs the "
                       "rest).";
    return;
  }
  if (!has_interval(base, a.compared)) {
    a.recommended.clear();
    a.recommendation = "No recommendation: the baseline " + a.baseline +
                       " has no successful run to compare with (see its runs' log.txt).";
    return;
  }
  if (base.jobs_read > 0 && base.jobs_completed == 0) {
    // Nothing ran: its energy is an idle platform's and its JCT is over no job; nothing compares with that.
    a.recommended.clear();
    a.recommendation = "No recommendation: the baseline " + a.baseline + " completes none of the " +
                       number_text(base.jobs_read) +
                       " jobs read, so its numbers are an idle platform's and no option can be compared with "
                       "it (the reason of each job is in its runs' jobs.csv).";
    return;
  }
  // The best of the options that dominate the baseline, those that lose no jobs first.
  const AdviseMetric& first = *find_advise_metric(a.compared[0]);
  const AdviseOptionStats* best = nullptr;
  for (const auto& o : a.options) {
    if (o.label == a.baseline || !has_interval(o, a.compared) || !dominates(o, base, a.compared)) continue;
    if (best && best->lossy == o.lossy) {
      const double x = o.metrics.at(first.name).mean, y = best->metrics.at(first.name).mean;
      if (first.lower_is_better ? x >= y : x <= y) continue;
    } else if (best && o.lossy)
      continue;
    best = &o;
  }
  if (best) {
    a.recommended = best->label;
    t = best->label + ": " + changes_text(*best, a.compared) + " against " + a.baseline + ".";
    if (!best->dominated_by.empty()) { // e.g. by an option that loses jobs, ranked after it
      std::string by;
      bool all_lossy = true;
      for (std::size_t i = 0; i < best->dominated_by.size(); ++i) {
        by += (i == 0 ? "" : ", ") + best->dominated_by[i];
        for (const auto& o : a.options)
          if (o.label == best->dominated_by[i]) all_lossy = all_lossy && o.lossy;
      }
      t += " It is itself dominated by " + by + (all_lossy ? ", which lose jobs." : ".");
    }
    if (best->lossy)
      t += " Warning: " + best->label + " " + loss_text(*best) +
           "; it was compared on energy per completed job, and the jobs it loses are not in its numbers.";
  } else if (std::none_of(a.options.begin(), a.options.end(), [&](const AdviseOptionStats& o) {
               return o.label != a.baseline && has_interval(o, a.compared);
             })) {
    // Nothing was compared (every other option failed, or the deadline left it out or short): say so rather
    // than read as a verdict on options that never ran.
    a.recommended = a.baseline;
    t = "Keep " + a.baseline + " for now: no other option has the runs to be compared with it (below).";
  } else {
    a.recommended = a.baseline;
    t = "Keep " + a.baseline + ": no option is at least as good on both " +
        find_advise_metric(a.compared[0])->label + " and " + find_advise_metric(a.compared[1])->label +
        " and better beyond doubt on one (95 % intervals).";
    std::string trade;
    for (const auto& o : a.options)
      if (o.on_front && o.label != a.baseline)
        trade += (trade.empty() ? "" : "; ") + o.label + " " + changes_text(o, a.compared) +
                 (o.lossy ? " (loses jobs)" : "");
    if (!trade.empty()) t += " Trade-offs on the front: " + trade + ".";
  }
  std::vector<std::string> dominated, lossy, failed, left_out, too_few, fewer;
  for (const auto& o : a.options) {
    if (o.ok == 0 && o.runs > 0) failed.push_back(o.label);
    if (o.ok == 0 && o.runs == 0 && o.not_run > 0) left_out.push_back(o.label);
    // "mps/fgd (1 of 3)": the replicates that gave results of those planned
    const std::string of_planned =
        o.label + " (" + std::to_string(o.ok) + " of " + std::to_string(o.runs + o.not_run) + ")";
    if (o.too_few)
      too_few.push_back(of_planned);
    else if (o.ok > 0 && o.not_run > 0)
      fewer.push_back(of_planned);
    if (!o.dominated_by.empty() && o.label != a.recommended) dominated.push_back(o.label);
    if (o.lossy && o.label != a.recommended) lossy.push_back(o.label);
  }
  const auto list = [](const std::vector<std::string>& xs) {
    std::string s;
    for (std::size_t i = 0; i < xs.size(); ++i)
      s += (i == 0 ? "" : i + 1 == xs.size() ? " and " : ", ") + xs[i];
    return s;
  };
  if (!dominated.empty())
    t += " " + list(dominated) + (dominated.size() == 1 ? " is" : " are") + " dominated.";
  if (!lossy.empty())
    t += " " + list(lossy) + (lossy.size() == 1 ? " loses" : " lose") +
         " jobs (more failed or rejected than under the baseline, or out of memory) and " +
         (lossy.size() == 1 ? "is" : "are") + " compared on energy per completed job.";
  if (base.jobs_completed < base.jobs_read)
    t += " The baseline itself completes " + number_text(base.jobs_completed) + " of " +
         number_text(base.jobs_read) +
         " jobs: those that no option can run on this platform (too large, or failed) count against none.";
  if (!failed.empty()) t += " No run of " + list(failed) + " succeeded.";
  if (!left_out.empty())
    t += " The deadline left out " + list(left_out) + ": no run of " +
         (left_out.size() == 1 ? "it" : "them") + " finished within the budget.";
  if (!too_few.empty())
    t += " The deadline left " + list(too_few) + " with fewer replicates than the " +
         std::to_string(a.min_replicates) + " an interval needs: not compared.";
  if (!fewer.empty()) t += " The deadline left fewer replicates than planned to " + list(fewer) + ".";
  if (a.replicates_identical)
    t +=
        " Every replicate of an option gave the same results (nothing in this scenario depends on the seed): "
        "the intervals have width 0 and say nothing about variability.";
  a.recommendation = t;
}

} // namespace

AdviseAnalysis analyse_advice(const std::vector<AdviseOptionRuns>& runs,
                              const std::vector<std::string>& metrics, const std::string& baseline,
                              std::size_t min_replicates)
{
  if (metrics.size() != 2) throw std::invalid_argument("advise compares exactly two metrics");
  for (const auto& m : metrics)
    if (!find_advise_metric(m)) throw std::invalid_argument("unknown metric '" + m + "'");
  if (metrics[0] == metrics[1]) throw std::invalid_argument("the two metrics must differ");
  AdviseAnalysis a;
  a.metrics = metrics;
  a.baseline = baseline;
  a.min_replicates = std::max<std::size_t>(1, min_replicates);
  const auto base_run =
      std::find_if(runs.begin(), runs.end(), [&](const AdviseOptionRuns& r) { return r.label == baseline; });
  if (base_run == runs.end()) throw std::invalid_argument("the baseline '" + baseline + "' is not an option");
  const auto number = [](const AdviseReplicate& rep, const char* field) {
    const auto it = rep.numbers.find(field);
    return it == rep.numbers.end() ? 0.0 : it->second;
  };
  std::map<long long, double> base_lost; // jobs failed or rejected under the baseline, by seed
  double base_lost_mean = 0;
  for (const auto& rep : base_run->ok) {
    base_lost[rep.seed] = number(rep, "jobs_failed") + number(rep, "jobs_rejected");
    base_lost_mean += base_lost[rep.seed] / static_cast<double>(base_run->ok.size());
  }
  for (const auto& r : runs) {
    AdviseOptionStats o;
    o.label = r.label;
    o.runs = r.runs;
    o.ok = r.ok.size();
    o.not_run = r.not_run;
    o.too_few = o.ok > 0 && o.ok < a.min_replicates;
    const auto values = [&](const std::string& field) {
      std::vector<double> xs;
      for (const auto& rep : r.ok)
        if (const auto it = rep.numbers.find(field); it != rep.numbers.end()) xs.push_back(it->second);
      return xs;
    };
    for (const auto& m : advise_metrics())
      o.metrics[m.name] = t_interval(values(m.field));
    const auto mean = [&](const std::string& field) {
      const Interval iv = t_interval(values(field));
      return iv.n == 0 ? 0.0 : iv.mean;
    };
    o.jobs_completed = mean("jobs_completed");
    o.jobs_read = mean("jobs_read");
    o.jobs_failed = mean("jobs_failed");
    o.jobs_rejected = mean("jobs_rejected");
    o.oom_events = mean("oom_events");
    // Jobs lost to the option: out-of-memory events, or more jobs failed or rejected than the baseline's run
    // of the same seed (its mean where it has none): jobs that no option can run on the platform (too large,
    // failed in the trace) are the workload's, not the option's.
    for (const auto& rep : r.ok) {
      const double lost = number(rep, "jobs_failed") + number(rep, "jobs_rejected");
      const auto b = base_lost.find(rep.seed);
      if (number(rep, "oom_events") > 0 || lost > (b != base_lost.end() ? b->second : base_lost_mean))
        o.lossy = true;
    }
    a.options.push_back(std::move(o));
  }
  const bool any_lossy =
      std::any_of(a.options.begin(), a.options.end(), [](const AdviseOptionStats& o) { return o.lossy; });
  a.compared = metrics;
  if (any_lossy)
    for (auto& m : a.compared)
      if (m == "energy") m = "energy_per_job";
  if (a.compared[0] == a.compared[1]) a.compared = metrics; // energy and energy_per_job asked: keep both

  // Changes from the baseline, paired by seed.
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].label == baseline) continue;
    for (const auto& m : advise_metrics()) {
      std::vector<double> pct;
      for (const auto& rep : runs[i].ok) {
        const auto b = std::find_if(base_run->ok.begin(), base_run->ok.end(),
                                    [&](const AdviseReplicate& x) { return x.seed == rep.seed; });
        if (b == base_run->ok.end()) continue;
        const auto xi = rep.numbers.find(m.field), bi = b->numbers.find(m.field);
        if (xi == rep.numbers.end() || bi == b->numbers.end() || bi->second == 0) continue;
        pct.push_back(100.0 * (xi->second - bi->second) / std::fabs(bi->second));
      }
      a.options[i].change[m.name] = t_interval(pct);
    }
  }

  // The Pareto front: the options with intervals on both metrics that no other such option dominates.
  for (auto& o : a.options) {
    if (!has_interval(o, a.compared)) continue;
    for (const auto& p : a.options)
      if (&p != &o && has_interval(p, a.compared) && dominates(p, o, a.compared))
        o.dominated_by.push_back(p.label);
    o.on_front = o.dominated_by.empty();
    if (o.on_front) a.front.push_back(o.label);
  }
  bool compared_any = false, differ = false;
  for (const auto& o : a.options)
    for (const auto& [name, iv] : o.metrics)
      if (iv.n > 1) {
        compared_any = true;
        differ = differ || iv.half > 0;
      }
  a.replicates_identical = compared_any && !differ;
  recommend(a);
  return a;
}

BudgetChoice choose_within_budget(long long capacity, const std::vector<std::string>& labels,
                                  const std::string& baseline, long long replicates)
{
  BudgetChoice c;
  const auto n = static_cast<long long>(labels.size());
  if (n == 0 || capacity >= n * replicates || capacity >= n) {
    c.replicates = n == 0 ? replicates : std::min(replicates, std::max(1LL, capacity / n));
    for (std::size_t i = 0; i < labels.size(); ++i)
      c.kept.push_back(i);
    return c;
  }
  c.replicates = 1;
  std::vector<bool> keep(labels.size(), false);
  long long kept = 0;
  std::vector<std::string> groups; // in the order they first appear
  std::map<std::string, std::vector<std::size_t>> of_group;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] == baseline) {
      keep[i] = true;
      ++kept;
      continue;
    }
    const std::string g = labels[i].substr(0, labels[i].find('/'));
    if (!of_group.count(g)) groups.push_back(g);
    of_group[g].push_back(i);
  }
  for (std::size_t round = 0; kept < capacity; ++round) {
    bool any = false;
    for (const auto& g : groups)
      if (round < of_group[g].size() && kept < capacity) {
        keep[of_group[g][round]] = true;
        ++kept;
        any = true;
      }
    if (!any) break;
  }
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (keep[i]) c.kept.push_back(i);
  return c;
}

} // namespace colocsim
