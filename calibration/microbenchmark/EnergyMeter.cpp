#include "calibration/microbenchmark/EnergyMeter.hpp"

#include "base/Units.hpp"
#include "calibration/microbenchmark/DeviceCounters.hpp"

#include <time.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace colocsim {

double monotonic_s()
{
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

namespace {

std::optional<std::uint64_t> read_counter(const std::filesystem::path& file)
{
  std::ifstream in(file);
  std::string text;
  if (!in || !(in >> text)) return std::nullopt;
  const auto v = parse_int(text);
  if (!v || *v < 0) return std::nullopt;
  return static_cast<std::uint64_t>(*v);
}

std::string read_word(const std::filesystem::path& file, const std::string& fallback)
{
  std::ifstream in(file);
  std::string text;
  return (in && (in >> text)) ? text : fallback;
}

class RaplMeter final : public EnergyMeter {
public:
  struct Zone {
    std::filesystem::path energy_file;
    std::uint64_t range_uj = 0;
    std::string name;
  };
  explicit RaplMeter(std::vector<Zone> zones) : zones_(std::move(zones)) {}

  std::string source() const override
  {
    std::string s = "rapl:";
    for (std::size_t i = 0; i < zones_.size(); ++i)
      s += (i ? "+" : "") + zones_[i].name;
    return s;
  }

  std::optional<EnergySnapshot> read() override
  {
    EnergySnapshot snap;
    snap.host_time_s = monotonic_s();
    for (const auto& z : zones_) {
      const auto v = read_counter(z.energy_file);
      if (!v) return std::nullopt;
      snap.counters_uj.push_back(*v);
    }
    return snap;
  }

  std::optional<double> joules_between(const EnergySnapshot& before,
                                       const EnergySnapshot& after) const override
  {
    if (before.counters_uj.size() != zones_.size() || after.counters_uj.size() != zones_.size())
      return std::nullopt;
    double total_uj = 0;
    for (std::size_t i = 0; i < zones_.size(); ++i) {
      const auto d = energy_delta_uj(before.counters_uj[i], after.counters_uj[i], zones_[i].range_uj);
      if (!d) return std::nullopt;
      total_uj += static_cast<double>(*d);
    }
    return total_uj * 1e-6;
  }

private:
  std::vector<Zone> zones_;
};

} // namespace

std::unique_ptr<EnergyMeter> open_rapl_meter(const std::string& root, std::string& why_not)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<RaplMeter::Zone> zones;
  if (!fs::is_directory(root, ec)) {
    why_not = root + " does not exist (no powercap interface)";
    return nullptr;
  }
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    const auto name = e.path().filename().string();
    // Top-level zones only: "intel-rapl:0", not the sub-zones "intel-rapl:0:0" nor "intel-rapl-mmio:0".
    if (name.rfind("intel-rapl:", 0) == 0 && std::count(name.begin(), name.end(), ':') == 1)
      dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& d : dirs) {
    const auto range = read_counter(d / "max_energy_range_uj");
    if (!read_counter(d / "energy_uj")) {
      why_not = (d / "energy_uj").string() + " is not readable (root-only since Linux 5.10)";
      return nullptr;
    }
    zones.push_back({d / "energy_uj", range.value_or(0), read_word(d / "name", d.filename().string())});
  }
  if (zones.empty()) {
    why_not = "no intel-rapl:N zone under " + root;
    return nullptr;
  }
  return std::make_unique<RaplMeter>(std::move(zones));
}

} // namespace colocsim
