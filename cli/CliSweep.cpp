// `colocsim sweep SPEC -j N`: runs a scenario over the cartesian product of parameter axes and seeds, one
// process per run (docs/architecture.md, SimGrid 3.32 facts: one SimGrid engine per process),
// and gathers every run's summary.json into one sweep.csv and a table of means over seeds.
// Spec format and outputs: docs/formats/sweep.md.
//
// Why processes and not threads: SimGrid 3.32 allows one engine per process, and a second engine in the
// same process inherits the first one's clock (sim/README.md). Each run is exactly `colocsim run` with
// the run's --set/--policy arguments, so a sweep row can always be reproduced by hand (runs.txt lists the
// command of every run).
#include "cli/Cli.hpp"
#include "cli/CliCommands.hpp"

#include "base/Csv.hpp"
#include "base/Errors.hpp"
#include "base/Yaml.hpp"
#include "sim/Outputs.hpp"
#include "sim/Resources.hpp"
#include "sim/RunInputs.hpp"
#include "sim/Scenario.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace colocsim {

namespace {
namespace fs = std::filesystem;

const char* const SWEEP_HELP = R"(usage: colocsim sweep SPEC [options]

Runs the scenario named in SPEC (a YAML file, docs/formats/sweep.md) once for every combination of the
values of its axes and of its seeds, N runs at a time, each in its own process (`colocsim run` with the
run's --set/--policy arguments). Every run writes its results to DIR/run-NNNN/; when all are done the sweep
writes DIR/sweep.csv (one row per run: axis values, seed, status and every number of summary.json) and
prints the mean of chosen metrics over the seeds of each combination.

options:
  -o, --output DIR   output directory (default: sweep-out/<spec name>)
  -j, --jobs N       runs at a time (default: the number of cores)
  --resume           DIR holds an unfinished sweep of the same SPEC: run only the runs without results
  --force            DIR holds an earlier sweep: run everything again and overwrite its results
  --dry-run          check SPEC and every run's scenario, print the runs and their commands, run nothing
  --slurm            run nothing here: check SPEC, prepare DIR and write DIR/slurm/ (a Slurm job array,
                     a collect job and submit.sh, which submits both); docs/sweeps.md
  --partition P      (with --slurm) the Slurm partition of the tasks
  --time T           (with --slurm) each task's time limit, in Slurm's form (MM, HH:MM:SS, D-HH:MM, ...)
  --array-max N      (with --slurm) at most N tasks of the array at a time (sbatch --array=...%N)
  --runs-per-task K  (with --slurm) K runs one after the other in each task (default 1; raised so that the
                     array has at most 1000 tasks, Slurm's default MaxArraySize - 1)
  --collect DIR      gather the finished runs of a sweep prepared with --slurm into DIR/sweep.csv and print
                     the table; runs nothing. SPEC may be left out (DIR/slurm/spec-path names it). Again
                     after more runs finished: each run is read once, from its run-NNNN/summary.json
  --baseline A=V[,B=W]  after each metric of the table, its change from the baseline combination in %
                     (axes left out: the row with the same values of them), e.g. --baseline policy=first-fit
  --quiet            no table on stdout (progress still goes to stderr)
  --deadline DURATION
                     start no run after this wall time from the command's start (90s, 10m, 1.5h; units
                     ms, s, m, min, h); a run still running then is stopped (SIGTERM, SIGKILL 2 s later)
                     and its folder removed; such runs are `deadline` in sweep.csv, not failures, and
                     --resume runs them
  --eta              end each progress line with an estimate of the time left (the wall time so far
                     per run that ran, times the runs left)
  --policy-plugin F  load policies from a plugin built out of tree (repeatable; passed on to every run)
  --policy-python FILE.py:CLASS
                     every run's policy is CLASS (a subclass of colocsim.Policy) written in Python in
                     FILE.py, as with `colocsim run --policy-python` (python/README.md); the spec then
                     names no policy (no `policy` axis or key)
  --allow-plugins    load the policy plugins the spec's scenario names (passed on to every run); loading
                     runs their code: without this option or the same file given with --policy-plugin, a
                     sweep (--dry-run too) whose scenario names plugins stops with exit 2 and lists them
                     with their sha256. --dry-run loads only the plugins given with --policy-plugin.
                     The checks before the runs (--slurm too) build each run's policy in this process:
                     a Python policy's file is imported, and its code runs, then

Combinations of axis values that cannot run together (a MIG policy on a platform without MIG, ...) are
skipped with a note and marked `infeasible` in sweep.csv; a sweep in which no combination can run is refused.

exit status: 0 all runs succeeded (infeasible ones skipped, and with --deadline those it left out), 1 some run failed (see DIR/run-NNNN/log.txt) or, with --collect, has
not finished yet, 2 bad SPEC or usage.
)";

/// A value of a bundled axis (a map in the spec: {label, policy, set}): several settings that go together.
struct AxisBundle {
  std::vector<std::string> sets; ///< --set assignments (file names resolved)
  std::string policy;            ///< --policy, may be empty (the spec's)
};

struct Axis {
  std::string key;                   ///< "policy" (a --policy value) or a scenario key for --set; a bundled
                                     ///< axis: a name of its own (sweep.csv's column)
  std::vector<std::string> values;   ///< as passed to colocsim run (file names resolved); bundled: the labels
  std::vector<std::string> labels;   ///< as written in the spec (sweep.csv, the table)
  std::vector<SourceLocation> where; ///< of each value in the spec
  std::vector<AxisBundle> bundles;   ///< a bundled axis: one per value; empty otherwise
};

struct SweepSpec {
  std::string file, text;
  std::string name;
  std::string scenario;          ///< resolved path or builtin: name
  std::vector<std::string> sets; ///< fixed --set assignments
  std::string policy;            ///< fixed --policy, may be empty
  std::vector<Axis> axes;
  std::vector<long long> seeds;
  std::vector<std::string> metrics;
  std::vector<SourceLocation> metric_where;
};

struct RunSpec {
  std::size_t index = 0;           ///< 0-based
  std::vector<std::size_t> choice; ///< value index per axis
  long long seed = 1;
  std::vector<std::string> sets;
  std::string policy;
  /// Why this combination of axis values cannot run (e.g. mig-manager with platform.sharing time-slice); the
  /// run is skipped, not run, and sweep.csv names it `infeasible`. Empty for a run that runs.
  std::string infeasible;
  std::string id() const
  {
    std::ostringstream os;
    os << "run-" << std::setw(4) << std::setfill('0') << index + 1;
    return os.str();
  }
};

const std::vector<std::string>& default_metrics()
{
  static const std::vector<std::string> m{"makespan_s",  "energy_total_j", "energy_per_completed_job_j",
                                          "jct_mean_s",  "wait_mean_s",    "bounded_slowdown_mean",
                                          "utilization", "oom_events"};
  return m;
}

/// A path in the spec is relative to the spec's folder, so that specs and their files can live together: the
/// value of a path key (path_keys(): workload.trace, platform.preset, ...) that is a path, and any other
/// value that names a file next to the spec, is passed as that file's absolute path (the runs get it with
/// --set, and a relative path given with --set resolves against the current directory). Any other value is
/// unchanged.
std::string resolve_value(const std::string& spec_path, const std::string& key, const std::string& value)
{
  if (value.empty() || value.rfind("builtin:", 0) == 0 || fs::path(value).is_absolute() ||
      spec_path.rfind("builtin:", 0) == 0)
    return value;
  const fs::path candidate = fs::path(spec_path).parent_path() / value;
  const auto& keys = path_keys();
  const bool path_key = std::find(keys.begin(), keys.end(), key) != keys.end();
  std::error_code ec;
  if ((path_key && (key == "workload.trace" || is_path(value))) || fs::is_regular_file(candidate, ec))
    return fs::absolute(candidate).lexically_normal().string();
  return value;
}

/// The spec's name: `name:`, else the spec file's stem.
void read_spec_name(const YAML::Node& root, const std::string& path, const std::string& f,
                    DiagnosticSink& sink, SweepSpec& s)
{
  s.name = fs::path(path).stem().string();
  if (const auto n = root["name"]; n.IsDefined()) {
    if (!n.IsScalar() || n.Scalar().empty() || n.Scalar().find('/') != std::string::npos)
      sink.add(location_of(n, f), "name",
               "expected a non-empty name without '/' (it names the output folder)");
    else
      s.name = n.Scalar();
  }
}

/// The scenario: relative to the spec file's folder; "default" or absent = the embedded default scenario.
void read_spec_scenario(const YAML::Node& root, const std::string& path, const std::string& f,
                        DiagnosticSink& sink, SweepSpec& s)
{
  s.scenario = DEFAULT_SCENARIO;
  const auto n = root["scenario"];
  if (!n.IsDefined()) return;
  if (!n.IsScalar() || n.Scalar().empty()) {
    sink.add(location_of(n, f), "scenario", "expected a scenario file path (or 'default')");
    return;
  }
  if (n.Scalar() == "default") return;
  const std::string& v = n.Scalar();
  if (v.rfind("builtin:", 0) == 0 || fs::path(v).is_absolute() || f.rfind("builtin:", 0) == 0)
    s.scenario = v;
  else
    s.scenario = (fs::path(path).parent_path() / v).lexically_normal().string();
  std::error_code ec; // e.g. a name too long for the file system: an input error, not an exception
  if (s.scenario.rfind("builtin:", 0) != 0 && !fs::exists(s.scenario, ec))
    sink.add(location_of(n, f), "scenario",
             ec ? "cannot access the scenario file " + s.scenario + " (" + ec.message() +
                      "); expected the path of a scenario file"
                : "scenario file not found: " + s.scenario);
}

/// A value or a non-empty list of values, each with its place in the spec.
std::vector<std::pair<std::string, SourceLocation>> scalar_list(const YAML::Node& n, const std::string& key,
                                                                const std::string& f, DiagnosticSink& sink)
{
  std::vector<std::pair<std::string, SourceLocation>> out;
  if (n.IsScalar())
    out.emplace_back(n.Scalar(), location_of(n, f));
  else if (n.IsSequence() && n.size() > 0) {
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (!n[i].IsScalar())
        sink.add(location_of(n[i], f), key + "[" + std::to_string(i) + "]", "expected a single value");
      else
        out.emplace_back(n[i].Scalar(), location_of(n[i], f));
    }
  } else
    sink.add(location_of(n, f), key, "expected a value or a non-empty list of values");
  return out;
}

/// The fixed settings: `set:` (scenario key → value) and `policy:`.
void read_spec_fixed(const YAML::Node& root, const std::string& path, const std::string& f,
                     DiagnosticSink& sink, SweepSpec& s)
{
  if (const auto n = root["set"]; n.IsDefined()) {
    if (!n.IsMap())
      sink.add(location_of(n, f), "set",
               "expected a map of scenario keys to values, e.g. interference: contention");
    else
      for (const auto& kv : n) {
        const auto key = kv.first.as<std::string>();
        if (!kv.second.IsScalar())
          sink.add(location_of(kv.second, f), "set." + key, "expected a single value");
        else
          s.sets.push_back(key + "=" + resolve_value(path, key, kv.second.Scalar()));
      }
  }
  if (const auto n = root["policy"]; n.IsDefined()) {
    if (!n.IsScalar())
      sink.add(location_of(n, f), "policy", "expected NAME or NAME:K=V,... as for --policy");
    else
      s.policy = n.Scalar();
  }
}

/// A bundled axis: a list of maps {label, policy, set}, each value several settings that go together (e.g.
/// a sharing mode with the policy and parameters that suit it). Every item must be such a map with a label
/// of its own; `policy` and `set` are optional.
void read_bundled_axis(const YAML::Node& list, const std::string& path, const std::string& f,
                       DiagnosticSink& sink, Axis& a)
{
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& item = list[i];
    const std::string at = "axes." + a.key + "[" + std::to_string(i) + "]";
    if (!item.IsMap()) {
      sink.add(location_of(item, f), at,
               "expected a map {label, policy, set} like the axis's first value (a bundled axis)");
      continue;
    }
    check_keys(item, {"label", "policy", "set"}, f, at, sink);
    AxisBundle b;
    const auto label = item["label"];
    if (!label.IsDefined() || !label.IsScalar() || label.Scalar().empty()) {
      sink.add(location_of(item, f), at + ".label", "expected a non-empty label (it names the value)");
      continue;
    }
    if (std::find(a.labels.begin(), a.labels.end(), label.Scalar()) != a.labels.end())
      sink.add(location_of(label, f), at + ".label", "label '" + label.Scalar() + "' appears twice");
    if (const auto p = item["policy"]; p.IsDefined()) {
      if (!p.IsScalar() || p.Scalar().empty())
        sink.add(location_of(p, f), at + ".policy", "expected NAME or NAME:K=V,... as for --policy");
      else
        b.policy = p.Scalar();
    }
    if (const auto set = item["set"]; set.IsDefined()) {
      if (!set.IsMap())
        sink.add(location_of(set, f), at + ".set", "expected a map of scenario keys to values");
      else
        for (const auto& kv : set) {
          const auto key = kv.first.as<std::string>();
          if (!kv.second.IsScalar())
            sink.add(location_of(kv.second, f), at + ".set." + key, "expected a single value");
          else
            b.sets.push_back(key + "=" + resolve_value(path, key, kv.second.Scalar()));
        }
    }
    a.labels.push_back(label.Scalar());
    a.values.push_back(label.Scalar());
    a.where.push_back(location_of(item, f));
    a.bundles.push_back(std::move(b));
  }
}

/// `axes:`: scenario key → the values the sweep takes it through.
void read_spec_axes(const YAML::Node& root, const std::string& path, const std::string& f,
                    DiagnosticSink& sink, SweepSpec& s)
{
  const auto n = root["axes"];
  if (!n.IsDefined()) return;
  if (!n.IsMap()) {
    sink.add(location_of(n, f), "axes", "expected a map of scenario keys to lists of values");
    return;
  }
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) { // `? [a, b]: [...]` or `? {k: v}: [...]`: YAML allows it, a key is a name
      sink.add(location_of(kv.first, f), "axes", "expected a scenario key (a plain name) before ':'");
      continue;
    }
    Axis a;
    a.key = kv.first.Scalar();
    if (kv.second.IsSequence() && kv.second.size() > 0 && kv.second[0].IsMap()) {
      read_bundled_axis(kv.second, path, f, sink, a);
      s.axes.push_back(std::move(a));
      continue;
    }
    for (auto& [v, where] : scalar_list(kv.second, "axes." + a.key, f, sink)) {
      if (std::find(a.labels.begin(), a.labels.end(), v) != a.labels.end())
        sink.add(where, "axes." + a.key, "value '" + v + "' appears twice");
      a.labels.push_back(v);
      a.values.push_back(a.key == "policy" ? v : resolve_value(path, a.key, v));
      a.where.push_back(where);
    }
    if (a.key == "seed")
      sink.add(location_of(kv.first, f), "axes.seed", "seeds are listed under `seeds:`, not as an axis");
    s.axes.push_back(std::move(a));
  }
}

/// `seeds:`: {first, count} or a value or list of integer seeds.
void read_spec_seeds(const YAML::Node& root, const std::string& f, DiagnosticSink& sink, SweepSpec& s)
{
  const auto n = root["seeds"];
  if (!n.IsDefined()) return;
  if (n.IsMap()) {
    check_keys(n, {"first", "count"}, f, "seeds", sink);
    long long first = 1, count = 0;
    try {
      first = n["first"].IsDefined() ? n["first"].as<long long>() : 1;
      count = n["count"].as<long long>();
    } catch (const YAML::Exception&) {
      count = 0;
    }
    if (count < 1 || count > 100000)
      sink.add(location_of(n, f), "seeds", "expected {first: integer, count: 1..100000}");
    else
      for (long long i = 0; i < count; ++i)
        s.seeds.push_back(first + i);
    return;
  }
  for (auto& [v, where] : scalar_list(n, "seeds", f, sink)) {
    const auto x = parse_double(v);
    if (!x || *x != std::floor(*x))
      sink.add(where, "seeds", "expected an integer seed (got '" + v + "')");
    else if (std::find(s.seeds.begin(), s.seeds.end(), static_cast<long long>(*x)) != s.seeds.end())
      sink.add(where, "seeds", "seed " + v + " appears twice");
    else
      s.seeds.push_back(static_cast<long long>(*x));
  }
}

/// `metrics:`: the summary.json fields of the table (checked against summary.json's fields in cmd_sweep).
void read_spec_metrics(const YAML::Node& root, const std::string& f, DiagnosticSink& sink, SweepSpec& s)
{
  s.metrics = default_metrics();
  s.metric_where.assign(s.metrics.size(), SourceLocation{f});
  if (const auto n = root["metrics"]; n.IsDefined()) {
    s.metrics.clear();
    s.metric_where.clear();
    for (auto& [v, where] : scalar_list(n, "metrics", f, sink)) {
      s.metrics.push_back(v);
      s.metric_where.push_back(where);
    }
  }
}

SweepSpec load_spec(const std::string& path)
{
  const TextFile text = read_text_file(path);
  const std::string& f = text.name;
  const YAML::Node root = load_yaml(text.text, f);
  DiagnosticSink sink;
  SweepSpec s;
  s.file = f;
  s.text = text.text;
  if (!root.IsMap()) {
    sink.add(location_of(root, f), "",
             "expected a sweep map (name, scenario, set, policy, axes, seeds, metrics)");
    sink.throw_if_any();
  }
  check_keys(root, {"name", "description", "scenario", "set", "policy", "axes", "seeds", "metrics"}, f, "",
             sink);
  read_spec_name(root, path, f, sink, s);
  read_spec_scenario(root, path, f, sink, s);
  read_spec_fixed(root, path, f, sink, s);
  read_spec_axes(root, path, f, sink, s);
  read_spec_seeds(root, f, sink, s);
  read_spec_metrics(root, f, sink, s);
  sink.throw_if_any();
  return s;
}

/// "file:line:col: axes.key: <the scenario's complaint>" — a value from the spec is checked by loading the
/// scenario with it, and any problem is reported at the value's place in the spec.
void check_value(const SweepSpec& spec, const Axis& axis, std::size_t v, const PluginConsent& consent,
                 DiagnosticSink& sink)
{
  const std::string& key = axis.key;
  const SourceLocation& where = axis.where[v];
  try {
    // build_run also opens the files a value names (trace, profiles, calibration, platform).
    std::vector<std::string> sets = spec.sets;
    std::string policy = key == "policy" ? axis.values[v] : spec.policy;
    if (!axis.bundles.empty()) {
      sets.insert(sets.end(), axis.bundles[v].sets.begin(), axis.bundles[v].sets.end());
      if (!axis.bundles[v].policy.empty()) policy = axis.bundles[v].policy;
    } else if (key != "policy")
      sets.push_back(key + "=" + axis.values[v]);
    (void)build_run(load_scenario(spec.scenario, sets, policy, consent));
  } catch (const InputError& e) {
    for (const auto& d : e.diagnostics()) {
      // A problem in another file than the scenario (a trace, a platform file the value names): name it.
      const auto& f = d.where.file;
      const bool elsewhere =
          !f.empty() && f != spec.scenario && f.rfind("builtin:", 0) != 0 && f.rfind("command line", 0) != 0;
      sink.add(where, "axes." + key,
               (elsewhere ? d.where.to_string() + ": " : "") +
                   (d.path.empty() || d.path == key ? "" : d.path + ": ") + d.message);
    }
  }
}

std::vector<RunSpec> expand(const SweepSpec& spec, long long scenario_seed)
{
  std::vector<RunSpec> runs;
  std::vector<std::size_t> choice(spec.axes.size(), 0);
  const std::vector<long long> seeds =
      spec.seeds.empty() ? std::vector<long long>{scenario_seed} : spec.seeds;
  for (;;) {
    for (long long seed : seeds) {
      RunSpec r;
      r.index = runs.size();
      r.choice = choice;
      r.seed = seed;
      r.sets = spec.sets;
      r.policy = spec.policy;
      for (std::size_t a = 0; a < spec.axes.size(); ++a) {
        const auto& v = spec.axes[a].values[choice[a]];
        if (!spec.axes[a].bundles.empty()) {
          const AxisBundle& b = spec.axes[a].bundles[choice[a]];
          r.sets.insert(r.sets.end(), b.sets.begin(), b.sets.end());
          if (!b.policy.empty()) r.policy = b.policy;
        } else if (spec.axes[a].key == "policy")
          r.policy = v;
        else
          r.sets.push_back(spec.axes[a].key + "=" + v);
      }
      r.sets.push_back("seed=" + std::to_string(seed));
      runs.push_back(std::move(r));
    }
    // Next combination: the last axis varies fastest.
    std::size_t a = spec.axes.size();
    while (a > 0) {
      --a;
      if (++choice[a] < spec.axes[a].values.size()) break;
      choice[a] = 0;
      if (a == 0) return runs;
    }
    if (spec.axes.empty()) return runs;
  }
}

std::vector<std::string> run_args(const SweepSpec& spec, const RunSpec& r, const fs::path& dir,
                                  const PluginConsent& consent)
{
  std::vector<std::string> args{"run", spec.scenario};
  for (const auto& p : consent.command_line) {
    args.push_back("--policy-plugin");
    args.push_back(fs::absolute(p).string());
  }
  if (consent.allow_all) args.push_back("--allow-plugins");
  for (const auto& s : r.sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  if (!r.policy.empty()) {
    args.push_back("--policy");
    args.push_back(r.policy);
  }
  args.insert(args.end(), {"-o", dir.string(), "--force", "--quiet"});
  return args;
}

std::string shell_quote(const std::string& s)
{
  if (!s.empty() &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@") ==
          std::string::npos)
    return s;
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// A byte a script may carry as it is: printable ASCII (no control character, nothing above 0x7e).
bool is_printable_ascii(char c)
{
  return c >= 0x20 && c < 0x7f;
}

/// `s` as one bash word that cannot break a script's lines: shell_quote(s) when every byte is printable
/// ASCII, else bash's $'...' quoting with every other byte as \xHH (a newline, a carriage return, non-UTF-8
/// bytes), so that the generated scripts hold nothing but printable ASCII and newlines, and a value never
/// spans two lines of a script (nor of runs.txt, where a line is a run).
std::string script_quote(const std::string& s)
{
  if (std::all_of(s.begin(), s.end(), is_printable_ascii)) return shell_quote(s);
  static const char* const hex = "0123456789abcdef";
  std::string q = "$'";
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'')
      q += std::string("\\") + c;
    else if (is_printable_ascii(c))
      q += c;
    else
      q += std::string("\\x") + hex[b >> 4] + hex[b & 15];
  }
  return q + "'";
}

/// `s` for a comment of a script or of runs.txt: printable ASCII as it is, every other byte as \xHH, so that
/// the comment ends where it should (a newline in a spec's name would start a line of shell).
std::string comment_text(const std::string& s)
{
  static const char* const hex = "0123456789abcdef";
  std::string t;
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (is_printable_ascii(c))
      t += c;
    else
      t += std::string("\\x") + hex[b >> 4] + hex[b & 15];
  }
  return t;
}

} // namespace

double parse_wall_time(const std::string& option, const std::string& v)
{
  const auto unit_at = v.find_first_not_of("0123456789.+-eE");
  const std::string number = v.substr(0, unit_at),
                    unit = unit_at == std::string::npos ? "" : v.substr(unit_at);
  double scale = 0;
  if (unit.empty() || unit == "s")
    scale = 1;
  else if (unit == "ms")
    scale = 1e-3;
  else if (unit == "m" || unit == "min")
    scale = 60;
  else if (unit == "h")
    scale = 3600;
  const auto x = parse_double(number);
  if (scale == 0 || !x || !(*x > 0) || *x * scale > 30 * 86400.0)
    throw UsageError(
        "option " + option +
        " expects a wall time above 0 and at most 30 days, a number with a unit ms, s, m, min or "
        "h, e.g. 90s or 10m (got '" +
        v + "')");
  return *x * scale;
}

std::string self_exe()
{
  if (const char* e = std::getenv("COLOCSIM_EXE"); e && *e) return e;
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find the colocsim executable (/proc/self/exe): " + ec.message());
  return p.string();
}

namespace {

/// What sweep.csv and the table take from a run's summary.json.
struct SummaryRead {
  std::vector<std::pair<std::string, double>> numbers; ///< file order; a null (NaN, infinity) is left out
  std::pair<std::string, std::string> plugins;         ///< the plugins' paths, their sha256s (';'-joined)
};

/// Reads a summary.json and checks it against the schema of the one colocsim writes (summary_fields()):
/// a JSON object holding every field exactly once and nothing else, a NUMBER field a number or null, a TEXT
/// field a string, a LIST a list (of {path, sha256} objects for `plugins`, of strings otherwise), a MAP an
/// object of numbers. InputError with every problem (file:line:col: field: what was expected) otherwise.
SummaryRead read_summary(const fs::path& file)
{
  const TextFile text = read_text_file(file.string());
  const std::string& f = text.name;
  const YAML::Node root = load_yaml(text.text, f);
  DiagnosticSink sink;
  if (!root.IsMap()) {
    sink.add(location_of(root, f), "",
             "expected a JSON object: colocsim's summary.json, the run's results (docs/formats/outputs.md)");
    sink.throw_if_any();
  }
  SummaryRead out;
  std::set<std::string> seen;
  auto is_string = [](const YAML::Node& n) { return n.IsScalar() && n.Tag() == "!"; };
  auto number = [](const YAML::Node& n) {
    return n.IsScalar() && n.Tag() != "!" ? parse_double(n.Scalar()) : std::nullopt;
  };
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    const SummaryField* field = kv.first.IsScalar() ? find_summary_field(key) : nullptr;
    if (!field) {
      sink.add(location_of(kv.first, f), key, "not a field of colocsim's summary.json");
      continue;
    }
    if (!seen.insert(key).second) {
      sink.add(location_of(kv.first, f), key, "appears twice");
      continue;
    }
    const YAML::Node& v = kv.second;
    bool good = true;
    switch (field->kind) {
    case SummaryFieldKind::NUMBER:
      if (const auto x = number(v))
        out.numbers.emplace_back(key, *x);
      else
        good = v.IsNull();
      break;
    case SummaryFieldKind::TEXT:
      good = is_string(v);
      break;
    case SummaryFieldKind::LIST:
      good = v.IsSequence();
      for (std::size_t i = 0; good && i < v.size(); ++i)
        good = key == "plugins" ? v[i].IsMap() && is_string(v[i]["path"]) && is_string(v[i]["sha256"])
                                : is_string(v[i]);
      break;
    case SummaryFieldKind::MAP:
      good = v.IsMap();
      if (good)
        for (const auto& c : v)
          good = good && c.first.IsScalar() && number(c.second).has_value();
      break;
    }
    if (!good)
      sink.add(location_of(v, f), key,
               field->kind == SummaryFieldKind::NUMBER ? "expected a number or null"
               : field->kind == SummaryFieldKind::TEXT ? "expected a string"
               : field->kind == SummaryFieldKind::MAP  ? "expected an object of numbers"
               : key == "plugins"                      ? "expected a list of {\"path\": ..., \"sha256\": ...}"
                                                       : "expected a list of strings");
  }
  std::vector<std::string> missing;
  for (const auto& field : summary_fields())
    if (seen.count(field.name) == 0) missing.emplace_back(field.name);
  if (!missing.empty())
    sink.add(SourceLocation{f}, "",
             std::to_string(missing.size()) + " of the " + std::to_string(summary_fields().size()) +
                 " fields of colocsim's summary.json missing: " + join(missing));
  sink.throw_if_any();
  if (const auto plugins = root["plugins"]; plugins.IsSequence())
    for (const auto& p : plugins) {
      const std::string sep = out.plugins.first.empty() ? "" : ";";
      out.plugins.first += sep + p["path"].Scalar();
      out.plugins.second += sep + p["sha256"].Scalar();
    }
  return out;
}

std::string last_line(const fs::path& file)
{
  std::ifstream in(file);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

/// A table cell: 6 significant digits, never an exponent for the magnitudes of summary.json (joules).
std::string table_number(double x)
{
  std::ostringstream os;
  const double a = std::fabs(x);
  if (a >= 1e5 && a < 1e15)
    os << std::fixed << std::setprecision(0) << x;
  else
    os << std::setprecision(6) << x;
  return os.str();
}

/// "1.23 s": a run's wall time on its progress line.
std::string fixed_seconds(double s)
{
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << s << " s";
  return os.str();
}

struct Outcome {
  bool done = false, ok = false, skipped = false;
  bool missing = false;     ///< --collect: the run has not run (no run-NNNN/ directory)
  bool bad_summary = false; ///< its summary.json is there but is not colocsim's (read_run_summary)
  bool infeasible = false;  ///< its combination cannot run (RunSpec::infeasible): skipped, not a failure
  bool deadline = false;    ///< not run: the deadline passed before it started or while it ran (stopped)
  /// It failed or has not run (--collect): neither a result nor a run left out on purpose (infeasible,
  /// deadline).
  bool failed_or_missing() const { return !ok && !infeasible && !deadline; }
  double wall_s = 0;
  std::string message;
  std::vector<std::pair<std::string, double>> numbers;
  std::pair<std::string, std::string> plugins; ///< paths, sha256s (';'-joined)
};

/// A run whose summary.json exists: its numbers into `o`, or, when the file is not colocsim's summary.json
/// (read_summary), the run failed, with the file and what is wrong in o.message.
void read_run_summary(const fs::path& rdir, Outcome& o)
{
  try {
    SummaryRead r = read_summary(rdir / "summary.json");
    o.numbers = std::move(r.numbers);
    o.plugins = std::move(r.plugins);
  } catch (const InputError& e) {
    o.ok = false;
    o.bad_summary = true;
    o.message = "not a colocsim summary.json: ";
    for (std::size_t i = 0; i < e.diagnostics().size(); ++i)
      o.message += (i ? "; " : "") + e.diagnostics()[i].to_string();
    o.message += " (remove " + rdir.string() + " to run it again)";
  }
}

/// The command line of `colocsim sweep`.
struct SweepArgs {
  std::optional<std::string> spec_file, out_dir;
  long long jobs = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  bool help = false, resume = false, force = false, dry_run = false, quiet = false, allow_plugins = false;
  bool eta = false;                 ///< --eta: the time left on each progress line
  std::optional<double> deadline_s; ///< --deadline: seconds from the command's start
  std::vector<std::string> plugins;
  std::optional<std::string> python_policy; ///< --policy-python FILE.py:CLASS
  bool jobs_given = false;
  // --slurm and its options; --collect
  bool slurm = false;
  std::optional<std::string> partition, time_limit, collect_dir;
  std::optional<long long> array_max, runs_per_task;
  std::optional<std::string> baseline; ///< --baseline AXIS=VALUE,...
};

/// A positive whole number option in [1, max], or UsageError naming the option.
long long count_option(const std::string& option, const std::string& v, long long max,
                       const std::string& what)
{
  const auto x = parse_double(v);
  if (!x || *x < 1 || *x != std::floor(*x) || *x > static_cast<double>(max))
    throw UsageError("option " + option + " expects " + what + ", 1.." + std::to_string(max) + " (got '" + v +
                     "')");
  return static_cast<long long>(*x);
}

/// Slurm's time forms (sbatch --time): MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED.
bool is_slurm_time(const std::string& t)
{
  if (t == "UNLIMITED" || t == "INFINITE") return true;
  std::size_t i = 0;
  auto digits = [&] {
    const std::size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9')
      ++i;
    return i > start && i - start <= 6;
  };
  if (!digits()) return false;
  int fields = 1;
  const bool days = i < t.size() && t[i] == '-';
  if (days) {
    ++i;
    if (!digits()) return false;
  }
  while (i < t.size() && t[i] == ':') {
    ++i;
    if (!digits()) return false;
    ++fields;
  }
  return i == t.size() && fields <= 3 && !(days && fields > 3);
}

/// UsageError for an unknown option, a bad -j, a missing or second SPEC, --resume with --force.
SweepArgs parse_sweep_args(const std::vector<std::string>& args)
{
  SweepArgs s;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      s.help = true;
      return s;
    }
    if (a == "-o" || a == "--output")
      s.out_dir = next_arg(args, i);
    else if (a == "-j" || a == "--jobs") {
      const auto v = next_arg(args, i);
      const auto x = parse_double(v);
      if (!x || *x < 1 || *x != std::floor(*x) || *x > 1024)
        throw UsageError("option " + a + " expects a number of runs at a time, 1..1024 (got '" + v + "')");
      s.jobs = static_cast<long long>(*x);
      s.jobs_given = true;
    } else if (a == "--slurm")
      s.slurm = true;
    else if (a == "--partition") {
      s.partition = next_arg(args, i);
      if (s.partition->empty() ||
          s.partition->find_first_not_of(
              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,") != std::string::npos)
        throw UsageError("option --partition expects a Slurm partition name (letters, digits, - _ . and , "
                         "between names; got '" +
                         *s.partition + "')");
    } else if (a == "--time") {
      s.time_limit = next_arg(args, i);
      if (!is_slurm_time(*s.time_limit))
        throw UsageError("option --time expects a Slurm time limit: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, "
                         "D-HH:MM:SS or UNLIMITED (got '" +
                         *s.time_limit + "')");
    } else if (a == "--array-max")
      s.array_max = count_option(a, next_arg(args, i), 100000, "a number of tasks at a time");
    else if (a == "--runs-per-task")
      s.runs_per_task = count_option(a, next_arg(args, i), 1000000, "a number of runs per task");
    else if (a == "--collect")
      s.collect_dir = next_arg(args, i);
    else if (a == "--resume")
      s.resume = true;
    else if (a == "--force")
      s.force = true;
    else if (a == "--dry-run")
      s.dry_run = true;
    else if (a == "--quiet")
      s.quiet = true;
    else if (a == "--eta")
      s.eta = true;
    else if (a == "--deadline")
      s.deadline_s = parse_wall_time(a, next_arg(args, i));
    else if (a == "--baseline")
      s.baseline = next_arg(args, i);
    else if (a == "--policy-plugin")
      s.plugins.push_back(next_arg(args, i));
    else if (a == "--allow-plugins")
      s.allow_plugins = true;
    else if (a == "--policy-python")
      s.python_policy = next_arg(args, i);
    else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "' (see colocsim sweep --help)");
    else if (s.spec_file)
      throw UsageError("more than one sweep spec given ('" + *s.spec_file + "' and '" + a + "')");
    else
      s.spec_file = a;
  }
  if (s.collect_dir) {
    for (const auto& [given, name] : {std::pair{s.slurm, "--slurm"},
                                      {s.resume, "--resume"},
                                      {s.force, "--force"},
                                      {s.dry_run, "--dry-run"},
                                      {s.jobs_given, "-j"},
                                      {s.out_dir.has_value(), "-o"},
                                      {s.deadline_s.has_value(), "--deadline"},
                                      {s.python_policy.has_value(), "--policy-python"}})
      if (given)
        throw UsageError(std::string("--collect runs nothing and writes only DIR/sweep.csv: drop ") + name);
    return s;
  }
  if (!s.spec_file) throw UsageError("sweep needs a SPEC file (see colocsim sweep --help)");
  if (s.resume && s.force) throw UsageError("--resume and --force exclude each other");
  if (s.slurm && s.dry_run)
    throw UsageError("--slurm runs nothing already (it writes scripts): drop --dry-run");
  if (s.slurm && s.deadline_s)
    throw UsageError("--deadline stops the runs of a sweep run here; with --slurm, each task's time limit is "
                     "--time");
  if (!s.slurm)
    for (const auto& [given, name] : {std::pair{s.partition.has_value(), "--partition"},
                                      {s.time_limit.has_value(), "--time"},
                                      {s.array_max.has_value(), "--array-max"},
                                      {s.runs_per_task.has_value(), "--runs-per-task"}})
      if (given) throw UsageError(std::string(name) + " is an option of --slurm");
  return s;
}

/// "axis=value ..." of run `r` (the values as written in the spec): its combination, for messages.
std::string combination_text(const SweepSpec& spec, const RunSpec& r)
{
  std::string what;
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    what += (what.empty() ? "" : " ") + spec.axes[a].key + "=" + spec.axes[a].labels[r.choice[a]];
  return what.empty() ? "the spec's settings" : what;
}

/// Marks the runs whose combination of values cannot run (build_run refuses it: a policy's requirements do
/// not hold on the platform, e.g. mig-manager with platform.sharing time-slice): RunSpec::infeasible says
/// why. build_run runs once per combination of axis values (not per seed). A run whose policy
/// comes from a plugin that is not loaded (--dry-run, --collect) cannot be checked and is left as it is.
void mark_infeasible(const SweepSpec& spec, std::vector<RunSpec>& runs, const PluginConsent& consent)
{
  std::map<std::string, std::string> reason_of;
  for (auto& r : runs) {
    const Scenario sc = load_scenario(spec.scenario, r.sets, r.policy, consent);
    if (sc.policy_unchecked) continue;
    const std::string key =
        combination_text(spec, r); // every value may matter (interference pair-total, ...)
    auto it = reason_of.find(key);
    if (it == reason_of.end()) {
      std::string reason;
      try {
        (void)build_run(sc);
      } catch (const InputError& e) {
        for (const auto& d : e.diagnostics())
          reason += (reason.empty() ? "" : "; ") + (d.path.empty() ? "" : d.path + ": ") + d.message;
      }
      it = reason_of.emplace(key, reason).first;
    }
    r.infeasible = it->second;
  }
}

/// Every axis value on its own (errors point into the spec), then the metric names, then every run: its
/// scenario loads and its policy's requirements hold on its platform. Each value can run on its own, so a
/// run that cannot is a combination of values that do not go together (mig-manager with platform.sharing
/// time-slice): it is marked infeasible and skipped, and the sweep runs the others. A sweep none of whose
/// runs can run is refused. InputError with all the problems of the first stage that has any.
void check_sweep(const SweepSpec& spec, std::vector<RunSpec>& runs, const PluginConsent& consent)
{
  {
    // A value that fails with the spec's fixed settings may run with another axis's values (first-fit where
    // the scenario says platform.sharing mig and an axis gives time-slice): it is an error only when no run
    // that takes it can run.
    std::map<std::string, bool> runs_ok; // per combination
    const auto can_run = [&](const RunSpec& r) {
      const auto [it, fresh] = runs_ok.emplace(combination_text(spec, r), false);
      if (fresh) try {
          (void)build_run(load_scenario(spec.scenario, r.sets, r.policy, consent));
          it->second = true;
        } catch (const InputError&) {
        }
      return it->second;
    };
    DiagnosticSink sink;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      const auto& axis = spec.axes[a];
      for (std::size_t v = 0; v < axis.values.size(); ++v) {
        DiagnosticSink one;
        check_value(spec, axis, v, consent, one);
        if (one.empty() || std::any_of(runs.begin(), runs.end(), [&](const RunSpec& r) {
              return r.choice[a] == v && spec.axes.size() > 1 && can_run(r);
            }))
          continue;
        for (const auto& d : one.diagnostics())
          sink.add(d);
      }
    }
    sink.throw_if_any();
  }
  {
    // The metrics of the table must be numbers of summary.json.
    const std::vector<std::string> fields = summary_number_names();
    DiagnosticSink sink;
    for (std::size_t i = 0; i < spec.metrics.size(); ++i)
      if (std::find(fields.begin(), fields.end(), spec.metrics[i]) == fields.end())
        sink.add(spec.metric_where[i], "metrics",
                 "unknown metric '" + spec.metrics[i] +
                     "'; valid (the numbers of summary.json): " + join(fields));
    sink.throw_if_any();
  }
  mark_infeasible(spec, runs, consent);
  if (std::any_of(runs.begin(), runs.end(), [](const RunSpec& r) { return r.infeasible.empty(); })) return;
  DiagnosticSink sink;
  std::set<std::string> said;
  for (const auto& r : runs)
    if (said.insert(combination_text(spec, r)).second)
      sink.add(SourceLocation{spec.file}, "axes",
               r.id() + " (" + combination_text(spec, r) + "): " + r.infeasible +
                   " (no combination can run)");
  sink.throw_if_any();
}

/// On stderr: the combinations skipped because they cannot run, each once with its reason.
void note_infeasible(const SweepSpec& spec, const std::vector<RunSpec>& runs, std::ostream& err)
{
  std::map<std::string, std::pair<std::string, std::size_t>> skipped; // combination -> reason, runs
  for (const auto& r : runs)
    if (!r.infeasible.empty()) {
      auto& [reason, n] = skipped[combination_text(spec, r)];
      reason = r.infeasible;
      ++n;
    }
  for (const auto& [what, rn] : skipped)
    err << "colocsim: sweep: skipped " << rn.second << " run(s) of a combination that cannot run (" << what
        << "): " << rn.first << "\n";
}

/// The `colocsim run` command of run `r`, as runs.txt and --dry-run print it.
std::string command_line(const SweepSpec& spec, const RunSpec& r, const fs::path& dir,
                         const PluginConsent& consent)
{
  std::string c = "colocsim";
  for (const auto& a : run_args(spec, r, dir / r.id(), consent)) {
    c += ' ';
    c += script_quote(a);
  }
  return c;
}

/// The output directory: a sweep's results are never overwritten without --force; --resume needs the same
/// spec text (the runs are numbered by the spec). Writes sweep.yaml (the spec) and runs.txt (every run's
/// command) there and removes an earlier sweep.csv.
void prepare_sweep_dir(const SweepSpec& spec, const std::vector<RunSpec>& runs, const fs::path& dir,
                       const SweepArgs& a, const PluginConsent& consent)
{
  std::error_code ec;
  const fs::path spec_copy = dir / "sweep.yaml";
  if (fs::exists(spec_copy, ec)) {
    if (a.resume) {
      if (read_text_file(spec_copy.string()).text != spec.text)
        throw InputError(SourceLocation{dir.string()}, "",
                         "holds a sweep of a different spec (sweep.yaml differs from " + spec.file +
                             "); --resume needs the same spec; use --force to rerun everything, or -o DIR");
    } else if (!a.force)
      throw InputError(SourceLocation{dir.string()}, "",
                       "already holds a sweep (sweep.yaml); pass --resume to run only the unfinished runs, "
                       "--force to rerun everything, or -o DIR to write elsewhere");
  } else if (fs::exists(dir, ec) && !fs::is_empty(dir, ec) && !a.force)
    throw InputError(SourceLocation{dir.string()}, "",
                     "exists and is not empty; pass --force to write the sweep there anyway, or -o DIR");
  fs::create_directories(dir, ec);
  if (ec)
    throw InputError(SourceLocation{dir.string()}, "", "cannot create output directory: " + ec.message());
  fs::remove(dir / "sweep.csv", ec);
  std::ofstream f(spec_copy, std::ios::binary);
  f << spec.text;
  std::ofstream cmds(dir / "runs.txt");
  cmds << "# the command of every run of sweep '" << comment_text(spec.name)
       << "' (run in the directory colocsim sweep ran in)\n";
  for (const auto& r : runs)
    cmds << r.id() << "  "
         << (r.infeasible.empty() ? command_line(spec, r, dir, consent)
                                  : "# skipped, cannot run: " + r.infeasible)
         << "\n";
  if (!f || !cmds) throw InputError(SourceLocation{dir.string()}, "", "cannot write sweep.yaml / runs.txt");
}

/// Removes what run `id` left in `dir` when the deadline stopped it: its run directory and any staging
/// directory (".run-NNNN.partial-PID", sim/Outputs.hpp), so that the folder holds no partial run and
/// --resume runs it again from nothing.
/// The staging directories a run `id` left in `dir` (".run-NNNN.partial-PID", sim/Outputs.hpp).
std::vector<fs::path> staging_dirs(const fs::path& dir, const std::string& id)
{
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("." + id + ".partial-", 0) == 0) found.push_back(e.path());
  return found;
}

void remove_stopped_run(const fs::path& dir, const std::string& id)
{
  std::error_code ec;
  fs::remove_all(dir / id, ec);
  for (const auto& p : staging_dirs(dir, id))
    fs::remove_all(p, ec);
}

/// Runs every run with `exe`, at most `a.jobs` children at a time, in run order (with --resume, a run whose
/// summary.json exists is done earlier); reports each as it ends on stderr. With a deadline (SweepDeadline):
/// no run starts after it but the first `finish_first`; the others still running are stopped, their folders
/// removed, and they are marked `deadline` with those never started. Returns the outcomes.
std::vector<Outcome> run_sweep(const SweepSpec& spec, const std::vector<RunSpec>& runs, const fs::path& dir,
                               const std::string& exe, const SweepArgs& a, const PluginConsent& consent,
                               const SweepDeadline& deadline)
{
  using Clock = std::chrono::steady_clock;
  std::vector<Outcome> outcomes(runs.size());
  std::map<pid_t, std::pair<std::size_t, Clock::time_point>> running;
  std::set<pid_t> stopping;                    ///< runs sent SIGTERM at the deadline
  std::optional<Clock::time_point> stopped_at; ///< when the deadline was found passed
  bool killed = false;                         ///< SIGKILL sent to those still running after the grace
  std::size_t next = 0, finished = 0, ran = 0;
  const auto sweep_start = Clock::now();
  std::error_code ec;
  // --eta: ", about 1 min 20 s left" from the wall time so far per run that ran (not skipped).
  auto eta = [&]() -> std::string {
    if (!a.eta || ran == 0 || finished >= runs.size() || stopped_at) return "";
    const double spent = std::chrono::duration<double>(Clock::now() - sweep_start).count();
    const auto left = static_cast<long long>(
        std::llround(spent / static_cast<double>(ran) * static_cast<double>(runs.size() - finished)));
    std::ostringstream os;
    os << ", about ";
    if (left >= 3600)
      os << left / 3600 << " h " << left % 3600 / 60 << " min";
    else if (left >= 60)
      os << left / 60 << " min " << left % 60 << " s";
    else
      os << left << " s";
    os << " left";
    return os.str();
  };
  auto label = [&](const RunSpec& r) {
    std::string s;
    for (std::size_t k = 0; k < spec.axes.size(); ++k)
      s += spec.axes[k].key + "=" + spec.axes[k].labels[r.choice[k]] + " ";
    return s + "seed=" + std::to_string(r.seed);
  };
  auto report = [&](std::size_t i) {
    ++finished;
    std::cerr << "colocsim: sweep [" << finished << "/" << runs.size() << "] " << runs[i].id() << " "
              << (outcomes[i].infeasible ? "skipped, cannot run"
                  : outcomes[i].deadline ? "not run (deadline)"
                  : outcomes[i].skipped  ? "done earlier"
                  : outcomes[i].ok       ? "ok"
                                         : "FAILED")
              << " (" << label(runs[i]) << ")";
    if (outcomes[i].infeasible || outcomes[i].deadline) {
      std::cerr << (outcomes[i].deadline && outcomes[i].wall_s > 0
                        ? ": stopped after " + fixed_seconds(outcomes[i].wall_s)
                        : std::string())
                << eta() << "\n";
      return;
    }
    if (!outcomes[i].skipped) {
      ++ran;
      std::cerr << " " << fixed_seconds(outcomes[i].wall_s);
    }
    std::cerr << (outcomes[i].ok ? "" : ": " + outcomes[i].message) << eta() << "\n";
  };
  while (finished < runs.size()) {
    const auto now = Clock::now();
    if (deadline.at && !stopped_at && now >= *deadline.at) {
      stopped_at = now;
      std::size_t spared = 0;
      for (const auto& [pid, run] : running)
        if (run.first >= deadline.finish_first) {
          ::kill(pid, SIGTERM); // colocsim run stops between events and removes its staging directory
          stopping.insert(pid);
        } else
          ++spared;
      std::cerr << "colocsim: sweep: the deadline has passed: no run starts any more";
      if (!stopping.empty()) std::cerr << ", " << stopping.size() << " run(s) still running are stopped";
      if (spared)
        std::cerr << " (" << spared << " run(s) among the first " << deadline.finish_first
                  << " finish all the same)";
      std::cerr << "; --resume runs what is left\n";
    }
    if (stopped_at && !killed && !stopping.empty() &&
        std::chrono::duration<double>(now - *stopped_at).count() >= SWEEP_STOP_GRACE_S) {
      for (const pid_t pid : stopping)
        ::kill(pid, SIGKILL);
      killed = true;
    }
    while (next < runs.size() && (stopped_at || static_cast<long long>(running.size()) < a.jobs)) {
      const std::size_t i = next;
      const fs::path rdir = dir / runs[i].id();
      if (!runs[i].infeasible.empty()) {
        ++next;
        outcomes[i].done = outcomes[i].infeasible = true;
        report(i);
        continue;
      }
      if (a.resume && fs::exists(rdir / "summary.json", ec)) {
        ++next;
        outcomes[i].done = outcomes[i].ok = outcomes[i].skipped = true;
        read_run_summary(rdir, outcomes[i]);
        outcomes[i].skipped = outcomes[i].ok; // else a run that failed: its summary.json is not colocsim's
        report(i);
        continue;
      }
      if (stopped_at && i >= deadline.finish_first) { // not started: the deadline has passed
        ++next;
        outcomes[i].done = outcomes[i].deadline = true;
        report(i);
        continue;
      }
      if (static_cast<long long>(running.size()) >= a.jobs) break; // a spared run waits for a free slot
      ++next;
      // A run killed before it finished (the sweep and its runs stopped by SIGKILL, a crash) left its staging
      // directory next to its run directory (".run-NNNN.partial-PID", sim/Outputs.hpp): it goes before the
      // run runs again, so that every run has one directory and the sweep's folder holds no partial file.
      for (const auto& p : staging_dirs(dir, runs[i].id())) {
        std::cerr << "colocsim: note: removed " << p.string() << ", the staging directory " << runs[i].id()
                  << " left unfinished when an earlier sweep's process ended; " << runs[i].id()
                  << " runs again\n";
        fs::remove_all(p, ec);
      }
      fs::create_directories(rdir, ec);
      const pid_t pid = spawn_logged(exe, run_args(spec, runs[i], rdir, consent), rdir / "log.txt");
      running[pid] = {i, Clock::now()};
    }
    if (running.empty()) continue;
    int status = 0;
    // With a deadline, wait in short steps so that the deadline and the stop grace are kept to about 20 ms.
    const bool poll = deadline.at.has_value() && (!stopped_at || (!stopping.empty() && !killed));
    const pid_t pid = ::waitpid(-1, &status, poll ? WNOHANG : 0);
    if (pid == 0) {
      auto until = Clock::now() + std::chrono::milliseconds(20);
      if (!stopped_at && *deadline.at < until) until = *deadline.at;
      std::this_thread::sleep_until(until);
      continue;
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const auto [i, started] = it->second;
    running.erase(it);
    Outcome& o = outcomes[i];
    o.done = true;
    o.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
    const fs::path rdir = dir / runs[i].id();
    const bool was_stopped = stopping.erase(pid) > 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(rdir / "summary.json", ec)) {
      o.ok = true; // it ended before the signal took effect: a whole run
      read_run_summary(rdir, o);
    } else if (was_stopped) {
      o.deadline = true;
      remove_stopped_run(dir, runs[i].id());
    } else {
      o.message = (WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                       : "exit status " + std::to_string(WEXITSTATUS(status))) +
                  ": " + last_line(rdir / "log.txt") + " (" + (rdir / "log.txt").string() + ")";
    }
    report(i);
  }
  return outcomes;
}

/// Writes DIR/sweep.csv from the outcomes (read_run_summary): one row per run; the columns are the numbers
/// of summary.json (summary_number_names(), but seed, which has its own column), whatever the runs hold.
void write_sweep_csv(const SweepSpec& spec, const std::vector<RunSpec>& runs, const fs::path& dir,
                     const std::vector<Outcome>& outcomes)
{
  std::vector<std::string> columns;
  for (const auto& name : summary_number_names())
    if (name != "seed") columns.push_back(name);
  bool any_plugins = false; // then sweep.csv names them: the exact code behind each row
  for (std::size_t i = 0; i < runs.size(); ++i)
    any_plugins = any_plugins || (outcomes[i].ok && !outcomes[i].plugins.first.empty());
  std::ofstream csv(dir / "sweep.csv");
  csv << "run,status";
  for (const auto& a : spec.axes)
    csv << "," << csv_field(a.key);
  csv << ",seed";
  if (any_plugins) csv << ",plugins,plugins_sha256";
  for (const auto& c : columns)
    csv << "," << c;
  csv << "\n";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    csv << runs[i].id() << ","
        << (outcomes[i].ok           ? "ok"
            : outcomes[i].infeasible ? "infeasible"
            : outcomes[i].deadline   ? "deadline"
            : outcomes[i].missing    ? "missing"
                                     : "failed");
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      csv << "," << csv_field(spec.axes[a].labels[runs[i].choice[a]]);
    csv << "," << runs[i].seed;
    if (any_plugins)
      csv << "," << csv_field(outcomes[i].plugins.first) << "," << csv_field(outcomes[i].plugins.second);
    std::map<std::string, double> values(outcomes[i].numbers.begin(), outcomes[i].numbers.end());
    for (const auto& c : columns) {
      csv << ",";
      if (const auto v = values.find(c); v != values.end()) csv << format_double(v->second);
    }
    csv << "\n";
  }
  if (!csv) throw std::runtime_error("cannot write " + (dir / "sweep.csv").string());
}

/// The sample standard deviation of `xs` (2 or more), 0 where it is below 1e-9 of the mean: rounding, not a
/// difference between seeds (sums taken in another order give ± 1e-12).
double seed_spread(const std::vector<double>& xs)
{
  if (xs.size() < 2) return 0;
  double mean = 0, ss = 0;
  for (double x : xs)
    mean += x / static_cast<double>(xs.size());
  for (double x : xs)
    ss += (x - mean) * (x - mean);
  const double sd = std::sqrt(ss / static_cast<double>(xs.size() - 1));
  return sd <= 1e-9 * std::fabs(mean) ? 0.0 : sd;
}

/// A table cell: the mean of `xs` (± the sample standard deviation with 2 or more), "-" for none.
std::string mean_cell(const std::vector<double>& xs)
{
  if (xs.empty()) return "-";
  double mean = 0;
  for (double x : xs)
    mean += x;
  mean /= static_cast<double>(xs.size());
  std::string cell = table_number(mean);
  if (xs.size() > 1) cell += " ± " + table_number(seed_spread(xs));
  return cell;
}

/// --baseline AXIS=VALUE[,AXIS=VALUE...]: per axis of the spec the index of its baseline value, or npos for
/// an axis it leaves out (a row is then compared with the baseline row that has its own value of that axis).
/// UsageError for an unknown axis or value.
std::vector<std::size_t> parse_baseline(const SweepSpec& spec, const std::string& text)
{
  std::vector<std::size_t> base(spec.axes.size(), std::string::npos);
  std::vector<std::string> names;
  for (const auto& a : spec.axes)
    names.push_back(a.key);
  if (spec.axes.empty()) throw UsageError("--baseline needs a sweep with axes; this one has none");
  std::size_t from = 0;
  bool any = false;
  while (from <= text.size()) {
    // Split at ',' only before "axis=": a value may hold ',' (a policy's parameters).
    std::size_t to = std::string::npos;
    for (std::size_t k = text.find(',', from); k != std::string::npos; k = text.find(',', k + 1)) {
      const auto eq = text.find('=', k + 1);
      if (eq != std::string::npos &&
          std::find(names.begin(), names.end(), text.substr(k + 1, eq - k - 1)) != names.end()) {
        to = k;
        break;
      }
    }
    const std::string item = text.substr(from, to == std::string::npos ? std::string::npos : to - from);
    const auto eq = item.find('=');
    const auto axis = std::find(names.begin(), names.end(), item.substr(0, eq));
    if (eq == std::string::npos || axis == names.end())
      throw UsageError("--baseline expects AXIS=VALUE[,AXIS=VALUE...] with axes of the spec (" + join(names) +
                       "; got '" + item + "')");
    const auto& a = spec.axes[static_cast<std::size_t>(axis - names.begin())];
    const auto v = std::find(a.labels.begin(), a.labels.end(), item.substr(eq + 1));
    if (v == a.labels.end())
      throw UsageError("--baseline: '" + item.substr(eq + 1) + "' is not a value of axis " + a.key + " (" +
                       join(a.labels) + ")");
    base[static_cast<std::size_t>(axis - names.begin())] = static_cast<std::size_t>(v - a.labels.begin());
    any = true;
    if (to == std::string::npos) break;
    from = to + 1;
  }
  if (!any) throw UsageError("--baseline expects AXIS=VALUE (e.g. policy=first-fit)");
  return base;
}

/// The mean of `xs`; NaN for none.
double mean_of(const std::vector<double>& xs)
{
  if (xs.empty()) return std::nan("");
  double m = 0;
  for (double x : xs)
    m += x;
  return m / static_cast<double>(xs.size());
}

/// A change in per cent, "+12.3 %" / "-7.5 %"; "-" when either side is missing or the base is 0.
std::string change_cell(double x, double base)
{
  if (!std::isfinite(x) || !std::isfinite(base) || (base == 0 && x != 0)) return "-";
  const double pct = base == 0 ? 0 : 100.0 * (x - base) / std::fabs(base);
  std::ostringstream os;
  os << std::showpos << std::fixed << std::setprecision(1) << (std::fabs(pct) < 0.05 ? 0.0 : pct) << " %";
  return os.str();
}

/// The table: one row per combination that can run, the mean over its successful seeds (± sample sd with 2+
/// seeds). The `jobs` column is the jobs completed of those read (means over the successful seeds), marked
/// `*` where some job did not complete: such a run did less work, so its energy and times are not
/// comparable with a run that completed everything. With `baseline` (--baseline), each metric is followed
/// by its change from the baseline row in %. Combinations that cannot run are listed below the table. `how`
/// ends the first line: how the runs ran ("12.3 s with -j 2", "collected").
void print_sweep_table(std::ostream& out, const SweepSpec& spec, const std::vector<RunSpec>& runs,
                       const std::vector<Outcome>& outcomes, const fs::path& dir, const std::string& how,
                       const std::optional<std::string>& baseline)
{
  const std::size_t per_combo = spec.seeds.empty() ? 1 : spec.seeds.size();
  const std::vector<std::size_t> base =
      baseline ? parse_baseline(spec, *baseline) : std::vector<std::size_t>{};
  std::size_t failed = 0, skipped = 0, missing = 0, infeasible = 0, deadline = 0;
  for (const auto& o : outcomes) {
    failed += o.failed_or_missing() && !o.missing ? 1 : 0;
    deadline += o.deadline ? 1 : 0;
    skipped += o.skipped ? 1 : 0;
    missing += o.missing ? 1 : 0;
    infeasible += o.infeasible ? 1 : 0;
  }
  out << "sweep '" << spec.name << "': " << runs.size() << " runs ("
      << runs.size() - failed - missing - infeasible - deadline << " ok, " << failed << " failed, "
      << (missing > 0 ? std::to_string(missing) + " not run yet, " : "")
      << (deadline > 0 ? std::to_string(deadline) + " not run (deadline), " : "")
      << (infeasible > 0 ? std::to_string(infeasible) + " skipped as infeasible, " : "") << skipped
      << " done earlier), " << how << "\n";
  // The first run of the combination of run `first`'s values with the baseline's where it names them.
  const auto baseline_first = [&](std::size_t first) {
    std::size_t combo = 0;
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      combo = combo * spec.axes[a].values.size() +
              (base[a] != std::string::npos ? base[a] : runs[first].choice[a]);
    return combo * per_combo;
  };
  const auto metric_values = [&](std::size_t first, const std::string& m) {
    std::vector<double> xs;
    for (std::size_t k = first; k < first + per_combo; ++k)
      for (const auto& [key, v] : outcomes[k].numbers)
        if (key == m && std::isfinite(v)) xs.push_back(v);
    return xs;
  };
  std::vector<std::vector<std::string>> table;
  std::vector<std::string> head;
  for (const auto& a : spec.axes)
    head.push_back(a.key);
  head.push_back("ok");
  head.push_back("jobs");
  for (const auto& m : spec.metrics) {
    head.push_back(m);
    if (baseline) head.push_back("Δ%");
  }
  table.push_back(head);
  bool any_incomplete = false;
  bool seeds_compared = false, seeds_differ = false; // over the metrics but wall_s, every combination
  std::vector<std::string> not_run;
  for (std::size_t first = 0; first < runs.size(); first += per_combo) {
    std::vector<std::string> row;
    std::string values;
    for (std::size_t a = 0; a < spec.axes.size(); ++a) {
      row.push_back(spec.axes[a].labels[runs[first].choice[a]]);
      values += (values.empty() ? "" : " ") + spec.axes[a].key + "=" + row.back();
    }
    if (outcomes[first].infeasible) {
      not_run.push_back(values + ": " + runs[first].infeasible);
      continue;
    }
    std::size_t ok = 0;
    for (std::size_t k = first; k < first + per_combo; ++k)
      ok += outcomes[k].ok ? 1 : 0;
    row.push_back(std::to_string(ok) + "/" + std::to_string(per_combo));
    const auto completed = metric_values(first, "jobs_completed"), read = metric_values(first, "jobs_read");
    bool incomplete = false;
    for (std::size_t k = 0; k < std::min(completed.size(), read.size()); ++k)
      incomplete = incomplete || completed[k] < read[k];
    any_incomplete = any_incomplete || incomplete;
    row.push_back(read.empty() ? "-"
                               : table_number(mean_of(completed)) + " of " + table_number(mean_of(read)) +
                                     (incomplete ? " *" : ""));
    const bool is_base = baseline && baseline_first(first) == first;
    for (const auto& m : spec.metrics) {
      const auto xs = metric_values(first, m);
      row.push_back(mean_cell(xs));
      if (xs.size() > 1 && m != "wall_s") {
        seeds_compared = true;
        seeds_differ = seeds_differ || seed_spread(xs) > 0;
      }
      if (baseline)
        row.push_back(is_base ? "base"
                              : change_cell(mean_of(xs), mean_of(metric_values(baseline_first(first), m))));
    }
    table.push_back(row);
  }
  std::vector<std::size_t> width(head.size(), 0);
  const auto length = [](const std::string& t) { // characters, not bytes (± and Δ are two bytes each)
    return static_cast<std::size_t>(
        std::count_if(t.begin(), t.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  for (const auto& row : table)
    for (std::size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], length(row[c]));
  for (const auto& row : table) {
    out << " ";
    for (std::size_t c = 0; c < row.size(); ++c)
      out << " " << row[c] << std::string(width[c] - length(row[c]), ' ');
    out << "\n";
  }
  if (per_combo > 1) out << "  (mean ± sample standard deviation over " << per_combo << " seeds)\n";
  if (seeds_compared && !seeds_differ) {
    const std::string why =
        "every combination gave the same results with each of its seeds: nothing in this scenario depends on "
        "the seed (every job bound to one profile, no profile drawn, no sampling or inflation), so the ± 0 "
        "says nothing about variability and one seed is enough";
    out << "  note: " << why << "\n";
    std::cerr << "colocsim: warning: sweep '" << spec.name << "': " << why << "\n";
  }
  if (any_incomplete)
    out << "  * not every job completed (failed, rejected, never started, cancelled or killed; see\n"
           "    jobs_by_reason in summary.json): such runs did less work, so their totals (energy_total_j,\n"
           "    makespan_s) do not compare with runs that completed everything; compare\n"
           "    energy_per_completed_job_j\n";
  if (baseline) {
    std::string b;
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      if (base[a] != std::string::npos)
        b += (b.empty() ? "" : ", ") + spec.axes[a].key + "=" + spec.axes[a].labels[base[a]];
    out << "  Δ%: change of the mean from the baseline row (" << b
        << (b.size() && std::count(base.begin(), base.end(), std::string::npos) ? ", other axes as in the row"
                                                                                : "")
        << "), 100 × (row − base) / |base|\n";
  }
  for (const auto& n : not_run)
    out << "  skipped, cannot run: " << n << "\n";
  out << "  results in " << dir.string() << "/ (sweep.csv, runs.txt, run-NNNN/)\n";
}

/// Exit status 1 and the list of the runs that are not ok on stderr (failed, or not run yet), else 0.
int report_failures(const std::vector<RunSpec>& runs, const std::vector<Outcome>& outcomes,
                    const std::string& hint, bool with_messages)
{
  const auto deadline = static_cast<std::size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.deadline; }));
  if (deadline > 0)
    std::cerr << "colocsim: " << deadline << " of " << runs.size()
              << " runs not run: the deadline passed first (sweep.csv: deadline; --resume runs them)\n";
  const auto failed = static_cast<std::size_t>(std::count_if(
      outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.failed_or_missing(); }));
  if (failed == 0) return 0;
  std::cerr << "colocsim: " << failed << " of " << runs.size() << " runs failed or did not run:";
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (outcomes[i].failed_or_missing())
      std::cerr << " " << runs[i].id() << (outcomes[i].missing ? " (not run)" : "");
  const auto bad = static_cast<std::size_t>(
      std::count_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) { return o.bad_summary; }));
  std::cerr << " (their log.txt says why; " << hint << ")\n";
  if (bad > 0)
    std::cerr << "colocsim: " << bad << " of them ran but hold a summary.json that is not colocsim's: it is "
              << "not run again while it is there; remove the run's directory to run it again\n";
  if (with_messages)
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (outcomes[i].failed_or_missing() && !outcomes[i].missing)
        std::cerr << "colocsim: " << runs[i].id() << " failed: " << outcomes[i].message << "\n";
  return 1;
}

// ---- Slurm: `--slurm` writes a job array and a collect job; `--collect` gathers the runs they finished.
// ----

/// The file in DIR/slurm/ that names the spec, so that `--collect DIR` finds it.
fs::path spec_path_file(const fs::path& dir)
{
  return dir / "slurm" / "spec-path";
}

/// The spec's path as spec-path holds it: the file's text but its final newline (a path may hold newlines,
/// so it is not read as a line).
std::string read_spec_path(const fs::path& file)
{
  std::string text = read_text_file(file.string()).text;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

/// Slurm's default MaxArraySize is 1001: task ids 0..1000. 1000 tasks at most, so that the default holds.
constexpr long long MAX_ARRAY_TASKS = 1000;

/// The jobs' name: "colocsim-" and the spec's name with every byte other than a letter, a digit, '.', '_'
/// or '-' replaced by '_', at most 100 bytes. An #SBATCH line is not shell and cannot quote: a newline there
/// would end the #SBATCH block (and start a line of shell).
std::string slurm_job_name(const std::string& name)
{
  std::string job = "colocsim-";
  for (char c : name.substr(0, 91))
    job += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                   c == '_' || c == '-'
               ? c
               : '_';
  return job;
}

/// The output directory of `--slurm`, absolute; InputError, before anything is written, when its path cannot
/// go into an #SBATCH line (--output): such lines are not shell and cannot quote.
fs::path slurm_dir(const fs::path& dir_given)
{
  fs::path dir = fs::absolute(dir_given).lexically_normal();
  const std::string d = dir.string();
  if (d.find_first_of(" \t\n'\"\\$`%") != std::string::npos ||
      std::any_of(d.begin(), d.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20; }) ||
      d.find('\x7f') != std::string::npos)
    throw InputError(
        SourceLocation{comment_text(d)}, "",
        "--slurm needs an output directory whose path has no spaces, quotes, '$', '`', '%', '\\' "
        "or control characters such as a newline (it is written into #SBATCH lines): choose "
        "another with -o DIR");
  return dir;
}

/// Writes `text` to `file` (mode 0755 when `executable`), or InputError naming the file.
void write_script(const fs::path& file, const std::string& text, bool executable)
{
  std::ofstream f(file, std::ios::binary | std::ios::trunc);
  f << text;
  f.close();
  if (!f)
    throw InputError(SourceLocation{file.string()}, "",
                     "cannot write the file (disk full, or no permission)");
  if (executable) {
    std::error_code ec;
    fs::permissions(file,
                    fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                        fs::perms::others_read | fs::perms::others_exec,
                    ec);
  }
}

/// The #SBATCH lines both scripts share: job name, partition and time limit (the options are checked by
/// parse_sweep_args: letters, digits and a few signs).
std::string sbatch_common(const std::string& job_name, const SweepArgs& a)
{
  std::string h = "#SBATCH --job-name=" + job_name + "\n";
  if (a.partition) h += "#SBATCH --partition=" + *a.partition + "\n";
  if (a.time_limit) h += "#SBATCH --time=" + *a.time_limit + "\n";
  return h;
}

/// Writes DIR/slurm/array.sh (task i runs the runs of chunk i, each exactly as `colocsim sweep` runs it:
/// `colocsim run ... -o DIR/run-NNNN` with its output in run-NNNN/log.txt, skipping a run whose summary.json
/// exists, so that a resubmitted array runs only what is left), collect.sh (`colocsim sweep --collect DIR`),
/// submit.sh (submits the array, then collect.sh after it: --dependency=afterany) and spec-path.
/// Nothing the spec or a path says becomes shell: the #SBATCH lines hold only the checked options, the job
/// name (slurm_job_name) and DIR (slurm_dir); every other value is one quoted word (script_quote) and a
/// comment holds the spec's name only as comment_text.
void write_slurm_scripts(const SweepSpec& spec, const std::vector<RunSpec>& runs, const fs::path& dir_given,
                         const std::string& exe, const SweepArgs& a, const PluginConsent& consent,
                         std::ostream& out)
{
  const fs::path dir = slurm_dir(dir_given);
  const fs::path sdir = dir / "slurm";
  std::error_code ec;
  fs::create_directories(sdir, ec);
  if (ec) throw InputError(SourceLocation{sdir.string()}, "", "cannot create the directory: " + ec.message());
  const auto n = static_cast<long long>(runs.size());
  long long per_task = a.runs_per_task.value_or(1);
  per_task = std::max(per_task, (n + MAX_ARRAY_TASKS - 1) / MAX_ARRAY_TASKS);
  const long long tasks = (n + per_task - 1) / per_task;
  const std::string job = slurm_job_name(spec.name);
  const std::string cwd = fs::current_path().string();
  const std::string default_exe =
      "if [ -z \"${COLOCSIM:-}\" ]; then COLOCSIM=" + script_quote(exe) + "; fi\n";

  std::ostringstream arr;
  arr << "#!/bin/bash\n"
      << "# Written by `colocsim sweep " << script_quote(spec.file) << " --slurm`.\n# The " << n
      << " runs of sweep '" << comment_text(spec.name) << "' as a Slurm job array of " << tasks
      << " task(s), " << per_task
      << " run(s) per task.\n# Task i runs its runs one after the other, each exactly as `colocsim sweep` "
         "runs it\n"
      << "# (the command of DIR/runs.txt, its output in run-NNNN/log.txt); a run whose summary.json exists "
         "is\n"
      << "# done and is skipped, so submitting the array again runs only what is left. Submit with "
         "submit.sh.\n"
      << sbatch_common(job, a) << "#SBATCH --array=0-" << tasks - 1
      << (a.array_max ? "%" + std::to_string(*a.array_max) : "") << "\n"
      << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
      << "#SBATCH --output=" << (sdir / "task-%A_%a.out").string() << "\n"
      << "set -u\n"
      << default_exe << "DIR=" << script_quote(dir.string()) << "\n"
      << "cd " << script_quote(cwd)
      << " || exit 2  # where the sweep was prepared: the runs' paths are relative to it\n"
      << "failed=0\n"
      << "run() { # run ID ARGS...\n"
      << "  local id=$1; shift\n"
      << "  if [ -e \"$DIR/$id/summary.json\" ]; then echo \"$id: done earlier\"; return 0; fi\n"
      << "  rm -rf \"$DIR/.$id.partial-\"*  # the staging directory of a run killed earlier\n"
      << "  mkdir -p \"$DIR/$id\" || { failed=1; return 0; }\n"
      << "  if \"$COLOCSIM\" \"$@\" </dev/null >\"$DIR/$id/log.txt\" 2>&1; then echo \"$id: ok\"\n"
      << "  else echo \"$id: FAILED (exit status $?, see $DIR/$id/log.txt)\"; failed=1; fi\n"
      << "}\n"
      << "case \"${SLURM_ARRAY_TASK_ID:?this script is a Slurm job array: submit it with sbatch "
         "(submit.sh)}\" in\n";
  for (long long t = 0; t < tasks; ++t) {
    arr << t << ")\n";
    for (long long i = t * per_task; i < std::min(n, (t + 1) * per_task); ++i) {
      const RunSpec& r = runs[static_cast<std::size_t>(i)];
      arr << "  run " << r.id();
      for (const auto& arg : run_args(spec, r, dir / r.id(), consent))
        arr << " " << script_quote(arg);
      arr << "\n";
    }
    arr << "  ;;\n";
  }
  arr << "*) echo \"colocsim: no task $SLURM_ARRAY_TASK_ID in this array (0-" << tasks - 1
      << ")\" >&2; exit 2 ;;\n"
      << "esac\nexit $failed\n";
  write_script(sdir / "array.sh", arr.str(), true);

  std::ostringstream col;
  col << "#!/bin/bash\n"
      << "# Written by `colocsim sweep --slurm`: gathers the finished runs into sweep.csv once the array is "
         "over.\n"
      << sbatch_common(job + "-collect", a) << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
      << "#SBATCH --output=" << (sdir / "collect-%j.out").string() << "\n"
      << default_exe << "cd " << script_quote(cwd) << " || exit 2\n"
      << "exec \"$COLOCSIM\" sweep --collect " << script_quote(dir.string()) << "\n";
  write_script(sdir / "collect.sh", col.str(), true);

  std::ostringstream sub;
  sub << "#!/bin/bash\n"
      << "# Submits the sweep's job array, then the collect job to run when every task has ended (afterany: "
         "the\n"
      << "# collect job also runs when a task failed, and lists what is missing). Run it again to resubmit: "
         "the\n"
      << "# tasks skip the runs that are done. Extra arguments go to both sbatch calls (e.g. --account=A).\n"
      << "set -euo pipefail\n"
      << "cd " << script_quote(sdir.string()) << "\n"
      << "array=$(sbatch --parsable \"$@\" array.sh)\n"
      << "array=${array%%;*}  # --parsable prints JOBID[;CLUSTER]\n"
      << "collect=$(sbatch --parsable \"$@\" --dependency=afterany:$array collect.sh)\n"
      << "collect=${collect%%;*}\n"
      << "echo \"submitted job array $array (" << tasks << " task(s)) and collect job $collect\"\n"
      << "printf 'results: %s/sweep.csv once job %s has run (or: colocsim sweep --collect %s)\\n' "
      << script_quote(dir.string()) << " \"$collect\" " << script_quote(script_quote(dir.string())) << "\n";
  write_script(sdir / "submit.sh", sub.str(), true);
  write_script(spec_path_file(dir), fs::absolute(spec.file).lexically_normal().string() + "\n", false);

  out << "sweep '" << comment_text(spec.name) << "': " << n << " runs → " << tasks << " Slurm array task(s), "
      << per_task << " run(s) per task"
      << (a.runs_per_task && per_task != *a.runs_per_task ? " (raised: at most 1000 tasks)" : "") << "\n  "
      << (sdir / "array.sh").string() << "    the job array\n  " << (sdir / "collect.sh").string()
      << "  gathers sweep.csv after it\n  submit:  bash " << script_quote((sdir / "submit.sh").string())
      << "\n  collect by hand: colocsim sweep --collect " << script_quote(dir.string()) << "\n";
}

/// `colocsim sweep [SPEC] --collect DIR`: every run's outcome from its directory (summary.json: ok; a
/// directory without it: failed, with the last line of its log.txt; no directory: not run yet), then
/// sweep.csv and the table, as a local sweep writes them. Runs nothing.
int collect_sweep(const SweepArgs& a, std::ostream& out)
{
  const fs::path dir = *a.collect_dir;
  std::error_code ec;
  if (!fs::exists(dir / "sweep.yaml", ec))
    throw InputError(
        SourceLocation{dir.string()}, "",
        "holds no sweep (no sweep.yaml): --collect needs the directory of `colocsim sweep SPEC --slurm`");
  std::string spec_file;
  if (a.spec_file)
    spec_file = *a.spec_file;
  else {
    if (!fs::exists(spec_path_file(dir), ec))
      throw InputError(SourceLocation{spec_path_file(dir).string()}, "",
                       "missing: name the spec, `colocsim sweep SPEC --collect DIR`");
    spec_file = read_spec_path(spec_path_file(dir));
  }
  if (!fs::exists(spec_file, ec) && spec_file.rfind("builtin:", 0) != 0)
    throw InputError(
        SourceLocation{spec_file}, "",
        "the sweep's spec is no longer there (moved?): name it, `colocsim sweep SPEC --collect DIR`");
  const SweepSpec spec = load_spec(spec_file);
  if (read_text_file((dir / "sweep.yaml").string()).text != spec.text)
    throw InputError(SourceLocation{dir.string()}, "",
                     "holds a sweep of a different spec (sweep.yaml differs from " + spec.file + ")");
  // Nothing is loaded or run: a scenario naming plugins is read only for its seed.
  const PluginConsent consent{true, a.plugins, false};
  const Scenario base = load_scenario(spec.scenario, spec.sets, spec.policy, consent);
  std::vector<RunSpec> runs = expand(spec, base.seed);
  mark_infeasible(spec, runs, consent); // --slurm left them out of the array
  std::vector<Outcome> outcomes(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const fs::path rdir = dir / runs[i].id();
    Outcome& o = outcomes[i];
    o.infeasible = !runs[i].infeasible.empty();
    o.done = o.infeasible || fs::exists(rdir, ec);
    o.ok = fs::exists(rdir / "summary.json", ec);
    o.missing = !o.done && !o.infeasible;
    if (o.ok)
      read_run_summary(rdir, o);
    else if (o.done && !o.infeasible)
      o.message = "no summary.json; the last line of its log.txt: " + last_line(rdir / "log.txt");
  }
  write_sweep_csv(spec, runs, dir, outcomes);
  if (!a.quiet) print_sweep_table(out, spec, runs, outcomes, dir, "collected", a.baseline);
  return report_failures(runs, outcomes,
                         "submit " + (dir / "slurm" / "submit.sh").string() +
                             " again to run only them, then collect again",
                         true);
}

} // namespace

int cmd_sweep(const std::vector<std::string>& args, std::ostream& out)
{
  return sweep_with_deadline(args, out, SweepDeadline{});
}

int sweep_with_deadline(const std::vector<std::string>& args, std::ostream& out, const SweepDeadline& given)
{
  const auto command_start = std::chrono::steady_clock::now();
  SweepArgs a = parse_sweep_args(args);
  if (a.help) {
    out << SWEEP_HELP;
    return 0;
  }
  if (a.collect_dir) return collect_sweep(a, out);
  SweepSpec spec = load_spec(*a.spec_file);
  if (a.python_policy) { // the bridge as a --policy-plugin, its policy for every run
    if (!spec.policy.empty() || std::any_of(spec.axes.begin(), spec.axes.end(), [](const Axis& x) {
          return x.key == "policy" || std::any_of(x.bundles.begin(), x.bundles.end(),
                                                  [](const AxisBundle& b) { return !b.policy.empty(); });
        }))
      throw UsageError("--policy-python sets every run's policy, and " + spec.file +
                       " names policies (a `policy` key or axis): drop one of them");
    PythonPolicyArg p = parse_python_policy(*a.python_policy);
    a.plugins.push_back(p.bridge);
    spec.sets.insert(spec.sets.end(), p.sets.begin(), p.sets.end());
  }
  load_plugins(a.plugins);
  // Plugins the scenario names need consent; --dry-run loads only those of the command line.
  const PluginConsent consent{a.allow_plugins, a.plugins, !a.dry_run};
  // The base scenario first (its warnings once), then the axis values, the metrics and every run.
  const Scenario base = load_scenario(spec.scenario, spec.sets, spec.policy, consent);
  for (const auto& w : base.warnings)
    std::cerr << "colocsim: warning: " << w << "\n";
  std::vector<RunSpec> runs = expand(spec, base.seed);
  check_sweep(spec, runs, consent);
  if (a.baseline) (void)parse_baseline(spec, *a.baseline); // a bad --baseline stops before any run
  note_infeasible(spec, runs, std::cerr);

  const fs::path dir = a.out_dir ? fs::path(*a.out_dir) : fs::path("sweep-out") / spec.name;
  if (a.dry_run) {
    out << "sweep '" << spec.name << "': " << runs.size() << " runs of " << spec.scenario << " (";
    for (const auto& axis : spec.axes)
      out << axis.key << " × " << axis.values.size() << ", ";
    out << (spec.seeds.empty() ? 1 : spec.seeds.size()) << " seed(s)) → " << dir.string() << "/\n";
    for (const auto& r : runs)
      out << r.id() << "  "
          << (r.infeasible.empty() ? command_line(spec, r, dir, consent)
                                   : "skipped, cannot run: " + r.infeasible)
          << "\n";
    return 0;
  }
  const std::string exe = self_exe();
  if (a.slurm) (void)slurm_dir(dir); // its checks before anything is written
  prepare_sweep_dir(spec, runs, dir, a, consent);
  if (a.slurm) {
    std::vector<RunSpec> feasible; // the array runs only the runs that can run (ids kept)
    std::copy_if(runs.begin(), runs.end(), std::back_inserter(feasible),
                 [](const RunSpec& r) { return r.infeasible.empty(); });
    write_slurm_scripts(spec, feasible, dir, exe, a, consent, out);
    return 0;
  }
  SweepDeadline deadline = given;
  if (a.deadline_s) {
    const auto at = command_start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(*a.deadline_s));
    deadline.at = deadline.at ? std::min(*deadline.at, at) : at;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Outcome> outcomes = run_sweep(spec, runs, dir, exe, a, consent, deadline);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  write_sweep_csv(spec, runs, dir, outcomes);
  std::ostringstream how;
  how << std::fixed << std::setprecision(1) << wall << " s with -j " << a.jobs;
  if (!a.quiet) print_sweep_table(out, spec, runs, outcomes, dir, how.str(), a.baseline);
  return report_failures(runs, outcomes, "--resume reruns only them", false);
}

pid_t spawn_logged(const std::string& exe, const std::vector<std::string>& args, const fs::path& log,
                   bool own_group)
{
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0); // its own group, led by itself
  }
  std::vector<std::string> all{exe};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, exe.c_str(), &fa, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("cannot start " + exe + ": " + std::strerror(rc));
  return pid;
}

} // namespace colocsim
