// `colocsim advise TRACE --format F --platform P`: which sharing mode and scheduler to use for a workload,
// and what it saves. The options the platform's devices support (exclusive, time-slice, ccs-2/ccs-4, mps,
// mig) each with the policies that fit, run over replicates as one sweep (cmd_sweep: its own processes, -j,
// --resume, its sweep.csv), then compared with exclusive FCFS (cli/AdviseAnalysis.hpp) into advise.json and
// report.html. docs/advise.md.
#include "cli/AdviseAnalysis.hpp"
#include "cli/Cli.hpp"
#include "cli/CliCommands.hpp"
#include "cli/Svg.hpp"

#include "base/Csv.hpp"
#include "base/Errors.hpp"
#include "base/Yaml.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Outputs.hpp"
#include "sim/Platform.hpp"
#include "sim/Resources.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "sim/engine/ModelError.hpp"
#include "workloads/TraceFormats.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace colocsim {

namespace {
namespace fs = std::filesystem;

const char* const ADVISE_HELP = R"(usage: colocsim advise TRACE --format F --platform P [options]

Should this workload share its GPUs (MIG, MPS, time-slicing, CCS partitions), with which scheduler, and
what would it save? Runs TRACE on platform P under every sharing option its devices support, each with the
policies that fit (--list-options shows them), over several replicate seeds, as one sweep in DIR (a sweep
folder: `colocsim plot DIR`, colocsim.load_sweep(DIR)). Then compares every option with exclusive FCFS: the
mean and 95 % interval (t-distribution) of energy, mean JCT, makespan, p95 wait and energy per completed
job; the Pareto front on two metrics; a recommendation in words. Writes DIR/advise.json,
DIR/report.html (one file: chart, table, recommendation) and DIR/front.svg (the chart alone) and prints
the table and the recommendation.

options:
  --format F          the trace's format: native, swf, itp, openb, pai, batsim, sacct or kubernetes
                      (required; colocsim formats)
  --platform P        platform preset or file (required): its devices decide the options
  --nodes N           number of nodes (overrides the preset's)
  --profile NAME      profile of the jobs the trace binds to none (default resnet50-train-bs32, as replay)
  --gpu-types honour|ignore
                      honour (default): a job whose trace names GPU types (sacct gres/gpu:TYPE, openb,
                      PAI, Kubernetes) runs only on those, and is rejected where the platform has none of
                      them; ignore: on any device type (workload.gpu_types), e.g. a site's own GRES
                      names such as a100
  --options LIST      only these options, comma-separated: labels (time-slice-2/first-fit), sharing groups
                      (mps, time-slice-4, mig) or policies (fgd); exclusive/exclusive-fcfs, the baseline,
                      always runs
  --list-options      print the options for this platform and exit (runs nothing, writes nothing)
  --metrics A,B       the two metrics of the front and the recommendation (default energy,jct): energy,
                      jct, makespan, p95_wait, throughput, energy_per_job
  --replicates R      seeds per option, 1..1000 (default 5)
  --budget DURATION   fit the whole advice into this wall time (90s, 10m, 1.5h; units ms, s, m, min,
                      h): times one run of the baseline, then keeps as many replicates (and, if not even
                      one of each option fits, as many options) as the rest of the budget allows; the
                      budget's end is also a deadline: no run starts after it and runs still running are
                      stopped (SIGTERM, SIGKILL 2 s later), so the advice ends within the budget plus
                      about 2 s and the report's writing (the baseline's first run always finishes);
                      options with fewer than 2 replicates (1 if 1 was planned) are not compared; the
                      report and advise.json say what the plan and the deadline left out; not with
                      --resume (resume without --budget to run what the deadline left)
  --model-error on|off
                      on (default): each replicate seed also draws the models' measured error (the
                      scenario's model_error at the measured sigmas: interference 0.573, MIG 0.090), so
                      the intervals include it; off: the models are taken as exact
  -o, --output DIR    output folder (default advise-out/<trace stem>)
  -j, --jobs N        runs at a time (default: the number of cores)
  --resume            DIR holds an unfinished advice of the same inputs: run only what is missing
  --force             DIR holds earlier results: run everything again and overwrite them
  --quiet             no table on stdout (progress still goes to stderr)

exit status: 0 done (an option whose runs failed, or that the deadline left out, is reported, not
fatal), 1 some run failed, or no advice: the baseline completed none of the trace's jobs or the deadline
left it too few replicates, 2 bad input or usage.
)";

constexpr const char* BASELINE = "exclusive/exclusive-fcfs";

struct AdviseArgs {
  std::string trace, format, platform, nodes, options, out_dir, profile = "resnet50-train-bs32";
  std::string gpu_types = "honour"; ///< --gpu-types: workload.gpu_types
  std::vector<std::string> metrics{"energy", "jct"};
  long long replicates = 5;
  std::optional<double> budget_s; ///< --budget: the wall time the whole advice should fit in
  bool model_error = true;        ///< --model-error: the replicates carry the models' measured error
  std::string jobs;
  bool list = false, resume = false, force = false, quiet = false, help = false;
};

std::vector<std::string> split(const std::string& text, char sep)
{
  std::vector<std::string> out;
  std::size_t from = 0;
  for (;;) {
    const auto to = text.find(sep, from);
    out.push_back(text.substr(from, to == std::string::npos ? std::string::npos : to - from));
    if (to == std::string::npos) return out;
    from = to + 1;
  }
}

AdviseArgs parse_advise_args(const std::vector<std::string>& args)
{
  AdviseArgs a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& s = args[i];
    if (s == "--help" || s == "-h") {
      a.help = true;
      return a;
    }
    if (s == "--format")
      a.format = next_arg(args, i);
    else if (s == "--platform")
      a.platform = next_arg(args, i);
    else if (s == "--nodes")
      a.nodes = next_arg(args, i);
    else if (s == "--profile")
      a.profile = next_arg(args, i);
    else if (s == "--options")
      a.options = next_arg(args, i);
    else if (s == "--gpu-types") {
      a.gpu_types = next_arg(args, i);
      if (a.gpu_types != "honour" && a.gpu_types != "ignore")
        throw UsageError("option --gpu-types expects honour or ignore (got '" + a.gpu_types + "')");
    } else if (s == "--list-options")
      a.list = true;
    else if (s == "--metrics") {
      const std::string v = next_arg(args, i);
      a.metrics = split(v, ',');
      std::vector<std::string> names;
      for (const auto& m : advise_metrics())
        names.push_back(m.name);
      if (a.metrics.size() != 2 || a.metrics[0] == a.metrics[1] || !find_advise_metric(a.metrics[0]) ||
          !find_advise_metric(a.metrics[1]))
        throw UsageError("option --metrics expects two different metrics A,B of " + join(names) + " (got '" +
                         v + "')");
    } else if (s == "--replicates") {
      const std::string v = next_arg(args, i);
      const auto x = parse_double(v);
      if (!x || *x < 1 || *x > 1000 || *x != std::floor(*x))
        throw UsageError("option --replicates expects a number of seeds per option, 1..1000 (got '" + v +
                         "')");
      a.replicates = static_cast<long long>(*x);
    } else if (s == "--budget")
      a.budget_s = parse_wall_time("--budget", next_arg(args, i));
    else if (s == "--model-error") {
      const std::string v = next_arg(args, i);
      if (v != "on" && v != "off")
        throw UsageError("option --model-error expects on or off (got '" + v + "')");
      a.model_error = v == "on";
    } else if (s == "-o" || s == "--output")
      a.out_dir = next_arg(args, i);
    else if (s == "-j" || s == "--jobs") {
      a.jobs = next_arg(args, i); // passed on to the sweep, which takes the same numbers
      const auto x = parse_double(a.jobs);
      if (!x || *x < 1 || *x != std::floor(*x) || *x > 1024)
        throw UsageError("option " + s + " expects a number of runs at a time, 1..1024 (got '" + a.jobs +
                         "')");
    } else if (s == "--resume")
      a.resume = true;
    else if (s == "--force")
      a.force = true;
    else if (s == "--quiet")
      a.quiet = true;
    else if (!s.empty() && s[0] == '-')
      throw UsageError("unknown option '" + s + "' (see colocsim advise --help)");
    else if (!a.trace.empty())
      throw UsageError("more than one trace given ('" + a.trace + "' and '" + s + "')");
    else
      a.trace = s;
  }
  if (a.trace.empty()) throw UsageError("advise needs a TRACE file (see colocsim advise --help)");
  if (a.format.empty())
    throw UsageError("advise needs --format (" + join(trace_format_names()) + "; see colocsim formats)");
  find_trace_format(a.format, SourceLocation{"command line --format"});
  if (a.platform.empty())
    throw UsageError(
        "advise needs --platform (a preset such as aurora-node or dgx-a100, or a platform file): "
        "its devices decide which sharing modes are compared");
  if (a.resume && a.force) throw UsageError("--resume and --force exclude each other");
  if (a.resume && a.budget_s)
    throw UsageError(
        "--budget and --resume exclude each other: what a budget allows depends on the machine's "
        "speed at the time; resume with the --replicates and --options the budget chose (in "
        "advise.json, budget)");
  if (a.out_dir.empty()) a.out_dir = (fs::path("advise-out") / fs::path(a.trace).stem()).string();
  return a;
}

/// The scenario every option starts from: the trace on the platform, exclusive FCFS; paths absolute.
std::string scenario_text(const AdviseArgs& a)
{
  const std::string platform = is_path(a.platform) && a.platform.rfind("builtin:", 0) != 0
                                   ? fs::absolute(a.platform).lexically_normal().string()
                                   : a.platform;
  std::ostringstream f;
  f << "# Written by `colocsim advise`: the scenario every option of the advice starts from\n"
    << "name: " << yaml_quote("advise-" + fs::path(a.trace).stem().string()) << "\n"
    << "seed: 1\n"
    << "platform:\n  preset: " << yaml_quote(platform) << "\n  sharing: exclusive\n";
  if (!a.nodes.empty()) f << "  nodes: " << yaml_quote(a.nodes) << "\n";
  f << "workload:\n  trace: " << yaml_quote(fs::absolute(a.trace).lexically_normal().string())
    << "\n  format: " << yaml_quote(a.format) << "\n  default_profile: " << yaml_quote(a.profile) << "\n";
  if (a.gpu_types != "honour") f << "  gpu_types: " << yaml_quote(a.gpu_types) << "\n";
  f << "policy:\n  name: exclusive-fcfs\n"
    << "outputs:\n  timeseries: \"off\"\n";
  // Each replicate seed is then also a draw of the models' error (sim/engine/ModelError.hpp).
  if (a.model_error)
    f << "model_error:\n  interference: " << json_number(MEASURED_INTERFERENCE_SIGMA)
      << "\n  mig: " << json_number(MEASURED_MIG_SIGMA) << "\n";
  return f.str();
}

/// One option: a sharing mode with a policy and its parameters.
struct AdviseOption {
  std::string label;       ///< "time-slice-2/first-fit": group/policy
  std::string sharing;     ///< platform.sharing
  std::string policy;      ///< NAME or NAME:K=V,...
  std::string mig_layout;  ///< platform.mig_layout, for a static MIG layout
  std::string description; ///< words for people
  std::string group() const { return label.substr(0, label.find('/')); }
  std::string policy_name() const { return label.substr(label.find('/') + 1); }
};

/// What the platform's devices are: the sharing modes every device type supports, and the MIG geometry of
/// the reference type when it supports mig.
struct PlatformProbe {
  std::vector<SharingMode> modes;
  std::string devices;
  std::shared_ptr<const MigGeometry> mig;
};

/// The base scenario in a temporary file while it lives (--list-options writes nothing in DIR, and --budget
/// times a run before it knows what to write there).
class TempScenario {
public:
  explicit TempScenario(const AdviseArgs& a)
      : file_(fs::temp_directory_path() / ("colocsim-advise-" + std::to_string(::getpid()) + ".yaml"))
  {
    std::ofstream f(file_);
    f << scenario_text(a);
    if (!f) throw OutputError("cannot write the temporary file " + file_.string());
  }
  TempScenario(const TempScenario&) = delete;
  TempScenario& operator=(const TempScenario&) = delete;
  ~TempScenario()
  {
    std::error_code ec;
    fs::remove(file_, ec);
  }
  const fs::path& path() const { return file_; }
  /// The scenario with `sets` and `policy` built; InputError naming the command line for its errors.
  RunInputs load(const std::vector<std::string>& sets, const std::string& policy) const
  {
    try {
      return build_run(load_scenario(file_.string(), sets, policy, PluginConsent{false, {}, true}));
    } catch (const InputError& e) {
      std::vector<Diagnostic> out;
      for (auto d : e.diagnostics()) {
        if (d.where.file == file_.string()) d.where = SourceLocation{"command line"};
        out.push_back(std::move(d));
      }
      throw InputError(std::move(out));
    }
  }

private:
  fs::path file_;
};

/// Loads the base scenario to learn the platform's devices. InputError for a bad trace, platform or format,
/// naming the command-line option.
PlatformProbe probe_platform(const AdviseArgs& a)
{
  const TempScenario tmp(a);
  const auto load = [&](const std::vector<std::string>& sets, const std::string& policy) {
    return tmp.load(sets, policy);
  };
  PlatformProbe p;
  const RunInputs base = load({}, {});
  p.devices = device_types(base.platform);
  for (const auto m : base.platform.types[0].spec->sharing_modes) {
    bool all = true;
    for (const auto& t : base.platform.types)
      all = all && std::find(t.spec->sharing_modes.begin(), t.spec->sharing_modes.end(), m) !=
                       t.spec->sharing_modes.end();
    if (all) p.modes.push_back(m);
  }
  if (std::find(p.modes.begin(), p.modes.end(), SharingMode::MIG) != p.modes.end())
    p.mig = load({"platform.sharing=mig"}, "mig-manager").platform.types[0].mig;
  return p;
}

bool has_param(const PolicyInfo& p, const std::string& name)
{
  return std::any_of(p.params.begin(), p.params.end(), [&](const ParamSpec& s) { return s.name == name; });
}

bool fits(const PolicyInfo& p, SharingMode m)
{
  return p.requirements.sharing.empty() ||
         std::find(p.requirements.sharing.begin(), p.requirements.sharing.end(), m) !=
             p.requirements.sharing.end();
}

/// A few fixed MIG layouts of the geometry: the smallest instance as many times as fits, two halves, one half
/// with the rest in the smallest instances (each kept only if legal, each once).
std::vector<std::vector<std::string>> mig_layouts(const MigGeometry& g)
{
  const auto& ps = g.profiles();
  if (ps.empty()) return {};
  std::size_t smallest = 0, half = ps.size();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    if (ps[i].compute_slices < ps[smallest].compute_slices ||
        (ps[i].compute_slices == ps[smallest].compute_slices &&
         ps[i].memory_slices < ps[smallest].memory_slices))
      smallest = i;
    if (2 * ps[i].compute_slices <= g.compute_slices() &&
        (half == ps.size() || ps[i].compute_slices > ps[half].compute_slices ||
         (ps[i].compute_slices == ps[half].compute_slices && ps[i].memory_slices > ps[half].memory_slices)))
      half = i;
  }
  std::vector<std::vector<std::size_t>> candidates;
  std::vector<std::size_t> all_small;
  while (all_small.size() < 64) { // the largest legal run of the smallest instance
    all_small.push_back(smallest);
    if (!g.arrange(all_small)) {
      all_small.pop_back();
      break;
    }
  }
  candidates.push_back(all_small);
  if (half < ps.size()) {
    candidates.push_back({half, half});
    std::vector<std::size_t> mixed{half};
    while (mixed.size() < 64) {
      mixed.push_back(smallest);
      if (!g.arrange(mixed)) {
        mixed.pop_back();
        break;
      }
    }
    candidates.push_back(mixed);
  }
  std::vector<std::vector<std::string>> out;
  for (const auto& c : candidates) {
    if (c.empty() || !g.arrange(c)) continue;
    std::vector<std::string> names;
    for (auto i : c)
      names.push_back(ps[i].name);
    if (std::find(out.begin(), out.end(), names) == out.end()) out.push_back(names);
  }
  return out;
}

/// "7x1g.5gb" / "3g.20gb+2x1g.5gb": a layout for a label.
std::string layout_label(const std::vector<std::string>& names)
{
  std::string out;
  for (std::size_t i = 0; i < names.size();) {
    std::size_t j = i;
    while (j < names.size() && names[j] == names[i])
      ++j;
    if (!out.empty()) out += '+';
    if (j - i > 1) out += std::to_string(j - i) + "x";
    out += names[i];
    i = j;
  }
  return out;
}

/// Every option of the platform: exclusive with exclusive-fcfs and exclusive-easy; time-slice with 2 and 4
/// jobs per device (max_per_device) for each co-location policy of the registry that fits it; ccs-2, ccs-4
/// and mps with each policy that fits; mig with mig-manager on fixed layouts and with its dynamic sizing.
std::vector<AdviseOption> enumerate_options(const PlatformProbe& p)
{
  const auto supports = [&](SharingMode m) {
    return std::find(p.modes.begin(), p.modes.end(), m) != p.modes.end();
  };
  std::vector<AdviseOption> out;
  // Co-location policies: the registry's, but the exclusive ones, mig-manager and wrappers (power-aware).
  std::vector<const PolicyInfo*> coloc;
  for (const auto& info : policy_registry())
    if (info.name != "exclusive-fcfs" && info.name != "exclusive-easy" && info.name != "mig-manager" &&
        info.requirements.inner_policy_param.empty())
      coloc.push_back(&info);
  if (supports(SharingMode::EXCLUSIVE)) {
    out.push_back({BASELINE, "exclusive", "exclusive-fcfs", "", "exclusive devices, FCFS (the baseline)"});
    out.push_back({"exclusive/exclusive-easy", "exclusive", "exclusive-easy", "",
                   "exclusive devices, EASY backfilling"});
  }
  if (supports(SharingMode::TIME_SLICE))
    for (const auto* info : coloc) {
      if (!fits(*info, SharingMode::TIME_SLICE)) continue;
      if (has_param(*info, "max_per_device"))
        for (int k : {2, 4})
          out.push_back({"time-slice-" + std::to_string(k) + "/" + info->name, "time-slice",
                         info->name + ":max_per_device=" + std::to_string(k), "",
                         "time-slicing, at most " + std::to_string(k) + " jobs per device, " + info->name});
      else
        out.push_back({"time-slice/" + info->name, "time-slice", info->name, "",
                       "time-slicing, " + info->name + " (its own limit of jobs per device)"});
    }
  for (const auto& [mode, name] :
       {std::pair{SharingMode::CCS_2, "ccs-2"}, {SharingMode::CCS_4, "ccs-4"}, {SharingMode::MPS, "mps"}}) {
    if (!supports(mode)) continue;
    for (const auto* info : coloc)
      if (fits(*info, mode))
        out.push_back(
            {std::string(name) + "/" + info->name, name, info->name, "",
             std::string(name == std::string("mps") ? "MPS" : std::string("CCS partitions, ") + name) + ", " +
                 info->name});
  }
  if (supports(SharingMode::MIG) && p.mig) {
    for (const auto& layout : mig_layouts(*p.mig)) {
      std::string joined;
      for (const auto& n : layout)
        joined += (joined.empty() ? "" : ",") + n;
      out.push_back({"mig-" + layout_label(layout) + "/mig-manager", "mig", "mig-manager:reconfigure=false",
                     joined,
                     "MIG, fixed layout " + layout_label(layout) + " on every GPU, mig-manager placing"});
    }
    out.push_back({"mig-dynamic/mig-manager", "mig", "mig-manager", "",
                   "MIG, instances sized per job by mig-manager (fission and fusion)"});
  }
  return out;
}

/// The options --options asks for (labels, groups or policy names); the baseline always. UsageError for an
/// item that matches nothing.
std::vector<AdviseOption> select_options(const std::vector<AdviseOption>& all, const std::string& list)
{
  if (list.empty()) return all;
  const auto items = split(list, ',');
  std::vector<bool> keep(all.size(), false);
  for (const auto& item : items) {
    bool any = false;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::string g = all[i].group();
      if (all[i].label == item || g == item || g.rfind(item + "-", 0) == 0 || all[i].policy_name() == item) {
        keep[i] = true;
        any = true;
      }
    }
    if (!any) {
      std::vector<std::string> labels;
      for (const auto& o : all)
        labels.push_back(o.label);
      throw UsageError("--options: '" + item + "' matches no option of this platform; valid: " +
                       join(labels) + " (or a group before '/', or a policy after it)");
    }
  }
  std::vector<AdviseOption> out;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (keep[i] || all[i].label == BASELINE) out.push_back(all[i]);
  return out;
}

/// What --budget allowed: the timing run, the replicates and the options it kept.
struct BudgetPlan {
  double budget_s = 0;
  double timing_run_s = 0;  ///< the baseline's seed 1, run as the sweep runs it
  double before_runs_s = 0; ///< wall time from the command's start to the plan (the timing run in it)
  long long parallel = 1;   ///< runs at a time (-j)
  long long runs_fit = 0;   ///< the runs that fit BUDGET_USE of the budget left
  long long replicates_asked = 0;
  std::size_t options_asked = 0;
  double planned_s = 0;              ///< the kept runs' estimated wall time
  std::vector<std::string> left_out; ///< options the budget left out, in the listing's order
  double elapsed_s = NAN;            ///< the whole command's wall time, once the runs are done
  // What the deadline (the budget's end, the sweep's deadline) left out of the runs planned, once they are
  // done.
  long long runs_not_run = 0;                 ///< stopped at the deadline or never started
  std::vector<std::string> deadline_left_out; ///< options with no run finished, in the listing's order
  /// Options with some replicates finished but fewer than planned: label, replicates finished (ok or not).
  std::vector<std::pair<std::string, std::size_t>> deadline_fewer;
  std::size_t min_replicates = 1; ///< the fewest ok replicates an option is compared with
};

/// The share of the budget left after the timing run that the plan fills: the other options may be slower
/// than the baseline, and each run also starts a process and writes its outputs.
constexpr double BUDGET_USE = 0.8;

/// What a run of the average option costs against the baseline's run, which is all the plan can time:
/// 1.7× (10k jobs) and 2.9× (100k jobs) over the 38 options of a DGX A100 node [measured: BENCHMARKS.md,
/// "`colocsim advise`: how long an advice takes"]; 3 covers both.
constexpr double OPTION_COST = 3.0;

/// "1 h 5 min", "4 min 30 s", "90 s", "0.25 s".
std::string duration_text(double seconds)
{
  std::ostringstream os;
  if (seconds < 10) {
    os << std::setprecision(2) << seconds << " s";
    return os.str();
  }
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s >= 3600)
    os << s / 3600 << " h " << s % 3600 / 60 << " min";
  else if (s >= 120)
    os << s / 60 << " min " << s % 60 << " s";
  else
    os << s << " s";
  return os.str();
}

/// --budget: times the baseline's first replicate (a `colocsim run` of its own, as the sweep runs it: the
/// process started, the trace read and mapped, the run, its outputs written), then keeps the replicates and
/// options whose runs, `parallel` at a time and each OPTION_COST times the baseline's, fit BUDGET_USE of the
/// budget left (choose_within_budget: fewer replicates first, then fewer options).
BudgetPlan plan_budget(AdviseArgs& a, std::vector<AdviseOption>& options,
                       std::chrono::steady_clock::time_point started)
{
  using Clock = std::chrono::steady_clock;
  BudgetPlan plan;
  plan.budget_s = *a.budget_s;
  plan.replicates_asked = a.replicates;
  plan.options_asked = options.size();
  plan.parallel = a.jobs.empty() ? std::max(1L, sysconf(_SC_NPROCESSORS_ONLN))
                                 : static_cast<long long>(*parse_double(a.jobs));
  {
    // As the sweep will run it: its own process, the base scenario (the baseline, seed 1), outputs written.
    const TempScenario tmp(a);
    const fs::path runs =
        fs::temp_directory_path() / ("colocsim-advise-" + std::to_string(::getpid()) + "-timing");
    struct Remove {
      fs::path p;
      ~Remove()
      {
        std::error_code ec;
        fs::remove_all(p, ec);
      }
    } remove{runs};
    std::error_code ec;
    fs::create_directories(runs, ec);
    if (ec) throw OutputError("cannot create the temporary folder " + runs.string() + ": " + ec.message());
    const auto t0 = Clock::now();
    const pid_t pid = spawn_logged(
        self_exe(), {"run", tmp.path().string(), "-o", (runs / "out").string(), "--quiet"}, runs / "log.txt");
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    plan.timing_run_s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw std::runtime_error("advise --budget: the timing run of " + std::string(BASELINE) +
                               " (seed 1) failed: " + read_text_file((runs / "log.txt").string()).text);
  }
  plan.before_runs_s = std::chrono::duration<double>(Clock::now() - started).count();
  const double usable = BUDGET_USE * (plan.budget_s - plan.before_runs_s);
  const double t = OPTION_COST * plan.timing_run_s; // an average option's run
  // Whole waves of `parallel` runs that fit (capped: a budget of days for a run of microseconds).
  const double waves = usable <= 0 ? 0.0 : t > 0 ? std::floor(usable / t) : 1e12;
  const auto capacity = static_cast<long long>(std::min(1e12, waves * static_cast<double>(plan.parallel)));
  std::vector<std::string> labels;
  for (const auto& o : options)
    labels.push_back(o.label);
  plan.runs_fit = capacity;
  const BudgetChoice choice = choose_within_budget(capacity, labels, BASELINE, a.replicates);
  a.replicates = choice.replicates;
  std::vector<AdviseOption> kept;
  for (std::size_t i = 0, k = 0; i < options.size(); ++i) {
    if (k < choice.kept.size() && choice.kept[k] == i) {
      kept.push_back(options[i]);
      ++k;
    } else
      plan.left_out.push_back(options[i].label);
  }
  options = std::move(kept);
  const auto runs = static_cast<long long>(options.size()) * a.replicates;
  const long long rounds = (runs + plan.parallel - 1) / plan.parallel; // whole rounds of parallel runs
  plan.planned_s = static_cast<double>(rounds) * t;
  return plan;
}

/// The plan in words, for stderr, stdout and report.html.
std::string budget_text(const BudgetPlan& p, long long replicates, std::size_t options)
{
  std::ostringstream os;
  os << "Budget " << duration_text(p.budget_s) << ": one run of the baseline took "
     << duration_text(p.timing_run_s) << " here, so with " << p.parallel << " run(s) at a time " << p.runs_fit
     << " run(s) fit in " << std::lround(100 * BUDGET_USE) << " % of the budget left: ";
  if (replicates == p.replicates_asked && p.left_out.empty())
    os << "all " << options << " options with the " << replicates << " replicate(s) asked";
  else
    os << replicates << " of the " << p.replicates_asked << " replicate(s) asked, for " << options
       << " of the " << p.options_asked << " options";
  if (p.runs_fit < 1) os << " (the baseline runs once all the same)";
  os << "; about " << duration_text(p.planned_s) << " of runs planned.";
  if (!p.left_out.empty()) os << " Left out: " << join(p.left_out) << ".";
  if (replicates < p.replicates_asked)
    os << (replicates == 1 ? " One replicate gives no interval: the differences shown may be noise."
                           : " Fewer replicates give wider intervals.");
  return os.str();
}

/// What the deadline left out, in words (empty when every planned run finished).
std::string deadline_text(const BudgetPlan& p, long long replicates)
{
  if (p.runs_not_run == 0) return "";
  std::ostringstream os;
  os << "The deadline (the budget's end) stopped the runs: " << p.runs_not_run
     << " planned run(s) did not run (stopped or never started; --resume without --budget runs them).";
  if (!p.deadline_left_out.empty())
    os << " Left out by the deadline, no run finished: " << join(p.deadline_left_out) << ".";
  if (!p.deadline_fewer.empty()) {
    os << " Fewer replicates than the " << replicates << " planned:";
    for (std::size_t k = 0; k < p.deadline_fewer.size(); ++k)
      os << (k ? "," : "") << " " << p.deadline_fewer[k].first << " " << p.deadline_fewer[k].second;
    os << ".";
  }
  os << " Only options with at least " << p.min_replicates << " replicate(s) are compared.";
  return os.str();
}

std::string budget_json(const std::optional<BudgetPlan>& p, long long replicates)
{
  if (!p) return "null";
  std::ostringstream j;
  j << "{\"budget_s\": " << json_number(p->budget_s) << ", \"timing_run_s\": " << json_number(p->timing_run_s)
    << ", \"parallel_runs\": " << p->parallel << ", \"runs_fit\": " << p->runs_fit
    << ", \"replicates_asked\": " << p->replicates_asked << ", \"replicates\": " << replicates
    << ", \"options_asked\": " << p->options_asked << ", \"options_left_out\": [";
  for (std::size_t k = 0; k < p->left_out.size(); ++k)
    j << (k ? ", " : "") << json_string(p->left_out[k]);
  j << "], \"planned_runs_s\": " << json_number(p->planned_s)
    << ", \"elapsed_s\": " << json_number(p->elapsed_s)
    << ", \"stop_grace_s\": " << json_number(SWEEP_STOP_GRACE_S) << ", \"runs_not_run\": " << p->runs_not_run
    << ", \"options_left_out_by_deadline\": [";
  for (std::size_t k = 0; k < p->deadline_left_out.size(); ++k)
    j << (k ? ", " : "") << json_string(p->deadline_left_out[k]);
  j << "], \"options_with_fewer_replicates\": [";
  for (std::size_t k = 0; k < p->deadline_fewer.size(); ++k)
    j << (k ? ", " : "") << "{\"label\": " << json_string(p->deadline_fewer[k].first)
      << ", \"replicates\": " << p->deadline_fewer[k].second << "}";
  j << "], \"min_replicates\": " << p->min_replicates << "}";
  return j.str();
}

const std::vector<std::string>& table_fields()
{
  static const std::vector<std::string> f{
      "energy_total_j",        "jct_mean_s",     "makespan_s", "wait_p95_s", "energy_per_completed_job_j",
      "throughput_jobs_per_h", "jobs_completed", "jobs_read"};
  return f;
}

/// The sweep spec of the advice: one bundled axis `option`, the replicates as seeds.
std::string spec_text(const AdviseArgs& a, const std::vector<AdviseOption>& options)
{
  std::ostringstream s;
  s << "# Written by `colocsim advise`: every option of the advice (axis `option`) over " << a.replicates
    << " replicate seed(s).\n# Rerun by hand with: colocsim sweep sweep.yaml -o <this folder> --resume\n"
    << "name: " << yaml_quote("advise-" + fs::path(a.trace).stem().string()) << "\n"
    << "scenario: scenario.yaml\n"
    << "axes:\n  option:\n";
  for (const auto& o : options) {
    s << "    - {label: " << yaml_quote(o.label) << ", policy: " << yaml_quote(o.policy)
      << ", set: {platform.sharing: " << yaml_quote(o.sharing);
    if (!o.mig_layout.empty()) s << ", platform.mig_layout: " << yaml_quote(o.mig_layout);
    s << "}}\n";
  }
  s << "seeds: {first: 1, count: " << a.replicates << "}\n"
    << "metrics: [" << join(table_fields()) << "]\n";
  return s.str();
}

/// Writes `text` to `file`, or OutputError.
void write_text(const fs::path& file, const std::string& text)
{
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  check_written(f, file);
}

/// The folder: never overwritten without --force; --resume needs the same inputs (scenario.yaml and
/// sweep.yaml as this command would write them).
void prepare_folder(const AdviseArgs& a, const fs::path& dir, const std::string& scenario,
                    const std::string& spec)
{
  std::error_code ec;
  const bool exists = fs::exists(dir, ec) && !fs::is_empty(dir, ec);
  if (exists && a.resume) {
    for (const auto& [name, text] : {std::pair{"scenario.yaml", &scenario}, {"sweep.yaml", &spec}}) {
      const fs::path f = dir / name;
      if (!fs::exists(f, ec))
        throw InputError(SourceLocation{dir.string()}, "",
                         std::string("holds no advice to resume (no ") + name +
                             "); use --force to write one there, or -o DIR");
      if (read_text_file(f.string()).text != *text)
        throw InputError(
            SourceLocation{f.string()}, "",
            "differs from what these arguments give (another trace, platform, option list or "
            "number of replicates); --resume needs the same; use --force to start again, or -o DIR");
    }
  } else if (exists && !a.force)
    throw InputError(SourceLocation{dir.string()}, "",
                     "exists and is not empty; pass --resume to finish an advice there, --force to overwrite "
                     "it, or -o DIR to write elsewhere");
  fs::create_directories(dir, ec);
  if (ec)
    throw InputError(SourceLocation{dir.string()}, "", "cannot create the output folder: " + ec.message());
  if (!a.resume) {
    std::error_code ignore;
    for (const char* old : {"advise.json", "report.html", "front.svg"})
      fs::remove(dir / old, ignore);
  }
  write_text(dir / "scenario.yaml", scenario);
  write_text(dir / "sweep.yaml", spec);
}

/// sweep.csv's rows grouped per option (the `option` column), the ok runs with their numbers.
std::vector<AdviseOptionRuns> read_results(const fs::path& dir, const std::vector<AdviseOption>& options)
{
  const fs::path file = dir / "sweep.csv";
  const TextFile text = read_text_file(file.string());
  std::istringstream in(text.text);
  std::string line;
  std::vector<std::string> header, cells;
  std::getline(in, line);
  if (!split_csv_line(line, header))
    throw InputError(SourceLocation{file.string(), 1}, "", "expected the header of a sweep.csv");
  const auto col = [&](const std::string& name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw InputError(SourceLocation{file.string(), 1}, name,
                       "missing column; expected colocsim's sweep.csv");
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t c_run = col("run"), c_status = col("status"), c_option = col("option"),
                    c_seed = col("seed");
  std::vector<AdviseOptionRuns> runs;
  for (const auto& o : options)
    runs.push_back({o.label, 0, {}});
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    if (!split_csv_line(line, cells) || cells.size() != header.size())
      throw InputError(SourceLocation{file.string(), lineno}, "",
                       "expected " + std::to_string(header.size()) + " fields");
    const auto it =
        std::find_if(runs.begin(), runs.end(), [&](const auto& r) { return r.label == cells[c_option]; });
    if (it == runs.end()) continue;
    if (cells[c_status] == "infeasible") continue;
    if (cells[c_status] == "deadline") { // not run: the deadline passed first; neither a result nor a failure
      ++it->not_run;
      continue;
    }
    ++it->runs;
    if (cells[c_status] != "ok") continue;
    AdviseReplicate rep;
    rep.seed = static_cast<long long>(parse_double(cells[c_seed]).value_or(0));
    rep.run = cells[c_run];
    for (std::size_t c = c_seed + 1; c < header.size(); ++c)
      if (const auto x = parse_double(cells[c]); x && find_summary_field(header[c]))
        rep.numbers[header[c]] = *x;
    it->ok.push_back(std::move(rep));
  }
  return runs;
}

/// Why the baseline did not complete some jobs: the `jobs_by_reason` of the summary.json of its successful
/// run of the lowest seed, as "seed 1: 2 rejected: ...; 1 failed: ...". Empty when it completed every job or
/// that file cannot be read (the table says how many it completed all the same).
std::string baseline_reasons(const fs::path& dir, const AdviseOptionRuns& base)
{
  const auto first = std::min_element(base.ok.begin(), base.ok.end(),
                                      [](const auto& x, const auto& y) { return x.seed < y.seed; });
  if (first == base.ok.end() || first->run.empty() || first->run.find('/') != std::string::npos ||
      first->run.find("..") != std::string::npos)
    return "";
  try {
    const fs::path summary = dir / first->run / "summary.json";
    const YAML::Node reasons =
        load_yaml(read_text_file(summary.string()).text, summary.string())["jobs_by_reason"];
    if (!reasons || !reasons.IsMap() || reasons.size() == 0) return "";
    std::string t;
    for (const auto& r : reasons)
      t += (t.empty() ? "" : "; ") + r.second.as<std::string>() + " " + r.first.as<std::string>();
    return "seed " + std::to_string(first->seed) + ": " + t;
  } catch (const std::exception&) {
    return ""; // a folder not as the sweep wrote it: the table's counts stand alone
  }
}

std::string fixed(double x, int digits)
{
  if (!std::isfinite(x)) return "-";
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << x;
  return os.str();
}

/// A metric's value in the unit people read: energy in kWh, times in h (or s below a minute... kept in the
/// field's unit otherwise).
struct Shown {
  double scale;
  std::string unit;
};
Shown shown(const AdviseMetric& m)
{
  if (m.unit == "J") return {1.0 / 3.6e6, "kWh"};
  if (m.unit == "s") return {1.0 / 3600, "h"};
  return {1.0, m.unit};
}

std::string interval_cell(const Interval& iv, const AdviseMetric& m)
{
  if (iv.n == 0) return "-";
  const Shown s = shown(m);
  std::string t = significant_text(iv.mean * s.scale, 4);
  if (!iv.single) t += " \u00b1 " + significant_text(iv.half * s.scale, 2);
  return t;
}

std::string interval_json(const Interval& iv)
{
  return "{\"mean\": " + json_number(iv.n ? iv.mean : NAN) +
         ", \"low\": " + json_number(iv.n ? iv.low : NAN) +
         ", \"high\": " + json_number(iv.n ? iv.high : NAN) +
         ", \"half_width\": " + json_number(iv.n ? iv.half : NAN) + ", \"n\": " + std::to_string(iv.n) + "}";
}

/// The σ of the models' error the replicates drew, and where they come from (null when off).
std::string model_error_json(const AdviseArgs& a)
{
  if (!a.model_error) return "null";
  return "{\"interference_sigma\": " + json_number(MEASURED_INTERFERENCE_SIGMA) +
         ", \"mig_sigma\": " + json_number(MEASURED_MIG_SIGMA) +
         ", \"source\": " + json_string(MODEL_ERROR_SOURCE) + "}";
}

std::string advise_json(const AdviseArgs& a, const PlatformProbe& p, const std::vector<AdviseOption>& options,
                        const AdviseAnalysis& an, const std::optional<BudgetPlan>& budget)
{
  std::ostringstream j;
  j << "{\n  \"trace\": " << json_string(fs::absolute(a.trace).lexically_normal().string())
    << ",\n  \"format\": " << json_string(a.format) << ",\n  \"platform\": " << json_string(a.platform)
    << ",\n  \"nodes\": " << (a.nodes.empty() ? "null" : json_string(a.nodes))
    << ",\n  \"devices\": " << json_string(p.devices) << ",\n  \"replicates\": " << a.replicates
    << ",\n  \"budget\": " << budget_json(budget, a.replicates) << ",\n  \"confidence\": 0.95"
    << ",\n  \"replicates_identical\": " << (an.replicates_identical ? "true" : "false")
    << ",\n  \"model_error\": " << model_error_json(a) << ",\n  \"baseline\": " << json_string(an.baseline)
    << ",\n  \"metrics\": [" << json_string(an.metrics[0]) << ", " << json_string(an.metrics[1])
    << "],\n  \"compared\": [" << json_string(an.compared[0]) << ", " << json_string(an.compared[1])
    << "],\n  \"options\": [";
  for (std::size_t i = 0; i < an.options.size(); ++i) {
    const auto& o = an.options[i];
    const auto& opt = options[i];
    j << (i ? "," : "") << "\n    {\"label\": " << json_string(o.label)
      << ", \"description\": " << json_string(opt.description)
      << ", \"sharing\": " << json_string(opt.sharing) << ", \"policy\": " << json_string(opt.policy)
      << ", \"mig_layout\": " << (opt.mig_layout.empty() ? "null" : json_string(opt.mig_layout))
      << ",\n     \"runs\": " << o.runs << ", \"ok\": " << o.ok << ", \"not_run\": " << o.not_run
      << ", \"jobs_completed\": " << json_number(o.jobs_completed)
      << ", \"jobs_read\": " << json_number(o.jobs_read) << ", \"lossy\": " << (o.lossy ? "true" : "false")
      << ", \"jobs_failed\": " << json_number(o.jobs_failed)
      << ", \"jobs_rejected\": " << json_number(o.jobs_rejected)
      << ", \"oom_events\": " << json_number(o.oom_events) << ",\n     \"metrics\": {";
    bool first = true;
    for (const auto& m : advise_metrics()) {
      j << (first ? "" : ", ") << "\n       " << json_string(m.name) << ": "
        << interval_json(o.metrics.at(m.name));
      first = false;
    }
    j << "},\n     \"change_pct\": {";
    first = true;
    for (const auto& m : advise_metrics())
      if (const auto it = o.change.find(m.name); it != o.change.end()) {
        j << (first ? "" : ", ") << "\n       " << json_string(m.name) << ": " << interval_json(it->second);
        first = false;
      }
    j << "},\n     \"on_front\": " << (o.on_front ? "true" : "false") << ", \"dominated_by\": [";
    for (std::size_t k = 0; k < o.dominated_by.size(); ++k)
      j << (k ? ", " : "") << json_string(o.dominated_by[k]);
    j << "]}";
  }
  j << "\n  ],\n  \"front\": [";
  for (std::size_t k = 0; k < an.front.size(); ++k)
    j << (k ? ", " : "") << json_string(an.front[k]);
  j << "],\n  \"recommended\": " << (an.recommended.empty() ? "null" : json_string(an.recommended))
    << ",\n  \"recommendation\": " << json_string(an.recommendation) << "\n}\n";
  return j.str();
}

/// The scatter of the two compared metrics: a point per option with an ok run at its means, error bars of
/// its intervals, the front's points filled and joined. Plain SVG.
std::string scatter_svg(const AdviseAnalysis& an)
{
  const AdviseMetric& mx = *find_advise_metric(an.compared[0]);
  const AdviseMetric& my = *find_advise_metric(an.compared[1]);
  const Shown sx = shown(mx), sy = shown(my);
  constexpr double W = 720, H = 480, L = 80, R = 20, T = 20, B = 60;
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  std::vector<const AdviseOptionStats*> pts;
  for (const auto& o : an.options) {
    const auto& ix = o.metrics.at(mx.name);
    const auto& iy = o.metrics.at(my.name);
    if (ix.n == 0 || iy.n == 0 || o.too_few) continue; // too few replicates to compare: not drawn
    pts.push_back(&o);
    x0 = std::min(x0, ix.low * sx.scale);
    x1 = std::max(x1, ix.high * sx.scale);
    y0 = std::min(y0, iy.low * sy.scale);
    y1 = std::max(y1, iy.high * sy.scale);
  }
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 "
    << W << " " << H << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
    << "<rect width=\"" << W << "\" height=\"" << H << "\" fill=\"white\"/>\n"; // legible on a dark page too
  if (pts.empty()) {
    s << "<text x=\"20\" y=\"40\">no option has a successful run</text>\n</svg>\n";
    return s.str();
  }
  const auto pad = [](double& lo, double& hi) {
    const double span = hi - lo > 0 ? hi - lo : std::max(std::fabs(hi), 1.0) * 0.1;
    lo -= 0.08 * span;
    hi += 0.08 * span;
  };
  pad(x0, x1);
  pad(y0, y1);
  const auto px = [&](double v) { return L + (v - x0) / (x1 - x0) * (W - L - R); };
  const auto py = [&](double v) { return H - B - (v - y0) / (y1 - y0) * (H - T - B); };
  s << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << W - L - R << "\" height=\"" << H - T - B
    << "\" fill=\"none\" stroke=\"#444\"/>\n";
  const double stx = svg::tick_step(x1 - x0, 6), sty = svg::tick_step(y1 - y0, 6);
  for (double v = std::ceil(x0 / stx) * stx; v <= x1; v += stx)
    s << "<line x1=\"" << svg::num(px(v)) << "\" y1=\"" << H - B << "\" x2=\"" << svg::num(px(v))
      << "\" y2=\"" << H - B + 5 << "\" stroke=\"#444\"/><text x=\"" << svg::num(px(v)) << "\" y=\""
      << H - B + 18 << "\" text-anchor=\"middle\">" << svg::xml(svg::short_number(v)) << "</text>\n";
  for (double v = std::ceil(y0 / sty) * sty; v <= y1; v += sty)
    s << "<line x1=\"" << L - 5 << "\" y1=\"" << svg::num(py(v)) << "\" x2=\"" << L << "\" y2=\""
      << svg::num(py(v)) << "\" stroke=\"#444\"/><text x=\"" << L - 8 << "\" y=\"" << svg::num(py(v) + 4)
      << "\" text-anchor=\"end\">" << svg::xml(svg::short_number(v)) << "</text>\n";
  s << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 15 << "\" text-anchor=\"middle\">"
    << svg::xml(mx.label + " (" + sx.unit + ")" +
                (mx.lower_is_better ? ", less is better" : ", more is better"))
    << "</text>\n<text transform=\"translate(18," << (T + H - B) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">"
    << svg::xml(my.label + " (" + sy.unit + ")" +
                (my.lower_is_better ? ", less is better" : ", more is better"))
    << "</text>\n";
  // The front joined in order of x.
  std::vector<const AdviseOptionStats*> front;
  for (const auto* o : pts)
    if (o->on_front) front.push_back(o);
  std::sort(front.begin(), front.end(), [&](const auto* a, const auto* b) {
    return a->metrics.at(mx.name).mean < b->metrics.at(mx.name).mean;
  });
  if (front.size() > 1) {
    s << "<polyline class=\"front\" fill=\"none\" stroke=\"#d55e00\" stroke-width=\"1.5\" points=\"";
    for (const auto* o : front)
      s << svg::num(px(o->metrics.at(mx.name).mean * sx.scale)) << ","
        << svg::num(py(o->metrics.at(my.name).mean * sy.scale)) << " ";
    s << "\"/>\n";
  }
  // Where labels went: options at (nearly) the same point, as options that share everything but the policy
  // often are, get their labels one under the other instead of on top of each other.
  std::vector<std::pair<double, double>> placed;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto& o = *pts[i];
    const auto& ix = o.metrics.at(mx.name);
    const auto& iy = o.metrics.at(my.name);
    const double cx = px(ix.mean * sx.scale), cy = py(iy.mean * sy.scale);
    const std::string colour = o.on_front ? "#d55e00" : "#0072b2";
    const bool right_half = cx > (L + W - R) / 2; // its label to the left of the point, inside the plot
    const double lx = right_half ? cx - 7 : cx + 7;
    double ly = cy - 6;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto& [x, y] : placed)
        if (std::fabs(x - lx) < 40 && std::fabs(y - ly) < 11) {
          ly = y + 12;
          moved = true;
        }
    }
    placed.emplace_back(lx, ly);
    s << "<g class=\"point\" data-label=\"" << svg::xml(o.label) << "\"><title>" << svg::xml(o.label)
      << (o.on_front ? " (front)" : " (dominated)") << (o.lossy ? ", loses jobs" : "") << "</title>"
      << "<line x1=\"" << svg::num(px(ix.low * sx.scale)) << "\" y1=\"" << svg::num(cy) << "\" x2=\""
      << svg::num(px(ix.high * sx.scale)) << "\" y2=\"" << svg::num(cy) << "\" stroke=\"" << colour << "\"/>"
      << "<line x1=\"" << svg::num(cx) << "\" y1=\"" << svg::num(py(iy.low * sy.scale)) << "\" x2=\""
      << svg::num(cx) << "\" y2=\"" << svg::num(py(iy.high * sy.scale)) << "\" stroke=\"" << colour << "\"/>"
      << "<circle cx=\"" << svg::num(cx) << "\" cy=\"" << svg::num(cy) << "\" r=\"" << (o.on_front ? 5 : 4)
      << "\" fill=\"" << (o.on_front ? colour : "white") << "\" stroke=\"" << colour << "\"/>"
      << "<text x=\"" << svg::num(lx) << "\" y=\"" << svg::num(ly) << "\" fill=\"#222\""
      << (right_half ? " text-anchor=\"end\"" : "") << ">" << svg::xml(o.label + (o.lossy ? " *" : ""))
      << "</text></g>\n";
  }
  s << "</svg>\n";
  return s.str();
}

std::string report_html(const AdviseArgs& a, const PlatformProbe& p, const std::vector<AdviseOption>& options,
                        const AdviseAnalysis& an, const std::optional<BudgetPlan>& budget)
{
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>colocsim advise: "
    << svg::xml(fs::path(a.trace).filename().string()) << "</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse}"
    << "td,th{border:1px solid #ccc;padding:3px "
       "8px;text-align:right}td:first-child,th:first-child{text-align:left}"
    << "tr.front "
       "td:first-child{font-weight:bold}tr.lossy{background:#fff3e0}.rec{font-size:1.15em;padding:1em;"
    << "background:#eef6ee;border-left:4px solid #393}\n</style>\n</head>\n<body>\n"
    << "<h1>Sharing advice for " << svg::xml(fs::path(a.trace).filename().string()) << "</h1>\n"
    << "<p>Platform " << svg::xml(a.platform) << (a.nodes.empty() ? "" : " (" + svg::xml(a.nodes) + " nodes)")
    << ", devices " << svg::xml(p.devices) << "; " << an.options.size() << " options, " << a.replicates
    << " replicate seed(s) each; 95 % intervals from the t-distribution.</p>\n"
    << "<p id=\"model-error\">"
    << (a.model_error
            ? svg::xml(
                  "Model error: on. Each replicate also draws the models' measured error (lognormal sigma " +
                  json_number(MEASURED_INTERFERENCE_SIGMA) + " on co-run interference, " +
                  json_number(MEASURED_MIG_SIGMA) + " on MIG slowdowns; " + MODEL_ERROR_SOURCE +
                  "), so the intervals include it.")
            : std::string(
                  "Model error: off (--model-error off). The models are taken as exact: the intervals "
                  "show only what the seed varies."))
    << "</p>\n"
    << (budget ? "<p id=\"budget\">" + svg::xml(budget_text(*budget, a.replicates, options.size())) + "</p>\n"
               : std::string())
    << (budget && budget->runs_not_run > 0
            ? "<p id=\"deadline\">" + svg::xml(deadline_text(*budget, a.replicates)) + "</p>\n"
            : std::string())
    << "<p class=\"rec\" id=\"recommendation\">" << svg::xml(an.recommendation) << "</p>\n"
    << "<h2>" << svg::xml(find_advise_metric(an.compared[0])->label) << " against "
    << svg::xml(find_advise_metric(an.compared[1])->label) << "</h2>\n"
    << "<p>Each point is an option at its means, its bars the 95 % intervals; the front (options no other "
       "dominates) is filled and joined. * loses jobs.</p>\n"
    << scatter_svg(an)
    << "<h2>All options</h2>\n<table>\n<tr><th>option</th><th>runs ok</th><th>jobs completed</th>";
  for (const auto& m : advise_metrics())
    h << "<th>" << svg::xml(m.label) << " (" << svg::xml(shown(m).unit) << ")</th>";
  for (const auto& name : an.compared)
    h << "<th>\u0394 " << svg::xml(find_advise_metric(name)->label) << "</th>";
  h << "<th>front</th></tr>\n";
  for (std::size_t i = 0; i < an.options.size(); ++i) {
    const auto& o = an.options[i];
    h << "<tr class=\"option" << (o.on_front ? " front" : "") << (o.lossy ? " lossy" : "")
      << "\"><td title=\"" << svg::xml(options[i].description) << "\">" << svg::xml(o.label) << "</td><td>"
      << o.ok << "/" << o.runs << (o.not_run ? " (" + std::to_string(o.not_run) + " not run: deadline)" : "")
      << "</td><td>" << fixed(o.jobs_completed, 1) << " of " << fixed(o.jobs_read, 1) << (o.lossy ? " *" : "")
      << "</td>";
    for (const auto& m : advise_metrics())
      h << "<td>" << svg::xml(interval_cell(o.metrics.at(m.name), m)) << "</td>";
    for (const auto& name : an.compared) {
      const auto it = o.change.find(name);
      h << "<td>"
        << (o.label == an.baseline ? "base"
            : it == o.change.end() ? "-"
                                   : svg::xml(change_text(it->second)))
        << "</td>";
    }
    h << "<td>"
      << (o.on_front               ? "yes"
          : o.dominated_by.empty() ? "-"
                                   : "dominated by " + svg::xml(join(o.dominated_by)))
      << "</td></tr>\n";
  }
  h << "</table>\n<p>Values: mean \u00b1 half-width of the 95 % interval over the replicates that ran. "
       "\u0394: the "
       "change from "
    << svg::xml(an.baseline)
    << " in %, paired by seed. * the option lost jobs (failed, rejected or out of memory): it is compared on "
       "energy per completed job. Results: sweep.csv, advise.json.</p>\n</body>\n</html>\n";
  return h.str();
}

void print_table(std::ostream& out, const AdviseAnalysis& an)
{
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"option", "ok", "jobs"};
  for (const auto& m : advise_metrics())
    if (m.name != "throughput") head.push_back(m.label + " (" + shown(m).unit + ")");
  for (const auto& name : an.compared)
    head.push_back("\u0394 " + find_advise_metric(name)->label);
  head.push_back("front");
  rows.push_back(head);
  for (const auto& o : an.options) {
    std::vector<std::string> r{o.label,
                               std::to_string(o.ok) + "/" + std::to_string(o.runs) +
                                   (o.not_run ? " +" + std::to_string(o.not_run) + " not run" : ""),
                               fixed(o.jobs_completed, 0) + " of " + fixed(o.jobs_read, 0) +
                                   (o.lossy ? " *" : "")};
    for (const auto& m : advise_metrics())
      if (m.name != "throughput") r.push_back(interval_cell(o.metrics.at(m.name), m));
    for (const auto& name : an.compared) {
      const auto it = o.change.find(name);
      r.push_back(o.label == an.baseline ? "base" : it == o.change.end() ? "-" : change_text(it->second));
    }
    r.push_back(o.on_front ? "yes" : "");
    rows.push_back(r);
  }
  const auto length = [](const std::string& t) {
    return static_cast<std::size_t>(
        std::count_if(t.begin(), t.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  std::vector<std::size_t> width(head.size(), 0);
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.size(); ++c)
      width[c] = std::max(width[c], length(r[c]));
  for (const auto& r : rows) {
    out << " ";
    for (std::size_t c = 0; c < r.size(); ++c)
      out << " " << r[c] << std::string(width[c] - length(r[c]), ' ');
    out << "\n";
  }
}

} // namespace

int cmd_advise(const std::vector<std::string>& args, std::ostream& out)
{
  const auto started = std::chrono::steady_clock::now();
  AdviseArgs a = parse_advise_args(args);
  if (a.help) {
    out << ADVISE_HELP;
    return 0;
  }
  const PlatformProbe probe = probe_platform(a);
  const std::vector<AdviseOption> all = enumerate_options(probe);
  if (std::none_of(all.begin(), all.end(), [](const AdviseOption& o) { return o.label == BASELINE; }))
    throw InputError(SourceLocation{"command line --platform"}, "",
                     "the platform's devices (" + probe.devices +
                         ") do not all support exclusive use, the baseline every option is compared with");
  std::vector<AdviseOption> options = select_options(all, a.options);
  if (a.list) {
    out << "options for " << a.platform << " (" << probe.devices << "):\n";
    for (const auto& o : options)
      out << "  " << o.label << std::string(o.label.size() < 40 ? 40 - o.label.size() : 1, ' ')
          << o.description << "\n";
    return 0;
  }
  const fs::path dir = a.out_dir;
  std::optional<BudgetPlan> budget;
  if (a.budget_s) {
    budget = plan_budget(a, options, started);
    std::cerr << "colocsim: advise: " << budget_text(*budget, a.replicates, options.size()) << "\n";
  }
  const std::string scenario = scenario_text(a), spec = spec_text(a, options);
  prepare_folder(a, dir, scenario, spec);
  std::vector<std::string> sweep_args{
      (dir / "sweep.yaml").string(),    "-o", dir.string(), "--quiet", "--eta",
      a.resume ? "--resume" : "--force"};
  if (!a.jobs.empty()) {
    sweep_args.push_back("-j");
    sweep_args.push_back(a.jobs);
  }
  std::cerr << "colocsim: advise: " << options.size() << " options × " << a.replicates
            << " replicate(s) = " << options.size() * static_cast<std::size_t>(a.replicates) << " runs in "
            << dir.string() << "/\n";
  // The budget is a deadline for the sweep: no run starts after the budget's end, and those still running
  // are stopped; the baseline's first replicate (run-0001) finishes all the same, so there is always a
  // baseline to compare with.
  SweepDeadline deadline;
  if (budget) {
    deadline.at = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(budget->budget_s));
    deadline.finish_first = 1;
  }
  const int status = sweep_with_deadline(sweep_args, out, deadline);

  // With a budget, an option is compared only with the replicates an interval needs (2, or 1 when the plan
  // kept 1): the deadline may leave an option with fewer than planned.
  const std::size_t min_replicates = budget ? static_cast<std::size_t>(std::min(2LL, a.replicates)) : 1;
  const std::vector<AdviseOptionRuns> results = read_results(dir, options);
  AdviseAnalysis an = analyse_advice(results, a.metrics, BASELINE, min_replicates);
  // The jobs the baseline does not complete, with the reasons its run gives (a job too large for the
  // platform, a GPU type it does not have, a job failed in the trace).
  const auto base = std::find_if(an.options.begin(), an.options.end(),
                                 [](const AdviseOptionStats& o) { return o.label == BASELINE; });
  if (base != an.options.end() && base->ok > 0 && base->jobs_completed < base->jobs_read) {
    const std::string reasons =
        baseline_reasons(dir, *std::find_if(results.begin(), results.end(),
                                            [](const auto& r) { return r.label == BASELINE; }));
    if (!reasons.empty()) {
      an.recommendation += " Not completed under the baseline (" + reasons + ").";
      if (reasons.find("gpu_types") != std::string::npos && a.gpu_types == "honour")
        an.recommendation +=
            " The trace names GPU types that this platform's devices do not list (their "
            "catalog name or trace_names): --gpu-types ignore runs those jobs on any device.";
    }
  }
  if (budget) {
    budget->min_replicates = min_replicates;
    for (const auto& o : an.options) {
      budget->runs_not_run += static_cast<long long>(o.not_run);
      if (o.not_run == 0) continue;
      if (o.runs == 0)
        budget->deadline_left_out.push_back(o.label);
      else
        budget->deadline_fewer.emplace_back(o.label, o.runs);
    }
    if (budget->runs_not_run > 0)
      std::cerr << "colocsim: advise: " << deadline_text(*budget, a.replicates) << "\n";
    budget->elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  write_text(dir / "advise.json", advise_json(a, probe, options, an, budget));
  write_text(dir / "report.html", report_html(a, probe, options, an, budget));
  write_text(dir / "front.svg", scatter_svg(an)); // the report's chart as a file of its own
  if (!a.quiet) {
    out << "advise: " << options.size() << " options on " << a.platform << " (" << probe.devices << "), "
        << a.replicates << " replicate(s) each; mean ± 95 % interval\n";
    if (budget) out << "  " << budget_text(*budget, a.replicates, options.size()) << "\n";
    if (budget && budget->runs_not_run > 0) out << "  " << deadline_text(*budget, a.replicates) << "\n";
    print_table(out, an);
    if (an.compared != an.metrics)
      out << "  * loses jobs: every option is compared on energy per completed job\n";
    out << "\n"
        << an.recommendation << "\n\n  " << (dir / "report.html").string() << ", "
        << (dir / "advise.json").string() << " (runs: sweep.csv, run-NNNN/)\n";
  }
  if (an.recommended.empty()) { // no advice (the recommendation says why)
    std::cerr << "colocsim: advise: " << an.recommendation << "\n";
    return std::max(status, 1);
  }
  return status;
}

} // namespace colocsim
