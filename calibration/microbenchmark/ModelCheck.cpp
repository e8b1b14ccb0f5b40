#include "calibration/microbenchmark/ModelCheck.hpp"

#include "calibration/microbenchmark/Microbenchmark.hpp"
#include "models/Interference.hpp"
#include "models/PowerModel.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>

namespace colocsim {

ErrorSummary summarise(const std::vector<double>& e)
{
  ErrorSummary s;
  s.n = static_cast<int>(e.size());
  if (e.empty()) return s;
  double sq = 0;
  for (double x : e) {
    s.mape += std::abs(x);
    s.bias += x;
    sq += x * x;
    s.max_abs = std::max(s.max_abs, std::abs(x));
  }
  s.mape /= s.n;
  std::vector<double> abs_errors;
  for (double x : e)
    abs_errors.push_back(std::abs(x));
  s.median_abs = median(abs_errors);
  s.bias /= s.n;
  s.rmse = std::sqrt(sq / s.n);
  return s;
}

std::optional<SharingMode> sharing_mode_of(const std::string& mode)
{
  if (mode == "time-slice" || mode == "ccs1") return SharingMode::TIME_SLICE;
  if (mode == "ccs2") return SharingMode::CCS_2;
  if (mode == "ccs4") return SharingMode::CCS_4;
  return std::nullopt;
}

CheckReport check_calibration(const Calibration& cal, const MeasurementSet& data, const std::string& set,
                              double fmax_mhz)
{
  CheckReport rep;
  const auto runs = data.coruns(
      set, [](const std::string& m) { return sharing_mode_of(m).has_value(); }, &rep.notes);
  if (runs.empty())
    throw std::invalid_argument("no co-run" + (set.empty() ? std::string() : " in set '" + set + "'") +
                                " to check");
  const TableInterference table = make_table_interference(cal);
  const double fmax = fmax_mhz > 0 ? fmax_mhz : data.fmax_mhz();
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> by_combination;
  std::vector<double> all, power_errors;
  for (const auto& run : runs) {
    std::vector<ResourceSignature> sigs;
    for (const auto& j : run.jobs) {
      ResourceSignature s;
      s.job_class = j.job_class;
      s.duty_cycle = j.duty_solo;
      if (const auto c = data.compute_share(j.kernel)) s.compute_share = *c;
      if (const auto* solo = data.solo(j.kernel, j.duty, run.freq_mhz)) {
        const auto [u_vec, u_bw] = data.solo_activity(*solo);
        s.vec_util = u_vec;
        s.bw_util = u_bw;
      }
      sigs.push_back(s);
    }
    std::vector<const ResourceSignature*> residents;
    for (const auto& s : sigs)
      residents.push_back(&s);
    std::vector<double> predicted(residents.size());
    compute_slowdowns(*sharing_mode_of(run.mode), cal.time_slice, table, residents, predicted);
    const std::string combination =
        (MeasurementSet::is_time_slice(run.mode) ? "" : run.mode + ": ") + run.label();
    if (!by_combination.count(combination)) order.push_back(combination);
    for (std::size_t i = 0; i < run.jobs.size(); ++i) {
      const double obs = run.jobs[i].slowdown;
      const double err = (predicted[i] - obs) / obs;
      rep.jobs.push_back({run.run_id, run.jobs[i].label, combination, obs, predicted[i], err});
      by_combination[combination].push_back(err);
      all.push_back(err);
    }
    if (!std::isnan(run.power_w)) {
      // The power model with the observed co-location rates, so this checks the power curve alone.
      std::vector<PowerLoad> loads;
      for (std::size_t i = 0; i < sigs.size(); ++i)
        loads.push_back({&sigs[i], 1.0 / run.jobs[i].slowdown});
      const double ratio = fmax > 0 && run.freq_mhz > 0 ? run.freq_mhz / fmax : 1.0;
      const double p = device_power(cal.power, loads, ratio).total_w;
      const double err = (p - run.power_w) / run.power_w;
      rep.power.push_back({run.run_id, combination, run.power_w, p, err});
      power_errors.push_back(err);
    }
  }
  for (const auto& c : order)
    rep.per_combination.emplace_back(c, summarise(by_combination[c]));
  rep.overall = summarise(all);

  // Trivial predictors on the same jobs: no interference, and the fit set's mean observed slowdown.
  auto baseline = [&](const std::string& name, double prediction) {
    std::vector<double> e;
    for (const auto& j : rep.jobs)
      e.push_back((prediction - j.observed) / j.observed);
    rep.baselines.push_back({name, prediction, summarise(e)});
  };
  baseline("no interference", 1.0);
  double sum = 0;
  int n = 0;
  for (const auto& run :
       data.coruns("fit", [](const std::string& m) { return sharing_mode_of(m).has_value(); }))
    for (const auto& j : run.jobs) {
      sum += j.slowdown;
      ++n;
    }
  if (n > 0) baseline("mean fit-set slowdown", sum / n);
  rep.power_overall = summarise(power_errors);
  if (power_errors.empty()) rep.notes.push_back("power not checked: the co-runs carry no energy reading");
  return rep;
}

double CheckReport::best_baseline_mape() const
{
  double best = std::numeric_limits<double>::quiet_NaN();
  for (const auto& b : baselines)
    if (std::isnan(best) || b.errors.mape < best) best = b.errors.mape;
  return best;
}

std::string CheckReport::text() const
{
  std::ostringstream os;
  os << std::fixed;
  auto pct = [](double x) {
    std::ostringstream p;
    p << std::showpos << std::fixed << std::setprecision(1) << 100.0 * x << "%";
    return p.str();
  };
  os << "slowdown per co-run job (observed = t_iter co-run / t_iter solo):\n";
  os << "  run  job                  observed  predicted  error    combination\n";
  for (const auto& j : jobs)
    os << "  " << std::setw(3) << j.run_id << "  " << std::left << std::setw(20) << j.job << std::right << " "
       << std::setw(8) << std::setprecision(3) << j.observed << "  " << std::setw(9) << j.predicted << "  "
       << std::setw(7) << pct(j.rel_error) << "  " << j.combination << "\n";
  os << "per combination (mean |error|, max |error|):\n";
  for (const auto& [c, s] : per_combination)
    os << "  " << std::left << std::setw(48) << c << std::right << " " << std::setprecision(1) << std::setw(6)
       << 100 * s.mape << "%  " << std::setw(6) << 100 * s.max_abs << "%\n";
  os << std::setprecision(1) << "overall slowdown error: " << overall.n << " jobs, mean |error| "
     << 100 * overall.mape << "%, median |error| " << 100 * overall.median_abs << "%, bias "
     << pct(overall.bias) << ", max |error| " << 100 * overall.max_abs << "%, RMS " << 100 * overall.rmse
     << "%\n";
  for (const auto& b : baselines)
    os << "trivial predictor, " << b.name << " (every slowdown " << std::setprecision(3) << b.prediction
       << "): mean |error| " << std::setprecision(1) << 100 * b.errors.mape << "%, median |error| "
       << 100 * b.errors.median_abs << "%\n";
  if (!power.empty()) {
    os << "power per co-run (W):\n";
    for (const auto& p : power)
      os << "  " << std::setw(3) << p.run_id << "  observed " << std::setprecision(1) << p.observed_w
         << "  predicted " << p.predicted_w << "  " << pct(p.rel_error) << "  " << p.combination << "\n";
    os << "overall power error: " << power_overall.n << " runs, mean |error| " << 100 * power_overall.mape
       << "%, max |error| " << 100 * power_overall.max_abs << "%\n";
  }
  for (const auto& n : notes)
    os << "note: " << n << "\n";
  return os.str();
}

} // namespace colocsim
