#pragma once
// The trace formats colocsim reads, in one registry table (name, summary, doc page, declared options,
// default profile map, opener). The table drives `workload.format`, `workload.options`, `colocsim formats`,
// `colocsim replay --format/--option` and the format pages' option lists, so they cannot drift.
//
// open_workload() builds the whole reader chain a run consumes: the format's reader (or a given base reader,
// e.g. the synthetic generator), then the transforms (JobTransforms.hpp), then the profile mapping
// (ProfileMapper.hpp). Its describe() says all of it in one line for the outputs.
#include "base/Params.hpp"
#include "workloads/JobReader.hpp"
#include "workloads/JobTransforms.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

class ProfileCatalog;

struct TraceFormat {
  std::string name;
  std::string summary; ///< one line
  std::string doc;     ///< its page, e.g. docs/formats/swf.md
  std::vector<ParamSpec> options;
  /// Profile map used when the scenario gives none (ProfileMapper.hpp syntax); may be empty.
  std::string default_profile_map;
  /// Opens `path` with validated options. Throws InputError.
  std::function<std::unique_ptr<JobReader>(const std::string& path, const ParamSet& options)> open;
};

/// Every format, in listing order.
const std::vector<TraceFormat>& trace_formats();
std::vector<std::string> trace_format_names();
/// The format called `name`; throws InputError at `where` (path workload.format) naming the valid ones.
const TraceFormat& find_trace_format(std::string_view name, const SourceLocation& where = {});
/// `colocsim formats`: every format with its options and default map, then the transforms.
std::string describe_trace_formats();

/// Everything that defines a run's jobs.
struct WorkloadSpec {
  std::string format = "native";
  std::string path;
  std::map<std::string, GivenValue> options; ///< format options, checked against the format's declarations
  /// Profile map (ProfileMapper.hpp); empty = the format's default map; "none" = no map.
  std::string profile_map;
  std::string transforms; ///< JobTransforms.hpp syntax; empty = none
  std::uint64_t seed = 1;
  double capacity_devices = 0;             ///< the platform's devices (inflate)
  const ProfileCatalog* catalog = nullptr; ///< checks the map's profile names when given
  SourceLocation where;                    ///< where the spec was written (messages)
  std::string path_prefix = "workload";    ///< key path in messages: workload.options, ...
  std::string source_label;                ///< describes a given base reader (default: "format path")
};

/// The canonical one-line description of a spec, before reading (format, file, options, transforms, map).
std::string describe_workload(const WorkloadSpec& spec);

/// Opens the reader chain of `spec`. `base`, if given, replaces the format's reader (an in-memory or
/// synthetic source); it must make a fresh reader on every call (inflate reads twice). Throws InputError for
/// an unknown format, bad options, transforms or map, all found problems at once.
std::unique_ptr<JobReader> open_workload(const WorkloadSpec& spec,
                                         const std::function<std::unique_ptr<JobReader>()>& base = {});

} // namespace colocsim
