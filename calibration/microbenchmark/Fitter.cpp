// Least-squares fits of the power, DVFS and time-slice models and the interference table (see Fitter.hpp
// for the models and methods), and the calibration built from them.
#include "calibration/microbenchmark/Fitter.hpp"

#include "calibration/microbenchmark/DeviceCounters.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

namespace colocsim {

namespace {

FitStats stats_of(const std::vector<double>& y, const std::vector<double>& yhat)
{
  FitStats s;
  s.n = static_cast<int>(y.size());
  if (y.empty()) return s;
  double mean = 0;
  for (double v : y)
    mean += v;
  mean /= static_cast<double>(y.size());
  double ss_res = 0, ss_tot = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    ss_res += (y[i] - yhat[i]) * (y[i] - yhat[i]);
    ss_tot += (y[i] - mean) * (y[i] - mean);
  }
  s.rmse = std::sqrt(ss_res / static_cast<double>(y.size()));
  s.r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : std::numeric_limits<double>::quiet_NaN();
  return s;
}

/// Minimises f on [lo, hi]: a grid of `steps` intervals, then golden-section search around the best point.
double minimise_1d(const std::function<double(double)>& f, double lo, double hi, int steps)
{
  double best = lo, best_v = f(lo);
  const double h = (hi - lo) / steps;
  for (int i = 1; i <= steps; ++i) {
    const double x = lo + h * i;
    const double v = f(x);
    if (v < best_v) {
      best_v = v;
      best = x;
    }
  }
  double a = std::max(lo, best - h), b = std::min(hi, best + h);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 60; ++i) {
    if (fc < fd) {
      b = d;
      d = c;
      fd = fc;
      c = b - g * (b - a);
      fc = f(c);
    } else {
      a = c;
      c = d;
      fc = fd;
      d = a + g * (b - a);
      fd = f(d);
    }
  }
  const double x = (a + b) / 2;
  return f(x) <= best_v ? x : best;
}

std::string fmt(double v, int precision = 4)
{
  if (std::isnan(v)) return "n/a";
  std::ostringstream os;
  os << std::setprecision(precision) << v;
  return os.str();
}

} // namespace

DvfsFit fit_dvfs(std::span<const double> freq_ratio, std::span<const double> time_s)
{
  if (freq_ratio.size() != time_s.size()) throw std::invalid_argument("fit_dvfs: sizes differ");
  std::set<double> distinct(freq_ratio.begin(), freq_ratio.end());
  if (distinct.size() < 2) throw std::invalid_argument("fit_dvfs: needs at least two distinct frequencies");
  const auto n = static_cast<Eigen::Index>(time_s.size());
  Eigen::MatrixXd xm(n, 2);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (!(freq_ratio[static_cast<std::size_t>(i)] > 0))
      throw std::invalid_argument("fit_dvfs: frequency ratio <= 0");
    xm(i, 0) = 1.0 / freq_ratio[static_cast<std::size_t>(i)]; // f_max / f
    xm(i, 1) = 1.0;
    y(i) = time_s[static_cast<std::size_t>(i)];
  }
  const Eigen::VectorXd c = xm.colPivHouseholderQr().solve(y); // t = a·f_max/f + b
  DvfsFit fit;
  fit.t_fmax_s = c(0) + c(1);
  fit.beta = c(0) / fit.t_fmax_s;
  std::vector<double> yv(time_s.begin(), time_s.end()), yhat;
  for (Eigen::Index i = 0; i < n; ++i) {
    yhat.push_back(xm.row(i).dot(c));
    fit.residuals_s.push_back(y(i) - yhat.back());
  }
  fit.stats = stats_of(yv, yhat);
  return fit;
}

PowerFit fit_power(std::span<const PowerSample> samples, double gamma_prior)
{
  PowerFit fit;
  bool has_idle = false, has_ctx = false;
  double max_vec = 0, max_bw = 0;
  std::set<double> ratios;
  for (const auto& s : samples) {
    (s.context ? has_ctx : has_idle) = true;
    max_vec = std::max(max_vec, s.u_vec);
    max_bw = std::max(max_bw, s.u_bw);
    if (s.u_vec >= 0.2) ratios.insert(std::round(s.freq_ratio * 1e6) / 1e6);
  }
  const bool use_ctx = has_idle && has_ctx;
  const bool use_vec = max_vec >= 0.2;
  const bool use_bw = max_bw >= 0.2;
  const bool fit_gamma = use_vec && ratios.size() >= 2;
  const int p = 1 + use_ctx + use_vec + use_bw;
  if (static_cast<int>(samples.size()) < p + (fit_gamma ? 1 : 0))
    throw std::invalid_argument("fit_power: " + std::to_string(samples.size()) + " samples for " +
                                std::to_string(p + (fit_gamma ? 1 : 0)) + " coefficients");
  if (!use_vec) fit.notes.push_back("P_vec not identifiable: no run uses more than 20 % of the vector peak");
  if (!use_bw) fit.notes.push_back("P_bw not identifiable: no run uses more than 20 % of the bandwidth peak");
  if (!has_idle)
    fit.notes.push_back("P_idle and P_context not separable: no idle window without a context (the fitted "
                        "constant is their sum)");
  if (use_vec && !fit_gamma)
    fit.notes.push_back("gamma not identifiable: all runs with vector activity at one frequency; gamma = " +
                        fmt(gamma_prior) + " (prior) used");

  const auto n = static_cast<Eigen::Index>(samples.size());
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i)
    y(i) = samples[static_cast<std::size_t>(i)].power_w;
  auto design = [&](double gamma) {
    Eigen::MatrixXd xm(n, p);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto& s = samples[static_cast<std::size_t>(i)];
      int c = 0;
      xm(i, c++) = 1.0;
      if (use_ctx) xm(i, c++) = s.context ? 1.0 : 0.0;
      if (use_vec) xm(i, c++) = std::pow(s.freq_ratio, gamma) * s.u_vec;
      if (use_bw) xm(i, c++) = s.u_bw;
    }
    return xm;
  };
  auto rss = [&](double gamma) {
    const Eigen::MatrixXd xm = design(gamma);
    const Eigen::VectorXd c = xm.colPivHouseholderQr().solve(y);
    return (xm * c - y).squaredNorm();
  };
  const double gamma = fit_gamma ? minimise_1d(rss, 0.5, 4.0, 70) : gamma_prior;
  const Eigen::MatrixXd xm = design(gamma);
  const auto qr = xm.colPivHouseholderQr();
  if (qr.rank() < p) {
    fit.notes.push_back("the runs do not separate the activities (rank " + std::to_string(qr.rank()) + " < " +
                        std::to_string(p) + "): only the constant is reported");
    fit.intercept_w = y.mean();
    return fit;
  }
  const Eigen::VectorXd c = qr.solve(y);
  int k = 0;
  fit.intercept_w = c(k++);
  if (has_idle) fit.idle_w = fit.intercept_w;
  if (use_ctx) fit.context_w = c(k++);
  if (use_vec) fit.vec_w = c(k++);
  if (use_bw) fit.bw_w = c(k++);
  if (fit_gamma) fit.gamma = gamma;
  std::vector<double> yv, yhat;
  for (Eigen::Index i = 0; i < n; ++i) {
    yv.push_back(y(i));
    yhat.push_back(xm.row(i).dot(c));
    fit.residuals_w.push_back(y(i) - yhat.back());
  }
  fit.stats = stats_of(yv, yhat);
  return fit;
}

double time_slice_factor(const std::vector<double>& duties, std::size_t j, double collision, double overhead)
{
  if (duties.size() <= 1) return 1.0;
  double sum = 0;
  for (double d : duties)
    sum += d;
  const double others = sum - duties[j];
  return std::max({1.0, sum, 1.0 + collision * duties[j] * others}) * (1.0 + overhead);
}

CoRunFit fit_coruns(std::span<const CoRunSample> samples, double collision_prior)
{
  if (samples.empty()) throw std::invalid_argument("fit_coruns: no co-run samples");
  using Cell = std::pair<JobClass, JobClass>;
  CoRunFit fit;
  bool identifiable = false;
  for (const auto& s : samples) {
    double sum = 0;
    for (double d : s.duties)
      sum += d;
    const double dj = s.duties[s.j];
    if (1.0 + dj * (sum - dj) > 1.01 * std::max(1.0, sum)) identifiable = true;
  }
  // Cell offsets at a given θ: the mean log residual of each class pair.
  auto offsets = [&](double theta, double& rss) {
    std::map<Cell, std::pair<double, int>> sums;
    std::vector<double> e;
    for (const auto& s : samples) {
      e.push_back(std::log(s.slowdown) - std::log(time_slice_factor(s.duties, s.j, theta, 0.0)));
      auto& c = sums[{s.row, s.col}];
      c.first += e.back();
      ++c.second;
    }
    std::map<Cell, double> mean;
    for (const auto& [cell, v] : sums)
      mean[cell] = v.first / v.second;
    rss = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const double r = e[i] - mean[{samples[i].row, samples[i].col}];
      rss += r * r;
    }
    return mean;
  };
  double theta = collision_prior;
  if (identifiable) {
    theta = minimise_1d(
        [&](double t) {
          double r = 0;
          offsets(t, r);
          return r;
        },
        0.0, 2.0, 200);
    fit.collision = theta;
  } else {
    fit.notes.push_back("theta not identifiable: no co-run where bursts collide (needs two jobs with duty "
                        "cycles < 1); theta = " +
                        fmt(collision_prior) + " (prior) used");
  }
  double rss = 0;
  const auto cells = offsets(theta, rss);
  double common = std::numeric_limits<double>::infinity();
  for (const auto& [cell, c] : cells)
    common = std::min(common, c);
  if (common < 0)
    fit.notes.push_back(
        "epsilon = 0: the least-interfering class pair ran faster than the sharing bound (mean "
        "log residual " +
        fmt(common) + "); cells below it are floored at 1");
  const double log_eps = std::max(0.0, common);
  fit.switch_overhead = std::exp(log_eps) - 1.0;
  for (const auto& [cell, c] : cells) {
    TableCell t;
    t.value = std::exp(c - log_eps);
    if (t.value < 1.0) {
      t.value = 1.0;
      t.floored = true;
    }
    t.min = std::numeric_limits<double>::infinity();
    t.max = -t.min;
    fit.table[cell] = t;
  }
  std::vector<double> y;
  for (const auto& s : samples) {
    auto& t = fit.table[{s.row, s.col}];
    const double f = time_slice_factor(s.duties, s.j, theta, fit.switch_overhead);
    ++t.n;
    t.min = std::min(t.min, s.slowdown / f);
    t.max = std::max(t.max, s.slowdown / f);
    y.push_back(s.slowdown);
    fit.predicted.push_back(f * t.value);
  }
  fit.stats = stats_of(y, fit.predicted);
  return fit;
}

namespace {

/// What fit_calibration builds section by section: the calibration, the report, and which keys were fitted
/// (measured) or kept from the base calibration (with the reason, in the value's source and the report).
struct FitState {
  const MeasurementSet& data;
  const FitOptions& o;
  Calibration& cal;
  std::string where; ///< "backend on device (host h, date)"
  std::ostringstream rep;
  std::vector<std::string> fitted, kept;

  /// The source of a fitted value: the measurements, where they were taken, and `how`.
  std::string source(const std::string& how) const
  {
    return "colocsim calibrate fit of " + o.measurements_file + ": " + where + "; " + how;
  }
  void keep(Sourced& s, const std::string& what, const std::string& why)
  {
    kept.push_back(what);
    s.source += " [not measured by " + o.measurements_file + ": " + why + "; kept from " + o.base.name + "]";
    rep << "  " << what << ": kept from " << o.base.name << " (" << fmt(s.value) << "): " << why << "\n";
  }
  void set(Sourced& s, const std::string& what, double v, const std::string& how)
  {
    fitted.push_back(what);
    s = Sourced{v, Evidence::MICROBENCHMARK, source(how)};
  }
};

/// [dvfs] β per kernel from duty-1 solo runs at pinned frequencies (a job-profile property, reported only).
/// Returns "kernel β" for each kernel fitted.
std::vector<std::string> dvfs_section(FitState& st, double fmax)
{
  const auto& data = st.data;
  auto& rep = st.rep;
  rep << "\n[dvfs] t(f) = t(f_max)·(β·f_max/f + 1 − β), f_max = " << (fmax > 0 ? fmt(fmax) + " MHz" : "n/a")
      << "\n";
  std::map<KernelConfig, std::pair<std::vector<double>, std::vector<double>>> sweeps;
  for (const auto& [key, s] : data.solos())
    if (s.duty >= 1.0 && s.freq_mhz > 0 && s.mode == data.reference_mode() && fmax > 0) {
      sweeps[s.kernel].first.push_back(s.freq_mhz / fmax);
      sweeps[s.kernel].second.push_back(s.t_global_s);
    }
  std::vector<std::string> betas;
  for (const auto& [k, xy] : sweeps) {
    if (std::set<double>(xy.first.begin(), xy.first.end()).size() < 2) continue;
    const auto f = fit_dvfs(xy.first, xy.second);
    rep << "  " << to_string(k) << ": β = " << fmt(f.beta, 3) << ", t(f_max) = " << fmt(f.t_fmax_s * 1e3)
        << " ms, R² " << fmt(f.stats.r2, 3) << ", RMSE " << fmt(f.stats.rmse * 1e3, 3) << " ms over "
        << f.stats.n << " frequencies\n";
    betas.push_back(k.kernel + (k.kernel == "intensity" ? "(k=" + std::to_string(k.k) + ")" : "") + " " +
                    fmt(f.beta, 3));
  }
  if (betas.empty())
    rep << "  not fitted: no kernel was measured at two pinned frequencies (frequency control is Level Zero "
           "only, and needs permission)\n";
  return betas;
}

/// [power] the power curve from the runs with energy readings. Returns the fit quality for the header
/// ("power R² …, RMSE … W"), empty when nothing was fitted.
std::string power_section(FitState& st, double fmax)
{
  auto& cal = st.cal;
  auto& rep = st.rep;
  rep << "\n[power] P = idle + [ctx]·context + (f/f_max)^γ·vec·u_vec + bw·u_bw\n";
  const auto obs = st.data.power_observations();
  const std::vector<std::pair<Sourced*, const char*>> power_params{
      {&cal.power.idle_w, "power.idle"}, {&cal.power.context_w, "power.context"},
      {&cal.power.vec_w, "power.vec"},   {&cal.power.xmx_w, "power.xmx"},
      {&cal.power.bw_w, "power.bw"},     {&cal.power.gamma, "power.gamma"}};
  if (obs.empty()) {
    for (const auto& [p, what] : power_params)
      st.keep(*p, what, "no energy readings in the measurements (energy_source empty)");
    return {};
  }
  std::vector<PowerSample> samples;
  for (const auto& p : obs)
    samples.push_back(
        {fmax > 0 && p.freq_mhz > 0 ? p.freq_mhz / fmax : 1.0, p.u_vec, p.u_bw, p.context, p.power_w});
  try {
    const auto f = fit_power(samples, st.o.base.power.gamma.value);
    const std::string how = "separable least squares over " + std::to_string(f.stats.n) + " runs, R² " +
                            fmt(f.stats.r2, 3) + ", RMSE " + fmt(f.stats.rmse, 3) + " W";
    auto put = [&](Sourced& s, const char* what, const std::optional<double>& v, const std::string& why) {
      if (!v)
        st.keep(s, what, why);
      else if (*v < 0)
        st.keep(s, what, "the fit gave " + fmt(*v) + " < 0, which the format rejects");
      else {
        st.set(s, what, *v, how);
        rep << "  " << what << " = " << fmt(*v) << "\n";
      }
    };
    put(cal.power.idle_w, "power.idle", f.idle_w, "no idle window without a context");
    if (f.idle_w && *f.idle_w >= 0 && cal.power.idle_fmax_w.value != cal.power.idle_w.value) {
      // The idle windows are not a clock sweep: the fitted static power is taken as clock-independent.
      cal.power.idle_fmax_w = cal.power.idle_w;
      rep << "  power.idle_at_fmax = power.idle (the fit has no idle windows at two clocks)\n";
    }
    put(cal.power.context_w, "power.context", f.context_w, "needs idle windows with and without a context");
    put(cal.power.vec_w, "power.vec", f.vec_w, "no run with high vector activity");
    st.keep(cal.power.xmx_w, "power.xmx", "XMX / matrix engines are not reachable from OpenCL C kernels");
    put(cal.power.bw_w, "power.bw", f.bw_w, "no run with high memory-bandwidth activity");
    put(cal.power.gamma, "power.gamma", f.gamma, "needs vector-active runs at two or more frequencies");
    rep << "  constant (idle + context where not separable) = " << fmt(f.intercept_w) << " W; " << how
        << "\n";
    for (const auto& n : f.notes)
      rep << "  note: " << n << "\n";
    if (!f.residuals_w.empty()) {
      rep << "  residuals (run, what, f/f_max, u_vec, u_bw, measured W, residual W):\n";
      for (std::size_t i = 0; i < obs.size(); ++i)
        rep << "    " << obs[i].run_id << "  " << obs[i].label << "  " << fmt(samples[i].freq_ratio, 3)
            << "  " << fmt(samples[i].u_vec, 3) << "  " << fmt(samples[i].u_bw, 3) << "  "
            << fmt(samples[i].power_w) << "  " << fmt(f.residuals_w[i], 3) << "\n";
    }
    return "power R² " + fmt(f.stats.r2, 3) + ", RMSE " + fmt(f.stats.rmse, 3) + " W";
  } catch (const std::invalid_argument& e) {
    for (const auto& [p, what] : power_params)
      st.keep(*p, what, e.what());
    return {};
  }
}

/// The fitted table cells into the calibration (each with its source), and the table's modes.
void put_table(FitState& st, const CoRunFit& f)
{
  auto& cal = st.cal;
  for (const auto& [key, cell] : f.table) {
    const auto r = static_cast<std::size_t>(key.first), c = static_cast<std::size_t>(key.second);
    std::string cell_how = "pair excess over the time-slice factor, " + std::to_string(cell.n) +
                           " co-run jobs (observed / sharing factor " + fmt(cell.min, 4) + "-" +
                           fmt(cell.max, 4) + ")";
    if (cell.floored) cell_how += ", below the common part ε and written as 1 (the format requires >= 1)";
    cal.table_entries[r][c] = Sourced{cell.value, Evidence::MICROBENCHMARK, st.source(cell_how)};
    cal.table[r][c] = cell.value;
    st.rep << "  T[" << to_string(key.first) << "][" << to_string(key.second) << "] = " << fmt(cell.value, 4)
           << " (" << cell_how << ")\n";
  }
  // The cells are the excess over the time-slice factor measured in time-sliced co-runs: the table now
  // applies under time-slice too.
  if (!f.table.empty() && std::find(cal.table_modes.begin(), cal.table_modes.end(),
                                    SharingMode::TIME_SLICE) == cal.table_modes.end())
    cal.table_modes.push_back(SharingMode::TIME_SLICE);
  st.fitted.push_back("interference.table (" + std::to_string(f.table.size()) + " of " +
                      std::to_string(JOB_CLASS_COUNT * JOB_CLASS_COUNT) + " cells)");
}

/// [co-runs] θ, ε and the table from the fit set's two-job time-slice co-runs. Returns the fit quality for
/// the header, empty when nothing was fitted.
std::string corun_section(FitState& st)
{
  auto& cal = st.cal;
  auto& rep = st.rep;
  rep << "\n[co-runs] s_j = max(1, Σd, 1 + θ·d_j·Σ_{i≠j} d_i)·(1 + ε)·T[class_j][class_other]\n";
  std::vector<std::string> skipped;
  const auto coruns = st.data.coruns("fit", &MeasurementSet::is_time_slice, &skipped);
  for (const auto& s : skipped)
    rep << "  warning: " << s << "\n";
  std::vector<CoRunSample> samples;
  std::vector<std::pair<const CoRunObservation*, std::size_t>> sample_of;
  int multi = 0;
  for (const auto& run : coruns) {
    if (run.jobs.size() != 2) {
      ++multi;
      continue;
    }
    const std::vector<double> duties{run.jobs[0].duty_solo, run.jobs[1].duty_solo};
    for (std::size_t j = 0; j < 2; ++j) {
      samples.push_back({duties, j, run.jobs[j].slowdown, run.jobs[j].job_class, run.jobs[1 - j].job_class});
      sample_of.emplace_back(&run, j);
    }
  }
  if (multi > 0)
    rep << "  note: " << multi << " fit co-runs with more than two processes are not used by the fit\n";
  if (samples.empty()) {
    const std::string why = "no two-job time-slice co-run in the fit set";
    st.keep(cal.time_slice.collision, "time_slice.collision", why);
    st.keep(cal.time_slice.switch_overhead, "time_slice.switch_overhead", why);
    rep << "  table kept from " << st.o.base.name << ": " << why << "\n";
    return {};
  }
  const auto f = fit_coruns(samples, st.o.base.time_slice.collision.value);
  const std::string how = "least squares on log slowdowns of " + std::to_string(f.stats.n) +
                          " co-run jobs (one offset per class pair), R² " + fmt(f.stats.r2, 3) + ", RMSE " +
                          fmt(f.stats.rmse, 3);
  if (f.collision) {
    st.set(cal.time_slice.collision, "time_slice.collision", *f.collision, how);
    rep << "  θ = " << fmt(*f.collision) << "\n";
  } else {
    st.keep(cal.time_slice.collision, "time_slice.collision",
            "no co-run where bursts collide (two duty cycles < 1)");
  }
  if (f.switch_overhead > CALIBRATION_OVERHEAD_MAX) {
    st.keep(cal.time_slice.switch_overhead, "time_slice.switch_overhead",
            "the fit gave " + fmt(f.switch_overhead) + " > 1, which the format rejects");
  } else {
    st.set(cal.time_slice.switch_overhead, "time_slice.switch_overhead", f.switch_overhead,
           how + "; the part common to every class pair");
    rep << "  ε = " << fmt(f.switch_overhead) << " (the part common to every class pair)\n";
  }
  rep << "  " << how << "\n";
  for (const auto& n : f.notes)
    rep << "  note: " << n << "\n";
  put_table(st, f);
  rep << "  residuals (run, job | co-runners, solo duty cycles, observed, predicted):\n";
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const auto& [run, j] = sample_of[i];
    rep << "    " << run->run_id << "  " << run->jobs[j].label << " | " << run->label()
        << "  d=" << fmt(samples[i].duties[0], 3) << "," << fmt(samples[i].duties[1], 3) << "  "
        << fmt(samples[i].slowdown, 4) << "  " << fmt(f.predicted[i], 4) << "\n";
  }
  return "co-run slowdowns R² " + fmt(f.stats.r2, 3) + ", RMSE " + fmt(f.stats.rmse, 3);
}

/// [ccs] CCS modes: compute_share per kernel (a job-profile property, like β) and the co-runs, reported only.
void ccs_section(FitState& st)
{
  const auto& data = st.data;
  auto& rep = st.rep;
  std::set<std::string> other_modes;
  for (const auto& [key, s] : data.solos())
    if (s.mode != data.reference_mode()) other_modes.insert(s.mode);
  if (other_modes.empty()) return;
  rep << "\n[ccs] t_solo(mode)/t_solo(" << data.reference_mode()
      << ") = max(1, c·k) → compute_share c (job profiles' compute_share; reported, not a calibration "
         "key)\n";
  for (const auto& [key, s] : data.solos()) {
    if (s.mode == data.reference_mode()) continue;
    const auto* ref = data.solo(s.kernel, s.duty, s.freq_mhz);
    rep << "  " << s.mode << " " << to_string(s.kernel) << ": ratio "
        << (ref ? fmt(s.t_iter_s / ref->t_iter_s, 4) : "n/a") << "\n";
  }
  for (const auto& k : kernel_catalog()) {
    const auto cfg = data.solo(k.quick, 1.0, 0.0) ? k.quick : k.full;
    if (const auto c = data.compute_share(cfg))
      rep << "  compute_share " << k.name << " = " << fmt(*c, 3) << "\n";
  }
  for (const auto& run :
       data.coruns("", [](const std::string& m) { return !MeasurementSet::is_time_slice(m); }))
    for (const auto& j : run.jobs)
      rep << "  " << run.mode << " run " << run.run_id << " " << j.label << " | " << run.label()
          << ": slowdown " << fmt(j.slowdown, 4) << "\n";
  rep << "  (`calibrate check --set all` predicts these runs with the ccs-2/ccs-4 sharing factors)\n";
}

/// The comment lines at the head of the written file: where the measurements come from, what was measured
/// and kept, the fit quality and the DVFS β.
std::vector<std::string> fit_header(const FitState& st, const std::vector<std::string>& betas,
                                    const std::string& power_summary, const std::string& ts_summary)
{
  const auto& data = st.data;
  const auto& o = st.o;
  std::vector<std::string> h;
  h.push_back("Calibration fitted by `colocsim calibrate fit` from " + o.measurements_file + ".");
  h.push_back("Measured with the " + data.backend + " backend on " + data.device + " (host " + data.host +
              ", " + data.date + ").");
  h.push_back("Measured: " + (st.fitted.empty() ? std::string("nothing") : join(st.fitted)) + ".");
  h.push_back("Kept from " + o.base.name + " (tags unchanged, reason in each source): " + join(st.kept) +
              ".");
  if (!power_summary.empty() || !ts_summary.empty())
    h.push_back("Fit quality: " + power_summary + (power_summary.empty() || ts_summary.empty() ? "" : "; ") +
                ts_summary + ".");
  if (!betas.empty())
    h.push_back("DVFS β per kernel (job-profile freq_sensitive, not a calibration key): " + join(betas) +
                ".");
  h.push_back("Format: docs/formats/calibration.md; method and report: docs/calibration-guide.md.");
  return h;
}

} // namespace

FitResult fit_calibration(const MeasurementSet& data, const FitOptions& o)
{
  if (data.solos().empty())
    throw std::invalid_argument("the measurements hold no usable solo run; nothing to fit");
  FitResult result;
  Calibration& cal = result.calibration;
  cal = o.base;
  cal.name = o.name.empty() ? o.base.name + "-fitted" : o.name;
  if (!o.device.empty()) cal.device = o.device;
  FitState st{
      data, o,  cal, data.backend + " on " + data.device + " (host " + data.host + ", " + data.date + ")",
      {},   {}, {}};
  auto& rep = st.rep;
  rep << "fit of " << o.measurements_file << ": " << data.rows().size() << " rows, " << st.where << "\n";
  rep << "reference mode " << data.reference_mode() << "; peaks: fp32 "
      << fmt(data.peak_flops(false, 0) / 1e9) << " GFLOP/s, fp64 " << fmt(data.peak_flops(true, 0) / 1e9)
      << " GFLOP/s, memory " << fmt(data.peak_bytes_per_s() / 1e9)
      << " GB/s (best solo rates at the default frequency)\n";
  for (const auto& w : data.warnings)
    rep << "warning: " << w << "\n";

  const double fmax = o.fmax_mhz.value_or(data.fmax_mhz());
  const std::vector<std::string> betas = dvfs_section(st, fmax);
  const std::string power_summary = power_section(st, fmax);
  const std::string ts_summary = corun_section(st);
  st.kept.push_back("node_baseline");
  ccs_section(st);

  cal.status = "fitted by colocsim calibrate fit from " + o.measurements_file + " (" + st.where +
               "); measured: " + (st.fitted.empty() ? "nothing" : join(st.fitted)) + "; kept from " +
               o.base.name + ": " + join(st.kept);
  cal.created = data.date + ", " + data.host;
  result.header = fit_header(st, betas, power_summary, ts_summary);
  result.report = rep.str();
  return result;
}

} // namespace colocsim
