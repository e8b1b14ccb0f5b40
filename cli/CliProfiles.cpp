// colocsim profiles: helpers for writing profiles. `import-mig` turns a MIG measurement sweep (batch × slice
// × throughput) into a profile's mig_speed_by_batch key (workloads/MigSweep.hpp; docs/formats/profiles.md).
#include "cli/CliCommands.hpp"
#include "workloads/CsvLines.hpp"
#include "workloads/MigSweep.hpp"

#include <fstream>

namespace colocsim {

namespace {
const char* const PROFILES_HELP = R"(usage: colocsim profiles import-mig SWEEP.csv [--source TEXT]

import-mig  reads a MIG measurement sweep, a CSV with the header batch,slice,throughput (slice: a MIG
            instance profile such as 1g.10gb, or `whole` for the GPU with MIG off; throughput: any rate > 0),
            and prints the profile key mig_speed_by_batch (mig_speed for a single batch): each slice's
            throughput over the whole GPU's at the same batch. Paste it under a profile of a catalog
            (docs/formats/profiles.md, Batch size and MIG speed).
  --source TEXT   the source written with the numbers (default: the file name)
)";
} // namespace

int cmd_profiles(const std::vector<std::string>& args, std::ostream& out)
{
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    out << PROFILES_HELP;
    return 0;
  }
  if (args[0] != "import-mig")
    throw UsageError("profiles: unknown subcommand '" + args[0] + "'; expected import-mig");
  std::string file, source;
  for (std::size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      out << PROFILES_HELP;
      return 0;
    }
    if (args[i] == "--source") {
      if (i + 1 >= args.size()) throw UsageError("profiles import-mig: --source needs a value");
      source = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError("profiles import-mig: unknown option '" + args[i] + "'; valid: --source");
    } else if (file.empty()) {
      file = args[i];
    } else {
      throw UsageError("profiles import-mig: one sweep file expected (got '" + file + "' and '" + args[i] +
                       "')");
    }
  }
  if (file.empty()) throw UsageError("profiles import-mig: expected a sweep CSV file");
  std::ifstream in = open_input_file(file, "MIG sweep");
  out << mig_sweep_yaml(read_mig_sweep(in, file), source.empty() ? file : source);
  return 0;
}

} // namespace colocsim
