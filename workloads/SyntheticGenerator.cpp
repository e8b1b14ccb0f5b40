// Synthetic job generator. Transforms (all from a uniform u in [0, 1) built from 53 random bits):
// exponential inter-arrival -ln(1 - u) / rate; standard normal by Box–Muller (cosine branch);
// lognormal duration exp(mu + sigma z) with mu = ln(mean) - sigma^2 / 2 so that its mean is the spec's;
// weighted choice by inverting the cumulative weights.
#include "workloads/SyntheticGenerator.hpp"

#include "workloads/NativeCsv.hpp"
#include "workloads/ProfileCatalog.hpp"
#include "workloads/StableHash.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numbers>

namespace colocsim {

namespace {

/// SplitMix64 (Steele, Lea, Flood 2014; StableHash.hpp) decorrelates the seeds of the per-attribute streams.
std::mt19937_64 stream(std::uint64_t seed, std::uint64_t index)
{
  return std::mt19937_64(splitmix64(seed ^ splitmix64(index)));
}

template <class T> std::vector<double> cumulative(const std::vector<std::pair<T, double>>& mix)
{
  std::vector<double> cum;
  double total = 0;
  for (const auto& [item, weight] : mix) {
    total += weight;
    cum.push_back(total);
  }
  return cum;
}

std::string format_number(double v)
{
  char buf[32];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, ptr);
}

template <class T>
void check_mix(const std::vector<std::pair<T, double>>& mix, const std::string& key,
               const SourceLocation& where, DiagnosticSink& sink)
{
  double total = 0;
  for (const auto& [item, weight] : mix) {
    if (!std::isfinite(weight) || weight < 0)
      sink.add(where, key,
               "negative or non-finite weight (got " + format_number(weight) + "); expected a weight >= 0");
    else
      total += weight;
  }
  if (!mix.empty() && !(total > 0))
    sink.add(where, key, "weights sum to 0; expected at least one positive weight");
}

} // namespace

void check_synthetic_spec(const SyntheticSpec& spec, const ProfileCatalog* catalog)
{
  DiagnosticSink sink;
  const auto& where = spec.origin;
  if (spec.jobs < 1) sink.add(where, "jobs", "no jobs (got 0); expected an integer >= 1");
  if (!std::isfinite(spec.arrival_rate_per_s) || spec.arrival_rate_per_s <= 0)
    sink.add(where, "arrival_rate_per_s",
             "not positive (got " + format_number(spec.arrival_rate_per_s) +
                 "); expected jobs per second > 0");
  if (!std::isfinite(spec.duration_mean_s) || spec.duration_mean_s <= 0)
    sink.add(where, "duration_mean_s",
             "not positive (got " + format_number(spec.duration_mean_s) + "); expected seconds > 0");
  if (!std::isfinite(spec.duration_sigma) || spec.duration_sigma < 0 || spec.duration_sigma > 10)
    sink.add(where, "duration_sigma",
             "out of range (got " + format_number(spec.duration_sigma) +
                 "); expected a lognormal sigma in [0, 10]");
  if (!std::isfinite(spec.mem_request_bytes) || spec.mem_request_bytes < 0)
    sink.add(where, "mem_request",
             "negative (got " + format_number(spec.mem_request_bytes) + "); expected bytes >= 0");

  check_mix(spec.profile_mix, "profile_mix", where, sink);
  for (const auto& [name, weight] : spec.profile_mix) {
    if (name.empty())
      sink.add(where, "profile_mix", "empty profile name; expected a profile name");
    else if (catalog && !catalog->find(name))
      sink.add(where, "profile_mix", "unknown profile '" + name + "'; valid: " + join(catalog->names()));
  }
  if (spec.devices_mix.empty())
    sink.add(where, "devices_mix", "empty; expected at least one (gang size, weight) pair, e.g. 1:1");
  check_mix(spec.devices_mix, "devices_mix", where, sink);
  for (const auto& [devices, weight] : spec.devices_mix)
    if (devices < 1)
      sink.add(where, "devices_mix",
               "gang size below 1 (got " + std::to_string(devices) + "); expected an integer >= 1");
  sink.throw_if_any();
}

// ---------------------------------------------------------------------------------------------------
// Declared parameters

namespace {

ParamSpec declare(const char* name, ParamType type, const char* default_text, const char* help,
                  double min = -std::numeric_limits<double>::infinity(),
                  double max = std::numeric_limits<double>::infinity(), Unit unit = Unit::NONE)
{
  ParamSpec p;
  p.name = name;
  p.type = type;
  p.default_text = default_text;
  p.help = help;
  p.min = min;
  p.max = max;
  p.unit = unit;
  return p;
}

} // namespace

const std::vector<ParamSpec>& synthetic_param_specs()
{
  constexpr double INF = std::numeric_limits<double>::infinity();
  static const std::vector<ParamSpec> specs{
      declare("jobs", ParamType::INT, "1000", "number of jobs", 1),
      declare("arrival_rate_per_s", ParamType::REAL, "1", "Poisson arrival rate, jobs per second (> 0)", 0),
      declare("duration_mean", ParamType::REAL, "600s", "mean job duration, > 0 (lognormal mean, not median)",
              0, INF, Unit::SECONDS),
      declare("duration_sigma", ParamType::REAL, "1",
              "lognormal sigma of durations; 0 = all jobs last duration_mean", 0, 10),
      declare("profile_mix", ParamType::STRING, "",
              "profile:weight,... (empty: every catalog profile, weight 1)"),
      declare("devices_mix", ParamType::STRING, "1:1", "gang size:weight,..."),
      declare("mem_request", ParamType::REAL, "0",
              "memory each job declares per device; 0 = the profile's footprint", 0, INF, Unit::BYTES),
      declare("seed", ParamType::INT, "1", "random seed", 0),
  };
  return specs;
}

namespace {

/// Splits "a:1,b:2.5,c" into (item, weight) pairs; a missing weight is 1.
std::vector<std::pair<std::string, double>> parse_mix(const std::string& text, const std::string& key,
                                                      const SourceLocation& where, DiagnosticSink& sink)
{
  std::vector<std::pair<std::string, double>> mix;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    const auto colon = item.rfind(':');
    std::string name = item.substr(0, colon);
    double weight = 1;
    if (colon != std::string::npos) {
      const std::string w = item.substr(colon + 1);
      if (auto v = parse_double(w); v && *v >= 0)
        weight = *v;
      else
        sink.add(where, key,
                 "bad weight (got '" + w + "' in '" + item + "'); expected name:weight with weight >= 0");
    }
    name.erase(0, name.find_first_not_of(" \t"));
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name.empty())
      sink.add(where, key, "empty item (got '" + text + "'); expected name:weight,name:weight,...");
    mix.emplace_back(name, weight);
    start = end + 1;
  }
  return mix;
}

} // namespace

SyntheticSpec make_synthetic_spec(const ParamSet& params, const SourceLocation& where)
{
  DiagnosticSink sink;
  SyntheticSpec spec;
  spec.origin = where;
  spec.jobs = static_cast<std::size_t>(params.integer("jobs"));
  spec.arrival_rate_per_s = params.real("arrival_rate_per_s");
  spec.duration_mean_s = params.real("duration_mean");
  spec.duration_sigma = params.real("duration_sigma");
  if (params.has("profile_mix")) // optional: empty default
    spec.profile_mix = parse_mix(params.text("profile_mix"), "profile_mix", where, sink);
  spec.devices_mix.clear();
  for (const auto& [name, weight] : parse_mix(params.text("devices_mix"), "devices_mix", where, sink)) {
    auto devices = parse_int(name);
    if (!devices || *devices < 1 || *devices > (1 << 30)) {
      sink.add(where, "devices_mix", "bad gang size (got '" + name + "'); expected an integer >= 1");
      continue;
    }
    spec.devices_mix.emplace_back(static_cast<int>(*devices), weight);
  }
  spec.mem_request_bytes = params.real("mem_request");
  spec.seed = static_cast<std::uint64_t>(params.integer("seed"));
  sink.throw_if_any();
  check_synthetic_spec(spec); // the strict bounds (> 0) the declarations cannot express
  return spec;
}

// ---------------------------------------------------------------------------------------------------
// Generator

SyntheticReader::SyntheticReader(SyntheticSpec spec, const ProfileCatalog* catalog) : spec_(std::move(spec))
{
  check_synthetic_spec(spec_, catalog);
  if (spec_.profile_mix.empty()) {
    if (catalog)
      for (const auto& p : catalog->profiles())
        spec_.profile_mix.emplace_back(p.name, 1.0);
    else
      spec_.profile_mix.emplace_back("", 1.0);
  }
  for (const auto& [name, weight] : spec_.profile_mix) {
    double mem = spec_.mem_request_bytes;
    if (mem == 0 && catalog)
      if (const Profile* p = catalog->find(name)) mem = p->sig.mem_bytes;
    profile_mem_bytes_.push_back(mem);
  }
  profile_cum_ = cumulative(spec_.profile_mix);
  devices_cum_ = cumulative(spec_.devices_mix);
  const double sigma = spec_.duration_sigma;
  log_mean_ = std::log(spec_.duration_mean_s) - 0.5 * sigma * sigma;
  arrival_rng_ = stream(spec_.seed, 1);
  duration_rng_ = stream(spec_.seed, 2);
  profile_rng_ = stream(spec_.seed, 3);
  devices_rng_ = stream(spec_.seed, 4);
}

double SyntheticReader::uniform(std::mt19937_64& rng)
{
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

std::size_t SyntheticReader::choose(const std::vector<double>& cumulative, double u)
{
  const double x = u * cumulative.back();
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), x);
  return std::min(static_cast<std::size_t>(it - cumulative.begin()), cumulative.size() - 1);
}

std::optional<Job> SyntheticReader::next()
{
  if (produced_ >= spec_.jobs) return std::nullopt;
  ++produced_;

  now_s_ += -std::log1p(-uniform(arrival_rng_)) / spec_.arrival_rate_per_s;

  double duration_s = spec_.duration_mean_s;
  if (spec_.duration_sigma > 0) {
    const double u1 = uniform(duration_rng_);
    const double u2 = uniform(duration_rng_);
    const double z = std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * std::numbers::pi * u2);
    duration_s = std::exp(log_mean_ + spec_.duration_sigma * z);
  }

  const std::size_t p = choose(profile_cum_, uniform(profile_rng_));
  const std::size_t d = choose(devices_cum_, uniform(devices_rng_));

  Job job;
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, produced_);
  const auto n = static_cast<std::size_t>(end - digits);
  job.id.reserve(4 + std::max<std::size_t>(n, 6));
  job.id = "syn-";
  job.id.append(n < 6 ? 6 - n : 0, '0');
  job.id.append(digits, end);
  job.submit_s = now_s_;
  job.duration_s = duration_s;
  job.devices = spec_.devices_mix[d].first;
  job.gpu_milli = 1000;
  job.mem_request_bytes = profile_mem_bytes_[p];
  job.profile = spec_.profile_mix[p].first;
  job.origin =
      SourceLocation{spec_.origin.file, static_cast<int>(std::min<std::size_t>(produced_, 2147483647))};
  return job;
}

std::size_t write_synthetic(const SyntheticSpec& spec, std::ostream& out, const ProfileCatalog* catalog)
{
  SyntheticReader reader(spec, catalog);
  NativeCsvWriter writer(out);
  while (auto job = reader.next())
    writer.write(*job);
  return writer.rows_written();
}

} // namespace colocsim
