#include "workloads/KubernetesReader.hpp"

#include "base/CivilTime.hpp"
#include "base/Units.hpp"
#include "models/GpuTypes.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/OwningReader.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace colocsim {

namespace {

const char* const LIST_COMMAND = "kubectl get pods -A -o json";
const char* const TIME_EXPECTED = "expected an RFC 3339 time such as 2024-03-01T10:00:00Z (optionally with a "
                                  "fraction of a second, and Z or a ±HH:MM offset)";

bool is_digit(char c)
{
  return c >= '0' && c <= '9';
}

bool digits_at(std::string_view s, std::size_t pos, std::size_t n)
{
  if (s.size() < pos + n) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(pos),
                     s.begin() + static_cast<std::ptrdiff_t>(pos + n), is_digit);
}

long long number_at(std::string_view s, std::size_t pos, std::size_t n)
{
  long long v = 0;
  for (std::size_t i = pos; i < pos + n; ++i)
    v = v * 10 + (s[i] - '0');
  return v;
}

} // namespace

// Named rather than anonymous: KubernetesReader::Pod (declared in the header) holds these, and a type with
// external linkage may not hold one of an anonymous namespace (GCC's -Wsubobject-linkage in a unity build).
namespace kubernetes_pod {

/// A quantity as the pod spec wrote it, and where.
struct Quantity {
  std::string text;
  SourceLocation at;
  std::string field;
};

/// The resources a container asks for that the mapping reads (requests and limits, by resource name).
struct Container {
  std::map<std::string, Quantity> requests, limits;
  bool sidecar = false; ///< an init container with restartPolicy Always (it runs beside the app containers)
};

} // namespace kubernetes_pod

namespace {

using kubernetes_pod::Container;
using kubernetes_pod::Quantity;

/// What a container, a set of them or the whole pod asks for.
struct Request {
  long long devices = 0;
  int share = 0;            ///< per-device share of the devices, milli (the largest if they differ)
  double mem_bytes = 0;     ///< per-device memory (the largest)
  bool mixed = false;       ///< devices of different shares
  bool memory_only = false; ///< a share stated only as memory, replayed whole (no gpu_memory option)
  double cpus = 0, host_mem_bytes = 0;
};

/// Devices side by side (the app containers, or init containers with the sidecars running beside them).
Request sum(const Request& a, const Request& b)
{
  Request r;
  r.devices = a.devices + b.devices;
  if (a.devices == 0 || b.devices == 0) {
    r.share = a.devices ? a.share : b.share;
  } else {
    r.share = std::max(a.share, b.share);
    r.mixed = a.share != b.share;
  }
  r.mixed = r.mixed || a.mixed || b.mixed;
  r.mem_bytes = std::max(a.mem_bytes, b.mem_bytes);
  r.memory_only = a.memory_only || b.memory_only;
  r.cpus = a.cpus + b.cpus;
  r.host_mem_bytes = a.host_mem_bytes + b.host_mem_bytes;
  return r;
}

/// The larger of two requests that never run at once, per resource (the GPUs of the one with more; `a` on
/// a tie).
Request larger(const Request& a, const Request& b)
{
  Request r = b.devices > a.devices ? b : a;
  r.cpus = std::max(a.cpus, b.cpus);
  r.host_mem_bytes = std::max(a.host_mem_bytes, b.host_mem_bytes);
  return r;
}

bool read_resource(const std::string& name)
{
  return name == "cpu" || name == "memory" || name == "nvidia.com/gpu" || name == "nvidia.com/gpucores" ||
         name == "nvidia.com/gpumem" || name == "nvidia.com/gpumem-percentage" ||
         name == "gpu.intel.com/i915" || name == "aliyun.com/gpu-mem" || name.starts_with("nvidia.com/mig-");
}

/// Compute slices and memory (GB) of a MIG resource's profile (`nvidia.com/mig-3g.20gb` → 3, 20).
struct MigProfile {
  long long slices, mem_gb;
};
std::optional<MigProfile> mig_profile(std::string_view profile)
{
  const auto g = profile.find("g.");
  if (g == std::string_view::npos || g == 0 || g > 3 || !digits_at(profile, 0, g) || !profile.ends_with("gb"))
    return std::nullopt;
  const std::string_view mem = profile.substr(g + 2, profile.size() - g - 4);
  if (mem.empty() || mem.size() > 4 || !digits_at(mem, 0, mem.size())) return std::nullopt;
  return MigProfile{number_at(profile, 0, g), number_at(mem, 0, mem.size())};
}

/// A member that must be an object: consumes '{' or throws naming `field`.
void begin_object(JsonStream& j, const std::string& field, const char* expected)
{
  const SourceLocation at = j.where();
  if (j.peek_kind() != JsonStream::Kind::OBJECT)
    throw InputError(at, field, std::string("expected ") + expected);
  j.begin_object();
}

void begin_array(JsonStream& j, const std::string& field, const char* expected)
{
  const SourceLocation at = j.where();
  if (j.peek_kind() != JsonStream::Kind::ARRAY)
    throw InputError(at, field, std::string("expected ") + expected);
  j.begin_array();
}

std::string string_member(JsonStream& j, const std::string& field, const char* expected)
{
  const SourceLocation at = j.where();
  if (j.peek_kind() != JsonStream::Kind::STRING)
    throw InputError(at, field, std::string("not a string; expected ") + expected);
  return j.string_value();
}

/// A time member: a string in RFC 3339, or null (no time).
std::optional<Rfc3339Time> time_member(JsonStream& j, const std::string& field)
{
  const SourceLocation at = j.where();
  if (j.peek_kind() == JsonStream::Kind::NUL) {
    j.null_value();
    return std::nullopt;
  }
  if (j.peek_kind() != JsonStream::Kind::STRING)
    throw InputError(at, field, std::string("not a string; ") + TIME_EXPECTED);
  return parse_rfc3339(j.string_value(), at, field);
}

} // namespace

Rfc3339Time parse_rfc3339(const std::string& text, const SourceLocation& at, const std::string& field)
{
  auto bad = [&](const std::string& what) {
    return InputError(at, field, what + " (got '" + text + "'); " + TIME_EXPECTED);
  };
  const std::string_view s = text;
  if (s.size() < 19 || s.size() > 64) throw bad("not a time");
  const bool shape = digits_at(s, 0, 4) && s[4] == '-' && digits_at(s, 5, 2) && s[7] == '-' &&
                     digits_at(s, 8, 2) && (s[10] == 'T' || s[10] == 't') && digits_at(s, 11, 2) &&
                     s[13] == ':' && digits_at(s, 14, 2) && s[16] == ':' && digits_at(s, 17, 2);
  if (!shape) throw bad("not a time");
  std::size_t pos = 19;
  double fraction = 0;
  if (pos < s.size() && s[pos] == '.') {
    const std::size_t first = ++pos;
    while (pos < s.size() && is_digit(s[pos]))
      ++pos;
    if (pos == first || pos - first > 18) throw bad("not a time: expected 1 to 18 digits after '.'");
    fraction = *parse_double("0." + text.substr(first, pos - first));
  }
  long long offset = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    if (s.size() != pos + 6 || !digits_at(s, pos + 1, 2) || s[pos + 3] != ':' || !digits_at(s, pos + 4, 2))
      throw bad("not a time: a malformed offset");
    const long long oh = number_at(s, pos + 1, 2), om = number_at(s, pos + 4, 2);
    if (oh > 23 || om > 59) throw bad("not a time: an offset outside -23:59..+23:59");
    offset = (s[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    throw bad("not a time: no time zone (Z or ±HH:MM)");
  }
  if (pos != s.size()) throw bad("not a time: characters after the time zone");
  const long long y = number_at(s, 0, 4), mo = number_at(s, 5, 2), d = number_at(s, 8, 2),
                  h = number_at(s, 11, 2), mi = number_at(s, 14, 2), sec = number_at(s, 17, 2);
  const bool date_ok = valid_civil_date(y, mo, d);
  if (!date_ok || h > 23 || mi > 59 || sec > 60) throw bad("not a valid date and time");
  const long long v = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
                      h * 3600 + mi * 60 + sec - offset;
  if (v < 0) throw bad("before 1970");
  if (static_cast<double>(v) > JobLimits::MAX_TIME_S) throw bad("out of range: more than 1e10 s after 1970");
  return Rfc3339Time{v, fraction};
}

std::optional<double> parse_k8s_quantity(const std::string& text)
{
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::size_t pos = 0;
  double sign = 1;
  if (text[0] == '+' || text[0] == '-') {
    sign = text[0] == '-' ? -1 : 1;
    ++pos;
  }
  const std::size_t int_start = pos;
  while (pos < text.size() && is_digit(text[pos]))
    ++pos;
  std::string number = text.substr(int_start, pos - int_start);
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t frac_start = ++pos;
    while (pos < text.size() && is_digit(text[pos]))
      ++pos;
    number += "." + text.substr(frac_start, pos - frac_start);
  }
  if (number.empty() || number == ".") return std::nullopt;
  if (number.front() == '.') number.insert(0, "0");
  if (number.back() == '.') number += "0";
  const auto mantissa = parse_double(number);
  if (!mantissa) return std::nullopt;
  const std::string suffix = text.substr(pos);
  double scale = 1;
  static const std::array<std::pair<std::string_view, double>, 14> suffixes{{{"", 1},
                                                                             {"m", 1e-3},
                                                                             {"k", 1e3},
                                                                             {"M", 1e6},
                                                                             {"G", 1e9},
                                                                             {"T", 1e12},
                                                                             {"P", 1e15},
                                                                             {"E", 1e18},
                                                                             {"Ki", 0x1p10},
                                                                             {"Mi", 0x1p20},
                                                                             {"Gi", 0x1p30},
                                                                             {"Ti", 0x1p40},
                                                                             {"Pi", 0x1p50},
                                                                             {"Ei", 0x1p60}}};
  const auto it =
      std::find_if(suffixes.begin(), suffixes.end(), [&](const auto& p) { return p.first == suffix; });
  if (it != suffixes.end()) {
    scale = it->second;
  } else if (suffix[0] == 'e' || suffix[0] == 'E') { // a decimal exponent: 1e3, 5E-2
    std::size_t e = 1;
    if (e < suffix.size() && (suffix[e] == '+' || suffix[e] == '-')) ++e;
    if (e == suffix.size() || suffix.size() - e > 3 || !digits_at(suffix, e, suffix.size() - e))
      return std::nullopt;
    scale = std::pow(10.0, static_cast<double>(*parse_int(suffix.substr(1))));
  } else {
    return std::nullopt;
  }
  const double v = sign * *mantissa * scale;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

/// One item while it is read: the fields the mapping needs.
struct KubernetesReader::Pod {
  SourceLocation origin;
  std::string path; ///< items[N]
  std::string name, ns, app_name, app;
  bool has_name = false;
  std::optional<Rfc3339Time> created;
  std::vector<Container> containers, init_containers;
  std::string gpu_product;
  SourceLocation product_at;
  double deadline_s = 0;
  std::string phase, reason, qos_class;
  SourceLocation phase_at;
  bool has_status = false;
  std::optional<Rfc3339Time> start_time, earliest_start, latest_finish;
  bool oom_killed = false;
};

namespace {

void read_metadata(JsonStream& j, KubernetesReader::Pod& pod)
{
  const std::string path = pod.path + ".metadata";
  begin_object(j, path, "an object with the pod's name, namespace and creationTimestamp");
  std::string key;
  while (j.next_member(key)) {
    if (key == "name") {
      pod.name = string_member(j, path + ".name", "the pod's name");
      pod.has_name = !pod.name.empty();
    } else if (key == "namespace") {
      pod.ns = string_member(j, path + ".namespace", "the pod's namespace");
    } else if (key == "creationTimestamp") {
      pod.created = time_member(j, path + ".creationTimestamp");
    } else if (key == "labels") {
      begin_object(j, path + ".labels", "an object of label values");
      std::string label;
      while (j.next_member(label)) {
        if (label == "app.kubernetes.io/name")
          pod.app_name = string_member(j, path + ".labels." + label, "a label value");
        else if (label == "app")
          pod.app = string_member(j, path + ".labels." + label, "a label value");
        else
          j.skip_value();
      }
    } else {
      j.skip_value();
    }
  }
}

void read_quantities(JsonStream& j, const std::string& path, std::map<std::string, Quantity>& out)
{
  begin_object(j, path, "an object of quantities by resource name");
  std::string name;
  while (j.next_member(name)) {
    if (!read_resource(name)) {
      j.skip_value();
      continue;
    }
    const SourceLocation at = j.where();
    const auto kind = j.peek_kind();
    if (kind != JsonStream::Kind::STRING && kind != JsonStream::Kind::NUMBER)
      throw InputError(at, path + "." + name,
                       "expected a quantity (a string such as \"1\", \"500m\" or \"16Gi\")");
    out[name] = Quantity{j.scalar_text(), at, path + "." + name};
  }
}

void read_containers(JsonStream& j, const std::string& path, std::vector<Container>& out)
{
  begin_array(j, path, "an array of containers");
  while (j.next_element()) {
    const std::string cpath = path + "[" + std::to_string(out.size()) + "]";
    begin_object(j, cpath, "a container object");
    Container c;
    std::string key;
    while (j.next_member(key)) {
      if (key == "resources") {
        begin_object(j, cpath + ".resources", "an object with requests and limits");
        std::string which;
        while (j.next_member(which)) {
          if (which == "requests")
            read_quantities(j, cpath + ".resources.requests", c.requests);
          else if (which == "limits")
            read_quantities(j, cpath + ".resources.limits", c.limits);
          else
            j.skip_value();
        }
      } else if (key == "restartPolicy") {
        c.sidecar = string_member(j, cpath + ".restartPolicy", "a restart policy (Always)") == "Always";
      } else {
        j.skip_value();
      }
    }
    out.push_back(std::move(c));
  }
}

void read_spec(JsonStream& j, KubernetesReader::Pod& pod)
{
  const std::string path = pod.path + ".spec";
  begin_object(j, path, "the pod's spec object");
  std::string key;
  while (j.next_member(key)) {
    if (key == "containers") {
      read_containers(j, path + ".containers", pod.containers);
    } else if (key == "initContainers") {
      read_containers(j, path + ".initContainers", pod.init_containers);
    } else if (key == "nodeSelector") {
      begin_object(j, path + ".nodeSelector", "an object of node labels");
      std::string label;
      while (j.next_member(label)) {
        if (label == "nvidia.com/gpu.product") {
          pod.product_at = j.where();
          pod.gpu_product = string_member(j, path + ".nodeSelector." + label, "a GPU product name");
        } else {
          j.skip_value();
        }
      }
    } else if (key == "activeDeadlineSeconds") {
      const SourceLocation at = j.where();
      const char* expected = "a whole number of seconds from 1 to 1e10";
      if (j.peek_kind() != JsonStream::Kind::NUMBER)
        throw InputError(at, path + ".activeDeadlineSeconds",
                         std::string("not a number; expected ") + expected);
      const double v = j.number_value();
      if (!(v >= 1) || std::floor(v) != v || v > JobLimits::MAX_TIME_S)
        throw InputError(at, path + ".activeDeadlineSeconds",
                         "got " + number_text(v) + "; expected " + expected);
      pod.deadline_s = v;
    } else {
      j.skip_value();
    }
  }
}

/// A terminated state {startedAt, finishedAt, reason, exitCode, ...}: its times into the pod's span.
void read_terminated(JsonStream& j, const std::string& path, KubernetesReader::Pod& pod)
{
  begin_object(j, path, "a terminated state object");
  std::optional<Rfc3339Time> started, finished;
  SourceLocation finished_at;
  std::string started_text, key;
  while (j.next_member(key)) {
    if (key == "startedAt") {
      started = time_member(j, path + ".startedAt");
    } else if (key == "finishedAt") {
      finished_at = j.where();
      finished = time_member(j, path + ".finishedAt");
    } else if (key == "reason") {
      if (string_member(j, path + ".reason", "a reason such as OOMKilled") == "OOMKilled")
        pod.oom_killed = true;
    } else {
      j.skip_value();
    }
  }
  if (started && finished && finished->value() < started->value())
    throw InputError(finished_at, path + ".finishedAt",
                     "earlier than startedAt " + civil_text(started->seconds) + "Z" +
                         "; expected a container to finish after it started");
  if (started && (!pod.earliest_start || started->value() < pod.earliest_start->value()))
    pod.earliest_start = started;
  if (finished && (!pod.latest_finish || finished->value() > pod.latest_finish->value()))
    pod.latest_finish = finished;
}

void read_statuses(JsonStream& j, const std::string& path, KubernetesReader::Pod& pod)
{
  begin_array(j, path, "an array of container statuses");
  for (std::size_t i = 0; j.next_element(); ++i) {
    const std::string cpath = path + "[" + std::to_string(i) + "]";
    begin_object(j, cpath, "a container status object");
    std::string key;
    while (j.next_member(key)) {
      if (key != "state" && key != "lastState") {
        j.skip_value();
        continue;
      }
      begin_object(j, cpath + "." + key, "a container state object");
      std::string which;
      while (j.next_member(which)) {
        if (which == "terminated")
          read_terminated(j, cpath + "." + key + ".terminated", pod);
        else
          j.skip_value();
      }
    }
  }
}

void read_status(JsonStream& j, KubernetesReader::Pod& pod)
{
  const std::string path = pod.path + ".status";
  begin_object(j, path, "the pod's status object");
  pod.has_status = true;
  std::string key;
  while (j.next_member(key)) {
    if (key == "phase") {
      pod.phase_at = j.where();
      pod.phase = string_member(j, path + ".phase", "Pending, Running, Succeeded, Failed or Unknown");
    } else if (key == "reason") {
      pod.reason = string_member(j, path + ".reason", "a reason such as DeadlineExceeded");
    } else if (key == "qosClass") {
      pod.qos_class = string_member(j, path + ".qosClass", "Guaranteed, Burstable or BestEffort");
    } else if (key == "startTime") {
      pod.start_time = time_member(j, path + ".startTime");
    } else if (key == "containerStatuses" || key == "initContainerStatuses") {
      read_statuses(j, path + "." + key, pod);
    } else {
      j.skip_value();
    }
  }
}

/// A quantity that must be a whole number in [0, max] (extended resources are whole numbers).
long long whole(const Quantity& q, double max, const std::string& expected)
{
  const auto v = parse_k8s_quantity(q.text);
  if (!v)
    throw InputError(q.at, q.field,
                     "not a quantity (got '" + q.text + "'); expected " + expected + ", e.g. \"1\"");
  if (*v < 0) throw InputError(q.at, q.field, "negative (got '" + q.text + "'); expected " + expected);
  if (std::floor(*v) != *v)
    throw InputError(q.at, q.field, "not a whole number (got '" + q.text + "'); expected " + expected);
  if (*v > max)
    throw InputError(q.at, q.field,
                     "too large (got '" + q.text + "'); expected " + expected + ", at most " +
                         number_text(max));
  return static_cast<long long>(*v);
}

double amount(const Quantity& q, double max, const std::string& expected)
{
  const auto v = parse_k8s_quantity(q.text);
  if (!v || *v < 0 || *v > max)
    throw InputError(q.at, q.field,
                     (!v       ? "not a quantity"
                      : *v < 0 ? "negative"
                               : "too large") +
                         std::string(" (got '") + q.text + "'); expected " + expected);
  return *v;
}

/// What one container asks for: requests, with limits standing for absent requests.
Request container_request(const Container& c, const KubernetesOptions& o)
{
  auto find = [&](const std::string& name) -> const Quantity* {
    if (const auto it = c.requests.find(name); it != c.requests.end()) return &it->second;
    if (const auto it = c.limits.find(name); it != c.limits.end()) return &it->second;
    return nullptr;
  };
  const double max_devices = JobLimits::MAX_DEVICES;
  Request r;
  if (const auto* q = find("cpu"))
    r.cpus = amount(*q, JobLimits::MAX_CPUS, "CPU cores from 0 to 2^20 (\"500m\", \"4\")");
  if (const auto* q = find("memory"))
    r.host_mem_bytes = amount(*q, JobLimits::MAX_BYTES, "bytes from 0 to 1 PiB (\"16Gi\", \"512M\")");

  // Each kind of GPU: its devices and their share and memory; the container's is their sum.
  auto add = [&](long long devices, int share, double mem, bool memory_only = false) {
    if (devices == 0) return;
    Request g;
    g.devices = devices;
    g.share = std::clamp(share, 1, 1000);
    g.mem_bytes = mem;
    g.memory_only = memory_only;
    const double cpus = r.cpus, host = r.host_mem_bytes;
    r = sum(r, g);
    r.cpus = cpus;
    r.host_mem_bytes = host;
  };
  auto share_of_memory = [&](double bytes) {
    return static_cast<int>(std::lround(std::min(1000.0, 1000.0 * bytes / o.gpu_memory_bytes)));
  };

  const auto* gpu = find("nvidia.com/gpu");
  const auto* cores = find("nvidia.com/gpucores");
  const auto* gpumem = find("nvidia.com/gpumem");
  const auto* mem_pct = find("nvidia.com/gpumem-percentage");
  // HAMi: nvidia.com/gpu counts vGPUs; without it, HAMi gives the container one.
  long long n = gpu ? whole(*gpu, max_devices, "a whole number of GPUs from 0 to 1048576")
                    : (cores || gpumem || mem_pct ? 1 : 0);
  const long long c_pct = cores ? whole(*cores, 100, "a percentage of a GPU's cores from 0 to 100") : 0;
  const long long m_pct = mem_pct ? whole(*mem_pct, 100, "a percentage of a GPU's memory from 0 to 100") : 0;
  const double mib = gpumem ? static_cast<double>(whole(*gpumem, JobLimits::MAX_BYTES / 0x1p20,
                                                        "MiB of GPU memory per GPU (\"3000\")")) *
                                  0x1p20
                            : 0;
  if (n > 0) {
    int share = 1000;
    bool memory_only = false;
    if (c_pct > 0)
      share = static_cast<int>(c_pct * 10);
    else if (m_pct > 0)
      share = static_cast<int>(m_pct * 10);
    else if (mib > 0 && o.gpu_memory_bytes > 0)
      share = share_of_memory(mib);
    else if (mib > 0)
      memory_only = true;
    const double mem = mib > 0 ? mib : m_pct > 0 ? o.gpu_memory_bytes * static_cast<double>(m_pct) / 100 : 0;
    add(n, share, mem, memory_only);
  }
  // MIG devices of the mixed strategy: one resource per profile.
  for (const auto* m : {&c.requests, &c.limits})
    for (const auto& [name, q] : *m) {
      if (!name.starts_with("nvidia.com/mig-")) continue;
      if (m == &c.limits && c.requests.count(name)) continue;
      const auto profile = mig_profile(std::string_view(name).substr(15));
      if (!profile)
        throw InputError(
            q.at, q.field,
            "not a MIG resource name; expected nvidia.com/mig-<g>g.<m>gb, e.g. nvidia.com/mig-1g.5gb");
      if (profile->slices < 1 || profile->slices > 7)
        throw InputError(q.at, q.field,
                         "a MIG profile of " + std::to_string(profile->slices) +
                             " compute slices; expected 1 to 7 (a MIG GPU has 7)");
      const long long count = whole(q, max_devices, "a whole number of MIG devices from 0 to 1048576");
      add(count, static_cast<int>(std::lround(1000.0 * static_cast<double>(profile->slices) / 7.0)),
          static_cast<double>(profile->mem_gb) * 1e9);
    }
  if (const auto* q = find("gpu.intel.com/i915"))
    add(whole(*q, max_devices, "a whole number of Intel GPUs from 0 to 1048576"), 1000, 0);
  if (const auto* q = find("aliyun.com/gpu-mem")) {
    const double gib =
        static_cast<double>(whole(*q, JobLimits::MAX_BYTES / 0x1p30, "GiB of GPU memory (\"4\")")) * 0x1p30;
    if (gib > 0) add(1, o.gpu_memory_bytes > 0 ? share_of_memory(gib) : 1000, gib, o.gpu_memory_bytes <= 0);
  }
  return r;
}

} // namespace

KubernetesReader::KubernetesReader(std::istream& in, std::string file_name, KubernetesOptions options)
    : file_(std::move(file_name)), options_(options), json_(in, file_),
      window_(options_.reorder_window, "metadata.creationTimestamp",
              "list the pods in creation order: kubectl get pods -A -o json "
              "--sort-by=.metadata.creationTimestamp")
{
  const SourceLocation top = top_ = json_.where();
  const std::string expected =
      std::string("expected a List object {\"apiVersion\": \"v1\", \"items\": [...], "
                  "\"kind\": \"List\"}, the output of ") +
      LIST_COMMAND;
  if (json_.peek_kind() != JsonStream::Kind::OBJECT)
    throw InputError(top, "json", "not an object; " + expected);
  json_.begin_object();
  std::string key;
  while (json_.next_member(key)) {
    if (key == "kind") {
      const SourceLocation at = json_.where();
      check_kind(string_member(json_, "kind", "List"), at);
      saw_kind_ = true;
    } else if (key == "items") {
      begin_array(json_, "items", "an array of pods");
      in_items_ = true;
      return;
    } else {
      json_.skip_value();
    }
  }
  throw InputError(top, "items", "missing; " + expected);
}

KubernetesReader::~KubernetesReader() = default;

void KubernetesReader::check_kind(const std::string& kind, const SourceLocation& at) const
{
  if (kind == "List" || kind == "PodList") return;
  throw InputError(at, "kind",
                   (kind == "Pod" ? std::string("a single Pod (kubectl get pod NAME -o json)")
                                  : "not a pod list (got '" + kind + "')") +
                       "; expected \"kind\": \"List\", the output of " + LIST_COMMAND);
}

void KubernetesReader::finish_list()
{
  std::string key;
  while (json_.next_member(key)) {
    if (key == "kind") {
      const SourceLocation at = json_.where();
      check_kind(string_member(json_, "kind", "List"), at);
      saw_kind_ = true;
    } else {
      json_.skip_value();
    }
  }
  json_.expect_end();
  if (!saw_kind_)
    throw InputError(top_, "kind",
                     std::string("missing; expected \"kind\": \"List\" (a List of pods), the output of ") +
                         LIST_COMMAND);
}

bool KubernetesReader::read_pod()
{
  if (!in_items_) return false;
  if (!json_.next_element()) {
    in_items_ = false;
    finish_list();
    return false;
  }
  Pod pod;
  pod.path = "items[" + std::to_string(++index_) + "]";
  pod.origin = json_.where();
  begin_object(json_, pod.path, "a Pod object {\"metadata\", \"spec\", \"status\"}");
  std::string key;
  while (json_.next_member(key)) {
    if (key == "kind") {
      const SourceLocation at = json_.where();
      const std::string kind = string_member(json_, pod.path + ".kind", "Pod");
      if (kind != "Pod")
        throw InputError(at, pod.path + ".kind",
                         "not a pod (got '" + kind + "'); expected \"Pod\" (list pods only: " + LIST_COMMAND +
                             ")");
    } else if (key == "metadata") {
      read_metadata(json_, pod);
    } else if (key == "spec") {
      read_spec(json_, pod);
    } else if (key == "status") {
      read_status(json_, pod);
    } else {
      json_.skip_value();
    }
  }
  if (!pod.has_name)
    throw InputError(pod.origin, pod.path + ".metadata.name", "missing; expected the pod's name");
  if (!pod.created)
    throw InputError(pod.origin, pod.path + ".metadata.creationTimestamp",
                     "missing; expected the time the pod was created (RFC 3339, e.g. 2024-03-01T10:00:00Z)");
  if (pod.phase.empty())
    throw InputError(pod.has_status ? pod.phase_at : pod.origin, pod.path + ".status.phase",
                     "missing; expected the pod's phase: Pending, Running, Succeeded, Failed or Unknown");
  if (!pod.gpu_product.empty() &&
      (pod.gpu_product.find('|') != std::string::npos || !gpu_types_well_formed(pod.gpu_product)))
    throw InputError(pod.product_at, pod.path + ".spec.nodeSelector.nvidia.com/gpu.product",
                     "not a GPU product name (got '" + pod.gpu_product +
                         "'); expected a label value without blanks or '|', e.g. NVIDIA-A100-SXM4-80GB");

  // Kubernetes' effective request: init containers run one after another (with the sidecars started before
  // them), then the app containers together (with every sidecar).
  Request sidecars, init;
  for (const auto& c : pod.init_containers) {
    const Request r = container_request(c, options_);
    if (c.sidecar) {
      sidecars = sum(sidecars, r);
      init = larger(init, sidecars);
    } else {
      init = larger(init, sum(r, sidecars));
    }
  }
  Request app;
  for (const auto& c : pod.containers)
    app = sum(app, container_request(c, options_));
  const Request request = larger(sum(app, sidecars), init);
  if (request.devices > JobLimits::MAX_DEVICES)
    throw InputError(pod.origin, pod.path + ".spec.containers",
                     "the containers ask for " + std::to_string(request.devices) +
                         " GPUs in all; expected at most " + std::to_string(JobLimits::MAX_DEVICES));

  if (pod.phase == "Pending" || pod.phase == "Running" || pod.phase == "Unknown") {
    ++unfinished_[pod.phase];
    return true;
  }
  if (pod.phase != "Succeeded" && pod.phase != "Failed")
    throw InputError(pod.phase_at, pod.path + ".status.phase",
                     "unknown phase (got '" + pod.phase +
                         "'); expected Pending, Running, Succeeded, Failed or Unknown");
  if (request.devices == 0) {
    ++no_gpu_;
    return true;
  }
  const auto start = pod.earliest_start ? pod.earliest_start : pod.start_time;
  if (!start) {
    ++not_started_;
    return true;
  }
  if (!pod.latest_finish) {
    ++no_end_;
    return true;
  }
  if (pod.latest_finish->value() < start->value())
    throw InputError(pod.origin, pod.path + ".status.startTime",
                     "later than the last container's finishedAt " + civil_text(pod.latest_finish->seconds) +
                         "Z" + "; expected the pod to start before its containers finished");
  Job job;
  job.id = pod.ns.empty() ? pod.name : pod.ns + "/" + pod.name;
  job.origin = pod.origin;
  job.submit_s = pod.created->value();
  job.duration_s = static_cast<double>(pod.latest_finish->seconds - start->seconds) +
                   (pod.latest_finish->fraction - start->fraction);
  if (job.duration_s <= 0) {
    ++zero_runtime_;
    return true;
  }
  job.devices = static_cast<int>(request.devices);
  job.gpu_milli = std::clamp(request.share, 1, 1000);
  job.mem_request_bytes = request.mem_bytes;
  job.cpus = request.cpus;
  job.host_mem_bytes = request.host_mem_bytes;
  job.gpu_types = pod.gpu_product;
  job.requested_s = pod.deadline_s;
  job.user = pod.ns;
  job.trace_class = pod.app_name.empty() ? pod.app : pod.app_name;
  job.qos = pod.qos_class;
  job.trace_status = pod.phase == "Succeeded"           ? "completed"
                     : pod.oom_killed                   ? "out-of-memory"
                     : pod.reason == "DeadlineExceeded" ? "timeout"
                                                        : "failed";
  if (request.mixed) ++mixed_shares_;
  if (request.memory_only) ++memory_only_whole_;
  window_.push(std::move(job));
  return true;
}

std::optional<Job> KubernetesReader::next()
{
  while (!window_.full() && read_pod()) {
  }
  if (window_.empty()) return std::nullopt;
  Job job = window_.pop();
  if (!origin_) {
    const double s = std::floor(job.submit_s);
    origin_ = Rfc3339Time{static_cast<long long>(s), job.submit_s - s};
  }
  job.submit_s -= origin_->value();
  return job;
}

std::vector<std::string> KubernetesReader::warnings() const
{
  std::vector<std::string> w;
  const std::string head = file_ + ": skipped ";
  for (const auto& [phase, n] : unfinished_)
    w.push_back(head + std::to_string(n) + " " + phase + " pod(s) (not finished when the list was taken)");
  if (no_gpu_) w.push_back(head + std::to_string(no_gpu_) + " finished pod(s) without a GPU request");
  if (not_started_)
    w.push_back(head + std::to_string(not_started_) +
                " finished pod(s) that never started (no container startedAt, no status.startTime)");
  if (no_end_)
    w.push_back(head + std::to_string(no_end_) +
                " finished pod(s) without a finishedAt (no container has a terminated state)");
  if (zero_runtime_) w.push_back(head + std::to_string(zero_runtime_) + " pod(s) with a run time of 0");
  if (mixed_shares_)
    w.push_back(file_ + ": " + std::to_string(mixed_shares_) +
                " pod(s) held GPUs of different shares (MIG sizes, or MIG and whole GPUs); each was replayed "
                "with its largest share on every device");
  if (memory_only_whole_)
    w.push_back(file_ + ": " + std::to_string(memory_only_whole_) +
                " pod(s) asked for GPU memory only (aliyun.com/gpu-mem, nvidia.com/gpumem) and were replayed "
                "on whole GPUs; give the option gpu_memory to turn memory into a share");
  if (window_.reordered())
    w.push_back(file_ + ": " + std::to_string(window_.reordered()) +
                " pod(s) were out of creationTimestamp order and were replayed in order");
  return w;
}

std::string KubernetesReader::describe() const
{
  return origin_ ? "submit 0 = " + civil_text(origin_->seconds) + "Z" + " (the first pod's creationTimestamp)"
                 : std::string();
}

std::unique_ptr<JobReader> open_kubernetes(const std::string& path, KubernetesOptions options)
{
  return std::make_unique<OwningReader<KubernetesReader>>(path, options);
}

} // namespace colocsim
