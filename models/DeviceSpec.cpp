#include "models/DeviceSpec.hpp"

#include <algorithm>

namespace colocsim {

namespace {
constexpr SharingMode ALL_MODES[] = {SharingMode::EXCLUSIVE, SharingMode::TIME_SLICE, SharingMode::CCS_2,
                                     SharingMode::CCS_4,     SharingMode::MPS,        SharingMode::MIG};
}

std::string_view to_string(SharingMode m)
{
  switch (m) {
  case SharingMode::EXCLUSIVE:
    return "exclusive";
  case SharingMode::TIME_SLICE:
    return "time-slice";
  case SharingMode::CCS_2:
    return "ccs-2";
  case SharingMode::CCS_4:
    return "ccs-4";
  case SharingMode::MPS:
    return "mps";
  case SharingMode::MIG:
    return "mig";
  }
  return "exclusive";
}

std::vector<std::string> sharing_mode_names()
{
  std::vector<std::string> names;
  for (auto m : ALL_MODES)
    names.emplace_back(to_string(m));
  return names;
}

unsigned max_residents(SharingMode m)
{
  switch (m) {
  case SharingMode::EXCLUSIVE:
    return 1;
  case SharingMode::TIME_SLICE:
    return 0;
  case SharingMode::CCS_2:
    return 2;
  case SharingMode::CCS_4:
    return 4;
  case SharingMode::MPS:
    return 48;
  case SharingMode::MIG:
    return 7; // one job per GPU instance, at most 7 instances on A100/H100 [V] NV-MIG (the table's limit)
  }
  return 1;
}

std::optional<SharingMode> parse_sharing_mode(std::string_view text)
{
  // NVIDIA's and Kubernetes' name (the GPU operator's "time-slicing" sharing strategy) for time-slice.
  if (text == "time-slicing") return SharingMode::TIME_SLICE;
  for (auto m : ALL_MODES)
    if (to_string(m) == text) return m;
  return std::nullopt;
}

DeviceSpec load_device_spec(std::string_view yaml_text, const std::string& file)
{
  const YAML::Node root = load_yaml(yaml_text, file);
  DiagnosticSink sink;
  DeviceSpec d;
  if (!expect_map(root, file, "", sink)) sink.throw_if_any();
  check_keys(root,
             {"format", "name", "description", "vendor", "devices_per_card", "compute_units", "memory",
              "mem_bandwidth", "freq_max", "freq_default", "freq_min", "freq_pinned", "card_tdp",
              "sharing_modes", "trace_names", "relative_throughput"},
             file, "", sink);
  if (auto f = root["format"]; !f.IsDefined() || f.Scalar() != "colocsim-device/1")
    sink.add(location_of(f.IsDefined() ? f : root, file), "format", "expected 'colocsim-device/1'");
  auto text = [&](const char* key) -> std::string {
    auto n = root[key];
    if (!n.IsDefined() || !n.IsScalar()) {
      sink.add(location_of(root, file), key, "missing required key; expected a string");
      return {};
    }
    return n.Scalar();
  };
  d.name = text("name");
  d.description = text("description");
  d.vendor = text("vendor");
  if (auto n = root["devices_per_card"]; n.IsDefined()) {
    auto v = parse_int(n.Scalar());
    if (!v || *v < 1 || *v > 64)
      sink.add(location_of(n, file), "devices_per_card",
               "expected an integer in [1, 64] (got '" + n.Scalar() + "')");
    else
      d.devices_per_card = static_cast<int>(*v);
  }
  const bool plain_ok = file.rfind("builtin:", 0) != 0; // provenance is optional outside the catalog
  auto sourced = [&](const char* key, Unit unit, Sourced& out) {
    if (auto s = read_sourced(root, key, unit, file, "", sink, true, 0.0, 1e300, plain_ok)) {
      out = *s;
      if (s->evidence == Evidence::USER_SUPPLIED)
        d.user_supplied.push_back(key + (" = " + root[key].Scalar()));
    }
  };
  sourced("compute_units", Unit::NONE, d.compute_units);
  sourced("memory", Unit::BYTES, d.memory_bytes);
  sourced("mem_bandwidth", Unit::NONE, d.mem_bandwidth);
  sourced("freq_max", Unit::HERTZ, d.freq_max_hz);
  sourced("freq_default", Unit::HERTZ, d.freq_default_hz);
  sourced("freq_min", Unit::HERTZ, d.freq_min_hz);
  sourced("card_tdp", Unit::WATTS, d.card_tdp_w);
  if (root["freq_pinned"].IsDefined()) sourced("freq_pinned", Unit::HERTZ, d.freq_pinned_hz);
  if (auto m = root["sharing_modes"]; !m.IsDefined() || !m.IsSequence() || m.size() == 0) {
    sink.add(location_of(m.IsDefined() ? m : root, file), "sharing_modes",
             "expected a non-empty list; valid: " + join(sharing_mode_names()));
  } else {
    for (const auto& item : m) {
      auto mode = parse_sharing_mode(item.Scalar());
      if (!mode)
        sink.add(location_of(item, file), "sharing_modes",
                 "unknown sharing mode '" + item.Scalar() + "'; valid: " + join(sharing_mode_names()));
      else
        d.sharing_modes.push_back(*mode);
    }
  }
  if (auto t = root["trace_names"]; t.IsDefined()) {
    if (!t.IsSequence() || t.size() == 0) {
      sink.add(
          location_of(t, file), "trace_names",
          "expected a non-empty list of names, e.g. [V100M16]; leave the key out if no trace names the type");
    } else {
      for (const auto& item : t) {
        if (!item.IsScalar() || item.Scalar().empty() ||
            item.Scalar().find_first_of("| \t") != std::string::npos) {
          sink.add(location_of(item, file), "trace_names",
                   "expected a non-empty name without spaces or '|' (openb's gpu_spec separator) (got '" +
                       (item.IsScalar() ? item.Scalar() : std::string("a non-scalar")) + "')");
        } else if (std::find(d.trace_names.begin(), d.trace_names.end(), item.Scalar()) !=
                   d.trace_names.end()) {
          sink.add(location_of(item, file), "trace_names", "name '" + item.Scalar() + "' is listed twice");
        } else {
          d.trace_names.push_back(item.Scalar());
        }
      }
    }
  }
  if (auto r = read_sourced(root, "relative_throughput", Unit::NONE, file, "", sink, false, -1e300, 1e300,
                            plain_ok);
      r) {
    const YAML::Node rt = root["relative_throughput"];
    const YAML::Node v = rt.IsMap() ? rt["value"] : rt;
    if (r->value <= 0)
      sink.add(location_of(v, file), rt.IsMap() ? "relative_throughput.value" : "relative_throughput",
               "expected a number > 0, the speed relative to an NVIDIA V100 = 1 (got '" + v.Scalar() + "')");
    else {
      d.relative_throughput = *r;
      if (r->evidence == Evidence::USER_SUPPLIED)
        d.user_supplied.push_back("relative_throughput = " + v.Scalar());
    }
  }
  if (sink.empty() &&
      (d.freq_default_hz.value > d.freq_max_hz.value || d.freq_min_hz.value > d.freq_default_hz.value))
    sink.add(location_of(root, file), "freq_default", "expected freq_min <= freq_default <= freq_max");
  if (sink.empty() && d.freq_pinned_hz.value != 0 && d.freq_pinned_hz.value != d.freq_default_hz.value)
    sink.add(
        location_of(root["freq_pinned"], file), "freq_pinned",
        "pinned clock " + std::to_string(d.freq_pinned_hz.value / 1e6) + " MHz differs from freq_default " +
            std::to_string(d.freq_default_hz.value / 1e6) +
            " MHz; expected freq_pinned = freq_default (the site holds the tile at its operating clock)");
  sink.throw_if_any();
  return d;
}

} // namespace colocsim
