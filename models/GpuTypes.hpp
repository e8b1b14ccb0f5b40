#pragma once
// The one parser of a job's GPU-type constraint (Job::gpu_types, "V100M16|V100M32"): the trace readers check
// it with it, the engine resolves it to device types with it, packing matches it against GPU models.
// Job::gpu_types stays the text the trace gave (the outputs write it back); the engine resolves each distinct
// text once (sim/Engine.cpp), not once per job.
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// Calls `pred(name)` for each name of a gpu_types text in order, until it returns true (then returns true).
/// Names are views into `text`; an empty element ("T4||V100", "|T4", "T4|") is an empty name, which no
/// device type answers to and which the readers refuse. An empty text has no names (any type).
template <class Pred> bool any_gpu_type(std::string_view text, Pred&& pred)
{
  if (text.empty()) return false;
  std::size_t start = 0;
  for (;;) {
    const auto bar = text.find('|', start);
    if (pred(text.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start)))
      return true;
    if (bar == std::string_view::npos) return false;
    start = bar + 1;
  }
}

/// The names of a gpu_types text, in order, empty elements included (see any_gpu_type); "" gives none.
std::vector<std::string_view> gpu_type_names(std::string_view text);

/// Whether a gpu_types text lists `name` (an empty text lists none: callers treat it as "any").
bool gpu_types_list(std::string_view text, std::string_view name);

/// Whether every name of a non-empty gpu_types text is a name: not empty, no blank (space or tab).
bool gpu_types_well_formed(std::string_view text);

} // namespace colocsim
