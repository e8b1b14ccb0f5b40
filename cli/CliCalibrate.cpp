// `colocsim calibrate run|fit|check` (and the internal `worker`): the calibration pipeline of
// docs/calibration-guide.md on top of calibration/ (Microbenchmark, Fitter, ModelCheck).
#include "cli/CliCommands.hpp"

#include "base/Errors.hpp"
#include "base/Units.hpp"
#include "calibration/CalibrationWriter.hpp"
#include "calibration/microbenchmark/DeviceCounters.hpp"
#include "calibration/microbenchmark/Fitter.hpp"
#include "calibration/microbenchmark/Microbenchmark.hpp"
#include "calibration/microbenchmark/ModelCheck.hpp"
#include "sim/Resources.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace colocsim {

namespace {

const char* const CALIBRATE_HELP = R"(usage: colocsim calibrate <step> [options]

Measures a device with the bundled microbenchmark, fits the simulator's model coefficients, and checks
the fitted model against held-out co-runs (docs/calibration-guide.md).

steps:
  run    measure with a backend and write the measurements CSV (docs/formats/measurements.md)
  fit    fit a calibration file (docs/formats/calibration.md) from a measurements CSV
  check  predict the held-out co-runs of a measurements CSV with a calibration; report the errors

Run `colocsim calibrate <step> --help` for the options of a step.

exit status: 0 success; 1 runtime error, or check above --max-error; 2 bad usage or input;
3 the backend has no driver, platform or device on this machine; 4 the backend is not in this build.
)";

const char* const RUN_HELP = R"(usage: colocsim calibrate run --backend opencl|level-zero [options]

Runs the measurement plan (solo runs, co-runs of several processes, idle baselines and frequency sweeps
where the backend allows) and writes one CSV row per process per run. Progress goes to stderr.

options:
  --backend NAME       level-zero (Intel GPUs) or opencl (any OpenCL platform, e.g. pocl on a CPU)
  --device SEL         level-zero: R or R.S (root device, sub-device/tile), default 0;
                       opencl: P.D (platform, device), default 0.0
  -o, --output FILE    measurements CSV (default measurements.csv); never overwritten without --force
  --force              overwrite FILE
  --quick              small kernels, three repetitions, 0.25 s windows, reference mode only (CI; a few
                       minutes at most on a CPU)
  --window S           measurement window per run in seconds (default 2; 0.25 with --quick; use >= 5 for
                       energy better than 1 % with Sysman's 1 J counters)
  --repetitions N      repeat the whole plan N times (default 3, also with --quick); solo references and
                       co-run slowdowns are the medians over the repetitions
  --warmup N           launches before each window (default 5; 3 with --quick)
  --samples N          repeated timings: each window is cut into N sub-windows; t_iter_s is the median of
                       their medians, t_iter_lo_s/t_iter_hi_s the spread (default 5)
  --pin-cpu C|none     CPU devices (pocl): pin every worker to core C with one pocl thread, so that the
                       processes time-slice one core (default: the last core this process may use);
                       none: pocl's default threads on every core
  --nice N|none        CPU devices: scheduling priority the workers ask for (default -20; needs
                       CAP_SYS_NICE, else they run at normal priority and the row's notes say so)
  --kernels A,B,..     co-location kernels (default fma_fp32,triad,l2_triad,pointer_chase)
  --duties D,D,..      duty cycles of the fitted co-runs (default 1,0.5)
  --freqs LIST         frequency sweep in MHz, e.g. 1600,1200,900, "auto" (reference §6.5 steps within
                       the device's range; the default where frequency control works) or "none"
  --modes M,M,..       sharing modes (level-zero: ccs1,ccs2,ccs4 by default; opencl: time-slice)
  --no-extras          skip the solo-only kernels (fma_fp64, copy, empty, intensity ladder)
  --no-check-runs      skip the held-out co-runs
  --probe              list the backend's devices and capabilities, then exit (exit status 3 if none)
  --plan               print the plan without measuring

exit status: 3 when the backend has no driver/platform/device here, 4 when it is not in this build.
)";

const char* const FIT_HELP = R"(usage: colocsim calibrate fit MEASUREMENTS.csv -o OUT.yaml [options]

Fits, with least squares (Eigen): β of t(f) per kernel, the power curve (idle, context, vec, bw, γ), the
time-slice coefficients θ and ε, and the pairwise interference table, from the "fit" rows. What the data
cannot identify keeps the base calibration's value, and the report says why. The report goes to stdout.

options:
  -o, --output FILE    calibration file to write (required); never overwritten without --force
  --force              overwrite FILE
  --base NAME|PATH     calibration supplying the values that are not measured (default max1550-aurora-default)
  --name NAME          calibration name (default: <base>-fitted)
  --device NAME        device catalog entry it applies to (default: the base's)
  --fmax-mhz F         f_max for f/f_max (default: the highest pinned frequency in the measurements)
  --report FILE        also write the fit report to FILE
)";

const char* const CHECK_HELP =
    R"(usage: colocsim calibrate check MEASUREMENTS.csv --calibration NAME|PATH [options]

Predicts every held-out co-run (set "check") with the calibration and the simulator's own slowdown and
power models, and prints observed vs predicted per job, the error per combination and overall.

options:
  --calibration REF    calibration file or bundled name (required)
  --set check|fit|all  which co-runs to predict (default check)
  --fmax-mhz F         f_max for f/f_max (default: the highest pinned frequency in the measurements)
  --max-error X        exit status 1 when the overall mean |relative error| exceeds X (e.g. 0.25)
  --max-median-error X exit status 1 when the overall median |relative error| exceeds X
  --max-bias X         exit status 1 when the mean relative error (signed) is beyond ±X; with --set fit,
                       a fit reproduces its own co-runs without bias (one offset per class pair), so a
                       bias there means fitted coefficients that were lost or mixed up
  --max-baseline-ratio R
                       exit status 1 when the mean |relative error| exceeds R times that of the better
                       trivial predictor on the same jobs (no interference: every slowdown 1; the mean
                       slowdown of the fit set's co-runs), e.g. 0.5: the model must halve their error
)";

double positive_number(const std::string& option, const std::string& text)
{
  const auto v = parse_double(text);
  if (!v || !(*v > 0)) throw UsageError("option " + option + " needs a number > 0 (got '" + text + "')");
  return *v;
}

long long integer_at_least(const std::string& option, const std::string& text, long long min)
{
  const auto v = parse_int(text);
  if (!v || *v < min)
    throw UsageError("option " + option + " needs an integer >= " + std::to_string(min) + " (got '" + text +
                     "')");
  return *v;
}

std::vector<std::string> split_commas(const std::string& text)
{
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void refuse_overwrite(const std::string& path, bool force)
{
  if (!force && std::filesystem::exists(path))
    throw UsageError("'" + path + "' exists; use --force to overwrite it");
}

Calibration load_calibration_ref(const std::string& ref)
{
  const auto file =
      load_named(ref, "calibration/data", "calibration", ".", SourceLocation{"command line", 0, 0});
  return load_calibration(file.text, file.name);
}

/// §6.5's frequency steps that lie within the device's available clocks (all of them when unknown).
std::vector<double> auto_frequencies(const BackendCapabilities& caps)
{
  std::vector<double> wanted{1600, 1500, 1200, 900, 600};
  if (caps.frequencies_mhz.empty()) return wanted;
  const auto [lo, hi] = std::minmax_element(caps.frequencies_mhz.begin(), caps.frequencies_mhz.end());
  std::vector<double> out;
  for (double f : wanted) {
    // The nearest available clock, so that min = max pins an exact step.
    const auto near = std::min_element(caps.frequencies_mhz.begin(), caps.frequencies_mhz.end(),
                                       [&](double a, double b) { return std::abs(a - f) < std::abs(b - f); });
    if (f >= *lo - 50 && f <= *hi + 50 && std::find(out.begin(), out.end(), *near) == out.end())
      out.push_back(*near);
  }
  return out;
}

/// The command line of `calibrate run`.
struct RunArgs {
  std::string backend, device, output = "measurements.csv", freqs_text, modes_text;
  bool force = false, quick = false, probe = false, print_plan = false, help = false;
  std::optional<double> window;
  std::optional<int> repetitions, warmup, samples, pin_cpu, nice = -20;
  PlanOptions plan_options; ///< --no-extras and --no-check-runs
  std::optional<std::vector<std::string>> kernels;
  std::optional<std::vector<double>> duties;
};

/// --nice: an integer in [-20, 19], or none.
std::optional<int> parse_nice(const std::string& v)
{
  if (v == "none") return std::nullopt;
  const auto n = parse_int(v);
  if (!n || *n < -20 || *n > 19) throw UsageError("--nice needs an integer in [-20, 19] or none");
  return static_cast<int>(*n);
}

/// Reads the command line (UsageError for a bad option or value); `help` set if it asks for it.
RunArgs parse_run_args(const std::vector<std::string>& args)
{
  RunArgs r;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      r.help = true;
      return r;
    }
    if (a == "--backend")
      r.backend = next_arg(args, i);
    else if (a == "--device")
      r.device = next_arg(args, i);
    else if (a == "-o" || a == "--output")
      r.output = next_arg(args, i);
    else if (a == "--force")
      r.force = true;
    else if (a == "--quick")
      r.quick = true;
    else if (a == "--probe")
      r.probe = true;
    else if (a == "--plan")
      r.print_plan = true;
    else if (a == "--window")
      r.window = positive_number(a, next_arg(args, i));
    else if (a == "--repetitions")
      r.repetitions = static_cast<int>(integer_at_least(a, next_arg(args, i), 1));
    else if (a == "--warmup")
      r.warmup = static_cast<int>(integer_at_least(a, next_arg(args, i), 0));
    else if (a == "--samples")
      r.samples = static_cast<int>(integer_at_least(a, next_arg(args, i), 1));
    else if (a == "--pin-cpu") {
      const auto v = next_arg(args, i);
      r.pin_cpu = v == "none" ? -1 : static_cast<int>(integer_at_least(a, v, 0));
    } else if (a == "--nice")
      r.nice = parse_nice(next_arg(args, i));
    else if (a == "--kernels")
      r.kernels = split_commas(next_arg(args, i));
    else if (a == "--duties") {
      std::vector<double> d;
      for (const auto& t : split_commas(next_arg(args, i)))
        d.push_back(positive_number(a, t));
      r.duties = d;
    } else if (a == "--freqs")
      r.freqs_text = next_arg(args, i);
    else if (a == "--modes")
      r.modes_text = next_arg(args, i);
    else if (a == "--no-extras")
      r.plan_options.extras = false;
    else if (a == "--no-check-runs")
      r.plan_options.check_runs = false;
    else
      throw UsageError("unknown option '" + a + "' for calibrate run (see --help)");
  }
  return r;
}

/// The backend --backend names (UsageError if none or unknown).
const BackendInfo& named_backend(const std::string& backend)
{
  if (backend.empty()) {
    std::vector<std::string> names;
    for (const auto& b : backend_registry())
      names.push_back(b.name);
    throw UsageError("calibrate run needs --backend; valid: " + join(names));
  }
  try {
    return find_backend(backend);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

/// The plan's options from the command line and what the backend offers (modes, frequency control,
/// energy); UsageError for a mode or frequency it does not offer.
PlanOptions run_plan_options(const RunArgs& r, const BackendCapabilities& caps, bool energy)
{
  PlanOptions plan_options = r.plan_options;
  plan_options.quick = r.quick;
  plan_options.repetitions = r.repetitions.value_or(3);
  plan_options.energy = energy;
  if (r.kernels) plan_options.kernels = *r.kernels;
  if (r.duties) plan_options.fit_duties = *r.duties;
  if (r.quick) plan_options.intensity_ladder = {1, 16};
  plan_options.modes = r.quick ? std::vector<std::string>{caps.modes.front()} : caps.modes;
  if (!r.modes_text.empty()) {
    plan_options.modes = split_commas(r.modes_text);
    for (const auto& m : plan_options.modes)
      if (std::find(caps.modes.begin(), caps.modes.end(), m) == caps.modes.end())
        throw UsageError("mode '" + m + "' is not offered by backend " + r.backend +
                         "; valid: " + join(caps.modes));
  }
  std::string freqs_text = r.freqs_text;
  if (freqs_text.empty()) freqs_text = caps.frequency_control && !r.quick ? "auto" : "none";
  if (freqs_text == "auto") {
    if (!caps.frequency_control)
      throw UsageError("--freqs auto: no frequency control here (" + caps.frequency_note + ")");
    plan_options.freqs_mhz = auto_frequencies(caps);
  } else if (freqs_text != "none") {
    if (!caps.frequency_control)
      throw UsageError("--freqs: no frequency control here (" + caps.frequency_note + ")");
    for (const auto& t : split_commas(freqs_text))
      plan_options.freqs_mhz.push_back(positive_number("--freqs", t));
  }
  return plan_options;
}

/// --plan: one line a run (id, repetition, kind, set, mode, frequency, jobs).
void print_plan(const std::vector<PlannedRun>& plan, std::ostream& out)
{
  for (const auto& r : plan) {
    out << r.id << " rep " << r.repetition << " " << to_string(r.kind) << " " << r.set << " " << r.mode;
    if (r.freq_mhz) out << " @" << *r.freq_mhz << "MHz";
    for (const auto& j : r.jobs)
      out << " " << job_label(j) << "[" << to_string(j.kernel) << "]";
    out << "\n";
  }
}

/// --probe: the backend, its modes, frequency control and energy meter.
void print_probe(const std::string& backend, const Campaign& campaign, std::ostream& out)
{
  const auto& caps = campaign.capabilities();
  out << "backend " << backend << ":\n" << campaign.describe();
  out << "modes: " << join(caps.modes)
      << "\nfrequency control: " << (caps.frequency_control ? "yes" : "no (" + caps.frequency_note + ")")
      << "\nenergy: " << campaign.energy_status() << "\n";
}

int calibrate_run(const std::vector<std::string>& args, std::ostream& out)
{
  const RunArgs r = parse_run_args(args);
  if (r.help) {
    out << RUN_HELP;
    return 0;
  }
  const BackendInfo& info = named_backend(r.backend);
  if (!info.built) {
    std::cerr << "colocsim: backend '" << r.backend << "' is not in this build: " << info.not_built << "\n";
    return EXIT_BACKEND_NOT_BUILT;
  }
  if (!r.print_plan && !r.probe) refuse_overwrite(r.output, r.force);

  CampaignOptions co;
  co.backend = r.backend;
  co.device = r.device;
  co.window_s = r.window.value_or(r.quick ? 0.25 : 2.0);
  co.warmup = r.warmup.value_or(r.quick ? 3 : 5);
  co.samples = r.samples.value_or(5);
  co.pin_cpu = r.pin_cpu;
  co.nice = r.nice;
  co.worker_command = {"/proc/self/exe", "calibrate", "worker"};
  co.progress = &std::cerr;
  std::unique_ptr<Campaign> campaign;
  try {
    campaign = std::make_unique<Campaign>(co);
  } catch (const BackendUnavailable& e) {
    std::cerr << "colocsim: backend '" << r.backend << "' unavailable: " << e.what() << "\n";
    return EXIT_BACKEND_UNAVAILABLE;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (r.probe) {
    print_probe(r.backend, *campaign, out);
    return 0;
  }
  const auto& caps = campaign->capabilities();
  std::vector<PlannedRun> plan;
  try {
    plan = plan_campaign(run_plan_options(r, caps, campaign->has_energy()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (r.print_plan) {
    print_plan(plan, out);
    return 0;
  }

  std::cerr << "calibrate run: backend " << r.backend << ", " << plan.size() << " runs, window "
            << co.window_s << " s, energy " << campaign->energy_status() << ", frequency control "
            << (caps.frequency_control ? "yes" : "no (" + caps.frequency_note + ")") << "\n";
  std::ofstream csv(r.output);
  if (!csv) throw std::runtime_error("cannot write '" + r.output + "'");
  try {
    const auto rows = campaign->run(plan, csv);
    out << "wrote " << rows.size() << " rows (" << plan.size() << " runs) to " << r.output << "\n";
  } catch (const BackendUnavailable& e) {
    std::cerr << "colocsim: backend '" << r.backend << "' unavailable: " << e.what() << "\n";
    return EXIT_BACKEND_UNAVAILABLE;
  }
  return 0;
}

int calibrate_fit(const std::vector<std::string>& args, std::ostream& out)
{
  std::string input, output, base = "max1550-aurora-default", report_file;
  FitOptions fo;
  bool force = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      out << FIT_HELP;
      return 0;
    }
    if (a == "-o" || a == "--output")
      output = next_arg(args, i);
    else if (a == "--force")
      force = true;
    else if (a == "--base")
      base = next_arg(args, i);
    else if (a == "--name")
      fo.name = next_arg(args, i);
    else if (a == "--device")
      fo.device = next_arg(args, i);
    else if (a == "--fmax-mhz")
      fo.fmax_mhz = positive_number(a, next_arg(args, i));
    else if (a == "--report")
      report_file = next_arg(args, i);
    else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "' for calibrate fit (see --help)");
    else if (input.empty())
      input = a;
    else
      throw UsageError("calibrate fit takes one measurements file (got '" + input + "' and '" + a + "')");
  }
  if (input.empty()) throw UsageError("calibrate fit needs a measurements CSV");
  if (output.empty()) throw UsageError("calibrate fit needs -o OUT.yaml");
  refuse_overwrite(output, force);
  if (!report_file.empty()) refuse_overwrite(report_file, force);
  fo.base = load_calibration_ref(base);
  fo.measurements_file = std::filesystem::path(input).filename().string();
  const MeasurementSet data(read_measurements_file(input));
  FitResult fit;
  try {
    fit = fit_calibration(data, fo);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{input, 0, 0}, "", e.what());
  }
  const std::string text = format_calibration(fit.calibration, fit.header);
  load_calibration(text, output); // the file we write must load; a failure here is a bug, reported as such
  std::ofstream yaml(output);
  if (!(yaml << text)) throw std::runtime_error("cannot write '" + output + "'");
  if (!report_file.empty()) {
    std::ofstream r(report_file);
    if (!(r << fit.report)) throw std::runtime_error("cannot write '" + report_file + "'");
  }
  out << fit.report << "\nwrote " << output << " (" << fit.calibration.name << ")\n";
  return 0;
}

int calibrate_check(const std::vector<std::string>& args, std::ostream& out)
{
  std::string input, calibration, set = "check";
  std::optional<double> max_error, max_median_error, max_baseline_ratio, max_bias;
  double fmax = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      out << CHECK_HELP;
      return 0;
    }
    if (a == "--calibration")
      calibration = next_arg(args, i);
    else if (a == "--set") {
      set = next_arg(args, i);
      if (set != "check" && set != "fit" && set != "all")
        throw UsageError("--set needs check, fit or all (got '" + set + "')");
    } else if (a == "--max-error")
      max_error = positive_number(a, next_arg(args, i));
    else if (a == "--max-median-error")
      max_median_error = positive_number(a, next_arg(args, i));
    else if (a == "--max-baseline-ratio")
      max_baseline_ratio = positive_number(a, next_arg(args, i));
    else if (a == "--max-bias")
      max_bias = positive_number(a, next_arg(args, i));
    else if (a == "--fmax-mhz")
      fmax = positive_number(a, next_arg(args, i));
    else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "' for calibrate check (see --help)");
    else if (input.empty())
      input = a;
    else
      throw UsageError("calibrate check takes one measurements file (got '" + input + "' and '" + a + "')");
  }
  if (input.empty()) throw UsageError("calibrate check needs a measurements CSV");
  if (calibration.empty()) throw UsageError("calibrate check needs --calibration NAME|PATH");
  const auto cal = load_calibration_ref(calibration);
  const MeasurementSet data(read_measurements_file(input));
  CheckReport report;
  try {
    report = check_calibration(cal, data, set == "all" ? "" : set, fmax);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{input, 0, 0}, "", e.what());
  }
  out << "check of " << cal.name << " against " << input << " (set " << set << "):\n" << report.text();
  int status = 0;
  if (max_error && report.overall.mape > *max_error) {
    std::cerr << "colocsim: calibrate check: mean |error| " << report.overall.mape << " exceeds --max-error "
              << *max_error << "\n";
    status = 1;
  }
  if (max_median_error && report.overall.median_abs > *max_median_error) {
    std::cerr << "colocsim: calibrate check: median |error| " << report.overall.median_abs
              << " exceeds --max-median-error " << *max_median_error << "\n";
    status = 1;
  }
  if (max_bias && !(std::abs(report.overall.bias) <= *max_bias)) {
    std::cerr << "colocsim: calibrate check: bias " << report.overall.bias << " is beyond --max-bias ±"
              << *max_bias << "\n";
    status = 1;
  }
  if (max_baseline_ratio) {
    const double best = report.best_baseline_mape();
    if (!(report.overall.mape <= *max_baseline_ratio * best)) {
      std::cerr << "colocsim: calibrate check: mean |error| " << report.overall.mape << " exceeds "
                << *max_baseline_ratio << " x the better trivial predictor's " << best
                << " (--max-baseline-ratio)\n";
      status = 1;
    }
  }
  return status;
}

/// Internal: one co-runner process (started by `calibrate run`; protocol in
/// calibration/microbenchmark/Microbenchmark.hpp).
int calibrate_worker(const std::vector<std::string>& args, std::ostream& out)
{
  WorkerOptions w;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--backend")
      w.backend = next_arg(args, i);
    else if (a == "--device")
      w.device = next_arg(args, i);
    else if (a == "--kernel")
      w.kernel.kernel = next_arg(args, i);
    else if (a == "--n")
      w.kernel.n = integer_at_least(a, next_arg(args, i), 0);
    else if (a == "--k")
      w.kernel.k = integer_at_least(a, next_arg(args, i), 0);
    else if (a == "--m")
      w.kernel.m = integer_at_least(a, next_arg(args, i), 0);
    else if (a == "--duty")
      w.duty = positive_number(a, next_arg(args, i));
    else if (a == "--sleep-s") {
      const auto v = parse_double(next_arg(args, i));
      if (!v || *v < 0) throw UsageError("--sleep-s needs a number >= 0");
      w.sleep_s = *v;
    } else if (a == "--warmup")
      w.warmup = static_cast<int>(integer_at_least(a, next_arg(args, i), 0));
    else if (a == "--queue-index")
      w.queue_index = static_cast<int>(integer_at_least(a, next_arg(args, i), 0));
    else if (a == "--idle")
      w.idle = true;
    else if (a == "--samples")
      w.samples = static_cast<int>(integer_at_least(a, next_arg(args, i), 1));
    else if (a == "--pin-cpu")
      w.pin_cpu = static_cast<int>(integer_at_least(a, next_arg(args, i), 0));
    else if (a == "--nice") {
      const auto n = parse_int(next_arg(args, i));
      if (!n) throw UsageError("--nice needs an integer");
      w.nice = static_cast<int>(*n);
    } else
      throw UsageError("unknown option '" + a + "' for calibrate worker");
  }
  return run_worker(w, std::cin, out);
}

} // namespace

int cmd_calibrate(const std::vector<std::string>& args, std::ostream& out)
{
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    out << CALIBRATE_HELP;
    return 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "run") return calibrate_run(rest, out);
  if (args[0] == "fit") return calibrate_fit(rest, out);
  if (args[0] == "check") return calibrate_check(rest, out);
  if (args[0] == "worker") return calibrate_worker(rest, out);
  throw UsageError("unknown calibrate step '" + args[0] + "'; valid: run, fit, check");
}

} // namespace colocsim
