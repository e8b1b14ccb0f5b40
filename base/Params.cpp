#include "base/Params.hpp"
#include "base/Units.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace colocsim {

std::string ParamSpec::type_name() const
{
  switch (type) {
  case ParamType::BOOL:
    return "bool";
  case ParamType::INT:
    return "integer";
  case ParamType::REAL:
    switch (unit) {
    case Unit::NONE:
      return "real";
    case Unit::BYTES:
      return "size";
    case Unit::WATTS:
      return "power";
    case Unit::HERTZ:
      return "frequency";
    case Unit::SECONDS:
      return "duration";
    case Unit::JOULES:
      return "energy";
    }
    return "real";
  case ParamType::STRING:
    return "string";
  case ParamType::CHOICE:
    return "one of " + join(choices, "|");
  }
  return "value";
}

std::string ParamSpec::expectation() const
{
  std::string s;
  switch (type) {
  case ParamType::BOOL:
    s = "true or false";
    break;
  case ParamType::INT:
    s = "an integer";
    break;
  case ParamType::REAL:
    s = unit_help(unit);
    break;
  case ParamType::STRING:
    s = "a string";
    break;
  case ParamType::CHOICE:
    return "one of: " + join(choices, ", ");
  }
  if ((type == ParamType::INT || type == ParamType::REAL) && (std::isfinite(min) || std::isfinite(max))) {
    s += " in [" + (std::isfinite(min) ? number_text(min) : std::string("-inf")) + ", " +
         (std::isfinite(max) ? number_text(max) : std::string("inf")) + "]";
  }
  return s;
}

std::variant<ParamValue, std::string> parse_param_value(const ParamSpec& spec, std::string_view text)
{
  const std::string got = " (got '" + std::string(text) + "')";
  switch (spec.type) {
  case ParamType::BOOL:
    if (text == "true" || text == "yes" || text == "on" || text == "1") return ParamValue{true};
    if (text == "false" || text == "no" || text == "off" || text == "0") return ParamValue{false};
    return "expected true or false" + got;
  case ParamType::INT: {
    auto v = parse_int(text);
    if (!v) return "expected an integer" + got;
    if (static_cast<double>(*v) < spec.min || static_cast<double>(*v) > spec.max)
      return "out of range" + got + "; expected " + spec.expectation();
    return ParamValue{*v};
  }
  case ParamType::REAL: {
    auto v = parse_quantity(text, spec.unit);
    if (!v) return "expected " + spec.expectation() + got;
    if (*v < spec.min || *v > spec.max) return "out of range" + got + "; expected " + spec.expectation();
    return ParamValue{*v};
  }
  case ParamType::STRING:
    if (spec.required && text.empty()) return std::string("expected a non-empty string");
    return ParamValue{std::string(text)};
  case ParamType::CHOICE:
    if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
      return "unknown value" + got + "; valid: " + join(spec.choices);
    return ParamValue{std::string(text)};
  }
  return std::string("unsupported parameter type");
}

const ParamValue& ParamSet::at(const std::string& name) const
{
  auto it = values_.find(name);
  if (it == values_.end())
    throw std::logic_error("parameter '" + name + "' was not declared or has no value");
  return it->second;
}

double ParamSet::real(const std::string& name) const
{
  const auto& v = at(name);
  if (const auto* i = std::get_if<long long>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}
long long ParamSet::integer(const std::string& name) const
{
  return std::get<long long>(at(name));
}
bool ParamSet::flag(const std::string& name) const
{
  return std::get<bool>(at(name));
}
const std::string& ParamSet::text(const std::string& name) const
{
  return std::get<std::string>(at(name));
}

std::string ParamSet::to_string() const
{
  std::string s;
  auto append = [&](const std::string& name, const ParamValue& v) {
    if (!s.empty()) s += ",";
    s += name + "=";
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, bool>)
            s += x ? "true" : "false";
          else if constexpr (std::is_same_v<T, std::string>)
            s += x;
          else if constexpr (std::is_same_v<T, double>)
            s += number_text(x);
          else
            s += std::to_string(x);
        },
        v);
  };
  if (specs_) {
    for (const auto& spec : *specs_)
      if (auto it = values_.find(spec.name); it != values_.end()) append(spec.name, it->second);
  } else {
    for (const auto& [k, v] : values_)
      append(k, v);
  }
  return s;
}

ParamSet parse_params(const std::vector<ParamSpec>& specs, const std::map<std::string, GivenValue>& given,
                      const std::string& path, DiagnosticSink& sink)
{
  std::vector<std::string> names;
  for (const auto& s : specs)
    names.push_back(s.name);
  const auto key_path = [&](const std::string& k) { return path.empty() ? k : path + "." + k; };

  std::map<std::string, ParamValue> values;
  for (const auto& [name, value] : given) {
    auto it =
        std::find_if(specs.begin(), specs.end(), [&n = name](const ParamSpec& s) { return s.name == n; });
    if (it == specs.end()) {
      sink.add(value.where, key_path(name),
               "unknown key; valid: " + (names.empty() ? std::string("(none)") : join(names)));
      continue;
    }
    auto parsed = parse_param_value(*it, value.text);
    if (auto* err = std::get_if<std::string>(&parsed))
      sink.add(value.where, key_path(name), *err);
    else
      values[name] = std::get<ParamValue>(parsed);
  }
  for (const auto& spec : specs) {
    if (values.count(spec.name) || given.count(spec.name)) continue;
    if (spec.required) {
      sink.add(SourceLocation{}, key_path(spec.name), "missing required key; expected " + spec.expectation());
      continue;
    }
    if (!spec.default_text.empty()) {
      auto parsed = parse_param_value(spec, spec.default_text);
      if (auto* v = std::get_if<ParamValue>(&parsed))
        values[spec.name] = *v;
      else
        throw std::logic_error("invalid default for parameter '" + spec.name +
                               "': " + std::get<std::string>(parsed));
    }
  }
  return ParamSet(&specs, std::move(values));
}

std::string describe_params(const std::vector<ParamSpec>& specs, const std::string& indent)
{
  std::size_t w = 4;
  for (const auto& s : specs)
    w = std::max(w, s.name.size());
  std::ostringstream os;
  for (const auto& s : specs) {
    os << indent << s.name << std::string(w - s.name.size() + 2, ' ') << s.type_name();
    if (!s.default_text.empty())
      os << ", default " << s.default_text;
    else if (s.required)
      os << ", required";
    if ((s.type == ParamType::INT || s.type == ParamType::REAL) &&
        (std::isfinite(s.min) || std::isfinite(s.max)))
      os << ", range [" << (std::isfinite(s.min) ? number_text(s.min) : "-inf") << ", "
         << (std::isfinite(s.max) ? number_text(s.max) : "inf") << "]";
    os << "\n" << indent << std::string(w + 2, ' ') << s.help << "\n";
  }
  return os.str();
}

std::map<std::string, GivenValue> split_assignments(std::string_view text, const std::string& origin,
                                                    DiagnosticSink& sink)
{
  std::map<std::string, GivenValue> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    if (!item.empty()) {
      auto eq = item.find('=');
      if (eq == std::string_view::npos || eq == 0)
        sink.add(SourceLocation{origin}, std::string(item), "expected key=value");
      else
        out[std::string(item.substr(0, eq))] =
            GivenValue{std::string(item.substr(eq + 1)), SourceLocation{origin}};
    }
    start = end + 1;
  }
  return out;
}

} // namespace colocsim
