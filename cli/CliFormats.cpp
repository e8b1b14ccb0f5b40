// colocsim formats: the trace formats with their options and default profile maps, the transforms and the
// profile-map rules, all from the declarations in workloads/TraceFormats.cpp and workloads/JobTransforms.cpp.
#include "cli/CliCommands.hpp"
#include "workloads/TraceFormats.hpp"

namespace colocsim {

namespace {
const char* const FORMATS_HELP = R"(usage: colocsim formats

Lists the trace formats `workload.format` / `replay --format` accept, with their options (workload.options,
replay --option), default profile maps, the transforms and the profile-map rules.
)";
} // namespace

int cmd_formats(const std::vector<std::string>& args, std::ostream& out)
{
  if (no_options_or_help(args, FORMATS_HELP, out)) return 0;
  out << describe_trace_formats();
  return 0;
}

} // namespace colocsim
