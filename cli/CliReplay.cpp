// colocsim replay: replay a trace file end to end without writing a scenario. The scenario replay builds is
// saved as OUTDIR/scenario.yaml, so the run can be repeated (or edited) with `colocsim run`.
#include "base/Yaml.hpp"
#include "cli/CliCommands.hpp"
#include "models/PowerModel.hpp"
#include "policies/PluginLoader.hpp"
#include "sim/Metrics.hpp"
#include "sim/Outputs.hpp"
#include "sim/Resources.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"
#include "workloads/TraceFormats.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace colocsim {

namespace {

const char* const REPLAY_HELP = R"(usage: colocsim replay TRACE --format FORMAT [options]

Replays TRACE end to end: every job is bound to a profile (the trace's own, the profile map, or --profile),
placed by the policy on the platform, and the usual outputs are written. The scenario used is saved as
OUTDIR/scenario.yaml (rerun it with `colocsim run OUTDIR/scenario.yaml -o OTHER`). It warns when the
platform has 10 times the GPUs the trace ever uses at once, or fewer than it uses on average: with the
trace's peak and mean demand, a --nodes count that holds the peak, and how much energy was idle baseline.

options:
  --format F              native, swf, itp, openb, pai, batsim, sacct or kubernetes (`colocsim formats`)
                          (required)
  --option K=V            a format option, e.g. devices_per_proc=12 (repeatable)
  --transform T           window=A..B, rebase, load=F, sample=P, inflate=X (repeatable, applied in order)
  --profile-map M         rules binding jobs to profiles: class:A=P,...;qos:LS=P,...;draw:P=W,...;none
                          (default: the format's own map, if it has one)
  --profile NAME          profile of jobs nothing binds (default resnet50-train-bs32)
  --platform P            platform preset or file (default: aurora with as many nodes of 12 Max 1550 tiles as
                          the trace's peak demand needs, said on stderr; --platform aurora for all 127,488
                          tiles; for openb the trace's own cluster, preset openb: 1,213 nodes, 6,212 GPUs
                          of 7 types)
                          Paths (TRACE, --platform, --set, --policy-plugin, -o) are relative to the current
                          directory; the saved scenario holds them absolute.
  --nodes N               number of nodes (overrides the preset)
  --sharing MODE          exclusive, time-slice (or time-slicing), ccs-2, ccs-4, mps, mig (default
                          time-slice; the platform's devices must support it: colocsim devices)
  --policy NAME[:K=V,..]  policy and parameters (default first-fit)
  --placement RULE        how a job of several devices is laid out over nodes: pack (fewest nodes, as Slurm
                          and Kubernetes place GPU jobs), spread (one device per node in turn) or any (the
                          first devices in the policy's order, nodes ignored) (default pack)
  --policy-plugin FILE    load policies from a plugin built out of tree (repeatable; recorded in the scenario
                          with its sha256, and rerunning the scenario warns if the file changed since)
  --procs-per-device N    swf: trace processors per device (the same as --option procs_per_device=N)
  --seed N                seed of the profile draw, sampling and inflation (default 1)
  --set KEY=VALUE         any other scenario key (repeatable)
  -o, --output DIR        output directory (default colocsim-out)
  --force                 overwrite an earlier run's results in DIR (and the --log-events FILE)
  --log-events FILE       write one JSON line per engine event, policy call and decision to FILE
                          (docs/formats/outputs.md, Event log; never overwritten without --force)
  --quiet                 no summary table, no progress line (see colocsim run --help)
)";

/// What a trace asks of a platform if every job started when submitted: GPUs = devices × gpu_milli / 1000.
struct Demand {
  std::uint64_t jobs = 0; ///< after the transforms
  double peak_gpus = 0;   ///< the most GPUs running at once
  double mean_gpus = 0;   ///< Σ GPUs × duration ÷ (last end − first submission)
};

/// The demand pass reads the whole trace before the run: Ctrl-C or SIGTERM stops it every
/// INTERRUPT_CHECK_EVERY jobs (RunInterrupted, "SIGINT, " + `when`).
constexpr std::uint64_t INTERRUPT_CHECK_EVERY = 1024;

Demand trace_demand(JobReader& reader, const std::string& when)
{
  Demand d;
  std::vector<std::pair<double, double>> steps; // (time, ±GPUs)
  double first = 0, last = 0, gpu_s = 0;
  while (auto job = reader.next()) {
    if (d.jobs % INTERRUPT_CHECK_EVERY == 0) InterruptGuard::stop_if_caught(when);
    const double gpus = job->devices * job->gpu_milli / 1000.0;
    if (d.jobs++ == 0) first = last = job->submit_s;
    first = std::min(first, job->submit_s);
    last = std::max(last, job->submit_s + job->duration_s);
    gpu_s += gpus * job->duration_s;
    steps.emplace_back(job->submit_s, gpus);
    steps.emplace_back(job->submit_s + job->duration_s, -gpus);
  }
  std::sort(steps.begin(), steps.end()); // at one instant, ends (negative) before starts
  double now = 0;
  for (const auto& [t, g] : steps)
    d.peak_gpus = std::max(d.peak_gpus, now += g);
  d.mean_gpus = last > first ? gpu_s / (last - first) : d.peak_gpus;
  return d;
}

std::string number(double v, int digits)
{
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << v;
  return s.str();
}

std::string energy_text(double j)
{
  const double kwh = j / 3.6e6;
  if (kwh >= 1e6) return number(kwh / 1e6, 2) + " GWh";
  if (kwh >= 1e3) return number(kwh / 1e3, 2) + " MWh";
  return number(kwh, 2) + " kWh";
}

/// A platform this many times the trace's peak demand, or smaller than its mean demand, draws a warning.
/// Our choice, not a measured value: at 10× the peak, utilisation stays below 10 % even at the peak.
constexpr double OVERSIZED = 10;

std::string joined(const std::vector<std::string>& items)
{
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : ",") + i;
  return out;
}

/// The command line of `colocsim replay`.
struct ReplayArgs {
  std::string trace, format, platform, sharing = "time-slice", policy = "first-fit",
                                       profile = "resnet50-train-bs32", profile_map, output = "colocsim-out",
                                       nodes, events, procs = "1", seed = "1", placement;
  std::vector<std::string> sets, options, transforms, plugins;
  bool force = false, quiet = false, help = false;
  bool platform_given = false; ///< --platform given; else the default platform, sized to the trace
};

/// Reads and checks the command line (UsageError for a bad one); `help` set if it asks for it.
ReplayArgs parse_replay_args(const std::vector<std::string>& args)
{
  ReplayArgs r;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      r.help = true;
      return r;
    }
    if (a == "--format")
      r.format = next_arg(args, i);
    else if (a == "--option")
      r.options.push_back(next_arg(args, i));
    else if (a == "--transform")
      r.transforms.push_back(next_arg(args, i));
    else if (a == "--platform")
      r.platform = next_arg(args, i);
    else if (a == "--nodes")
      r.nodes = next_arg(args, i);
    else if (a == "--sharing")
      r.sharing = next_arg(args, i);
    else if (a == "--policy")
      r.policy = next_arg(args, i);
    else if (a == "--placement")
      r.placement = next_arg(args, i);
    else if (a == "--policy-plugin")
      r.plugins.push_back(next_arg(args, i));
    else if (a == "--profile")
      r.profile = next_arg(args, i);
    else if (a == "--profile-map")
      r.profile_map = next_arg(args, i);
    else if (a == "--procs-per-device")
      r.procs = next_arg(args, i);
    else if (a == "--seed")
      r.seed = next_arg(args, i);
    else if (a == "--set")
      r.sets.push_back(next_arg(args, i));
    else if (a == "-o" || a == "--output")
      r.output = next_arg(args, i);
    else if (a == "--log-events")
      r.events = next_arg(args, i);
    else if (a == "--force")
      r.force = true;
    else if (a == "--quiet")
      r.quiet = true;
    else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "' (see colocsim replay --help)");
    else if (!r.trace.empty())
      throw UsageError("more than one trace given ('" + r.trace + "' and '" + a + "')");
    else
      r.trace = a;
  }
  if (r.trace.empty()) throw UsageError("replay needs a TRACE file (see colocsim replay --help)");
  if (r.format.empty())
    throw UsageError("replay needs --format (" + join(trace_format_names()) + "; see colocsim formats)");
  find_trace_format(r.format, SourceLocation{"command line --format"});
  r.platform_given = !r.platform.empty();
  if (r.platform.empty()) {
    r.platform = r.format == "openb" ? "openb" : "aurora"; // openb: the trace's own heterogeneous cluster
  }
  return r;
}

/// Writes the scenario of the replay to `scenario_file` (staged in OUTDIR = `outdir`), with the trace and a
/// platform file as absolute paths (`abs_trace`, `saved_platform`).
void write_replay_scenario(const ReplayArgs& r, const std::filesystem::path& scenario_file,
                           const std::filesystem::path& outdir, const std::string& abs_trace,
                           const std::string& saved_platform)
{
  std::ofstream f(scenario_file);
  if (!f) throw OutputError("cannot open " + scenario_file.string() + " for writing");
  std::string rerun =
      "colocsim run " + (outdir / "scenario.yaml").string() + (r.plugins.empty() ? "" : " --allow-plugins");
  for (const auto& s : r.sets)
    rerun += " --set " + s;
  f << "# Written by `colocsim replay`; rerun with: " << rerun << " -o DIR\n"
    << "name: " << yaml_quote("replay-" + std::filesystem::path(r.trace).stem().string()) << "\n"
    << "seed: " << yaml_quote(r.seed) << "\n"
    << "platform:\n  preset: " << yaml_quote(saved_platform) << "\n  sharing: " << yaml_quote(r.sharing)
    << "\n";
  if (!r.nodes.empty()) f << "  nodes: " << yaml_quote(r.nodes) << "\n";
  f << "workload:\n  trace: " << yaml_quote(abs_trace) << "\n  format: " << yaml_quote(r.format)
    << "\n  default_profile: " << yaml_quote(r.profile) << "\n  procs_per_device: " << yaml_quote(r.procs)
    << "\n";
  if (!r.options.empty()) f << "  options: " << yaml_quote(joined(r.options)) << "\n";
  if (!r.transforms.empty()) f << "  transforms: " << yaml_quote(joined(r.transforms)) << "\n";
  if (!r.profile_map.empty()) f << "  profile_map: " << yaml_quote(r.profile_map) << "\n";
  if (!r.plugins.empty()) {
    f << "plugins:\n";
    for (const auto& pl : r.plugins)
      f << "  - {path: " << yaml_quote(std::filesystem::absolute(pl).lexically_normal().string())
        << ", sha256: " << yaml_quote(loaded_policy_plugin(pl).value().sha256) << "}\n";
  }
  // The policy as chosen (name, then its parameters).
  const auto colon = r.policy.find(':');
  f << "policy:\n  name: " << yaml_quote(r.policy.substr(0, colon)) << "\n";
  if (colon != std::string::npos) {
    DiagnosticSink bad;
    const auto params = split_assignments(r.policy.substr(colon + 1), "--policy", bad);
    bad.throw_if_any();
    f << "  params:\n";
    for (const auto& [k, v] : params)
      f << "    " << k << ": " << yaml_quote(v.text) << "\n";
  }
  if (!r.placement.empty()) f << "  placement: " << yaml_quote(r.placement) << "\n"; // checked on reading
  f.close();
  check_written(f, scenario_file);
}

/// "workload: ..." as the run will read it.
void print_workload(const Scenario& scenario, std::ostream& out)
{
  WorkloadSpec w;
  w.format = scenario.trace_format;
  w.path = scenario.trace;
  DiagnosticSink ignored;
  for (auto& [k, v] : split_assignments(scenario.trace_options, "", ignored))
    w.options[k] = v;
  w.transforms = scenario.transforms;
  w.profile_map = scenario.profile_map;
  out << "workload: " << describe_workload(w) << "\n";
}

/// The platform against the trace's demand, with the idle power of its devices (for the idle-energy
/// estimate).
struct Sizing {
  bool oversized = false;
  std::uint64_t jobs = 0; ///< the trace's jobs after its transforms
  double idle_w = 0;      ///< Σ device idle power of the platform
};

/// Sizing: the trace's demand against the platform (one more streaming pass over the trace). A platform
/// far larger than the trace reports a tiny utilisation and an energy that is mostly idle nodes' baseline;
/// one smaller than its mean demand measures an ever-growing queue. Neither is what an operator asked: both
/// are warned of on stderr.
Sizing check_sizing(const Scenario& scenario, const std::string& when)
{
  Sizing sizing;
  RunInputs probe = build_run(scenario);
  // An idle device's draw at the clock it holds: freq_min, or the site's pinned clock
  // (models/PowerModel.hpp).
  for (const auto& dev : probe.platform.devices) {
    const auto& t = probe.platform.types[dev.type];
    sizing.idle_w +=
        device_power(t.power, {}, t.spec->freq_default_hz.value / t.spec->freq_max_hz.value).total_w;
  }
  const Demand demand = trace_demand(*probe.reader, when);
  sizing.jobs = demand.jobs;
  const auto& plat = probe.platform;
  const double devices = static_cast<double>(plat.devices.size());
  const double per_node = plat.nodes > 0 ? devices / plat.nodes : devices;
  const double suggested = std::max(1.0, std::ceil(demand.peak_gpus / per_node - 1e-9));
  const std::string what = "the trace's peak demand is " + number(demand.peak_gpus, 1) + " GPUs, its mean " +
                           number(demand.mean_gpus, 1) +
                           " GPUs (every job started on submission, from the first submission to the last "
                           "end; GPUs = devices × gpu_milli / 1000)";
  const std::string advice =
      "; --nodes " + number(suggested, 0) + " (" + number(per_node, 0) + " devices each) holds the peak";
  if (demand.jobs > 0 && devices >= OVERSIZED * demand.peak_gpus) {
    sizing.oversized = true;
    std::cerr << "colocsim: warning: platform '" << plat.name << "' has " << number(devices, 0)
              << " devices, " << number(devices / std::max(demand.peak_gpus, 1e-9), 0) << "× what the trace "
              << "ever uses: " << what
              << ". Utilisation will be tiny and the energy mostly the baseline of idle nodes" << advice
              << "\n";
  } else if (demand.jobs > 0 && devices < demand.mean_gpus) {
    std::cerr << "colocsim: warning: platform '" << plat.name << "' has " << number(devices, 0)
              << " devices, fewer than the trace's mean demand: " << what
              << ". The queue grows for the whole trace and wait times measure the platform, not the policy"
              << advice << "\n";
  }
  return sizing;
}

/// After a run on an oversized platform: how much of its energy idle devices and nodes drew. Estimated, not
/// metered: while a device sits idle its node's baseline and its own idle power are drawn for nothing. The
/// fraction of device time that is idle is 1 − utilisation; under power-aware, nodes it powered off drew
/// nothing, so the estimate is not made.
void warn_idle_energy(const Summary& summary, const Scenario& scenario, double idle_w)
{
  const double idle_share = std::clamp(1.0 - summary.utilization, 0.0, 1.0);
  const double idle_j =
      std::min(summary.energy_total_j,
               summary.pue * idle_share * (summary.energy_node_j + idle_w * summary.makespan_s));
  if (scenario.policy == "power-aware")
    std::cerr << "colocsim: warning: power-aware powered idle nodes off; see energy_node_j in summary.json "
                 "for what their baseline still cost\n";
  else
    std::cerr << "colocsim: warning: about " << energy_text(idle_j) << " of the "
              << energy_text(summary.energy_total_j) << " ("
              << number(100.0 * idle_j / summary.energy_total_j, 1)
              << " %) is idle baseline: node baseline and device idle power while devices sat idle "
                 "(estimated as (1 − utilisation) × (node energy + device idle power × makespan) × PUE); "
                 "--policy power-aware powers idle nodes off, or size the platform with --nodes\n";
}

} // namespace

namespace {

/// The option of `colocsim replay` that sets a key of the scenario it writes (empty: none).
std::string option_of_key(const std::string& path)
{
  static const std::pair<const char*, const char*> options[] = {
      {"platform.sharing", "--sharing"},
      {"platform.preset", "--platform"},
      {"platform.nodes", "--nodes"},
      {"workload.format", "--format"},
      {"workload.default_profile", "--profile"},
      {"workload.procs_per_device", "--procs-per-device"},
      {"workload.options", "--option"},
      {"workload.transforms", "--transform"},
      {"workload.profile_map", "--profile-map"},
      {"seed", "--seed"},
      {"policy", "--policy"},
      {"plugins", "--policy-plugin"},
  };
  for (const auto& [key, option] : options) {
    const std::string k = key;
    if (path == k || path.rfind(k + ".", 0) == 0 || path.rfind(k + "[", 0) == 0) return option;
  }
  return "";
}

/// An error in the scenario replay wrote (staged in a directory that is removed when the run fails) names
/// the option it came from: "command line --sharing: platform.sharing: unknown value ...", not a file the
/// user cannot open. Diagnostics in other files (the trace, a platform file) are left as they are.
InputError on_command_line(const InputError& e, const std::filesystem::path& scenario_file)
{
  std::vector<Diagnostic> out;
  for (auto d : e.diagnostics()) {
    if (d.where.file == scenario_file.string()) {
      const std::string option = option_of_key(d.path);
      d.where = SourceLocation{option.empty() ? std::string("command line") : "command line " + option};
      if (option.empty() && !d.path.empty()) d.path = "--set " + d.path;
    }
    out.push_back(std::move(d));
  }
  return InputError(std::move(out));
}

/// The default platform sized to the trace: as many of its nodes as hold the trace's peak demand (at least
/// one), said on stderr. Returns the node count.
std::string sized_nodes(const Scenario& scenario, const std::string& when)
{
  RunInputs probe = build_run(scenario);
  const Demand demand = trace_demand(*probe.reader, when);
  const auto& plat = probe.platform;
  const double devices = static_cast<double>(plat.devices.size());
  const double per_node = plat.nodes > 0 ? devices / plat.nodes : devices;
  const double nodes = std::max(1.0, std::ceil(demand.peak_gpus / per_node - 1e-9));
  std::cerr << "colocsim: note: --platform not given: " << plat.name << " sized to the trace, "
            << number(nodes, 0) << " node(s) of " << number(per_node, 0) << " devices ("
            << number(nodes * per_node, 0) << " devices) hold its peak demand of "
            << number(demand.peak_gpus, 1) << " GPUs (every job started on submission); --platform "
            << plat.name << " for the whole preset, or --nodes N\n";
  return number(nodes, 0);
}

} // namespace

int cmd_replay(const std::vector<std::string>& args, std::ostream& out)
{
  ReplayArgs r = parse_replay_args(args);
  if (r.help) {
    out << REPLAY_HELP;
    return 0;
  }
  load_plugins(r.plugins); // given on this command line: consent; their sha256 goes into the saved scenario

  OutputOptions outputs;
  outputs.dir = r.output;
  outputs.force = r.force;
  // Ctrl-C and SIGTERM are caught from here on, before anything is staged: the run stops at its next check
  // (the demand pass, the run) with the message and status of an interrupted run, and nothing is left.
  InterruptGuard interrupts;
  const std::string before_run =
      "before the simulation started; no results written to " + outputs.dir.string();
  // scenario.yaml is staged with the results: a run that fails or is interrupted leaves neither.
  OutputStage stage(outputs);
  // Paths on the command line are relative to the current directory. The saved scenario holds them absolute
  // (it lives in OUTDIR, and a path in a scenario is relative to its folder); this run gets them as typed
  // (--set resolves against the current directory), so that messages name them as the user wrote them.
  const auto abs_trace = std::filesystem::absolute(r.trace).lexically_normal().string();
  const bool platform_is_path = is_path(r.platform);
  const auto saved_platform = platform_is_path && r.platform.rfind("builtin:", 0) != 0
                                  ? std::filesystem::absolute(r.platform).lexically_normal().string()
                                  : r.platform;
  const auto scenario_file = stage.dir() / "scenario.yaml";
  std::vector<std::string> run_sets{"workload.trace=" + r.trace};
  if (platform_is_path) run_sets.push_back("platform.preset=" + r.platform);
  run_sets.insert(run_sets.end(), r.sets.begin(), r.sets.end());
  const auto load = [&] {
    write_replay_scenario(r, scenario_file, outputs.dir, abs_trace, saved_platform);
    Scenario s = load_scenario(scenario_file.string(), run_sets, {}, PluginConsent{false, r.plugins, true});
    s.set_on_command_line = assignment_keys(run_sets); // paths relative to the current directory
    return s;
  };
  try {
    Scenario scenario = load();
    // The default platform (not the openb trace's own cluster) is as large as the trace needs, not the whole
    // preset: on 127,488 tiles a trace of a few hundred GPUs measures idle baseline, not the policy. --set
    // platform.nodes given: that count.
    const bool nodes_set = std::any_of(r.sets.begin(), r.sets.end(), [](const std::string& s) {
      return s.rfind("platform.nodes=", 0) == 0;
    });
    if (!r.platform_given && r.nodes.empty() && !nodes_set && r.format != "openb") {
      r.nodes = sized_nodes(scenario, before_run);
      scenario = load();
    }
    scenario.outputs.dir = outputs.dir;
    scenario.outputs.force = r.force;
    scenario.outputs.events_file = r.events;
    if (!r.quiet) print_workload(scenario, out);
    InterruptGuard::stop_if_caught(before_run);
    const Sizing sizing = check_sizing(scenario, before_run);
    InterruptGuard::stop_if_caught(before_run);
    scenario.jobs_known = sizing.jobs; // the progress line's total

    Summary summary;
    const int status = execute_run(scenario, r.quiet, out, &stage, &summary);
    if (sizing.oversized && summary.energy_total_j > 0) warn_idle_energy(summary, scenario, sizing.idle_w);
    return status;
  } catch (const InputError& e) {
    throw on_command_line(e, scenario_file);
  }
}

} // namespace colocsim
