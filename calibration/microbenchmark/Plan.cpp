#include "calibration/microbenchmark/Plan.hpp"

#include "calibration/microbenchmark/DeviceCounters.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

namespace colocsim {

namespace {
constexpr const char* NAMES[] = {"idle", "idle-context", "solo", "corun"};
}

std::string_view to_string(RunKind kind)
{
  return NAMES[static_cast<int>(kind)];
}

std::optional<RunKind> parse_run_kind(std::string_view text)
{
  for (int i = 0; i < 4; ++i)
    if (text == NAMES[i]) return static_cast<RunKind>(i);
  return std::nullopt;
}

std::string job_label(const PlannedJob& job)
{
  std::ostringstream os;
  os << job.kernel.kernel << "@" << job.duty;
  return os.str();
}

KernelConfig planned_config(const std::string& kernel, bool quick)
{
  const auto& info = find_kernel(kernel);
  return quick ? info.quick : info.full;
}

std::vector<PlannedRun> plan_campaign(const PlanOptions& o)
{
  if (o.modes.empty()) throw std::invalid_argument("the backend offers no sharing mode");
  if (o.repetitions < 1)
    throw std::invalid_argument("repetitions must be >= 1 (got " + std::to_string(o.repetitions) + ")");
  if (o.kernels.empty()) throw std::invalid_argument("no co-location kernel given");
  for (const auto& k : o.kernels)
    find_kernel(k); // throws with the valid names
  for (double d : o.fit_duties)
    if (!(d > 0 && d <= 1))
      throw std::invalid_argument("duty cycle must be in (0, 1] (got " + std::to_string(d) + ")");
  for (double f : o.freqs_mhz)
    if (!(f > 0)) throw std::invalid_argument("frequency must be > 0 MHz (got " + std::to_string(f) + ")");

  const std::string& ref = o.modes.front();
  std::vector<PlannedRun> base;
  auto add = [&](RunKind kind, const std::string& set, const std::string& mode, std::optional<double> freq,
                 std::vector<PlannedJob> jobs) {
    base.push_back(PlannedRun{0, 0, kind, set, mode, freq, std::move(jobs)});
  };
  auto job = [&](const std::string& kernel, double duty) {
    return PlannedJob{planned_config(kernel, o.quick), duty};
  };
  auto intensity = [&](long long k) {
    PlannedJob j = job("intensity", 1.0);
    j.kernel.k = k;
    return j;
  };

  // 1. Idle baselines: no context, then an idle context (the `empty` kernel is built but never launched).
  std::vector<std::optional<double>> freqs{std::nullopt};
  for (double f : o.freqs_mhz)
    freqs.emplace_back(f);
  if (o.energy)
    for (const auto& f : freqs) {
      add(RunKind::IDLE, "fit", ref, f, {});
      add(RunKind::IDLE_CONTEXT, "fit", ref, f, {job("empty", 1.0)});
    }

  // 2. Frequency sweep.
  for (double f : o.freqs_mhz) {
    for (const char* k : {"fma_fp32", "fma_fp64", "triad"})
      add(RunKind::SOLO, "fit", ref, f, {job(k, 1.0)});
    for (long long k : o.intensity_ladder)
      add(RunKind::SOLO, "fit", ref, f, {intensity(k)});
  }

  // 3. Solo references at the default frequency.
  std::vector<double> solo_duties = o.fit_duties;
  solo_duties.push_back(1.0);
  if (o.check_runs) solo_duties.push_back(0.5);
  std::sort(solo_duties.rbegin(), solo_duties.rend());
  solo_duties.erase(std::unique(solo_duties.begin(), solo_duties.end()), solo_duties.end());
  for (const auto& k : o.kernels)
    for (double d : solo_duties)
      add(RunKind::SOLO, "fit", ref, std::nullopt, {job(k, d)});
  if (o.extras) {
    for (const char* k : {"fma_fp64", "copy", "empty"})
      if (std::find(o.kernels.begin(), o.kernels.end(), k) == o.kernels.end())
        add(RunKind::SOLO, "fit", ref, std::nullopt, {job(k, 1.0)});
    if (o.freqs_mhz.empty())
      for (long long k : o.intensity_ladder)
        add(RunKind::SOLO, "fit", ref, std::nullopt, {intensity(k)});
  }

  // 4. Time-slice co-runs for the fit: unordered pairs with replacement.
  const std::size_t n = o.kernels.size();
  for (double d : o.fit_duties)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i; j < n; ++j)
        add(RunKind::CORUN, "fit", ref, std::nullopt, {job(o.kernels[i], d), job(o.kernels[j], d)});

  // 5. Held-out co-runs: mixed duty cycles, and three processes.
  if (o.check_runs && n >= 2) {
    for (std::size_t i = 0; i < n; ++i)
      add(RunKind::CORUN, "check", ref, std::nullopt,
          {job(o.kernels[i], 1.0), job(o.kernels[(i + 1) % n], 0.5)});
    const std::size_t triples = o.quick ? std::min<std::size_t>(2, n) : n;
    for (std::size_t i = 0; i < triples; ++i)
      add(RunKind::CORUN, "check", ref, std::nullopt,
          {job(o.kernels[i], 1.0), job(o.kernels[(i + 1) % n], 1.0), job(o.kernels[(i + 2) % n], 1.0)});
  }

  // 6. CCS modes beyond the reference one.
  for (std::size_t m = 1; m < o.modes.size(); ++m) {
    const auto& mode = o.modes[m];
    const int k = ccs_count(mode).value_or(1);
    for (const auto& kernel : o.kernels) {
      add(RunKind::SOLO, "fit", mode, std::nullopt, {job(kernel, 1.0)});
      if (k > 1)
        add(RunKind::CORUN, "fit", mode, std::nullopt,
            std::vector<PlannedJob>(static_cast<std::size_t>(k), job(kernel, 1.0)));
    }
    if (k == 2)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
          add(RunKind::CORUN, "fit", mode, std::nullopt, {job(o.kernels[i], 1.0), job(o.kernels[j], 1.0)});
  }

  std::vector<PlannedRun> plan;
  plan.reserve(base.size() * static_cast<std::size_t>(o.repetitions));
  for (int r = 0; r < o.repetitions; ++r)
    for (const auto& run : base) {
      plan.push_back(run);
      plan.back().id = static_cast<int>(plan.size());
      plan.back().repetition = r;
    }
  return plan;
}

std::string check_plan(const std::vector<PlannedRun>& plan)
{
  if (plan.empty()) return "the plan is empty";
  const std::string ref = plan.front().mode;
  using Key = std::tuple<KernelConfig, double, double>;
  std::set<Key> solos;
  for (const auto& run : plan) {
    const double f = run.freq_mhz.value_or(0);
    if ((run.kind == RunKind::SOLO || run.kind == RunKind::IDLE_CONTEXT) && run.jobs.size() != 1)
      return "run " + std::to_string(run.id) + ": a solo run has exactly one job";
    if (run.kind == RunKind::IDLE && !run.jobs.empty())
      return "run " + std::to_string(run.id) + ": idle run with jobs";
    if (run.kind == RunKind::CORUN && run.jobs.size() < 2)
      return "run " + std::to_string(run.id) + ": a co-run has at least two jobs";
    if (run.kind == RunKind::SOLO && run.mode == ref) solos.insert({run.jobs[0].kernel, run.jobs[0].duty, f});
    if (run.kind == RunKind::CORUN)
      for (const auto& j : run.jobs)
        if (!solos.count({j.kernel, j.duty, f}))
          return "run " + std::to_string(run.id) + ": job " + job_label(j) + " (" + to_string(j.kernel) +
                 ") has no earlier solo run in mode " + ref;
  }
  return {};
}

} // namespace colocsim
