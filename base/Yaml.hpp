#pragma once
// yaml-cpp helpers shared by every loader: parse with located errors, check keys against declared
// parameters, read values with their provenance. Messages follow CONTRIBUTING.md, Errors:
// `file:line:col: yaml.path: what is wrong (got v); expected rule. valid: ...`.
#include "base/Errors.hpp"
#include "base/Params.hpp"

#include <yaml-cpp/yaml.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace colocsim {

/// Parses YAML text; a syntax error becomes an InputError at the error's line and column, and so does a
/// key written twice in one map (naming both lines): yaml-cpp accepts duplicates and resolves them
/// inconsistently.
YAML::Node load_yaml(std::string_view text, const std::string& file);

/// `s` as a YAML double-quoted scalar, for the scenario files the CLI writes (replay, advise): `"` and `\`
/// escaped, and control characters as YAML escapes (\n, \t, \xNN), so that any text reads back as itself.
std::string yaml_quote(std::string_view s);

/// Location of a node (1-based line and column).
SourceLocation location_of(const YAML::Node& node, const std::string& file);

/// Checks that `node` is a map; reports to sink and returns false otherwise.
bool expect_map(const YAML::Node& node, const std::string& file, const std::string& path,
                DiagnosticSink& sink);

/// Reports every key of map `node` that is not in `valid`.
void check_keys(const YAML::Node& node, const std::vector<std::string>& valid, const std::string& file,
                const std::string& path, DiagnosticSink& sink);

/// Reads the declared scalar parameters of map `node` (unknown keys, wrong types and ranges reported).
/// Keys listed in `sections` are allowed (they hold nested maps the caller reads itself).
ParamSet read_params(const YAML::Node& node, const std::vector<ParamSpec>& specs, const std::string& file,
                     const std::string& path, DiagnosticSink& sink,
                     const std::vector<std::string>& sections = {});

/// Evidence tags (docs/sources.md, Evidence tags; docs/architecture.md, Calibration and provenance).
/// How a number is known (its tag). USER_SUPPLIED: a plain number in a user's file (a platform or device file
/// outside the bundled catalog may give one without provenance); bundled files never use it.
enum class Evidence { VENDOR_SPEC, MEASUREMENT, DOCUMENTED, ESTIMATE, MICROBENCHMARK, USER_SUPPLIED };
std::string_view to_string(Evidence e);
std::optional<Evidence> parse_evidence(std::string_view text);

/// A number with its provenance.
struct Sourced {
  double value = 0;
  Evidence evidence = Evidence::ESTIMATE;
  std::string source; ///< source key(s) and/or derivation, e.g. "GK-PVC" or "[E] 90 W/tile, §6.4"
};

/// The fields of a `{value, tag, source[, note]}` map `node` at `kpath` (the caller has checked that it is a
/// map): reports unknown keys, hands the value (a scalar) to `read_value`, which reports what is wrong with
/// it and returns false, then reads the evidence tag and the source into `evidence` and `source`.
/// `expected` completes "missing; expected ..." for a missing value; `noun` names what carries the source
/// ("every <noun> carries its source"). False if anything was wrong (all of it reported to sink). The one
/// reader of provenance maps: read_sourced (numbers) and the MIG table's text values use it.
bool read_sourced_fields(const YAML::Node& node, const std::string& file, const std::string& kpath,
                         DiagnosticSink& sink, const std::string& expected, const std::string& noun,
                         const std::function<bool(const YAML::Node& value)>& read_value, Evidence& evidence,
                         std::string& source);

/// Reads `key` of map `parent` written as `{value: 64GB, tag: vendor-spec, source: "GK-PVC"}`.
/// Missing (when required), malformed, out-of-range or untagged values are reported to sink. With
/// `plain_ok` (user platform and device files), a plain number (`nodes: 4`) is accepted too, tagged
/// USER_SUPPLIED with source "plain number in FILE".
std::optional<Sourced> read_sourced(const YAML::Node& parent, const std::string& key, Unit unit,
                                    const std::string& file, const std::string& path, DiagnosticSink& sink,
                                    bool required = true, double min = -1e300, double max = 1e300,
                                    bool plain_ok = false);

} // namespace colocsim
