// colocsim generate: a seeded synthetic trace in the native CSV format (workloads/SyntheticGenerator.hpp).
#include "cli/CliCommands.hpp"
#include "sim/Resources.hpp"
#include "workloads/NativeCsv.hpp"
#include "workloads/ProfileCatalog.hpp"
#include "workloads/SyntheticGenerator.hpp"

#include <filesystem>
#include <fstream>
#include <map>

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
