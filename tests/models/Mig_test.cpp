// MIG tables and geometry (NVIDIA specifications and MIG rules, docs/sources.md): the bundled tables load
// with every value tagged and match the reference; the layouts §4.2 lists as valid are accepted and illegal
// ones rejected with the right reason; the enumeration of layouts agrees with an independent brute force over
// the placement table and with NVIDIA's published count; free-space, fusion/fission and reconfiguration
// rules; MPS client limits; the NVIDIA device files; located errors for malformed tables; the format page's
// example.
#include "models/DeviceSpec.hpp"
#include "models/Interference.hpp"
#include "models/Mig.hpp"
#include "tests/CatchCompat.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <utility>

using namespace colocsim;
using namespace colocsim::test;

namespace {

constexpr double GIB = 1024.0 * 1024.0 * 1024.0;

MigTable load_bundled(const std::string& name)
{
  const std::string rel = "models/mig/" + name + ".yaml";
  return load_mig_table(read_source_file(rel), rel);
}

MigGeometry geometry(const std::string& name)
{
  return MigGeometry(load_bundled(name));
}

DeviceSpec read_device(const std::string& name)
{
  const std::string rel = "models/devices/" + name + ".yaml";
  return load_device_spec(read_source_file(rel), rel);
}

MigTable load_toy()
{
  return load_mig_table(test::slurp(std::string(COLOCSIM_TEST_DATA) + "/models/mig-toy.yaml"),
                        "mig-toy.yaml");
}

std::string error_of(const std::string& text)
{
  return input_error_of([&] { load_mig_table(text, "mig.yaml"); });
}

/// Layout from "profile@start" pairs, e.g. layout(g, {{"4g.20gb", 0}, {"3g.20gb", 4}}).
MigLayout layout(const MigGeometry& g, const std::vector<std::pair<std::string, unsigned>>& gis)
{
  MigLayout out;
  for (const auto& [profile, start] : gis)
    out.push_back(g.instance(profile, start));
  return out;
}

void check_sourced(const Sourced& s, const std::string& what)
{
  INFO(what);
  CHECK_FALSE(s.source.empty());
}

// ---- an independent enumeration, written from the placement table only (no MigGeometry) ----
//
// Walk the memory slices from 0 to M-1. At a slice no GI covers yet, either leave it free or start a GI of
// any profile that lists this slice as a placement start (marking its `size` slices covered). Every set of
// non-overlapping placements is produced exactly once (the choice at each uncovered slice is unique). Then
// keep the sets that respect the counting rules (per-profile max_instances, at most max_gpu_instances GIs,
// at most C compute slices), and call a set maximal when no placement of an allowed profile can be added.
using Plain = std::set<std::pair<unsigned, std::string>>; // {(start, profile name)}

struct BruteForce {
  std::vector<Plain> all;
  std::vector<Plain> maximal;
};

BruteForce brute_force(const MigTable& t, const std::set<std::string>& allowed)
{
  const unsigned M = static_cast<unsigned>(t.memory_slices.value);
  const unsigned C = static_cast<unsigned>(t.compute_slices.value);
  const unsigned max_gi = static_cast<unsigned>(t.max_gpu_instances.value);
  std::vector<const MigProfileSpec*> profiles;
  for (const auto& p : t.profiles)
    if (allowed.empty() || allowed.count(p.name)) profiles.push_back(&p);

  auto respects_counts = [&](const std::vector<std::pair<unsigned, const MigProfileSpec*>>& gis) {
    std::map<std::string, unsigned> per_profile;
    unsigned compute = 0;
    for (const auto& [start, p] : gis) {
      if (++per_profile[p->name] > static_cast<unsigned>(p->max_instances.value)) return false;
      compute += static_cast<unsigned>(p->compute_slices.value);
    }
    return gis.size() <= max_gi && compute <= C;
  };

  BruteForce out;
  std::vector<bool> covered(M, false);
  std::vector<std::pair<unsigned, const MigProfileSpec*>> gis;
  std::function<void(unsigned)> walk = [&](unsigned slice) {
    if (slice == M) {
      if (gis.empty() || !respects_counts(gis)) return;
      Plain plain;
      for (const auto& [start, p] : gis)
        plain.emplace(start, p->name);
      out.all.push_back(plain);
      bool maximal = true;
      for (const auto* p : profiles)
        for (auto s : p->placements.starts) {
          bool free = true;
          for (unsigned k = s; k < s + p->placements.size; ++k)
            free = free && !covered[k];
          if (!free) continue;
          gis.emplace_back(s, p);
          if (respects_counts(gis)) maximal = false;
          gis.pop_back();
        }
      if (maximal) out.maximal.push_back(plain);
      return;
    }
    if (covered[slice]) return walk(slice + 1);
    walk(slice + 1); // leave it free
    for (const auto* p : profiles) {
      const auto& starts = p->placements.starts;
      if (std::find(starts.begin(), starts.end(), slice) == starts.end()) continue;
      const unsigned size = p->placements.size;
      bool free = slice + size <= M;
      for (unsigned k = slice; free && k < slice + size; ++k)
        free = !covered[k];
      if (!free) continue;
      for (unsigned k = slice; k < slice + size; ++k)
        covered[k] = true;
      gis.emplace_back(slice, p);
      walk(slice + 1);
      gis.pop_back();
      for (unsigned k = slice; k < slice + size; ++k)
        covered[k] = false;
    }
  };
  walk(0);
  return out;
}

std::set<Plain> plain_set(const MigGeometry& g, const std::vector<MigLayout>& layouts)
{
  std::set<Plain> out;
  for (const auto& l : layouts) {
    Plain plain;
    for (const auto& gi : l)
      plain.emplace(gi.start, g.profiles()[gi.profile].name);
    out.insert(plain);
  }
  return out;
}

} // namespace

// ---------------------------------------------------------------------------------------------------------
// The bundled tables

TEST_CASE("bundled MIG tables load, every value tagged and sourced, consistent with their device", "[mig]")
{
  for (const std::string name : {"a100-40gb", "a100-80gb", "h100-80gb"}) {
    INFO(name);
    const auto t = load_bundled(name);
    CHECK(t.name == name);
    CHECK(static_cast<unsigned>(t.compute_slices.value) == 7);
    CHECK(static_cast<unsigned>(t.memory_slices.value) == 8);
    CHECK(static_cast<unsigned>(t.max_gpu_instances.value) == 7);
    check_sourced(t.compute_slices, "compute_slices");
    check_sourced(t.memory_slices, "memory_slices");
    check_sourced(t.max_gpu_instances, "max_gpu_instances");
    CHECK(t.reconfiguration_scope == MigReconfigurationScope::AFFECTED_INSTANCES);
    CHECK(t.reconfiguration_scope_evidence == Evidence::DOCUMENTED);
    CHECK_FALSE(t.reconfiguration_scope_source.empty());
    // Reconfiguration latency: NOT FOUND in the reference (§4.2, §7); an estimate that says so.
    CHECK_THAT(t.reconfiguration_latency_s.value, WithinRel(5.0, 1e-12));
    CHECK(t.reconfiguration_latency_s.evidence == Evidence::ESTIMATE);
    CHECK_THAT(t.reconfiguration_latency_s.source, ContainsSubstring("NOT FOUND"));
    REQUIRE_FALSE(t.profiles.empty());
    for (const auto& p : t.profiles) {
      INFO(p.name);
      check_sourced(p.id, "id");
      check_sourced(p.compute_slices, "compute_slices");
      check_sourced(p.memory_bytes, "memory");
      check_sourced(p.sms, "sms");
      check_sourced(p.max_instances, "max_instances");
      CHECK_FALSE(p.placements.source.empty());
      CHECK_FALSE(p.placements.starts.empty());
    }

    // The device the table names exists and can hold every profile: 7g's SMs within the GPU's SMs, every
    // GI's memory within the GPU's memory.
    const std::string device_file = "models/devices/" + t.device + ".yaml";
    const auto d = load_device_spec(read_source_file(device_file), device_file);
    CHECK(d.vendor == "NVIDIA");
    const MigGeometry g(t);
    for (const auto& p : g.profiles()) {
      INFO(p.name);
      CHECK(p.sms <= d.compute_units.value);
      CHECK(p.memory_bytes <= d.memory_bytes.value);
    }
  }
}

TEST_CASE("A100-40GB table: the reference's §4.2 rows", "[mig]")
{
  const auto g = geometry("a100-40gb");
  CHECK(g.device() == "a100-40gb");
  struct Row {
    const char* name;
    unsigned id, g, mem_slices, sms, max;
    double mem_gib;
    std::vector<unsigned> starts;
  };
  const std::vector<Row> rows{
      {"1g.5gb", 19, 1, 1, 14, 7, 4.75, {0, 1, 2, 3, 4, 5, 6}},
      {"1g.5gb+me", 20, 1, 1, 14, 1, 4.75, {0, 1, 2, 3, 4, 5, 6}},
      {"1g.10gb", 15, 1, 2, 14, 4, 9.75, {0, 2, 4, 6}},
      {"2g.10gb", 14, 2, 2, 28, 3, 9.75, {0, 2, 4}},
      {"3g.20gb", 9, 3, 4, 42, 2, 19.62, {0, 4}},
      {"4g.20gb", 5, 4, 4, 56, 1, 19.62, {0}},
      {"7g.40gb", 0, 7, 8, 98, 1, 39.38, {0}},
  };
  REQUIRE(g.profiles().size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& p = g.profiles()[i];
    INFO(rows[i].name);
    CHECK(p.name == rows[i].name);
    CHECK(p.id == rows[i].id);
    CHECK(p.compute_slices == rows[i].g);
    CHECK(p.memory_slices == rows[i].mem_slices);
    CHECK(p.sms == rows[i].sms);
    CHECK(p.max_instances == rows[i].max);
    CHECK_THAT(p.memory_bytes, WithinRel(rows[i].mem_gib * GIB, 1e-12));
    CHECK(p.starts == rows[i].starts);
  }
  // 14 SMs per slice on A100: 98 of the 108 SMs usable under MIG (§4.2).
  for (const auto& p : g.profiles())
    CHECK(p.sms == 14 * p.compute_slices);
}

TEST_CASE("A100-80GB table: the reference's §4.2 list, IDs and placements as estimates", "[mig]")
{
  const auto t = load_bundled("a100-80gb");
  const MigGeometry g(t);
  const std::vector<std::tuple<std::string, unsigned, double, unsigned>> rows{
      {"1g.10gb", 7, 9.5, 14},   {"1g.20gb", 4, 19.5, 14},  {"2g.20gb", 3, 19.5, 28},
      {"3g.40gb", 2, 39.25, 42}, {"4g.40gb", 1, 39.25, 56}, {"7g.80gb", 1, 79.0, 98}};
  REQUIRE(g.profiles().size() == rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& [name, max, gib, sms] = rows[i];
    INFO(name);
    CHECK(g.profiles()[i].name == name);
    CHECK(g.profiles()[i].max_instances == max);
    CHECK_THAT(g.profiles()[i].memory_bytes, WithinRel(gib * GIB, 1e-12));
    CHECK(g.profiles()[i].sms == sms);
    // Not in the reference for this GPU: taken from the A100-40GB and tagged so.
    CHECK(t.profiles[i].id.evidence == Evidence::ESTIMATE);
    CHECK(t.profiles[i].placements.evidence == Evidence::ESTIMATE);
  }
  // Same slice geometry as the A100-40GB: same starts profile by profile (1g.10gb ↔ 1g.5gb, ...).
  const auto a40 = geometry("a100-40gb");
  for (const auto& [p80, p40] : std::vector<std::pair<std::string, std::string>>{{"1g.10gb", "1g.5gb"},
                                                                                 {"1g.20gb", "1g.10gb"},
                                                                                 {"2g.20gb", "2g.10gb"},
                                                                                 {"3g.40gb", "3g.20gb"},
                                                                                 {"4g.40gb", "4g.20gb"},
                                                                                 {"7g.80gb", "7g.40gb"}}) {
    const auto& a = g.profiles()[g.profile_index(p80)];
    const auto& b = a40.profiles()[a40.profile_index(p40)];
    CHECK(a.starts == b.starts);
    CHECK(a.memory_slices == b.memory_slices);
    CHECK(a.id == b.id);
  }
}

TEST_CASE("H100-80GB table: SM counts per profile, 7g is not 7 x 1g", "[mig]")
{
  const auto t = load_bundled("h100-80gb");
  const MigGeometry g(t);
  CHECK(g.device() == "h100-80gb-sxm");
  const std::map<std::string, unsigned> sms{{"1g.10gb", 16}, {"1g.10gb+me", 16}, {"1g.20gb", 26},
                                            {"2g.20gb", 32}, {"3g.40gb", 60},    {"4g.40gb", 64},
                                            {"7g.80gb", 132}};
  REQUIRE(g.profiles().size() == sms.size());
  for (const auto& [name, n] : sms) {
    INFO(name);
    CHECK(g.profiles()[g.profile_index(name)].sms == n);
  }
  const auto& one = g.profiles()[g.profile_index("1g.10gb")];
  const auto& seven = g.profiles()[g.profile_index("7g.80gb")];
  CHECK(seven.sms == 132);
  CHECK(7 * one.sms == 112);
  CHECK(seven.sms != 7 * one.sms);
  // Seven 1g instances hold 112 SMs; the single 7g instance holds all 132 (reference §4.2).
  const auto sevens = layout(g, {{"1g.10gb", 0},
                                 {"1g.10gb", 1},
                                 {"1g.10gb", 2},
                                 {"1g.10gb", 3},
                                 {"1g.10gb", 4},
                                 {"1g.10gb", 5},
                                 {"1g.10gb", 6}});
  CHECK(g.check(sevens).ok());
  CHECK(g.sms(sevens) == 112);
  CHECK(g.sms(layout(g, {{"7g.80gb", 0}})) == 132);
  CHECK_THAT(g.profiles()[g.profile_index("3g.40gb")].memory_bytes, WithinRel(39.5 * GIB, 1e-12));
  // Placements shown in H100-LGIP are measurements; the others are the A100's, tagged as estimates.
  for (const auto& p : t.profiles) {
    INFO(p.name);
    const bool shown = p.name == "2g.20gb" || p.name == "3g.40gb";
    CHECK(p.placements.evidence == (shown ? Evidence::MEASUREMENT : Evidence::ESTIMATE));
  }
  CHECK(g.profiles()[g.profile_index("2g.20gb")].starts == std::vector<unsigned>{0, 2, 4});
  CHECK(g.profiles()[g.profile_index("3g.40gb")].starts == std::vector<unsigned>{0, 4});
}

// ---------------------------------------------------------------------------------------------------------
// Validation of layouts

TEST_CASE("the layouts §4.2 lists as valid are accepted", "[mig]")
{
  const auto g = geometry("a100-40gb");
  const std::vector<std::vector<std::pair<std::string, unsigned>>> valid{
      {{"4g.20gb", 0}, {"3g.20gb", 4}},
      {{"3g.20gb", 0}, {"3g.20gb", 4}},
      {{"2g.10gb", 0}, {"2g.10gb", 2}, {"3g.20gb", 4}},
      {{"1g.5gb", 0},
       {"1g.5gb", 1},
       {"1g.5gb", 2},
       {"1g.5gb", 3},
       {"1g.5gb", 4},
       {"1g.5gb", 5},
       {"1g.5gb", 6}},
      {{"7g.40gb", 0}},
      {{"1g.10gb", 0}, {"1g.10gb", 2}, {"1g.10gb", 4}, {"1g.10gb", 6}},
      {{"2g.10gb", 0}, {"2g.10gb", 2}, {"2g.10gb", 4}, {"1g.5gb", 6}},
      {{"4g.20gb", 0}, {"2g.10gb", 4}, {"1g.5gb+me", 6}},
      {{"3g.20gb", 4}, {"1g.5gb", 0}}, // partial layouts are valid too, in any order
      {},
  };
  for (const auto& gis : valid) {
    const auto l = layout(g, gis);
    INFO(g.describe(l));
    const auto v = g.check(l);
    CHECK(v.ok());
    CHECK(v.reason.empty());
  }
  // 4g + 3g: 4 + 3 = 7 compute slices, 4 + 4 = 8 memory slices, 56 + 42 = 98 SMs (derived in §4.2).
  const auto split = layout(g, {{"4g.20gb", 0}, {"3g.20gb", 4}});
  CHECK(g.used_compute_slices(split) == 7);
  CHECK(g.used_memory_mask(split) == 0xFFu);
  CHECK(g.sms(split) == 98);
  CHECK_THAT(g.memory_bytes(split), WithinRel(2 * 19.62 * GIB, 1e-12));
}

TEST_CASE("illegal layouts are rejected with the right reason", "[mig]")
{
  const auto g = geometry("a100-40gb");
  auto verdict = [&](const std::vector<std::pair<std::string, unsigned>>& gis) {
    return g.check(layout(g, gis));
  };

  SECTION("4g at 4: not one of its placements")
  {
    const auto v = verdict({{"4g.20gb", 4}});
    CHECK(v.problem == MigProblem::START_NOT_ALLOWED);
    CHECK(v.instance == 0);
    CHECK(v.reason == "4g.20gb@4: start 4 is not allowed for 4g.20gb; allowed starts: 0");
    // §4.2: "A 4g+3g split must put the 4g at 0": 3g@0 + 4g@4 is refused for the 4g.
    const auto w = verdict({{"3g.20gb", 0}, {"4g.20gb", 4}});
    CHECK(w.problem == MigProblem::START_NOT_ALLOWED);
    CHECK(w.instance == 1);
    CHECK(verdict({{"2g.10gb", 1}}).problem == MigProblem::START_NOT_ALLOWED);
    CHECK(verdict({{"1g.5gb", 7}}).problem == MigProblem::START_NOT_ALLOWED);
    CHECK(verdict({{"2g.10gb", 6}}).problem == MigProblem::START_NOT_ALLOWED);
  }
  SECTION("overlapping 3g + 4g")
  {
    const auto v = verdict({{"3g.20gb", 0}, {"4g.20gb", 0}});
    CHECK(v.problem == MigProblem::OVERLAP);
    CHECK(v.instance == 1);
    CHECK(v.other == 0);
    CHECK(v.reason == "4g.20gb@0 overlaps 3g.20gb@0 on memory slices 0-3");
    const auto w = verdict({{"1g.10gb", 6}, {"1g.5gb", 6}});
    CHECK(w.problem == MigProblem::OVERLAP);
    CHECK(w.reason == "1g.5gb@6 overlaps 1g.10gb@6 on memory slice 6");
    CHECK(verdict({{"4g.20gb", 0}, {"2g.10gb", 2}}).problem == MigProblem::OVERLAP);
    // Counting rules come first: 7g + 1g both overlap and need 8 compute slices; the latter is reported.
    CHECK(verdict({{"7g.40gb", 0}, {"1g.5gb", 3}}).problem == MigProblem::COMPUTE_SLICES_EXCEEDED);
    CHECK(verdict({{"3g.20gb", 4}, {"2g.10gb", 4}}).problem == MigProblem::OVERLAP);
  }
  SECTION("8 x 1g: more instances of 1g.5gb than its maximum")
  {
    const auto v = verdict({{"1g.5gb", 0},
                            {"1g.5gb", 1},
                            {"1g.5gb", 2},
                            {"1g.5gb", 3},
                            {"1g.5gb", 4},
                            {"1g.5gb", 5},
                            {"1g.5gb", 6},
                            {"1g.5gb", 0}});
    CHECK(v.problem == MigProblem::TOO_MANY_OF_PROFILE);
    CHECK(v.instance == 7);
    CHECK(v.reason == "1g.5gb@0: 8 GPU instances of 1g.5gb; at most 7");
    // Only one instance gets the media engines.
    const auto w = verdict({{"1g.5gb+me", 0}, {"1g.5gb+me", 1}});
    CHECK(w.problem == MigProblem::TOO_MANY_OF_PROFILE);
    CHECK(w.reason == "1g.5gb+me@1: 2 GPU instances of 1g.5gb+me; at most 1");
    CHECK(verdict({{"3g.20gb", 0}, {"3g.20gb", 4}, {"3g.20gb", 0}}).problem ==
          MigProblem::TOO_MANY_OF_PROFILE);
  }
  SECTION("unknown profile index")
  {
    const auto v = g.check(MigLayout{MigInstance{99, 0}});
    CHECK(v.problem == MigProblem::UNKNOWN_PROFILE);
    CHECK(v.reason == "instance 0: unknown profile index 99 (a100-40gb has 7 profiles)");
    CHECK_THROWS_WITH(
        g.profile_index("5g.25gb"),
        "unknown MIG profile '5g.25gb' on a100-40gb; valid: 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, "
        "3g.20gb, 4g.20gb, 7g.40gb");
  }
  SECTION("more than 7 GPU instances, more compute slices than the GPU has (toy table: 16 memory slices)")
  {
    // The real tables cannot reach these limits without an overlap or a per-profile excess first, so a
    // made-up table with 16 memory slices, 6 compute slices and at most 7 GIs checks them.
    const MigGeometry toy(load_toy());
    MigLayout eight;
    for (unsigned i = 0; i < 4; ++i) {
      eight.push_back(toy.instance("1g.1gb", i));
      eight.push_back(toy.instance("1g.2gb", 8 + 2 * i));
    }
    const auto v = toy.check(eight);
    CHECK(v.problem == MigProblem::TOO_MANY_INSTANCES);
    CHECK(v.instance == 7);
    CHECK(v.reason == "1g.2gb@14: 8 GPU instances; at most 7 per GPU");
    MigLayout seven;
    for (unsigned i = 0; i < 7; ++i)
      seven.push_back(toy.instance("1g.1gb", i));
    const auto w = toy.check(seven);
    CHECK(w.problem == MigProblem::COMPUTE_SLICES_EXCEEDED);
    CHECK(w.instance == 6);
    CHECK(w.reason == "1g.1gb@6: the GPU instances need 7 compute slices; the GPU has 6");
    seven.pop_back();
    CHECK(toy.check(seven).ok());
    CHECK_FALSE(toy.can_place(seven, toy.profile_index("1g.2gb"))); // 6 of 6 compute slices used
  }
}

// ---------------------------------------------------------------------------------------------------------
// Enumeration

TEST_CASE("A100-40GB maximal layouts: library vs brute force vs the published 19", "[mig]")
{
  const auto t = load_bundled("a100-40gb");
  const MigGeometry g(t);

  // NVIDIA's MIG user guide is said to draw 19 valid combinations for A100-40GB ("Supported MIG Profiles",
  // NV-MIG; the count comes from the task brief, the page was not reachable to re-check it). The figure uses
  // the five profiles that existed at launch (1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb) and shows full
  // partitions: sets to which no further instance fits. That notion gives 19. Derivation from the table:
  //  - 7g.40gb@0 takes all 8 memory slices: 1 layout.
  //  - otherwise memory slices 0-3 hold 4g@0, or 3g@0, or, for each of the pairs {0,1} and {2,3},
  //    a 2g or two 1g: 2 + 2·2 = 6 ways;
  //  - slices 4-7 hold 3g@4 or {a 2g@4 or 1g@4 + 1g@5} + 1g@6 (slice 7 is reachable only by 3g@4 and 7g):
  //    1 + 2 = 3 ways;
  //  - 6 · 3 + 1 = 19, and no combination exceeds 7 GIs, 7 compute slices or a profile's maximum.
  const std::vector<std::string> launch{"1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"};
  const auto ours = g.maximal_layouts(g.profile_indices(launch));
  const auto brute = brute_force(t, {launch.begin(), launch.end()});
  CHECK(ours.size() == 19);
  CHECK(brute.maximal.size() == 19);
  CHECK(plain_set(g, ours) == std::set<Plain>(brute.maximal.begin(), brute.maximal.end()));
  for (const auto& l : ours) {
    INFO(g.describe(l));
    CHECK(g.check(l).ok());
    CHECK(g.is_maximal(l, g.profile_indices(launch)));
  }

  // The full table adds 1g.10gb (at 0, 2, 4, 6; 2 memory slices) and 1g.5gb+me (one per GPU). Same
  // derivation: slices 0-3 hold 4g, 3g or 3·3 pair choices (2g, 1g+1g, 1g.10gb) = 11 ways; slices 4-7 hold
  // 3g@4 or {3 choices for 4-5} x {1g.5gb@6, 1g.10gb@6} = 7 ways; 11·7 + 1 = 78 layouts without +me, and
  // each layout with k instances of 1g.5gb gives k more with one of them replaced by 1g.5gb+me. Summing k:
  // over the 11 ways for slices 0-3 the 1g.5gb count adds up to 12 (only "1g+1g" pairs hold them: 2 pairs x
  // 2 instances x 3 choices for the other pair); over the 7 ways for 4-7 it adds up to 7 (1g@4+1g@5 twice
  // x 2, plus 1g.5gb@6 in 3 ways). So 12·7 + 11·7 = 161 layouts with +me, and 78 + 161 = 239 in all.
  const auto full = g.maximal_layouts();
  const auto brute_full = brute_force(t, {});
  CHECK(plain_set(g, full) == std::set<Plain>(brute_full.maximal.begin(), brute_full.maximal.end()));
  const auto no_me =
      g.maximal_layouts(g.profile_indices({"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}));
  CHECK(no_me.size() == 78);
  std::size_t with_me = 0;
  const auto one_g = g.profile_index("1g.5gb");
  for (const auto& l : no_me)
    with_me += static_cast<std::size_t>(
        std::count_if(l.begin(), l.end(), [&](const MigInstance& gi) { return gi.profile == one_g; }));
  CHECK(full.size() == no_me.size() + with_me);
  CHECK(full.size() == 239);

  // Every legal (not only maximal) layout: library and brute force agree set for set.
  const auto all = g.all_layouts();
  CHECK(plain_set(g, all) == std::set<Plain>(brute_full.all.begin(), brute_full.all.end()));
  CHECK(all.size() == brute_full.all.size());
  for (const auto& l : all)
    CHECK(std::is_sorted(l.begin(), l.end(), [](const MigInstance& a, const MigInstance& b) {
      return std::tie(a.start, a.profile) < std::tie(b.start, b.profile);
    }));
}

TEST_CASE("A100-80GB and H100 enumerations agree with the brute force", "[mig]")
{
  for (const std::string name : {"a100-80gb", "h100-80gb"}) {
    INFO(name);
    const auto t = load_bundled(name);
    const MigGeometry g(t);
    const auto brute = brute_force(t, {});
    CHECK(plain_set(g, g.maximal_layouts()) == std::set<Plain>(brute.maximal.begin(), brute.maximal.end()));
    CHECK(plain_set(g, g.all_layouts()) == std::set<Plain>(brute.all.begin(), brute.all.end()));
    // The A100-80GB table has no +me profile: its maximal layouts are the 78 of the A100-40GB without +me.
    if (name == "a100-80gb") CHECK(g.maximal_layouts().size() == 78);
    if (name == "h100-80gb") CHECK(g.maximal_layouts().size() == 239);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Free space, fusion / fission, reconfiguration

TEST_CASE("free-space queries: can profile P be placed now, and where", "[mig]")
{
  const auto g = geometry("a100-40gb");
  const auto p3 = g.profile_index("3g.20gb");
  const auto p4 = g.profile_index("4g.20gb");
  const auto p2 = g.profile_index("2g.10gb");
  const auto p1 = g.profile_index("1g.5gb");
  const auto p1x2 = g.profile_index("1g.10gb");
  const auto p7 = g.profile_index("7g.40gb");

  CHECK(g.lowest_start({}, p3) == 0u);
  CHECK(g.legal_starts({}, p3) == std::vector<unsigned>{0, 4});
  CHECK(g.lowest_start({}, p7) == 0u);

  const auto four = layout(g, {{"4g.20gb", 0}});
  CHECK(g.lowest_start(four, p3) == 4u);
  CHECK_FALSE(g.can_place(four, p4)); // the only 4g placement is taken (and max 1)
  CHECK(g.legal_starts(four, p2) == std::vector<unsigned>{4});
  CHECK(g.legal_starts(four, p1) == std::vector<unsigned>{4, 5, 6});
  CHECK_FALSE(g.can_place(four, p7));

  const auto one = layout(g, {{"1g.5gb", 0}});
  CHECK(g.lowest_start(one, p2) == 2u);
  CHECK(g.lowest_start(one, p3) == 4u);
  CHECK_FALSE(g.can_place(one, p4));

  // 3 x 2g + 1g.5gb@6 is full: nothing fits, although memory slice 7 is free.
  const auto full = layout(g, {{"2g.10gb", 0}, {"2g.10gb", 2}, {"2g.10gb", 4}, {"1g.5gb", 6}});
  for (std::size_t p = 0; p < g.profiles().size(); ++p)
    CHECK_FALSE(g.can_place(full, p));
  CHECK(g.is_maximal(full));
  CHECK(g.used_memory_mask(full) == 0x7Fu);

  // Per-profile maximum: four 1g.10gb fill the GPU; the fifth has no place anyway, but two 3g block a third.
  CHECK(g.legal_starts(layout(g, {{"1g.10gb", 0}, {"1g.10gb", 2}}), p1x2) == std::vector<unsigned>{4, 6});
  CHECK_FALSE(g.can_place(layout(g, {{"3g.20gb", 0}, {"3g.20gb", 4}}), p3));
}

TEST_CASE("make_room: fewest empty instances to destroy for a profile", "[mig]")
{
  const auto g = geometry("a100-40gb");
  const auto p3 = g.profile_index("3g.20gb");
  const auto p4 = g.profile_index("4g.20gb");
  const auto current =
      layout(g, {{"1g.5gb", 0}, {"1g.5gb", 1}, {"2g.10gb", 2}, {"2g.10gb", 4}, {"1g.5gb", 6}});
  const std::vector<bool> idle(current.size(), false);

  // 3g fits at 0 (destroys 3 GIs, 4 compute slices) or at 4 (destroys 2 GIs): 4 is cheaper.
  auto change = g.make_room(current, idle, p3);
  REQUIRE(change);
  CHECK(change->destroy == std::vector<std::size_t>{3, 4});
  CHECK(change->create == MigLayout{g.instance("3g.20gb", 4)});
  CHECK(g.check_change(current, idle, *change).ok());
  CHECK(g.describe(g.apply(current, *change)) == "{1g.5gb@0, 1g.5gb@1, 2g.10gb@2, 3g.20gb@4}");

  // With 2g@4 busy, only the placement at 0 remains.
  std::vector<bool> busy = idle;
  busy[3] = true;
  change = g.make_room(current, busy, p3);
  REQUIRE(change);
  CHECK(change->destroy == std::vector<std::size_t>{0, 1, 2});
  CHECK(change->create == MigLayout{g.instance("3g.20gb", 0)});
  // And with 1g@0 busy too, 3g cannot be had without draining.
  busy[0] = true;
  CHECK_FALSE(g.make_room(current, busy, p3));
  // 4g only at 0: destroys the three GIs there.
  change = g.make_room(current, idle, p4);
  REQUIRE(change);
  CHECK(change->destroy == std::vector<std::size_t>{0, 1, 2});

  // Free space first: nothing destroyed when the profile fits.
  const auto half = layout(g, {{"4g.20gb", 0}});
  change = g.make_room(half, {true}, p3);
  REQUIRE(change);
  CHECK(change->destroy.empty());
  CHECK(change->create == MigLayout{g.instance("3g.20gb", 4)});
}

TEST_CASE("fusion and fission helpers", "[mig]")
{
  const auto g = geometry("a100-40gb");
  const auto sevens = layout(g, {{"1g.5gb", 0},
                                 {"1g.5gb", 1},
                                 {"1g.5gb", 2},
                                 {"1g.5gb", 3},
                                 {"1g.5gb", 4},
                                 {"1g.5gb", 5},
                                 {"1g.5gb", 6}});
  // Fusion: two 1g → one 2g at their slices; three 1g at 4-6 → one 3g@4 (slice 7 was free).
  auto f = g.fuse(sevens, {0, 1}, g.profile_index("2g.10gb"));
  REQUIRE(f);
  CHECK(f->create == MigLayout{g.instance("2g.10gb", 0)});
  CHECK(g.check(g.apply(sevens, *f)).ok());
  f = g.fuse(sevens, {4, 5, 6}, g.profile_index("3g.20gb"));
  REQUIRE(f);
  CHECK(f->create == MigLayout{g.instance("3g.20gb", 4)});
  CHECK(g.describe(g.apply(sevens, *f)) == "{1g.5gb@0, 1g.5gb@1, 1g.5gb@2, 1g.5gb@3, 3g.20gb@4}");
  // Not enough freed: 1g@1 + 1g@2 cannot become a 2g (2g starts at 0 or 2, both still half occupied).
  CHECK_FALSE(g.fuse(sevens, {1, 2}, g.profile_index("2g.10gb")));
  // The new instance must reuse freed slices: freeing slice 6 does not make room for a 4g at 0.
  CHECK_FALSE(g.fuse(sevens, {6}, g.profile_index("4g.20gb")));

  // Fission: 7g → 3g@0 + 3g@4; 4g@0 → 2g@0 + 2g@2; 3g@4 → 1g.10gb@4 + 1g.10gb@6; 3g@0 → four 1g.5gb
  // (0-3, within the 7 compute slices: 4 + 3 of the 3g@4).
  const auto p7 = layout(g, {{"7g.40gb", 0}});
  auto s = g.split(p7, 0, g.profile_index("3g.20gb"));
  REQUIRE(s);
  CHECK(s->destroy == std::vector<std::size_t>{0});
  CHECK(s->create == layout(g, {{"3g.20gb", 0}, {"3g.20gb", 4}}));
  const auto halves = layout(g, {{"4g.20gb", 0}, {"3g.20gb", 4}});
  s = g.split(halves, 0, g.profile_index("2g.10gb"));
  REQUIRE(s);
  CHECK(s->create == layout(g, {{"2g.10gb", 0}, {"2g.10gb", 2}}));
  s = g.split(halves, 1, g.profile_index("1g.10gb"));
  REQUIRE(s);
  CHECK(s->create == layout(g, {{"1g.10gb", 4}, {"1g.10gb", 6}}));
  const auto threes = layout(g, {{"3g.20gb", 0}, {"3g.20gb", 4}});
  s = g.split(threes, 0, g.profile_index("1g.5gb"));
  REQUIRE(s);
  CHECK(s->create == layout(g, {{"1g.5gb", 0}, {"1g.5gb", 1}, {"1g.5gb", 2}, {"1g.5gb", 3}}));
  CHECK(g.check(g.apply(threes, *s)).ok());
  // A 2g cannot be split into a 3g.
  CHECK_FALSE(g.split(layout(g, {{"2g.10gb", 0}}), 0, g.profile_index("3g.20gb")));
}

TEST_CASE("reconfiguration rules: only empty instances may be destroyed", "[mig]")
{
  const auto t = load_bundled("a100-40gb");
  const MigGeometry g(t);
  const auto current = layout(g, {{"4g.20gb", 0}, {"3g.20gb", 4}});
  const MigChange to_ones{{1}, layout(g, {{"1g.5gb", 4}, {"1g.5gb", 5}, {"1g.5gb", 6}})};

  // affected-instances: the busy 4g keeps running while the empty 3g is split.
  CHECK(g.check_change(current, {true, false}, to_ones).ok());
  const auto v = g.check_change(current, {false, true}, to_ones);
  CHECK(v.problem == MigProblem::INSTANCE_BUSY);
  CHECK(v.instance == 1);
  CHECK(v.reason ==
        "cannot destroy 3g.20gb@4: it holds jobs (only empty instances may be destroyed; drain it "
        "first)");
  // Bad indices, and a result that is not legal (indices into the resulting layout).
  CHECK(g.check_change(current, {false, false}, MigChange{{2}, {}}).problem == MigProblem::NO_SUCH_INSTANCE);
  CHECK(g.check_change(current, {false, false}, MigChange{{1, 1}, {}}).problem ==
        MigProblem::NO_SUCH_INSTANCE);
  const auto r = g.check_change(current, {false, false}, MigChange{{1}, layout(g, {{"2g.10gb", 2}})});
  CHECK(r.problem == MigProblem::OVERLAP);
  CHECK(r.instance == 1); // {4g.20gb@0, 2g.10gb@2}: the created 2g overlaps the kept 4g
  CHECK(r.other == 0);
  CHECK_THROWS_AS(g.check_change(current, {false}, to_ones), std::invalid_argument);

  // whole-gpu (the toy table's scope): any busy instance blocks every change.
  auto whole = t;
  whole.reconfiguration_scope = MigReconfigurationScope::WHOLE_GPU;
  const MigGeometry strict(whole);
  const auto w = strict.check_change(current, {true, false}, to_ones);
  CHECK(w.problem == MigProblem::GPU_BUSY);
  CHECK(w.reason ==
        "cannot reconfigure a100-40gb while 4g.20gb@0 holds jobs (reconfiguration scope whole-gpu: "
        "drain the GPU first)");
  CHECK(strict.check_change(current, {false, false}, to_ones).ok());
  CHECK_FALSE(strict.make_room(current, {true, false}, strict.profile_index("1g.5gb")));
  const auto toy = load_toy();
  CHECK(toy.reconfiguration_scope == MigReconfigurationScope::WHOLE_GPU);
  CHECK_THAT(toy.reconfiguration_latency_s.value, WithinRel(120.0, 1e-12));
  CHECK(g.reconfiguration_latency_s() == 5.0);
}

// ---------------------------------------------------------------------------------------------------------
// MPS

TEST_CASE("MPS: 48 clients per GPU, proportional limit per MIG compute instance, thread percentage", "[mig]")
{
  CHECK(mps_max_clients() == 48);
  CHECK(mps_max_clients() == max_residents(SharingMode::MPS));
  // floor(48 · c / 7): 1c 6, 2c 13, 3c 20, 4c 27, 7c 48.
  const std::map<unsigned, unsigned> expected{{1, 6}, {2, 13}, {3, 20}, {4, 27}, {7, 48}};
  for (const auto& [c, n] : expected)
    CHECK(mps_max_clients_on_mig(c, 7) == n);
  // A full GPU's instances never exceed 48 together: 7 x 1c = 42, 4c + 3c = 47, 3 x 2c + 1c = 45.
  CHECK(7 * mps_max_clients_on_mig(1, 7) <= 48);
  CHECK(mps_max_clients_on_mig(4, 7) + mps_max_clients_on_mig(3, 7) == 47);
  CHECK(3 * mps_max_clients_on_mig(2, 7) + mps_max_clients_on_mig(1, 7) == 45);
  CHECK_THROWS_AS(mps_max_clients_on_mig(0, 7), std::invalid_argument);
  CHECK_THROWS_AS(mps_max_clients_on_mig(8, 7), std::invalid_argument);

  CHECK(valid_active_thread_percentage(1));
  CHECK(valid_active_thread_percentage(100));
  CHECK(valid_active_thread_percentage(12.5));
  CHECK_FALSE(valid_active_thread_percentage(0));
  CHECK_FALSE(valid_active_thread_percentage(0.5));
  CHECK_FALSE(valid_active_thread_percentage(100.5));
  CHECK_FALSE(valid_active_thread_percentage(-10));
  CHECK_FALSE(valid_active_thread_percentage(std::numeric_limits<double>::quiet_NaN()));
  CHECK_FALSE(valid_active_thread_percentage(std::numeric_limits<double>::infinity()));
  CHECK(active_thread_share(50) == 0.5);
  CHECK(active_thread_share(100) == 1.0);
  CHECK_THROWS_WITH(active_thread_share(0), "MPS active-thread percentage must be in [1, 100] (got 0)");
  CHECK_THROWS_WITH(active_thread_share(150), "MPS active-thread percentage must be in [1, 100] (got 150)");
}

// ---------------------------------------------------------------------------------------------------------
// NVIDIA device files (reference §4.1)

TEST_CASE("NVIDIA device files match the reference's §4.1", "[mig][device]")
{
  struct Expected {
    const char* name;
    double sms, memory, bandwidth, freq_max, tdp;
  };
  // Memory: what nvidia-smi reports where the reference has it (A100-40GB 40537 MiB, SMI-A100; H100 81559
  // MiB, SMI-H100), else the vendor's 80 GB read as 80 GiB (HBM sizes are binary: 40 GB = 40960 MiB).
  constexpr double MIB = 1024.0 * 1024.0;
  for (const auto& e : {Expected{"a100-40gb", 108, 40537 * MIB, 1.555e12, 1410e6, 400},
                        Expected{"a100-80gb", 108, 80 * GIB, 2.039e12, 1410e6, 400},
                        Expected{"h100-80gb-sxm", 132, 81559 * MIB, 3.35e12, 1980e6, 700}}) {
    INFO(e.name);
    const std::string rel = std::string("models/devices/") + e.name + ".yaml";
    const auto d = load_device_spec(read_source_file(rel), rel);
    CHECK(d.name == e.name);
    CHECK(d.devices_per_card == 1);
    CHECK_THAT(d.compute_units.value, WithinRel(e.sms, 1e-12));
    CHECK_THAT(d.memory_bytes.value, WithinRel(e.memory, 1e-12));
    CHECK_THAT(d.mem_bandwidth.value, WithinRel(e.bandwidth, 1e-12));
    CHECK_THAT(d.freq_max_hz.value, WithinRel(e.freq_max, 1e-12));
    CHECK_THAT(d.card_tdp_w.value, WithinRel(e.tdp, 1e-12));
    CHECK(d.compute_units.evidence == Evidence::VENDOR_SPEC);
    CHECK(d.card_tdp_w.evidence == Evidence::VENDOR_SPEC);
    for (const auto* s : {&d.compute_units, &d.memory_bytes, &d.mem_bandwidth, &d.freq_max_hz,
                          &d.freq_default_hz, &d.freq_min_hz, &d.card_tdp_w})
      CHECK_FALSE(s->source.empty());
    const auto& modes = d.sharing_modes;
    CHECK(std::find(modes.begin(), modes.end(), SharingMode::MPS) != modes.end());
  }
}

// ---------------------------------------------------------------------------------------------------------
// Malformed tables

namespace {
// A valid table, one key per line, so tests can break one line and know its number.
const std::string VALID = "format: colocsim-mig/1\n"                                               // 1
                          "name: t\n"                                                              // 2
                          "device: d\n"                                                            // 3
                          "compute_slices: {value: 7, tag: vendor-spec, source: s}\n"              // 4
                          "memory_slices: {value: 8, tag: vendor-spec, source: s}\n"               // 5
                          "max_gpu_instances: {value: 7, tag: vendor-spec, source: s}\n"           // 6
                          "reconfiguration:\n"                                                     // 7
                          "  scope: {value: affected-instances, tag: documented, source: s}\n"     // 8
                          "  latency: {value: 5s, tag: estimate, source: s}\n"                     // 9
                          "profiles:\n"                                                            // 10
                          "  - name: 2g.10gb\n"                                                    // 11
                          "    id: {value: 14, tag: vendor-spec, source: s}\n"                     // 12
                          "    compute_slices: {value: 2, tag: vendor-spec, source: s}\n"          // 13
                          "    memory: {value: 9.75GiB, tag: vendor-spec, source: s}\n"            // 14
                          "    sms: {value: 28, tag: vendor-spec, source: s}\n"                    // 15
                          "    max_instances: {value: 3, tag: vendor-spec, source: s}\n"           // 16
                          "    placements: {value: \"{0,2,4}:2\", tag: vendor-spec, source: s}\n"; // 17
} // namespace

TEST_CASE("the test's inline MIG table is valid", "[mig]")
{
  const auto t = load_mig_table(VALID, "mig.yaml");
  REQUIRE(t.profiles.size() == 1);
  CHECK(t.profiles[0].placements.starts == std::vector<unsigned>{0, 2, 4});
  CHECK(t.profiles[0].placements.size == 2);
  CHECK(t.profiles[0].placements.evidence == Evidence::VENDOR_SPEC);
  CHECK_THAT(t.profiles[0].memory_bytes.value, WithinRel(9.75 * GIB, 1e-12));
}

TEST_CASE("malformed MIG tables name the place and the rule", "[mig]")
{
  CHECK(error_of(replace(VALID, "colocsim-mig/1", "colocsim-mig/2")) ==
        "mig.yaml:1:9: format: expected 'colocsim-mig/1'");
  CHECK(error_of(replace(VALID, "    sms: {value: 28, tag: vendor-spec, source: s}",
                         "    sms: {value: 28, source: s}")) ==
        "mig.yaml:15:10: profiles[0].sms.tag: missing evidence tag; valid: vendor-spec, measurement, "
        "documented, estimate, measured-by-microbenchmark");
  CHECK(error_of(replace(VALID, "{value: \"{0,2,4}:2\", tag: vendor-spec, source: s}",
                         "{value: \"{0,2,4}:2\", tag: vendor-spec}")) ==
        "mig.yaml:17:17: profiles[0].placements.source: missing source; every value carries its source");
  CHECK(error_of(replace(VALID, "{0,2,4}:2", "0,2,4")) ==
        "mig.yaml:17:25: profiles[0].placements.value: expected placements as nvidia-smi mig -lgipp prints "
        "them: {start,start,...}:size with increasing starts, e.g. \"{0,2,4}:2\" (got '0,2,4')");
  CHECK(error_of(replace(VALID, "{0,2,4}:2", "{0,4,2}:2")) ==
        "mig.yaml:17:25: profiles[0].placements.value: expected placements as nvidia-smi mig -lgipp prints "
        "them: {start,start,...}:size with increasing starts, e.g. \"{0,2,4}:2\" (got '{0,4,2}:2')");
  CHECK(error_of(replace(VALID, "{0,2,4}:2", "{0,2,4,7}:2")) ==
        "mig.yaml:17:25: profiles[0].placements.value: placement 7:2 ends past memory slice 7 (the GPU has 8 "
        "memory slices)");
  CHECK(error_of(replace(VALID, "max_instances: {value: 3", "max_instances: {value: 4")) ==
        "mig.yaml:16:28: profiles[0].max_instances.value: max_instances 4 exceeds the 3 placements");
  CHECK(error_of(replace(VALID, "max_instances: {value: 3", "max_instances: {value: 8")) ==
        "mig.yaml:16:28: profiles[0].max_instances.value: expected a whole number in [1, 7] (got '8')");
  CHECK(error_of(replace(VALID, "compute_slices: {value: 2", "compute_slices: {value: 2.5")) ==
        "mig.yaml:13:29: profiles[0].compute_slices.value: expected a whole number in [1, 7] (got '2.5')");
  CHECK(error_of(replace(VALID, "name: 2g.10gb", "name: 3g.10gb")) ==
        "mig.yaml:11:11: profiles[0].name: the name must start with '2g.' to match compute_slices 2 (got "
        "'3g.10gb')");
  CHECK(error_of(replace(VALID, "affected-instances", "some-instances")) ==
        "mig.yaml:8:18: reconfiguration.scope.value: unknown scope 'some-instances'; valid: "
        "affected-instances, "
        "whole-gpu");
  CHECK(error_of(replace(VALID, "latency: {value: 5s", "latency: {value: 5 parsecs")) ==
        "mig.yaml:9:20: reconfiguration.latency.value: expected a duration (e.g. 30s, 5min, 2h; bare numbers "
        "are "
        "seconds) (got '5 parsecs')");
  CHECK(error_of(replace(VALID, "    sms:", "    smz:")) ==
        "mig.yaml:15:5: profiles[0].smz: unknown key; valid: name, id, compute_slices, memory, sms, "
        "max_instances, placements\n"
        "mig.yaml:11:5: profiles[0].sms: missing required key; expected {value, tag, source}");
  // Two problems in one file are both reported; a second profile with the same name and id.
  const std::string twice = VALID + "  - name: 2g.10gb\n"                                // 18
                                    "    id: {value: 14, tag: vendor-spec, source: s}\n" // 19
                                    "    compute_slices: {value: 2, tag: vendor-spec, source: s}\n"
                                    "    memory: {value: 9.75GiB, tag: vendor-spec, source: s}\n"
                                    "    sms: {value: 28, tag: vendor-spec, source: s}\n"
                                    "    max_instances: {value: 3, tag: vendor-spec, source: s}\n"
                                    "    placements: {value: \"{0,2,4}:2\", tag: vendor-spec, source: s}\n";
  CHECK(error_of(twice) ==
        "mig.yaml:18:11: profiles[1].name: duplicate profile '2g.10gb' (also profiles[0])\n"
        "mig.yaml:19:17: profiles[1].id.value: duplicate profile id 14 (also profiles[0])");
  CHECK_THAT(error_of("format: colocsim-mig/1\nprofiles: []\n"),
             ContainsSubstring("mig.yaml:2:11: profiles: expected a non-empty list of profiles"));
}

// ---------------------------------------------------------------------------------------------------------
// Documentation

TEST_CASE("docs/formats/mig.md shows the bundled A100-40GB table verbatim", "[mig][docs]")
{
  const auto shown = test::doc_example("docs/formats/mig.md", "models/mig/a100-40gb.yaml");
  CHECK_FALSE(shown.empty());
  CHECK(shown == read_source_file("models/mig/a100-40gb.yaml"));
}

TEST_CASE("mig slowdown rule on the bundled A100-80GB table against NJIT-MIG GROMACS", "[mig][interference]")
{
  // NJIT-MIG [M] (reference §4.2 table): GROMACS ns/day on an A100-80GB: 1g.10gb 43.28, 2g.20gb 81.21,
  // 3g.40gb 115.51, full GPU 118.59. A GROMACS-like signature c = 0.37, b = 0.3 (below every slice's memory
  // share, so compute decides), β = 1 [estimate: c chosen to match], with the engine's fractions: s = GI SMs
  // / 108 (the whole A100, models/devices/a100-80gb.yaml compute_units), m = memory slices / 8. Hand values:
  // 3g 0.37·108/42 = 0.951 -> factor 1, speed 1 (measured 0.974); 2g 0.37·108/28 = 1.427, speed 0.701
  // (measured 0.685); 1g 0.37·108/14 = 2.854, speed 0.350 (measured 0.365). (With the SMs of 7g.80gb, 98,
  // as the whole GPU, c = 0.40 gave 1.0 / 0.714 / 0.357; c = 0.40 over 108 SMs gives 0.972 / 0.648 / 0.324,
  // 4 points below the measurement on 1g and 2g.)
  const MigGeometry g(load_bundled("a100-80gb"));
  const double device_sms = read_device("a100-80gb").compute_units.value;
  REQUIRE(device_sms == 108);
  ResourceSignature gromacs;
  gromacs.compute_share = 0.37;
  gromacs.bw_util = 0.3;
  const double full = 118.59;
  const std::vector<std::tuple<std::string, double, double>> rows{{"1g.10gb", 43.28, 14.0 / (0.37 * 108)},
                                                                  {"2g.20gb", 81.21, 28.0 / (0.37 * 108)},
                                                                  {"3g.40gb", 115.51, 1.0}};
  for (const auto& [name, measured, expected_speed] : rows) {
    CAPTURE(name);
    const auto& p = g.profiles()[g.profile_index(name)];
    const std::vector<double> s{mig_sm_fraction(p, device_sms)};
    const std::vector<double> m{mig_memory_fraction(g, p)};
    const std::vector<const ResourceSignature*> alone{&gromacs};
    const double speed = 1.0 / sharing_factor(SharingMode::MIG, TimeSliceParams{}, alone, 0, s, m);
    CHECK_THAT(speed, WithinRel(expected_speed, 1e-9));
    CHECK(std::abs(speed - measured / full) < 0.03); // the rule is within 3 points of the measurement
  }
}

TEST_CASE("a GPU instance's shares are of the whole GPU: 7g is not the whole A100", "[mig]")
{
  // A100: 108 SMs (GK-A100), 7g.40gb 98 of them (GONVML-A100); H100 SXM: 132, 7g.80gb all 132 (H100-LGIP).
  const auto a100 = geometry("a100-40gb");
  const auto& seven = a100.profiles()[a100.profile_index("7g.40gb")];
  CHECK_THAT(mig_sm_fraction(seven, 108), WithinRel(98.0 / 108.0, 1e-12));
  CHECK_THAT(mig_memory_fraction(a100, seven), WithinRel(1.0, 1e-12));
  const auto& three = a100.profiles()[a100.profile_index("3g.20gb")];
  CHECK_THAT(mig_sm_fraction(three, 108), WithinRel(42.0 / 108.0, 1e-12));
  CHECK_THAT(mig_memory_fraction(a100, three), WithinRel(0.5, 1e-12));
  const auto h100 = geometry("h100-80gb");
  CHECK_THAT(mig_sm_fraction(h100.profiles()[h100.profile_index("7g.80gb")], 132), WithinRel(1.0, 1e-12));
  CHECK_THROWS_WITH(mig_sm_fraction(seven, 90), ContainsSubstring("MIG profile 7g.40gb has 98 SMs"));
  // Every bundled table fits its device: no profile has more SMs than the device catalog's compute_units.
  for (const char* name : {"a100-40gb", "a100-80gb", "h100-80gb"}) {
    CAPTURE(name);
    const auto table = load_bundled(name);
    const double sms = read_device(table.device).compute_units.value;
    const MigGeometry geometry_of_table(table); // named: a range-for over a temporary's member dangles
    for (const auto& p : geometry_of_table.profiles())
      CHECK(p.sms <= sms);
  }
}

TEST_CASE("mig: a slice's memory share helps the memory-bound part of a job (roofline with its balance)",
          "[mig][interference]")
{
  // A100-40GB slices as fractions of the whole GPU: 3g.20gb s = 42/108, m = 4/8; 4g.20gb s = 56/108, m = 4/8.
  const double s3 = 42.0 / 108, s4 = 56.0 / 108, m4 = 0.5;
  auto slowdown = [](const ResourceSignature& j, double s, double m) {
    const std::vector<const ResourceSignature*> alone{&j};
    const std::vector<double> sv{s}, mv{m};
    return sharing_factor(SharingMode::MIG, TimeSliceParams{}, alone, 0, sv, mv);
  };
  // A busy, bandwidth-heavy job: c = 1, b = 0.9, u = 0.1, β = 0.2 (a fifth of its runtime follows the SMs).
  // 3g: c/s = 2.571429, b/m = 1.8, u/s = 0.257: 0.2·2.571429 + 0.8·1.8 = 1.954286 → 0.512 of the GPU, more
  // than the 3/7 = 0.429 a rule max(1, c/s, b/m) allows a busy job (it gave 2.571429).
  ResourceSignature bw;
  bw.compute_share = 1.0;
  bw.bw_util = 0.9;
  bw.vec_util = 0.1;
  bw.freq_sensitive = 0.2;
  CHECK_THAT(slowdown(bw, s3, m4), WithinAbs(0.2 * 108.0 / 42 + 0.8 * 1.8, 1e-12));
  // 4g (more SMs, same memory): 0.2·1.928571 + 0.8·1.8 = 1.825714: the SMs still help the SM-bound fifth.
  CHECK_THAT(slowdown(bw, s4, m4), WithinAbs(0.2 * 108.0 / 56 + 0.8 * 1.8, 1e-12));
  // The bandwidth ceiling: a triad (c = 0.5, b = 0.95, β = 0.15) on 3g: 0.15·1.285714 + 0.85·1.9 = 1.807857,
  // but its bytes need b/m = 1.9 of its time on half the bandwidth: 1.9.
  ResourceSignature triad;
  triad.compute_share = 0.5;
  triad.bw_util = 0.95;
  triad.vec_util = 0.05;
  triad.freq_sensitive = 0.15;
  CHECK_THAT(slowdown(triad, s3, m4), WithinAbs(1.9, 1e-12));
  // The compute ceiling: c = u = 0.8, b = 0.1, β = 0.5 on 3g: 0.5·2.057143 + 0.5·1 = 1.528571, but the flops
  // it issues need u/s = 0.8·108/42 = 2.057143.
  ResourceSignature flops;
  flops.compute_share = 0.8;
  flops.vec_util = 0.8;
  flops.bw_util = 0.1;
  flops.freq_sensitive = 0.5;
  CHECK_THAT(slowdown(flops, s3, m4), WithinAbs(0.8 * 108.0 / 42, 1e-12));
  // β = 1 is the plain ceiling rule: c = 1, b = 0.9 on 3g → max(2.571429, 1.8).
  bw.freq_sensitive = 1.0;
  CHECK_THAT(slowdown(bw, s3, m4), WithinAbs(108.0 / 42, 1e-12));
}

TEST_CASE("arrange finds starts for a layout given by profile names", "[mig]")
{
  const auto g = geometry("a100-40gb");
  const auto idx = [&](std::vector<std::string> names) { return g.profile_indices(names); };
  // 3g.20gb starts {0,4}, 2g.10gb {0,2,4}, 1g.5gb {0..6} (GONVML-A100). 3g@0 leaves 4-7, where 2g@4 and
  // 1g@6 fit but the second 1g would need start 7: the search backs up to 3g@4 + 2g@0 + 1g@2 + 1g@3.
  const auto mixed = g.arrange(idx({"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}));
  REQUIRE(mixed.has_value());
  CHECK(g.describe(*mixed) == "{3g.20gb@4, 2g.10gb@0, 1g.5gb@2, 1g.5gb@3}");
  CHECK(g.check(*mixed).ok());
  // A greedy lowest-start pass in the same order gets stuck at the second 1g.5gb.
  MigLayout greedy{g.instance("3g.20gb", 0), g.instance("2g.10gb", 4), g.instance("1g.5gb", 6)};
  CHECK_FALSE(g.lowest_start(greedy, g.profile_index("1g.5gb")).has_value());
  // 4g.20gb only starts at 0, whatever the order.
  CHECK(g.describe(*g.arrange(idx({"3g.20gb", "4g.20gb"}))) == "{3g.20gb@4, 4g.20gb@0}");
  CHECK(g.describe(*g.arrange(idx({"4g.20gb", "3g.20gb"}))) == "{4g.20gb@0, 3g.20gb@4}");
  // Illegal: two 4g (one start), 7g plus anything, eight 1g (7 GIs at most, 7 compute slices).
  CHECK_FALSE(g.arrange(idx({"4g.20gb", "4g.20gb"})).has_value());
  CHECK_FALSE(g.arrange(idx({"7g.40gb", "1g.5gb"})).has_value());
  CHECK_FALSE(g.arrange(std::vector<std::size_t>(8, g.profile_index("1g.5gb"))).has_value());
  CHECK_FALSE(g.arrange({g.profiles().size()}).has_value()); // unknown profile index
  CHECK(g.arrange({}) == MigLayout{});
}

TEST_CASE("arrange accepts the profiles of every legal layout and only those", "[mig]")
{
  // Every layout of the enumeration, given as its profiles in reverse order, is arranged into a legal
  // layout with the same profiles; adding a 7g.40gb to any of them makes it illegal.
  for (const std::string name : {"a100-40gb", "a100-80gb", "h100-80gb"}) {
    CAPTURE(name);
    const auto g = geometry(name);
    const auto seven = g.profiles().size() - 1; // the last profile is the whole GPU in every table
    REQUIRE(g.profiles()[seven].memory_slices == g.memory_slices());
    for (const auto& layout : g.all_layouts()) {
      std::vector<std::size_t> profiles;
      for (auto it = layout.rbegin(); it != layout.rend(); ++it)
        profiles.push_back(it->profile);
      const auto arranged = g.arrange(profiles);
      REQUIRE(arranged.has_value());
      CHECK(g.check(*arranged).ok());
      std::vector<std::size_t> got;
      for (const auto& gi : *arranged)
        got.push_back(gi.profile);
      CHECK(got == profiles);
      profiles.push_back(seven);
      CHECK_FALSE(g.arrange(profiles).has_value());
    }
  }
}

TEST_CASE("a measured per-slice speed (mig_speed) overrides the roofline law for that slice size only",
          "[mig][interference]")
{
  // A saturating job (c = 1, β = 1, b = 0.2, u = 0.5) on an A100: 1g has s = 14/108, m = 1/8 → law
  // max(1·108/14, 0.2·8, 0.5·108/14) = 7.714286; 3g s = 42/108, m = 4/8 → 108/42 = 2.571429.
  ResourceSignature job;
  job.compute_share = 1.0;
  job.freq_sensitive = 1.0;
  job.bw_util = 0.2;
  job.vec_util = 0.5;
  const double s1 = 14.0 / 108, m1 = 1.0 / 8, s3 = 42.0 / 108, m3 = 4.0 / 8;
  CHECK_THAT(mig_slowdown(job, s1, m1, 1), WithinAbs(108.0 / 14.0, 1e-12));
  job.mig_speed[1] = 0.4; // measured: 1g runs at 0.4 of the whole GPU → slowdown 2.5
  CHECK_THAT(mig_slowdown(job, s1, m1, 1), WithinAbs(2.5, 1e-12));
  CHECK_THAT(mig_slowdown(job, s3, m3, 3), WithinAbs(108.0 / 42.0, 1e-12)); // 3g not measured: the law
  CHECK_THAT(mig_slowdown(job, s1, m1), WithinAbs(108.0 / 14.0, 1e-12));    // slice size unknown: the law
  // Through the engine's entry point: the instance's slices travel with its SM and memory shares.
  const ResourceSignature* residents[] = {&job, &job};
  const double caps[] = {s1, s3}, mems[] = {m1, m3};
  const unsigned slices[] = {1, 3};
  double out[2] = {0, 0};
  compute_slowdowns(SharingMode::MIG, TimeSliceParams{}, NoInterference{}, residents, out, caps, mems,
                    slices);
  CHECK_THAT(out[0], WithinAbs(2.5, 1e-12));
  CHECK_THAT(out[1], WithinAbs(108.0 / 42.0, 1e-12));
}
