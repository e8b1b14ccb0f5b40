// colocsim replay and colocsim formats: replay a trace file end to end without writing a scenario; the
// scenario replay builds is saved as OUTDIR/scenario.yaml, so the run can be repeated with `colocsim run`.
#include "sim/CliCommands.hpp"
#include "sim/Outputs.hpp"
#include "sim/Resources.hpp"
#include "sim/Scenario.hpp"

#include <filesystem>
#include <fstream>
#include <map>

namespace colocsim {

namespace {

const char* const REPLAY_HELP = R"(usage: colocsim replay TRACE --format FORMAT [options]

Replays TRACE end to end: every job is bound to a profile (the trace's own, a --profile-map entry, or
--profile), placed by the policy on the platform, and the usual outputs are written. The scenario used is
saved as OUTDIR/scenario.yaml (rerun it with `colocsim run OUTDIR/scenario.yaml -o OTHER`).

options:
  --format F              native, swf or itp (see `colocsim formats`)               (required)
  --platform P            platform preset or file (default aurora: 127,488 Max 1550 tiles)
  --nodes N               number of nodes (overrides the preset)
  --sharing MODE          exclusive, time-slice, ccs-2, ccs-4, mps (default time-slice)
  --policy NAME[:K=V,..]  policy and parameters (default first-fit)
  --profile NAME          profile of jobs the trace does not bind (default resnet50-train-bs32)
  --profile-map M=P,...   itp: model_name → profile
  --procs-per-device N    swf: trace processors per simulated device (default 1)
  --set KEY=VALUE         any other scenario key (repeatable)
  -o, --output DIR        output directory (default colocsim-out)
  --force                 overwrite an earlier run's results in DIR
  --quiet                 no summary table
)";

const char* const FORMATS_HELP = R"(usage: colocsim formats

Lists the trace formats `workload.format` / `replay --format` accept, with their options.
)";

std::string yaml_quote(const std::string& s)
{
  std::string out = "\"";
  for (char c : s)
    out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

} // namespace

int cmd_replay(const std::vector<std::string>& args, std::ostream& out)
{
  std::string trace, format, platform = "aurora", sharing = "time-slice", policy = "first-fit",
                             profile = "resnet50-train-bs32", profile_map, output = "colocsim-out", nodes,
                             procs = "1";
  std::vector<std::string> sets;
  bool force = false, quiet = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      out << REPLAY_HELP;
      return 0;
    }
    if (a == "--format")
      format = next_arg(args, i);
    else if (a == "--platform")
      platform = next_arg(args, i);
    else if (a == "--nodes")
      nodes = next_arg(args, i);
    else if (a == "--sharing")
      sharing = next_arg(args, i);
    else if (a == "--policy")
      policy = next_arg(args, i);
    else if (a == "--profile")
      profile = next_arg(args, i);
    else if (a == "--profile-map")
      profile_map = next_arg(args, i);
    else if (a == "--procs-per-device")
      procs = next_arg(args, i);
    else if (a == "--set")
      sets.push_back(next_arg(args, i));
    else if (a == "-o" || a == "--output")
      output = next_arg(args, i);
    else if (a == "--force")
      force = true;
    else if (a == "--quiet")
      quiet = true;
    else if (!a.empty() && a[0] == '-')
      throw UsageError("unknown option '" + a + "' (see colocsim replay --help)");
    else if (!trace.empty())
      throw UsageError("more than one trace given ('" + trace + "' and '" + a + "')");
    else
      trace = a;
  }
  if (trace.empty()) throw UsageError("replay needs a TRACE file (see colocsim replay --help)");
  if (format.empty()) throw UsageError("replay needs --format (native, swf or itp; see colocsim formats)");

  OutputOptions outputs;
  outputs.dir = output;
  outputs.force = force;
  prepare_output_dir(outputs);
  const auto abs_trace = std::filesystem::absolute(trace).string();
  const auto scenario_file = outputs.dir / "scenario.yaml";
  {
    std::ofstream f(scenario_file);
    if (!f) throw InputError(SourceLocation{scenario_file.string()}, "", "cannot open for writing");
    f << "# Written by `colocsim replay`; rerun with: colocsim run " << scenario_file.string() << " -o DIR\n"
      << "name: " << yaml_quote("replay-" + std::filesystem::path(trace).stem().string()) << "\n"
      << "platform:\n  preset: " << yaml_quote(platform) << "\n  sharing: " << yaml_quote(sharing) << "\n";
    if (!nodes.empty()) f << "  nodes: " << yaml_quote(nodes) << "\n";
    f << "workload:\n  trace: " << yaml_quote(abs_trace) << "\n  format: " << yaml_quote(format)
      << "\n  default_profile: " << yaml_quote(profile) << "\n  procs_per_device: " << yaml_quote(procs)
      << "\n";
    if (!profile_map.empty()) f << "  profile_map: " << yaml_quote(profile_map) << "\n";
    f << "policy: first-fit\n";
  }
  Scenario scenario = load_scenario(scenario_file.string(), sets, policy);
  scenario.outputs.dir = outputs.dir;
  scenario.outputs.force = true; // prepared above
  return execute_run(scenario, quiet, out);
}

int cmd_formats(const std::vector<std::string>& args, std::ostream& out)
{
  if (no_options_or_help(args, FORMATS_HELP, out)) return 0;
  out << "native  colocsim's own CSV: id,submit_s,duration_s[,devices,gpu_milli,mem,profile,qos]\n"
         "        docs/formats/native-csv.md\n"
         "swf     Standard Workload Format (Parallel Workloads Archive), 18 fields, ';' headers, -1 "
         "unknown;\n"
         "        tolerates unsorted submit times within a 16384-row window (ALCF Theta files), with a "
         "warning\n"
         "        option: procs_per_device (swf: trace processors per device)      docs/formats/swf.md\n"
         "itp     Microsoft ITP / ElasticFlow CSV: job_id,submission_time,duration,num_gpu[,model_name,...]\n"
         "        option: profile_map (model_name=profile,...)                    docs/formats/itp-csv.md\n"
         "Every format binds jobs without a profile to workload.default_profile (replay --profile).\n";
  return 0;
}

} // namespace colocsim

namespace colocsim {

namespace {
const char* const GENERATE_HELP = R"(usage: colocsim generate -o FILE [options]

Writes a synthetic trace in the native CSV format (docs/formats/native-csv.md): Poisson arrivals, lognormal
durations, profiles and gang sizes drawn from weighted mixes, all from one seed (the same seed gives the
same file). Never overwrites FILE without --force.

options:
  --jobs N                 number of jobs (default 1000)
  --arrival-rate R         jobs per second (default 1)
  --duration-mean D        mean duration, e.g. 600s, 2h (default 600s)
  --duration-sigma S       lognormal sigma (default 1; 0 = every job lasts the mean)
  --profile-mix P:W,...    profiles and weights (default: every bundled profile, weight 1)
  --devices-mix G:W,...    gang sizes and weights (default 1:1)
  --seed N                 random seed (default 1)
  -o, --output FILE        the trace to write (required)
  --force                  overwrite FILE
)";
} // namespace

int cmd_generate(const std::vector<std::string>& args, std::ostream& out)
{
  std::map<std::string, GivenValue> given;
  std::string output;
  bool force = false;
  const std::map<std::string, std::string> option_to_param{{"--jobs", "jobs"},
                                                           {"--arrival-rate", "arrival_rate_per_s"},
                                                           {"--duration-mean", "duration_mean"},
                                                           {"--duration-sigma", "duration_sigma"},
                                                           {"--profile-mix", "profile_mix"},
                                                           {"--devices-mix", "devices_mix"},
                                                           {"--seed", "seed"}};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& a = args[i];
    if (a == "--help" || a == "-h") {
      out << GENERATE_HELP;
      return 0;
    }
    if (a == "-o" || a == "--output")
      output = next_arg(args, i);
    else if (a == "--force")
      force = true;
    else if (auto it = option_to_param.find(a); it != option_to_param.end())
      given[it->second] = GivenValue{next_arg(args, i), SourceLocation{"command line " + a}};
    else
      throw UsageError("unknown option '" + a + "' (see colocsim generate --help)");
  }
  if (output.empty()) throw UsageError("generate needs -o FILE");
  if (std::filesystem::exists(output) && !force)
    throw InputError(SourceLocation{output}, "", "exists; pass --force to overwrite it");
  DiagnosticSink sink;
  const auto params = parse_params(synthetic_param_specs(), given, "", sink);
  sink.throw_if_any();
  const auto spec = make_synthetic_spec(params, SourceLocation{"command line"});
  const auto catalog_file = read_text_file("builtin:workloads/profiles/default.yaml");
  const auto catalog = ProfileCatalog::load(catalog_file.text, catalog_file.name);
  std::ofstream f(output);
  if (!f) throw InputError(SourceLocation{output}, "", "cannot open for writing");
  const auto n = write_synthetic(spec, f, &catalog);
  out << "wrote " << n << " jobs to " << output << "\n";
  return 0;
}

} // namespace colocsim
