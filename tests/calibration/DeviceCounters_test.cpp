// Host-side counter arithmetic of the microbenchmark, checked without a device against hand-computed
// values: Level Zero kernel-timestamp rollover and tick units (reference §2.4), energy-counter wrap
// (powercap max_energy_range_uj; Sysman's unknown range, §2.5), ZEX_NUMBER_OF_CCS strings (§1.7), device
// selectors, and the RAPL meter on a fake powercap tree.
#include "calibration/microbenchmark/DeviceCounters.hpp"
#include "calibration/microbenchmark/EnergyMeter.hpp"
#include "tests/CatchCompat.hpp"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

using namespace colocsim;
using colocsim::test::WithinRel;

TEST_CASE("kernel timestamps: elapsed ticks with one rollover of a valid_bits counter",
          "[calibration][counters]")
{
  CHECK(elapsed_ticks(100, 250, 32) == 150);
  // 32-bit counter: start 0xFFFFFF00, end 0x10 → (0xFFFFFFFF − 0xFFFFFF00) + 0x10 + 1 = 255 + 17 = 272.
  CHECK(elapsed_ticks(0xFFFFFF00u, 0x10u, 32) == 272);
  // Bits above valid_bits are ignored (a 36-bit counter read into a 64-bit field with junk on top).
  CHECK(elapsed_ticks((1ULL << 40) | 5, (1ULL << 41) | 9, 36) == 4);
  // The reference's worked form with 8 bits: start 250, end 4 → (255 − 250) + 4 + 1 = 10.
  CHECK(elapsed_ticks(250, 4, 8) == 10);
  // 64 bits: unsigned wrap-around gives the same formula.
  CHECK(elapsed_ticks(~0ULL - 9, 5, 64) == 15);
  CHECK_THROWS_AS(elapsed_ticks(0, 1, 0), std::invalid_argument);
  CHECK_THROWS_AS(elapsed_ticks(0, 1, 65), std::invalid_argument);
}

TEST_CASE("kernel timestamps: timerResolution units", "[calibration][counters]")
{
  // _1_2 structure: Hz. 19.2 MHz timer: 19'200'000 ticks = 1 s.
  CHECK_THAT(ticks_to_seconds(19'200'000, 19.2e6, TimerUnit::HZ), WithinRel(1.0, 1e-12));
  // Original structure: ns per tick. 52.083 ns/tick × 1000 ticks = 52.083 µs.
  CHECK_THAT(ticks_to_seconds(1000, 52.083, TimerUnit::NS_PER_TICK), WithinRel(52.083e-6, 1e-12));
  CHECK(timer_unit_of(true, 19.2e6) == TimerUnit::HZ);
  CHECK(timer_unit_of(false, 52.083) == TimerUnit::NS_PER_TICK);
  // A driver that ignores _1_2 and still returns ns/tick: "52 Hz" is taken as 52 ns/tick.
  CHECK(timer_unit_of(true, 52.0) == TimerUnit::NS_PER_TICK);
  CHECK_THROWS_AS(ticks_to_seconds(1, 0.0, TimerUnit::HZ), std::invalid_argument);
}

TEST_CASE("energy counters: deltas, one wrap with a known range, none without", "[calibration][counters]")
{
  CHECK(energy_delta_uj(1'000, 4'500, 0) == 3'500u);
  // RAPL package counter wrapping at max_energy_range_uj = 262'143'328'850 µJ.
  const std::uint64_t range = 262'143'328'850ULL;
  CHECK(energy_delta_uj(range - 1'000, 2'000, range) == 3'000u);
  // Sysman: range unknown; a backwards counter is reported as unavailable, never guessed.
  CHECK_FALSE(energy_delta_uj(5'000, 10, 0).has_value());
  // A reading above the stated range is inconsistent: unavailable too.
  CHECK_FALSE(energy_delta_uj(range + 5, 10, range).has_value());
}

TEST_CASE("ZEX_NUMBER_OF_CCS values and CCS mode names", "[calibration][counters]")
{
  const std::vector<int> one{0}, two{0, 1}, aurora{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  CHECK(ccs_env_value(one, 4) == "0:4");
  CHECK(ccs_env_value(two, 2) == "0:2,1:2");
  CHECK(ccs_env_value(aurora, 4) == "0:4,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4");
  CHECK_THROWS_AS(ccs_env_value(one, 3), std::invalid_argument);
  CHECK_THROWS_AS(ccs_env_value(std::vector<int>{}, 2), std::invalid_argument);
  CHECK_THROWS_AS(ccs_env_value(std::vector<int>{-1}, 2), std::invalid_argument);
  CHECK(ccs_count("ccs1") == 1);
  CHECK(ccs_count("ccs4") == 4);
  CHECK_FALSE(ccs_count("time-slice").has_value());
}

TEST_CASE("device selectors R and R.S", "[calibration][counters]")
{
  const auto a = parse_device_selector("3");
  REQUIRE(a);
  CHECK(a->root == 3);
  CHECK_FALSE(a->sub.has_value());
  const auto b = parse_device_selector("0.1");
  REQUIRE(b);
  CHECK(b->root == 0);
  CHECK(b->sub == 1);
  CHECK(b->to_string() == "0.1");
  CHECK_FALSE(parse_device_selector("x").has_value());
  CHECK_FALSE(parse_device_selector("0.").has_value());
  CHECK_FALSE(parse_device_selector("-1").has_value());
}

namespace {
void write(const std::filesystem::path& p, const std::string& text)
{
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}
} // namespace

TEST_CASE("RAPL meter sums the top-level packages and handles their wrap", "[calibration][counters]")
{
  const auto root = std::filesystem::temp_directory_path() / ("colocsim-rapl-" + std::to_string(getpid()));
  std::filesystem::remove_all(root);
  write(root / "intel-rapl:0" / "name", "package-0");
  write(root / "intel-rapl:0" / "energy_uj", "1000");
  write(root / "intel-rapl:0" / "max_energy_range_uj", "5000");
  write(root / "intel-rapl:1" / "name", "package-1");
  write(root / "intel-rapl:1" / "energy_uj", "4900");
  write(root / "intel-rapl:1" / "max_energy_range_uj", "5000");
  write(root / "intel-rapl:0:0" / "name", "dram"); // a sub-zone: not added
  write(root / "intel-rapl:0:0" / "energy_uj", "777");

  std::string why;
  auto meter = open_rapl_meter(root.string(), why);
  REQUIRE(meter);
  CHECK(meter->source() == "rapl:package-0+package-1");
  const auto before = meter->read();
  REQUIRE(before);
  write(root / "intel-rapl:0" / "energy_uj", "3500"); // +2500 µJ
  write(root / "intel-rapl:1" / "energy_uj", "400");  // wrapped: (5000 − 4900) + 400 = 500 µJ
  const auto after = meter->read();
  REQUIRE(after);
  const auto j = meter->joules_between(*before, *after);
  REQUIRE(j);
  CHECK_THAT(*j, WithinRel(3000e-6, 1e-12));

  std::filesystem::remove_all(root);
  CHECK_FALSE(open_rapl_meter(root.string(), why));
  CHECK(why.find("does not exist") != std::string::npos);
}
