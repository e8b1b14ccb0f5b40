// The colocsim command line: one binary, subcommands, --help everywhere (docs/architecture.md, Scenarios,
// command line and outputs).
#include "cli/Cli.hpp"
#include "cli/CliCommands.hpp"

#include "policies/PluginLoader.hpp"
#include "sim/Engine.hpp"
#include "sim/EventLog.hpp"
#include "sim/Metrics.hpp"
#include "sim/Outputs.hpp"
#include "sim/Resources.hpp"
#include "sim/RunInputs.hpp"
#include "sim/RunScenario.hpp"
#include "sim/Scenario.hpp"
#include "workloads/JobDag.hpp"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <yaml-cpp/exceptions.h>

namespace colocsim {

namespace {

constexpr int EXIT_USAGE = 2;
} // namespace

/// True if --help was asked (help printed); throws UsageError for any other argument.
bool no_options_or_help(const std::vector<std::string>& args, const char* help, std::ostream& out)
{
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      out << help;
      return true;
    }
    throw UsageError("unknown option '" + a + "'");
  }
  return false;
}

const char* const RUN_HELP = R"(usage: colocsim run [SCENARIO] [options]

Simulates SCENARIO (a YAML file; docs/formats/scenario.md). Without SCENARIO, runs the embedded default
scenario: one Aurora node (6 Max 1550 cards, 12 tiles) and a mix of inference and training jobs.

options:
  -o, --output DIR        output directory (default: the scenario's outputs.dir, colocsim-out)
  --force                 overwrite the results of an earlier run in DIR (and the --log-events FILE)
  --log-events FILE       write one JSON line per engine event, policy call and decision to FILE
                          (docs/formats/outputs.md, Event log; never overwritten without --force)
  --set KEY=VALUE         override a scenario key, e.g. --set policy=exclusive-fcfs,
                          --set platform.nodes=4, --set policy.params.max_per_device=3 (repeatable)
  --policy NAME[:K=V,..]  choose the policy and its parameters, e.g. --policy first-fit:max_per_device=3
  --policy-plugin FILE    load policies from a plugin built out of tree (policies/README.md; repeatable)
  --allow-plugins         load the policy plugins SCENARIO names (loading runs their code: without this
                          option or the same file given with --policy-plugin, a scenario that names
                          plugins stops with exit 2 and lists them with their sha256), and import the
                          Python file its policy python names (policy.params.file; exit 2 without)
  --policy-python FILE.py:CLASS
                          run the policy CLASS (a subclass of colocsim.Policy) written in Python in
                          FILE.py (python/README.md; needs the Python package built)
  --quiet                 no summary table on stdout, no progress line on stderr
  --help-scenario         list every scenario key with its type, default and help

outputs (in DIR): summary.json, jobs.csv, timeseries.csv (docs/formats/outputs.md; outputs.timeseries:
every-event, off, an interval such as 60s, or auto; outputs.compress: gzip writes jobs.csv.gz and
timeseries.csv.gz, auto does so for a file of more than 100000 rows)

progress: a long run reports on stderr the jobs read (of the total, when known), ended, the simulated time,
the wall time and an estimate of what is left: on a terminal one line rewritten every 0.5 s, otherwise a
line every 10 s; COLOCSIM_PROGRESS=SECONDS sets the interval (plain lines; 0: none)
)";

const char* const VALIDATE_HELP =
    R"(usage: colocsim validate SCENARIO [--set KEY=VALUE]... [--policy NAME[:K=V,..]] [--policy-plugin FILE]
                         [--allow-plugins]

Loads SCENARIO and everything it refers to (platform, device, calibration, profiles, policy) and reads every
trace row, reporting all problems as file:line:col: key: message. Exit status 0 if valid, 2 otherwise.

Policy plugins the scenario names are listed (path, whether the file exists, sha256) but never loaded unless
given with --policy-plugin; a policy only such a plugin could define is reported as not checked. As for
run, a scenario that names plugins needs consent (--allow-plugins, or each plugin with --policy-plugin):
without it validate lists them and exits 2. With the Python bridge given (--policy-plugin
.../libcolocsim_pybridge.so), validate builds the policy python: it imports the Python file the policy's
`file` names, running its code (a file the scenario names needs --allow-plugins; python/README.md).
)";

const char* const BENCH_HELP = R"(usage: colocsim bench [options]

Replays a synthetic trace (Poisson arrivals, lognormal durations, the default profile mix) on a platform of
Max 1550 tiles (or of DGX A100 GPUs in MIG mode) with energy accounting on, and prints key=value lines: wall_s, engine_events, events_per_s,
jobs_per_s, rate_updates, peak_live_jobs (the most job states the engine kept at once: waiting, blocked or
running), peak_rss_mb, and the simulated makespan and energy; then where the time went:
setup_wall_s (the scenario and platform model, the engine's hosts and the policy's first call, which builds
its indexes over the devices), simulation_wall_s (from there to the last job's end), teardown_wall_s (the
totals over every device after it), policy_wall_s and policy_calls (inside the policy's later decide()
calls), the same as CPU time (setup_cpu_s, simulation_cpu_s, teardown_cpu_s: not counting other processes
of a busy machine), and simulation_us_per_job, in CPU microseconds. With --time-decisions also
policy_cpu_s and policy_us_per_job, the CPU time inside decide() (BENCHMARKS.md compares them across
platform sizes): reading a CPU clock is a system call (about 0.5 µs here), twice per decision, which adds
about a tenth to the simulation's own CPU time, so it is off by default.

options:
  --jobs N        jobs to replay (default 100000)
  --tiles N       devices (default 1000; rounded up to whole 2-tile cards, one card per node; with
                  --platform dgx-a100, to whole 8-GPU nodes)
  --platform P    max1550 (default: Max 1550 tiles, time-slice sharing) or dgx-a100 (A100-SXM4-40GB
                  GPUs in MIG mode, each starting as one 7g.40gb instance, no interference model: for
                  mig-manager, the one policy that places on MIG instances)
  --policy NAME   placement policy (default first-fit), NAME[:K=V,..] for parameters
  --policy-plugin FILE         load policies from a plugin (policies/README.md)
  --policy-python FILE.py:CLASS  a policy written in Python (python/README.md)
  --load X        offered load: arrival rate = X × tiles / mean duration (default 1.0)
  --duration S    mean job duration in seconds (default 1800)
  --seed N        random seed (default 1)
  --time-decisions  also measure the CPU time inside each decide() call (policy_cpu_s, policy_us_per_job)
  --network       max1550 only: the same tiles on nodes joined by a network
                  (sim/scenarios/bench/platform-net.yaml: one 25 GB/s NIC per 2-tile node), and a share of the
                  jobs (--multi-node-share, default 0.05, Philly's) made 4-tile jobs of a profile that
                  communicates (sim/scenarios/bench/profiles-net.yaml: a ring all-reduce taking 0.2 of a step
                  on 2 nodes), so that each spans 2 or more nodes and its flows load the NICs (through
                  SimGrid's network model where a link is overloaded); prints multi_node_jobs,
                  jobs_communicating, comm_slowdown_mean (when a job
                  communicated) and jobs_link_contended too. The jobs chosen depend on the seed only.
  --multi-node-share F  with --network: the share of jobs made multi-node, 0..1 (0: the network platform
                  with no multi-node job)
  --free-network  with --network: the same jobs on the same nodes, the platform's network left out, so
                  that the multi-node jobs communicate for free and no flow goes through SimGrid: the run
                  to compare against for what the network model itself costs
)";

std::string next_arg(const std::vector<std::string>& args, std::size_t& i)
{
  if (i + 1 >= args.size()) throw UsageError("option " + args[i] + " needs a value");
  return args[++i];
}

/// CPU seconds of a clock (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID).
double cpu_seconds(clockid_t clock)
{
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double peak_rss_mb()
{
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0; // Linux: kilobytes
}

void load_plugins(const std::vector<std::string>& paths)
{
  for (const auto& p : paths)
    load_policy_plugin(p, SourceLocation{"command line --policy-plugin"});
}

int cmd_policies(const std::vector<std::string>& args, std::ostream& out)
{
  std::vector<std::string> plugins, rest;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--policy-plugin")
      plugins.push_back(next_arg(args, i));
    else
      rest.push_back(args[i]);
  if (no_options_or_help(
          rest,
          "usage: colocsim policies [--policy-plugin FILE]...\n\nLists every policy (built in, "
          "then those of the plugins) with its source, what it needs from the platform (run, replay, "
          "validate and sweep refuse a platform that does not meet it) and its parameters.\n",
          out))
    return 0;
  load_plugins(plugins);
  for (const auto& p : policy_registry()) {
    out << p.name << " — " << p.description << "\n  source: " << p.source << "\n";
    if (!p.intent.empty()) out << "  intent: " << p.intent << "\n";
    const std::string needs = describe(p.requirements);
    if (!p.requirements.inner_policy_param.empty())
      out << "  needs: what the policy its parameter " << p.requirements.inner_policy_param << " names needs"
          << (needs.empty() ? "" : ", and " + needs) << "\n";
    else
      out << "  needs: " << (needs.empty() ? "any platform" : needs) << "\n";
    if (p.params.empty())
      out << "  (no parameters)\n";
    else
      out << describe_params(p.params, "    ");
    out << "\n";
  }
  return 0;
}

int cmd_devices(const std::vector<std::string>& args, std::ostream& out)
{
  if (no_options_or_help(args,
                         "usage: colocsim devices\n\nLists the bundled device catalog with each value's "
                         "evidence tag and source.\n",
                         out))
    return 0;
  for (const auto& name : bundled_names("models/devices")) {
    const auto file = read_text_file("builtin:models/devices/" + name + ".yaml");
    const auto d = load_device_spec(file.text, file.name);
    auto line = [&](const char* what, const Sourced& s, double scale, const char* unit) {
      out << "  " << what << ": " << s.value / scale << unit << "  [" << to_string(s.evidence) << ": "
          << s.source << "]\n";
    };
    out << d.name << " — " << d.description << " (" << d.vendor << ", " << d.devices_per_card
        << " per card)\n";
    line("compute units", d.compute_units, 1, "");
    line("memory", d.memory_bytes, 1e9, " GB");
    line("memory bandwidth", d.mem_bandwidth, 1e12, " TB/s");
    line("frequency max", d.freq_max_hz, 1e9, " GHz");
    line("frequency default", d.freq_default_hz, 1e9, " GHz");
    line("frequency min", d.freq_min_hz, 1e9, " GHz");
    line("card power limit", d.card_tdp_w, 1, " W");
    out << "  sharing modes:";
    for (auto m : d.sharing_modes)
      out << " " << to_string(m);
    out << "\n";
    if (!d.trace_names.empty()) out << "  trace names: " << join(d.trace_names) << "\n";
    if (d.relative_throughput.value > 0) line("relative throughput (V100 = 1)", d.relative_throughput, 1, "");
    out << "\n";
  }
  return 0;
}

struct ScenarioArgs {
  std::optional<std::string> file;
  std::vector<std::string> sets;
  std::vector<std::string> plugins;
  std::string policy;
  std::string python_policy; ///< --policy-python FILE.py:CLASS
  std::optional<std::string> output;
  std::optional<std::string> events; ///< --log-events
  bool force = false, quiet = false;
  bool allow_plugins = false; ///< --allow-plugins
  PluginConsent consent(bool load) const { return PluginConsent{allow_plugins, plugins, load}; }
};

/// The Python bridge (python/Bridge.cpp), a policy plugin: $COLOCSIM_PYTHON_BRIDGE, else the package's when
/// this executable is the copy `pip install` puts in the package (colocsim/bin/colocsim →
/// colocsim/libcolocsim_pybridge.so), else where cmake --install put it next to this executable
/// (PREFIX/bin/colocsim → PREFIX/lib/python3.X/...), else the build tree's. Empty when this colocsim was
/// built without the Python package.
std::string python_bridge_path()
{
  if (const char* env = std::getenv("COLOCSIM_PYTHON_BRIDGE"); env && *env) return env;
#if defined(COLOCSIM_PYTHON_BRIDGE) && defined(COLOCSIM_PYTHON_BRIDGE_INSTALLED)
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto in_package = exe.parent_path().parent_path() / "libcolocsim_pybridge.so";
    if (std::filesystem::exists(in_package, ec)) return in_package.string();
    const auto installed = exe.parent_path().parent_path() / COLOCSIM_PYTHON_BRIDGE_INSTALLED;
    if (std::filesystem::exists(installed, ec)) return installed.string();
  }
  return COLOCSIM_PYTHON_BRIDGE;
#else
  return {};
#endif
}

PythonPolicyArg parse_python_policy(const std::string& value)
{
  const auto colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size())
    throw UsageError("--policy-python needs FILE.py:CLASS (a Python file and the name of a colocsim.Policy "
                     "subclass it defines), not '" +
                     value + "'");
  const SourceLocation where{"command line --policy-python"};
  const std::string bridge = python_bridge_path();
  std::error_code ec;
  if (bridge.empty() || !std::filesystem::exists(bridge, ec))
    throw InputError(
        where, "policy-python",
        bridge.empty() ? "this colocsim was built without the Python package (the configure summary "
                         "says why: pybind11-dev or python3-dev missing); expected a build with it"
                       : "the Python bridge " + bridge +
                             " is missing; expected the Python package built (cmake --build) or "
                             "installed (cmake --install, pip install), or COLOCSIM_PYTHON_BRIDGE naming it");
  const std::string file = std::filesystem::absolute(value.substr(0, colon)).string();
  if (!std::filesystem::exists(file, ec))
    throw InputError(where, "policy-python",
                     file + ": no such file; expected a Python file defining class " +
                         value.substr(colon + 1));
  return PythonPolicyArg{
      bridge,
      {"policy=python", "policy.params.file=" + file, "policy.params.class=" + value.substr(colon + 1)}};
}

/// --policy-python FILE.py:CLASS: load the bridge like --policy-plugin and choose its policy `python` with
/// the file (absolute: it was typed here) and the class as parameters.
void use_python_policy(ScenarioArgs& a)
{
  if (!a.policy.empty()) throw UsageError("--policy-python and --policy both choose the policy; give one");
  const PythonPolicyArg p = parse_python_policy(a.python_policy);
  a.plugins.push_back(p.bridge);
  a.sets.insert(a.sets.end(), p.sets.begin(), p.sets.end());
}

ScenarioArgs parse_scenario_args(const std::vector<std::string>& args, bool allow_outputs)
{
  ScenarioArgs a;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& s = args[i];
    if (s == "--set")
      a.sets.push_back(next_arg(args, i));
    else if (s.rfind("--set=", 0) == 0)
      a.sets.push_back(s.substr(6));
    else if (s == "--policy")
      a.policy = next_arg(args, i);
    else if (s == "--policy-plugin")
      a.plugins.push_back(next_arg(args, i));
    else if (s == "--allow-plugins")
      a.allow_plugins = true;
    else if (allow_outputs && s == "--policy-python")
      a.python_policy = next_arg(args, i);
    else if (allow_outputs && (s == "-o" || s == "--output"))
      a.output = next_arg(args, i);
    else if (allow_outputs && s == "--log-events")
      a.events = next_arg(args, i);
    else if (allow_outputs && s == "--force")
      a.force = true;
    else if (allow_outputs && s == "--quiet")
      a.quiet = true;
    else if (!s.empty() && s[0] == '-')
      throw UsageError("unknown option '" + s + "'");
    else if (a.file)
      throw UsageError("more than one scenario given ('" + *a.file + "' and '" + s + "')");
    else
      a.file = s;
  }
  if (!a.python_policy.empty()) use_python_policy(a);
  load_plugins(a.plugins);
  return a;
}

int cmd_run(const std::vector<std::string>& args, std::ostream& out)
{
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      out << RUN_HELP;
      return 0;
    }
    if (a == "--help-scenario") {
      out << describe_scenario_keys();
      return 0;
    }
  }
  const auto a = parse_scenario_args(args, true);
  Scenario scenario = load_scenario(a.file.value_or(DEFAULT_SCENARIO), a.sets, a.policy, a.consent(true));
  scenario.set_on_command_line = assignment_keys(a.sets); // their paths: relative to the current directory
  add_command_line_plugins(scenario, a.plugins);
  if (a.output) scenario.outputs.dir = *a.output;
  if (a.events) scenario.outputs.events_file = *a.events;
  scenario.outputs.force = a.force;
  return execute_run(scenario, a.quiet, out);
}

int execute_run(const Scenario& scenario, bool quiet, std::ostream& out, OutputStage* stage, Summary* summary)
{
  RunOptions options;
  try {
    progress_from_environment(options, quiet);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  options.stage = stage;
  options.on_message = [](const RunMessage& m) { std::cerr << message_line(m) << "\n"; };
  const RunResult result = run_scenario(scenario, options);
  if (summary) *summary = result.summary;
  if (!quiet) print_run_result(result, scenario, out);
  return 0;
}

int cmd_validate(const std::vector<std::string>& args, std::ostream& out)
{
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      out << VALIDATE_HELP;
      return 0;
    }
  const auto a = parse_scenario_args(args, false);
  if (!a.file) throw UsageError("validate needs a SCENARIO file (see colocsim validate --help)");
  // Plugins the scenario names need consent, but validate loads only those given with --policy-plugin.
  Scenario scenario = load_scenario(*a.file, a.sets, a.policy, a.consent(false));
  scenario.set_on_command_line = assignment_keys(a.sets); // their paths: relative to the current directory
  for (const auto& w : scenario.warnings)
    std::cerr << "colocsim: warning: " << w << "\n";
  RunInputs inputs = build_run(scenario);
  std::size_t jobs = 0;
  std::map<std::string, std::size_t> per_profile;
  bool any_dependencies = false;
  // One streaming pass (memory independent of the trace's length); the dependency graph, which holds every
  // job's id, is built in a second pass only for a trace where some job has dependencies.
  while (auto job = inputs.reader->next()) {
    any_dependencies = any_dependencies || !job->depends_on.empty();
    const std::string name = job->profile.empty() ? scenario.default_profile : job->profile;
    if (name.empty())
      throw InputError(job->origin, "profile",
                       "the job names no profile and workload.default_profile is not set; valid profiles: " +
                           join(inputs.profiles.names()));
    inputs.profiles.at(name, job->origin);
    ++per_profile[name];
    ++jobs;
  }
  DagSummary deps;
  if (any_dependencies) {
    RunInputs again = build_run(scenario);
    JobDag dag;
    while (auto job = again.reader->next())
      dag.add(*job);
    deps = dag.summarize();
  }
  if (!deps.cycle.empty())
    throw InputError(SourceLocation{scenario.trace}, "depends_on",
                     "the dependencies form a cycle: " + join(deps.cycle, " -> ") +
                         "; expected each job to depend only on jobs that come earlier in the trace");
  out << "ok: " << scenario.file << ": scenario '" << scenario.name << "', " << inputs.platform.devices.size()
      << " devices (" << inputs.platform.nodes << " nodes of " << device_types(inputs.platform) << "), "
      << jobs << " jobs, policy " << scenario.policy
      << (scenario.policy_unchecked ? " (not checked: not built in, and not loaded by a plugin given with "
                                      "--policy-plugin)"
                                    : "")
      << "\n";
  for (const auto& [name, n] : per_profile)
    out << "  " << name << ": " << n << " jobs\n";
  for (const auto& p : scenario.plugins)
    out << "  plugin " << p.path << ": " << (p.exists ? "exists, sha256 " + p.sha256 : "no such file")
        << (p.loaded ? ", loaded (given with --policy-plugin)"
                     : ", not loaded (validate loads only plugins given with --policy-plugin)")
        << "\n";
  if (deps.with_dependencies > 0) {
    out << "  dependencies: " << deps.with_dependencies << " jobs depend on others (" << deps.edges
        << " dependencies); critical path " << deps.critical_path_s << " s through "
        << deps.critical_chain.size() << " jobs (" << join(deps.critical_chain, " -> ") << ")\n";
    for (const auto& p : deps.problems)
      std::cerr << "colocsim: warning: " << p << "\n";
    if (deps.missing + deps.forward > deps.problems.size())
      std::cerr << "colocsim: warning: " << deps.missing + deps.forward - deps.problems.size()
                << " more dependencies on missing or later jobs\n";
  }
  return 0;
}

namespace {

/// `colocsim bench`'s options (BENCH_HELP).
struct BenchOptions {
  long long jobs = 100000, tiles = 1000, seed = 1;
  double load = 1.0, duration = 1800;
  std::string policy = "first-fit", platform = "max1550";
  ScenarioArgs plugin_args;       // --policy-plugin, --policy-python
  bool time_decisions = false;    // --time-decisions
  bool network = false;           // --network
  double multi_node_share = 0.05; // --multi-node-share
  bool free_network = false;      // --free-network
};

/// The options of `colocsim bench`; nullopt after printing the help for --help.
std::optional<BenchOptions> parse_bench_args(const std::vector<std::string>& args, std::ostream& out)
{
  BenchOptions o;
  auto number = [](const std::string& opt, const std::string& v) {
    auto x = parse_double(v);
    if (!x || *x <= 0) throw UsageError("option " + opt + " expects a positive number (got '" + v + "')");
    return *x;
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& s = args[i];
    if (s == "--help" || s == "-h") {
      out << BENCH_HELP;
      return std::nullopt;
    }
    if (s == "--jobs")
      o.jobs = static_cast<long long>(number(s, next_arg(args, i)));
    else if (s == "--tiles")
      o.tiles = static_cast<long long>(number(s, next_arg(args, i)));
    else if (s == "--seed")
      o.seed = static_cast<long long>(number(s, next_arg(args, i)));
    else if (s == "--load")
      o.load = number(s, next_arg(args, i));
    else if (s == "--duration")
      o.duration = number(s, next_arg(args, i));
    else if (s == "--policy")
      o.policy = next_arg(args, i);
    else if (s == "--policy-plugin")
      o.plugin_args.plugins.push_back(next_arg(args, i));
    else if (s == "--policy-python")
      o.plugin_args.python_policy = next_arg(args, i);
    else if (s == "--platform") {
      o.platform = next_arg(args, i);
      if (o.platform != "max1550" && o.platform != "dgx-a100")
        throw UsageError("option --platform expects max1550 or dgx-a100 (got '" + o.platform + "')");
    } else if (s == "--time-decisions")
      o.time_decisions = true;
    else if (s == "--network")
      o.network = true;
    else if (s == "--multi-node-share") {
      const std::string v = next_arg(args, i);
      const auto x = parse_double(v);
      if (!x || !(*x >= 0 && *x <= 1))
        throw UsageError("option --multi-node-share expects a share of jobs, 0..1 (got '" + v + "')");
      o.multi_node_share = *x;
      o.network = true;
    } else if (s == "--free-network") {
      o.free_network = true;
      o.network = true;
    } else
      throw UsageError("unknown option '" + s + "' (see colocsim bench --help)");
  }
  if (o.network && o.platform != "max1550")
    throw UsageError("--network runs on Max 1550 tiles; it cannot be combined with --platform " + o.platform);
  return o;
}

/// The bench scenario's --set overrides for the policy (a Python policy's) and the platform; loads the
/// plugins; `devices` is the number of devices the platform will have.
std::vector<std::string> bench_sets(BenchOptions& o, long long& devices)
{
  std::vector<std::string> sets{"outputs.jobs=false", "outputs.timeseries=false"};
  if (!o.plugin_args.python_policy.empty()) {
    if (o.policy != "first-fit")
      throw UsageError("--policy-python and --policy both choose the policy; give one");
    use_python_policy(o.plugin_args);
    o.policy.clear();
    sets.insert(sets.end(), o.plugin_args.sets.begin(), o.plugin_args.sets.end());
  }
  load_plugins(o.plugin_args.plugins);
  if (o.platform == "dgx-a100") {
    // DGX A100 nodes of 8 GPUs in MIG mode; the bundled A100 calibration; MIG instances are isolated, so no
    // interference model.
    const long long nodes = (o.tiles + 7) / 8;
    devices = nodes * 8;
    for (std::string set : {"platform.preset=dgx-a100", "platform.cards_per_node=8", "platform.sharing=mig",
                            "interference=none"})
      sets.push_back(set);
    sets.push_back("platform.nodes=" + std::to_string(nodes));
  } else {
    // One card (2 tiles) per node so that any even tile count is exact.
    const long long cards = (o.tiles + 1) / 2;
    devices = cards * 2;
    sets.push_back("platform.nodes=" + std::to_string(cards));
    sets.push_back("platform.cards_per_node=1");
    if (o.network) sets.push_back("platform.preset=builtin:sim/scenarios/bench/platform-net.yaml");
  }
  return sets;
}

/// The profile `--network` gives its multi-node jobs: the default catalog's profiles and
/// sim/scenarios/bench/profiles-net.yaml's, in one catalog (the synthetic draw read the default catalog
/// alone when it was built, so the other jobs are drawn as without --network).
constexpr const char* BENCH_NET_PROFILE = "bench-allreduce-train";

ProfileCatalog bench_net_profiles()
{
  const TextFile base = read_text_file("builtin:workloads/profiles/default.yaml");
  const TextFile extra = read_text_file("builtin:sim/scenarios/bench/profiles-net.yaml");
  const auto at = extra.text.find("\nprofiles:\n");
  if (at == std::string::npos) throw std::logic_error(extra.name + ": no profiles: section");
  std::string text = base.text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += extra.text.substr(at + 11); // its profiles, under the default catalog's `profiles:` (its last key)
  return ProfileCatalog::load(text, base.name + " + " + extra.name);
}

/// `--network`'s workload: the synthetic jobs, a share of which become 4-tile jobs (2 nodes of 2 tiles or
/// more) of BENCH_NET_PROFILE with its memory footprint; which ones depends on the seed and the job's index
/// only (a hash of the two against the share), not on the draw of the others.
class MultiNodeJobs final : public JobReader {
public:
  MultiNodeJobs(std::unique_ptr<JobReader> inner, double share, std::uint64_t seed, double mem_bytes)
      : inner_(std::move(inner)), share_(share), seed_(seed), mem_bytes_(mem_bytes)
  {
  }
  std::optional<Job> next() override
  {
    auto job = inner_->next();
    if (!job) return job;
    // splitmix64 of (seed, index): 53 uniform bits.
    std::uint64_t z = seed_ * 0x9E3779B97F4A7C15ULL + ++index_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    if (static_cast<double>(z >> 11) * 0x1.0p-53 < share_) {
      job->devices = 4;
      job->profile = BENCH_NET_PROFILE;
      job->mem_request_bytes = mem_bytes_;
      ++multi_node_;
    }
    return job;
  }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  std::string describe() const override { return inner_->describe(); }
  bool may_have_dependencies() const override { return inner_->may_have_dependencies(); }
  std::uint64_t multi_node() const { return multi_node_; }

private:
  std::unique_ptr<JobReader> inner_;
  double share_;
  std::uint64_t seed_, index_ = 0, multi_node_ = 0;
  double mem_bytes_;
};

// The policy, timed: the wall-clock and CPU time inside decide() after its first call, and when that
// first call ended. Setup ends there: the engine has built its hosts, and the policy its indexes over the
// devices (once, O(devices): SlotPolicy::init and the like run in the first call). CPU time (of this
// thread, which runs every actor) does not count the time other processes of a busy machine take; it is
// read only with `cpu_clock` (--time-decisions): each reading is a system call, the wall clock's is not.
struct TimedPolicy final : Policy {
  std::unique_ptr<Policy> inner;
  bool cpu_clock = false;
  std::chrono::steady_clock::duration inside{};
  double inside_cpu_s = 0;
  std::optional<std::chrono::steady_clock::time_point> first_call_end;
  double first_call_end_cpu_s = 0; ///< process CPU time then
  std::uint64_t calls = 0;
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_clock ? cpu_seconds(CLOCK_THREAD_CPUTIME_ID) : 0.0;
    auto decisions = inner->decide(view, events);
    const double c1 = cpu_clock ? cpu_seconds(CLOCK_THREAD_CPUTIME_ID) : 0.0;
    const auto t1 = std::chrono::steady_clock::now();
    if (first_call_end) {
      inside += t1 - t0;
      inside_cpu_s += c1 - c0;
    } else {
      first_call_end = t1;
      first_call_end_cpu_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    }
    ++calls;
    return decisions;
  }
};

// The last job's end closes the event loop; what follows is the teardown (the engine's totals over every
// device, SimGrid's end-of-simulation walk over every host): once per run, O(devices), like the setup.
// The process CPU clock (a system call) is read at a job's end only when a millisecond of wall time has
// passed since its last reading; the CPU time at the last end is that reading plus the wall time since,
// the one thread being busy in between: off by at most 1 ms of a run's CPU time.
struct BenchCollect final : RunObserver {
  static constexpr std::chrono::milliseconds CPU_READ_EVERY{1};
  MetricsCollector& m;
  std::chrono::steady_clock::time_point last_end{};
  std::chrono::steady_clock::time_point cpu_read_at{}; ///< when the CPU clock was last read
  double cpu_read_s = 0;                               ///< its reading then
  explicit BenchCollect(MetricsCollector& mc) : m(mc) {}
  void on_job_end(const JobRecord& r) override
  {
    m.add(r);
    last_end = std::chrono::steady_clock::now();
    if (last_end - cpu_read_at >= CPU_READ_EVERY) {
      cpu_read_at = last_end;
      cpu_read_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    }
  }
  /// Process CPU seconds at the last job's end (0 if no job ended).
  [[nodiscard]] double last_end_cpu_s() const
  {
    if (cpu_read_s == 0) return 0;
    return cpu_read_s + std::chrono::duration<double>(last_end - cpu_read_at).count();
  }
};

/// The clock readings of one bench run: when the setup began, the simulation (the event loop) began
/// and ended, and the whole run ended, each in wall-clock and process CPU time.
struct BenchClocks {
  std::chrono::steady_clock::time_point setup0, wall0, wall1;
  double setup0_cpu_s = 0, wall1_cpu_s = 0;
};

/// `colocsim bench`'s key=value lines.
void print_bench_report(const BenchClocks& c, const TimedPolicy& timed, const BenchCollect& collect,
                        const RunTotals& totals, const Summary& s, const std::string& policy,
                        std::size_t tiles, std::ostream& out)
{
  const double setup_end_cpu_s = timed.first_call_end ? timed.first_call_end_cpu_s : c.wall1_cpu_s;
  const double wall = std::chrono::duration<double>(c.wall1 - c.wall0).count();
  const auto setup_end = timed.first_call_end.value_or(c.wall1);
  const double setup_wall = std::chrono::duration<double>(setup_end - c.setup0).count();
  const auto loop_end = std::max(collect.last_end, setup_end);
  const double loop_end_cpu_s = std::max(collect.last_end_cpu_s(), setup_end_cpu_s);
  const double simulation_wall = std::chrono::duration<double>(loop_end - setup_end).count();
  const double teardown_wall = std::chrono::duration<double>(c.wall1 - loop_end).count();
  const double policy_wall = std::chrono::duration<double>(timed.inside).count();
  const double n_jobs = static_cast<double>(std::max<std::uint64_t>(totals.jobs_read, 1));
  out << "jobs=" << totals.jobs_read << "\n"
      << "tiles=" << tiles << "\n"
      << "policy=" << policy << "\n"
      << "wall_s=" << wall << "\n"
      << "engine_events=" << totals.engine_events << "\n"
      << "events_per_s=" << static_cast<double>(totals.engine_events) / wall << "\n"
      << "jobs_per_s=" << static_cast<double>(totals.jobs_read) / wall << "\n"
      << "rate_updates=" << totals.rate_updates << "\n"
      << "peak_live_jobs=" << totals.peak_live_jobs << "\n"
      << "peak_rss_mb=" << peak_rss_mb() << "\n"
      << "jobs_completed=" << s.jobs_completed << "\n"
      << "makespan_s=" << s.makespan_s << "\n"
      << "energy_total_j=" << s.energy_total_j << "\n"
      << "colocation_mean=" << s.colocation_mean << "\n"
      << "setup_wall_s=" << setup_wall << "\n"
      << "simulation_wall_s=" << simulation_wall << "\n"
      << "policy_wall_s=" << policy_wall << "\n"
      << "policy_calls=" << timed.calls - (timed.calls > 0 ? 1 : 0) << "\n"
      << "setup_cpu_s=" << setup_end_cpu_s - c.setup0_cpu_s << "\n"
      << "simulation_cpu_s=" << loop_end_cpu_s - setup_end_cpu_s << "\n"
      << "teardown_wall_s=" << teardown_wall << "\n"
      << "teardown_cpu_s=" << c.wall1_cpu_s - loop_end_cpu_s << "\n"
      << "simulation_us_per_job=" << (loop_end_cpu_s - setup_end_cpu_s) / n_jobs * 1e6 << "\n";
  if (timed.cpu_clock)
    out << "policy_cpu_s=" << timed.inside_cpu_s << "\n"
        << "policy_us_per_job=" << timed.inside_cpu_s / n_jobs * 1e6 << "\n";
}

} // namespace

int cmd_bench(const std::vector<std::string>& args, std::ostream& out)
{
  auto options = parse_bench_args(args, out);
  if (!options) return 0;
  BenchOptions& o = *options;
  long long devices = 0;
  const std::vector<std::string> sets = bench_sets(o, devices);
  BenchClocks clocks;
  clocks.setup0 = std::chrono::steady_clock::now();
  clocks.setup0_cpu_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  Scenario scenario = load_scenario("builtin:sim/scenarios/bench/scenario.yaml", sets, o.policy);
  auto& syn = *scenario.synthetic;
  syn.jobs = static_cast<std::size_t>(o.jobs);
  syn.duration_mean_s = o.duration;
  syn.arrival_rate_per_s = o.load * static_cast<double>(devices) / o.duration;
  syn.seed = static_cast<std::uint64_t>(o.seed);
  RunInputs inputs = build_run(scenario);
  MultiNodeJobs* multi = nullptr;
  if (o.network) {
    inputs.profiles = bench_net_profiles();
    const Profile* p = inputs.profiles.find(BENCH_NET_PROFILE);
    auto reader = std::make_unique<MultiNodeJobs>(std::move(inputs.reader), o.multi_node_share,
                                                  static_cast<std::uint64_t>(o.seed), p->sig.mem_bytes);
    multi = reader.get();
    inputs.reader = std::move(reader);
    if (o.free_network) inputs.platform.network.reset(); // the same nodes and jobs, communication free
  }
  auto timed_owner = std::make_unique<TimedPolicy>();
  timed_owner->inner = std::move(inputs.policy);
  timed_owner->cpu_clock = o.time_decisions;
  TimedPolicy& timed = *timed_owner;
  inputs.policy = std::move(timed_owner);

  clocks.wall0 = std::chrono::steady_clock::now();
  MetricsCollector metrics;
  BenchCollect collect(metrics);
  RunSetup setup = inputs.setup();
  setup.jobs_total = syn.jobs; // the progress line's time left
  const RunTotals totals = run_simulation(setup, collect);
  clocks.wall1 = std::chrono::steady_clock::now();
  clocks.wall1_cpu_s = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
  const Summary s = metrics.summarize(totals, scenario.pue);
  print_bench_report(clocks, timed, collect, totals, s, scenario.policy, inputs.platform.devices.size(), out);
  if (multi) {
    out << "multi_node_jobs=" << multi->multi_node() << "\n"
        << "jobs_communicating=" << s.jobs_communicating << "\n";
    if (s.jobs_communicating > 0) out << "comm_slowdown_mean=" << s.comm_slowdown_mean << "\n"; // else none
    out << "jobs_link_contended=" << s.jobs_link_contended << "\n";
  }
  return 0;
}

const std::vector<CliCommand>& cli_commands()
{
  static const std::vector<CliCommand> commands{
      {"run", "simulate a scenario (no argument: the embedded default scenario)", cmd_run},
      {"validate", "check a scenario and every file and trace row it uses, without simulating", cmd_validate},
      {"policies", "list the co-location policies and their parameters", cmd_policies},
      {"devices", "list the bundled device catalog", cmd_devices},
      {"replay", "replay a trace file end to end with sensible defaults (no scenario file needed)",
       cmd_replay},
      {"formats", "list the trace formats and their options", cmd_formats},
      {"generate", "write a synthetic trace (native CSV) from a seed", cmd_generate},
      {"sweep", "run a scenario over axes of parameters and seeds, N processes at a time; gather sweep.csv",
       cmd_sweep},
      {"advise",
       "which sharing mode and scheduler for a trace, and what it saves: every option over replicates "
       "against exclusive FCFS; advise.json, report.html",
       cmd_advise},
      {"plot",
       "draw SVG figures from a run (Gantt chart, power over time) or a sweep (metric per combination)",
       cmd_plot},
      {"pack",
       "FGD's packing study: pods of an openb list arrive on its nodes, never leave, dropped if they fit "
       "nowhere",
       cmd_pack},
      {"bench", "replay a synthetic trace and print speed figures (key=value lines)", cmd_bench},
      {"profiles", "write profile keys from measurements (import-mig: a MIG sweep CSV -> mig_speed_by_batch)",
       cmd_profiles},
      {"calibrate", "measure a device (run), fit a calibration (fit), check it on held-out co-runs (check)",
       cmd_calibrate},
  };
  return commands;
}

int run_cli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err)
{
  try {
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
      if (argv.size() >= 2) return run_cli({argv[1], "--help"}, out, err);
      out << "colocsim — discrete-event simulator of GPU sharing in AI factories\n\n"
          << "usage: colocsim <command> [options]\n\ncommands:\n";
      for (const auto& c : cli_commands())
        out << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ') << c.summary
            << "\n";
      out << "  help [CMD]  show help for a command\n\n"
          << "Run `colocsim <command> --help` for a command's options. Documentation: README.md, docs/.\n";
      return 0;
    }
    if (argv[0] == "--version") {
      out << "colocsim " << COLOCSIM_VERSION << "\n";
      return 0;
    }
    // A short option's value may be attached, as in make and most tools: -j2 is -j 2, -oDIR is -o DIR.
    std::vector<std::string> rest;
    for (auto a = argv.begin() + 1; a != argv.end(); ++a) {
      if (a->size() > 2 && (*a)[0] == '-' && ((*a)[1] == 'j' || (*a)[1] == 'o')) {
        rest.push_back(a->substr(0, 2));
        rest.push_back(a->substr(2));
      } else {
        rest.push_back(*a);
      }
    }
    for (const auto& c : cli_commands())
      if (c.name == argv[0]) return c.run(rest, out);
    std::vector<std::string> names;
    for (const auto& c : cli_commands())
      names.push_back(c.name);
    throw UsageError("unknown command '" + argv[0] + "'; valid: " + join(names) + ", help");
  } catch (const UsageError& e) {
    err << "colocsim: " << e.what() << "\n";
    return EXIT_USAGE;
  } catch (const InputError& e) {
    err << e.what() << "\n";
    return EXIT_USAGE;
  } catch (const DecisionError& e) {
    err << "colocsim: " << e.what() << "\n";
    return 1;
  } catch (const RunInterrupted& e) {
    err << "colocsim: interrupted by " << e.what() << "\n";
    return 128 + e.signal; // as a shell reports a process ended by that signal: 130 for SIGINT, 143 SIGTERM
  } catch (const OutputError& e) {
    // A write that failed (full disk, I/O error): the message names the file and the OS error.
    err << "colocsim: " << e.what() << "\n";
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave that the file system refuses (too long, no permission): the argument's fault.
    err << "colocsim: " << e.path1().string() << ": " << e.code().message()
        << "; expected a path this file system can read or write\n";
    return EXIT_USAGE;
  } catch (const YAML::Exception& e) {
    // Loaders check every key before reading it; one that escapes is a loader bug, not the user's.
    err << "colocsim: internal error: a YAML file was read without checking it (yaml-cpp: " << e.what()
        << "); please report this with the file\n";
    return 1;
  } catch (const std::exception& e) {
    err << "colocsim: internal error: " << e.what() << "\n";
    return 1;
  }
}

} // namespace colocsim
