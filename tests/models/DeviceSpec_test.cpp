// Device catalog: the bundled Max 1550 files load and carry the reference's numbers and tags
// (published Max 1550 figures, docs/sources.md); malformed files are located precisely.
#include "models/DeviceSpec.hpp"
#include "tests/CatchCompat.hpp"

#include <cmath>
#include <filesystem>
#include <map>

using namespace colocsim;
using namespace colocsim::test;

namespace {
DeviceSpec load_bundled(const std::string& name)
{
  const std::string rel = "models/devices/" + name + ".yaml";
  return load_device_spec(read_source_file(rel), rel);
}

std::string error_of(const std::string& text)
{
  return input_error_of([&] { load_device_spec(text, "dev.yaml"); });
}

// A valid file, one key per line, so tests can break one line and know its number.
const std::string VALID = "format: colocsim-device/1\n"                                   // 1
                          "name: t\n"                                                     // 2
                          "description: test\n"                                           // 3
                          "vendor: intel\n"                                               // 4
                          "devices_per_card: 2\n"                                         // 5
                          "compute_units: {value: 448, tag: measurement, source: s}\n"    // 6
                          "memory: {value: 64GB, tag: vendor-spec, source: s}\n"          // 7
                          "mem_bandwidth: {value: 1.0e12, tag: measurement, source: s}\n" // 8
                          "freq_max: {value: 1.6GHz, tag: vendor-spec, source: s}\n"      // 9
                          "freq_default: {value: 1.5GHz, tag: measurement, source: s}\n"  // 10
                          "freq_min: {value: 0.3GHz, tag: estimate, source: s}\n"         // 11
                          "card_tdp: {value: 600W, tag: vendor-spec, source: s}\n"        // 12
                          "sharing_modes: [exclusive, time-slice]\n";                     // 13

} // namespace

TEST_CASE("Aurora Max 1550 tile matches the reference", "[device]")
{
  const auto d = load_bundled("max1550-aurora-tile");
  CHECK(d.name == "max1550-aurora-tile");
  CHECK(d.vendor == "intel");
  CHECK(d.devices_per_card == 2);
  CHECK_THAT(d.compute_units.value, WithinRel(448.0, 1e-12));
  CHECK(d.compute_units.evidence == Evidence::MEASUREMENT);
  CHECK_THAT(d.compute_units.source, ContainsSubstring("ALCF-PT"));
  // 65,520 MiB reported by the runtime = 65520 × 1048576 = 68,702,699,520 bytes (64 GiB − 16 MiB).
  CHECK_THAT(d.memory_bytes.value, WithinRel(68702699520.0, 1e-12));
  CHECK(d.memory_bytes.evidence == Evidence::MEASUREMENT);
  CHECK_THAT(d.memory_bytes.source, ContainsSubstring("TXO-3585"));
  CHECK_THAT(d.mem_bandwidth.value, WithinRel(1.0e12, 1e-12)); // triad, ALCF-PERF
  CHECK(d.mem_bandwidth.evidence == Evidence::MEASUREMENT);
  CHECK_THAT(d.mem_bandwidth.source, ContainsSubstring("ALCF-PERF"));
  CHECK_THAT(d.freq_max_hz.value, WithinRel(1.6e9, 1e-12));
  CHECK(d.freq_max_hz.evidence == Evidence::VENDOR_SPEC);
  CHECK_THAT(d.freq_max_hz.source, ContainsSubstring("GK-PVC"));
  CHECK_THAT(d.freq_default_hz.value, WithinRel(1.5e9, 1e-12));
  CHECK(d.freq_default_hz.evidence == Evidence::MEASUREMENT);
  CHECK_THAT(d.freq_min_hz.value, WithinRel(0.3e9, 1e-12));
  CHECK(d.freq_min_hz.evidence == Evidence::ESTIMATE);
  CHECK_THAT(d.freq_min_hz.source, ContainsSubstring("NOT FOUND"));
  // Aurora holds its tiles at the operating clock (ALCF-XPU: all six GPUs at 1600.00 MHz under light load).
  CHECK_THAT(d.freq_pinned_hz.value, WithinRel(1.5e9, 1e-12));
  CHECK_THAT(d.freq_pinned_hz.source, ContainsSubstring("ALCF-XPU"));
  CHECK_THAT(d.card_tdp_w.value, WithinRel(600.0, 1e-12));
  CHECK(d.card_tdp_w.evidence == Evidence::VENDOR_SPEC);
  CHECK(d.sharing_modes == std::vector<SharingMode>{SharingMode::EXCLUSIVE, SharingMode::TIME_SLICE,
                                                    SharingMode::CCS_2, SharingMode::CCS_4});

  // Derived peak, reference §1.3: 448 EUs / 8 EUs per Xe-core = 56 Xe-cores;
  // FP32 = 56 × 256 flop/clk × 1.5e9 Hz = 21.504e12 flop/s ("21.5 TF", measured 21 TF).
  const double xe_cores = d.compute_units.value / 8.0;
  CHECK_THAT(xe_cores * 256.0 * d.freq_default_hz.value, WithinRel(21.504e12, 1e-9));
  // Per-card HBM: 2 tiles × 1.0e12 = 2.0e12 B/s achievable (12 TB/s per 12-tile node, ALCF-PERF).
  CHECK_THAT(12 * d.mem_bandwidth.value, WithinRel(12e12, 1e-12));
}

TEST_CASE("commercial Max 1550 tile matches the reference", "[device]")
{
  const auto d = load_bundled("max1550-tile");
  CHECK(d.name == "max1550-tile");
  CHECK(d.devices_per_card == 2);
  CHECK_THAT(d.compute_units.value, WithinRel(512.0, 1e-12));
  CHECK(d.compute_units.evidence == Evidence::VENDOR_SPEC);
  CHECK_THAT(d.freq_default_hz.value, WithinRel(1.6e9, 1e-12));
  CHECK_THAT(d.freq_max_hz.value, WithinRel(1.6e9, 1e-12));
  CHECK_THAT(d.card_tdp_w.value, WithinRel(600.0, 1e-12));
  // FP32 peak, reference §1.3: 512 / 8 = 64 Xe-cores × 256 × 1.6e9 = 26.2144e12 ("26.2 TF").
  CHECK_THAT(d.compute_units.value / 8.0 * 256.0 * d.freq_default_hz.value, WithinRel(26.2144e12, 1e-9));
}

TEST_CASE("the test's inline device file is valid", "[device]")
{
  const auto d = load_device_spec(VALID, "dev.yaml");
  CHECK_THAT(d.memory_bytes.value, WithinRel(64e9, 1e-12));
  CHECK_THAT(d.mem_bandwidth.value, WithinRel(1e12, 1e-12));
}

TEST_CASE("malformed device files name the place and the rule", "[device]")
{
  CHECK(error_of(replace(VALID, "vendor: intel", "vendr: intel")) ==
        "dev.yaml:4:1: vendr: unknown key; valid: format, name, description, vendor, devices_per_card, "
        "compute_units, memory, mem_bandwidth, freq_max, freq_default, freq_min, freq_pinned, card_tdp, "
        "sharing_modes, trace_names, relative_throughput\n"
        "dev.yaml:1:1: vendor: missing required key; expected a string");
  CHECK_THAT(error_of(replace(VALID, "colocsim-device/1", "colocsim-device/2")),
             ContainsSubstring("dev.yaml:1:9: format: expected 'colocsim-device/1'"));
  CHECK_THAT(
      error_of(replace(VALID, "time-slice]", "mig-7g]")),
      ContainsSubstring("dev.yaml:13:28: sharing_modes: unknown sharing mode 'mig-7g'; valid: exclusive, "
                        "time-slice, ccs-2, ccs-4, mps"));
  CHECK_THAT(error_of(replace(VALID, "devices_per_card: 2", "devices_per_card: 0")),
             ContainsSubstring("dev.yaml:5:19: devices_per_card: expected an integer in [1, 64] (got '0')"));
  CHECK_THAT(error_of(replace(VALID, "tag: estimate, ", "")),
             ContainsSubstring("dev.yaml:11:11: freq_min.tag: missing evidence tag"));
  CHECK_THAT(error_of(replace(VALID, "0.3GHz", "1.7GHz")),
             ContainsSubstring("freq_default: expected freq_min <= freq_default <= freq_max"));
  CHECK_THAT(error_of(replace(VALID, "1.0e12", "1TB/s")),
             ContainsSubstring("dev.yaml:8:24: mem_bandwidth.value"));
  // A pinned clock other than the operating clock is refused, with the place and the rule.
  CHECK_THAT(error_of(replace(
                 VALID, "card_tdp:", "freq_pinned: {value: 1.2GHz, tag: estimate, source: s}\ncard_tdp:")),
             ContainsSubstring("freq_pinned: pinned clock 1200.000000 MHz differs from freq_default"));
}

// VALID with the two optional keys of heterogeneous platforms, on lines 14 and 15.
const std::string WITH_TRACE = VALID +
                               "trace_names: [V100M16, V100]\n"                                      // 14
                               "relative_throughput: {value: 0.943, tag: measurement, source: s}\n"; // 15

TEST_CASE("trace_names and relative_throughput are optional and read", "[device]")
{
  const auto plain = load_device_spec(VALID, "dev.yaml");
  CHECK(plain.trace_names.empty());
  CHECK(plain.relative_throughput.value == 0.0); // not given
  const auto d = load_device_spec(WITH_TRACE, "dev.yaml");
  CHECK(d.trace_names == std::vector<std::string>{"V100M16", "V100"});
  CHECK_THAT(d.relative_throughput.value, WithinRel(0.943, 1e-12));
  CHECK(d.relative_throughput.evidence == Evidence::MEASUREMENT);
  CHECK(d.relative_throughput.source == "s");
}

TEST_CASE("bad trace_names and relative_throughput name the place and the rule", "[device]")
{
  CHECK(error_of(replace(WITH_TRACE, "[V100M16, V100]", "[V100M16, V100M16]")) ==
        "dev.yaml:14:24: trace_names: name 'V100M16' is listed twice");
  CHECK(error_of(replace(WITH_TRACE, "[V100M16, V100]", "[]")) ==
        "dev.yaml:14:14: trace_names: expected a non-empty list of names, e.g. [V100M16]; leave the key out "
        "if no trace names the type");
  CHECK(error_of(replace(WITH_TRACE, "[V100M16, V100]", "V100M16")) ==
        "dev.yaml:14:14: trace_names: expected a non-empty list of names, e.g. [V100M16]; leave the key out "
        "if no trace names the type");
  CHECK(error_of(replace(WITH_TRACE, "[V100M16, V100]", "[V100M16, \"V100M16|V100M32\"]")) ==
        "dev.yaml:14:24: trace_names: expected a non-empty name without spaces or '|' (openb's gpu_spec "
        "separator) (got 'V100M16|V100M32')");
  CHECK(error_of(replace(WITH_TRACE, "[V100M16, V100]", "[V100M16, \"\"]")) ==
        "dev.yaml:14:24: trace_names: expected a non-empty name without spaces or '|' (openb's gpu_spec "
        "separator) (got '')");
  CHECK(error_of(replace(WITH_TRACE, "value: 0.943", "value: 0")) ==
        "dev.yaml:15:30: relative_throughput.value: expected a number > 0, the speed relative to an NVIDIA "
        "V100 = 1 (got '0')");
  CHECK(error_of(replace(WITH_TRACE, "value: 0.943", "value: -1")) ==
        "dev.yaml:15:30: relative_throughput.value: expected a number > 0, the speed relative to an NVIDIA "
        "V100 = 1 (got '-1')");
  CHECK_THAT(error_of(replace(WITH_TRACE, "0.943, tag: measurement, source: s}", "0.943, source: s}")),
             ContainsSubstring("dev.yaml:15:22: relative_throughput.tag: missing evidence tag"));
  CHECK_THAT(error_of(replace(WITH_TRACE, "0.943, tag: measurement, source: s}", "0.943, tag: measurement}")),
             ContainsSubstring("dev.yaml:15:22: relative_throughput.source: missing source"));
  // A plain number: refused in a bundled file; a user's file may give it (tagged user-supplied,
  // tests/sim/Provenance_test.cpp).
  const auto plain = replace(WITH_TRACE, "{value: 0.943, tag: measurement, source: s}", "0.943");
  CHECK_THROWS_WITH(load_device_spec(plain, "builtin:models/devices/dev.yaml"),
                    ContainsSubstring("dev.yaml:15:22: relative_throughput: expected {value: ..., tag: ..., "
                                      "source: ...}"));
  CHECK(load_device_spec(plain, "dev.yaml").relative_throughput.evidence == Evidence::USER_SUPPLIED);
}

TEST_CASE("sharing mode names", "[device]")
{
  CHECK(parse_sharing_mode("time-slice") == SharingMode::TIME_SLICE);
  CHECK(parse_sharing_mode("exclusive") == SharingMode::EXCLUSIVE);
  CHECK(parse_sharing_mode("mig") == SharingMode::MIG);
  CHECK_FALSE(parse_sharing_mode("mig-2").has_value());
  CHECK(to_string(SharingMode::TIME_SLICE) == "time-slice");
}

TEST_CASE("docs/formats/devices.md shows the bundled files", "[device][docs]")
{
  // If this fails, copy the bundled file into the page's example block.
  for (const std::string f :
       {"models/devices/max1550-aurora-tile.yaml", "models/devices/max1550-tile.yaml"}) {
    INFO(f);
    CHECK(colocsim::test::doc_example("docs/formats/devices.md", f) == read_source_file(f));
  }
}

TEST_CASE("docs/formats/devices.md has a row for every key the parser accepts", "[device][docs]")
{
  // The parser's list of valid keys, read from its unknown-key message.
  const std::string message = error_of(VALID + "zzz: 1\n");
  const auto from = message.find("valid: ");
  REQUIRE(from != std::string::npos);
  std::vector<std::string> keys;
  std::string rest = message.substr(from + 7, message.find('\n', from) - from - 7);
  for (std::size_t at = 0; at <= rest.size();) {
    const auto end = std::min(rest.find(", ", at), rest.size());
    keys.push_back(rest.substr(at, end - at));
    at = end + 2;
  }
  REQUIRE(keys.size() >= 15);
  const std::string page = read_source_file("docs/formats/devices.md");
  for (const auto& k : keys) {
    INFO(k);
    CHECK(page.find("\n| `" + k + "` |") != std::string::npos);
  }
}

TEST_CASE("every bundled device gives its speed and trace names are claimed once across the catalog",
          "[device]")
{
  std::map<std::string, std::string> owner; // trace name -> device
  std::size_t files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(COLOCSIM_SOURCE_DIR) + "/models/devices")) {
    if (entry.path().extension() != ".yaml") continue;
    const auto d = load_bundled(entry.path().stem().string());
    ++files;
    INFO(d.name);
    CHECK(d.name == entry.path().stem().string());
    CHECK(d.relative_throughput.value > 0);
    CHECK_FALSE(d.relative_throughput.source.empty());
    for (const auto& t : d.trace_names) {
      INFO(t);
      CHECK(owner.emplace(t, d.name).second);
    }
  }
  CHECK(files >= 12);
  // The openb GPU types (Alibaba cluster-trace-gpu-v2023) each have exactly one device.
  for (const char* t : {"G2", "T4", "P100", "G3", "V100M16", "V100M32", "A10"}) {
    INFO(t);
    CHECK(owner.count(t) == 1);
  }
}

TEST_CASE("the openb device types carry the evidence their files claim", "[device]")
{
  const auto v16 = load_bundled("v100-sxm2-16gb");
  CHECK(v16.trace_names == std::vector<std::string>{"V100M16"});
  CHECK(v16.relative_throughput.value == 1.0); // the unit
  CHECK(v16.sharing_modes ==
        std::vector<SharingMode>{SharingMode::EXCLUSIVE, SharingMode::TIME_SLICE, SharingMode::MPS});
  CHECK_THAT(v16.memory_bytes.value, WithinRel(16160.0 * 1048576, 1e-12));
  CHECK_THAT(load_bundled("v100-sxm2-32gb").memory_bytes.value, WithinRel(32510.0 * 1048576, 1e-12));
  // P100: Gavel's measured speed (calibration/tools/gavel_speeds.py); Pascal has no Volta MPS: time-slice
  // only.
  const auto p100 = load_bundled("p100-16gb");
  CHECK_THAT(p100.relative_throughput.value, WithinRel(0.943, 1e-12));
  CHECK(p100.relative_throughput.evidence == Evidence::MEASUREMENT);
  CHECK_THAT(p100.relative_throughput.source, ContainsSubstring("c4fa40097339e9608ab71fd64c8bdea96a5e4a4c"));
  CHECK(p100.sharing_modes == std::vector<SharingMode>{SharingMode::EXCLUSIVE, SharingMode::TIME_SLICE});
  CHECK_THAT(load_bundled("t4").card_tdp_w.value, WithinRel(70.0, 1e-12));
  CHECK_THAT(load_bundled("a10").card_tdp_w.value, WithinRel(150.0, 1e-12));
  // Estimated speeds: sqrt(FP16 tensor ratio x bandwidth ratio) against a V100 SXM2 (125 TF, 900 GB/s).
  CHECK_THAT(load_bundled("t4").relative_throughput.value,
             WithinAbs(std::sqrt(65.0 / 125 * 320 / 900), 5e-4));
  CHECK_THAT(load_bundled("a10").relative_throughput.value,
             WithinAbs(std::sqrt(125.0 / 125 * 600 / 900), 5e-4));
  CHECK_THAT(load_bundled("a100-40gb").relative_throughput.value,
             WithinAbs(std::sqrt(312.0 / 125 * 1555 / 900), 5e-4));
  CHECK_THAT(load_bundled("h100-80gb-sxm").relative_throughput.value,
             WithinAbs(std::sqrt(989.0 / 125 * 3350 / 900), 5e-4));
  // The undisclosed types are labelled stand-ins: every value an estimate that says so.
  for (const char* name : {"openb-g2", "openb-g3"}) {
    const auto g = load_bundled(name);
    INFO(name);
    for (const Sourced* s : {&g.compute_units, &g.memory_bytes, &g.mem_bandwidth, &g.freq_max_hz,
                             &g.freq_default_hz, &g.freq_min_hz, &g.card_tdp_w, &g.relative_throughput}) {
      CHECK(s->evidence == Evidence::ESTIMATE);
      CHECK_THAT(s->source, ContainsSubstring("undisclose"));
    }
  }
}

// Two malformed inputs that once escaped as raw YAML exceptions instead of located InputErrors.
TEST_CASE("a missing sharing_modes key is an InputError", "[device]")
{
  CHECK_THROWS_AS(
      load_device_spec(replace(VALID, "sharing_modes: [exclusive, time-slice]\n", ""), "dev.yaml"),
      InputError);
}

TEST_CASE("a list used as a key is an InputError", "[device]")
{
  CHECK_THROWS_AS(load_device_spec(VALID + "? [a, b]\n: 1\n", "dev.yaml"), InputError);
  CHECK_THROWS_WITH(load_device_spec(VALID + "? [a, b]\n: 1\n", "dev.yaml"),
                    ContainsSubstring("expected a plain key"));
}
