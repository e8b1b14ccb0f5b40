#pragma once
// Declared parameters: each key of a scenario section, policy or model is declared once as a ParamSpec
// (name, type, default, range or choices, unit, help). The same declaration drives YAML parsing,
// `--set`/`--policy name:key=value` parsing, `--help` listings and the docs, so they cannot drift.
#include "base/Errors.hpp"
#include "base/Units.hpp"

#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace colocsim {

enum class ParamType { BOOL, INT, REAL, STRING, CHOICE };

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::REAL;
  std::string default_text; ///< default as the user would write it; empty and !required = optional
  std::string help;
  double min = -std::numeric_limits<double>::infinity(); ///< inclusive, in base units (INT, REAL)
  double max = std::numeric_limits<double>::infinity();
  Unit unit = Unit::NONE;           ///< REAL only
  std::vector<std::string> choices; ///< CHOICE only
  bool required = false;

  std::string type_name() const;   ///< "real", "integer", "size", "one of a|b|c", ...
  std::string expectation() const; ///< what a valid value looks like, for error messages
};

using ParamValue = std::variant<bool, long long, double, std::string>;

/// Parses one textual value against its spec. Returns the value, or an error message that starts with
/// "expected ..." and says what was wrong.
std::variant<ParamValue, std::string> parse_param_value(const ParamSpec& spec, std::string_view text);

/// One user-given value with where it came from (for messages).
struct GivenValue {
  std::string text;
  SourceLocation where;
};

/// Validated values of a declared parameter set, defaults applied.
class ParamSet {
public:
  ParamSet() = default;
  ParamSet(const std::vector<ParamSpec>* specs, std::map<std::string, ParamValue> values)
      : specs_(specs), values_(std::move(values))
  {
  }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  double real(const std::string& name) const;
  long long integer(const std::string& name) const;
  bool flag(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  /// The text value, or `fallback` for an optional parameter that was not given and has no default.
  std::string text_or(const std::string& name, const std::string& fallback) const
  {
    return has(name) ? text(name) : fallback;
  }
  const std::map<std::string, ParamValue>& values() const { return values_; }
  /// "k=v,k=v" in declaration order, for recording in outputs.
  std::string to_string() const;

private:
  const ParamValue& at(const std::string& name) const;
  const std::vector<ParamSpec>* specs_ = nullptr;
  std::map<std::string, ParamValue> values_;
};

/// Validates `given` against `specs`: unknown names, bad values and missing required ones go to `sink`
/// as `file:line:col: path.name: ...` diagnostics naming the valid names/values. Defaults are applied.
ParamSet parse_params(const std::vector<ParamSpec>& specs, const std::map<std::string, GivenValue>& given,
                      const std::string& path, DiagnosticSink& sink);

/// One line per parameter: "  name  type  default  help", for --help and `colocsim policies`.
std::string describe_params(const std::vector<ParamSpec>& specs, const std::string& indent = "  ");

/// Splits "a=1,b=x" (CLI form) into given values; an item without '=' is reported to sink.
std::map<std::string, GivenValue> split_assignments(std::string_view text, const std::string& origin,
                                                    DiagnosticSink& sink);

} // namespace colocsim
