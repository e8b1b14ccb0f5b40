// Sharing factor (time-slice, exclusive) and the pairwise-table interference model against
// hand-computed values. θ = 1 and ε = 0.01 as in the default Max 1550 calibration (reference §6.2, §6.3).
#include "models/Interference.hpp"
#include "tests/CatchCompat.hpp"

#include <vector>

using namespace colocsim;
using colocsim::test::WithinAbs;

namespace {
TimeSliceParams ts(double theta = 1.0, double eps = 0.01)
{
  TimeSliceParams p;
  p.collision.value = theta;
  p.switch_overhead.value = eps;
  return p;
}

ResourceSignature job(JobClass c, double duty)
{
  ResourceSignature s;
  s.job_class = c;
  s.duty_cycle = duty;
  return s;
}

std::vector<double> slowdowns(SharingMode mode, const TimeSliceParams& p, const InterferenceModel& model,
                              const std::vector<ResourceSignature>& jobs)
{
  std::vector<const ResourceSignature*> ptrs;
  for (const auto& j : jobs)
    ptrs.push_back(&j);
  std::vector<double> out(jobs.size());
  compute_slowdowns(mode, p, model, ptrs, out);
  return out;
}

// Midpoints of reference §6.3 (the default calibration's table), rows/columns C, X, M, MS, L.
TableInterference::Table default_table()
{
  return {{{1.02, 1.035, 1.05, 1.075, 1.02},
           {1.035, 1.05, 1.075, 1.125, 1.02},
           {1.05, 1.075, 1.2, 1.2, 1.05},
           {1.2, 1.2, 1.2, 1.8, 1.05},
           {1.06, 1.06, 1.05, 1.125, 1.075}}};
}
} // namespace

TEST_CASE("time-slice: two light jobs wait behind each other's bursts", "[interference]")
{
  // d = 0.3, 0.3: max(1, Σd = 0.6, 1 + θ·0.3·0.3 = 1.09) · (1 + 0.01) = 1.09 · 1.01 = 1.1009
  const auto s = slowdowns(SharingMode::TIME_SLICE, ts(), NoInterference{},
                           {job(JobClass::C, 0.3), job(JobClass::C, 0.3)});
  CHECK_THAT(s[0], WithinAbs(1.1009, 1e-12));
  CHECK_THAT(s[1], WithinAbs(1.1009, 1e-12));
}

TEST_CASE("time-slice: two GPU-bound jobs share the engine", "[interference]")
{
  // d = 1, 1: max(1, 2, 1 + 1·1·1 = 2) · 1.01 = 2.02
  const auto s = slowdowns(SharingMode::TIME_SLICE, ts(), NoInterference{},
                           {job(JobClass::C, 1.0), job(JobClass::C, 1.0)});
  CHECK_THAT(s[0], WithinAbs(2.02, 1e-12));
  CHECK_THAT(s[1], WithinAbs(2.02, 1e-12));
}

TEST_CASE("time-slice: three jobs and an oversubscribed engine", "[interference]")
{
  // d = 0.2, 0.3, 0.4 (Σ 0.9 < 1): 1 + d_j·(Σ − d_j)
  //   job 0: 1 + 0.2·0.7 = 1.14 → ·1.01 = 1.1514
  //   job 1: 1 + 0.3·0.6 = 1.18 → ·1.01 = 1.1918
  //   job 2: 1 + 0.4·0.5 = 1.20 → ·1.01 = 1.2120
  const auto a = slowdowns(SharingMode::TIME_SLICE, ts(), NoInterference{},
                           {job(JobClass::C, 0.2), job(JobClass::L, 0.3), job(JobClass::M, 0.4)});
  CHECK_THAT(a[0], WithinAbs(1.1514, 1e-12));
  CHECK_THAT(a[1], WithinAbs(1.1918, 1e-12));
  CHECK_THAT(a[2], WithinAbs(1.2120, 1e-12));
  // d = 0.6 × 3: Σd = 1.8 beats 1 + 0.6·1.2 = 1.72 → 1.8 · 1.01 = 1.818
  const auto b = slowdowns(SharingMode::TIME_SLICE, ts(), NoInterference{},
                           {job(JobClass::C, 0.6), job(JobClass::C, 0.6), job(JobClass::C, 0.6)});
  for (double x : b)
    CHECK_THAT(x, WithinAbs(1.818, 1e-12));
  // θ = 0.5, ε = 0: d = 0.5, 0.4: 1 + 0.5·0.5·0.4 = 1.1 (Σd = 0.9)
  const auto c = slowdowns(SharingMode::TIME_SLICE, ts(0.5, 0.0), NoInterference{},
                           {job(JobClass::C, 0.5), job(JobClass::C, 0.4)});
  CHECK_THAT(c[0], WithinAbs(1.1, 1e-12));
  CHECK_THAT(c[1], WithinAbs(1.1, 1e-12));
}

TEST_CASE("exclusive and lone jobs are not slowed", "[interference]")
{
  const auto e = slowdowns(SharingMode::EXCLUSIVE, ts(), NoInterference{},
                           {job(JobClass::C, 1.0), job(JobClass::C, 1.0)});
  CHECK(e[0] == 1.0);
  CHECK(e[1] == 1.0);
  // Alone in time-slice mode: no switch overhead either.
  const auto alone = slowdowns(SharingMode::TIME_SLICE, ts(), NoInterference{}, {job(JobClass::C, 1.0)});
  CHECK(alone[0] == 1.0);
  // The table model alone has nothing to add without co-runners.
  const TableInterference table(default_table(), "test");
  const auto solo = job(JobClass::MS, 1.0);
  CHECK(table.factor(solo, {}, SharingMode::TIME_SLICE) == 1.0);
}

TEST_CASE("table: pairs and the additive rule for 3+ co-runners", "[interference]")
{
  const TableInterference table(default_table(), "reference §6.3 midpoints");
  CHECK(table.name() == "table");
  CHECK(table.source() == "reference §6.3 midpoints");
  CHECK(table.pair(JobClass::MS, JobClass::MS) == 1.8);
  CHECK(table.pair(JobClass::M, JobClass::MS) == 1.2);
  CHECK(table.pair(JobClass::L, JobClass::C) == 1.06); // row = slowed job, column = co-runner
  CHECK(table.pair(JobClass::C, JobClass::L) == 1.02);

  const auto m = job(JobClass::M, 1.0), c = job(JobClass::C, 1.0), ms = job(JobClass::MS, 1.0),
             l = job(JobClass::L, 1.0);
  const std::vector<const ResourceSignature*> one{&ms};
  CHECK_THAT(table.factor(m, one, SharingMode::CCS_2), WithinAbs(1.2, 1e-12));
  // M next to C, MS and L: 1 + (1.05 − 1) + (1.2 − 1) + (1.05 − 1) = 1.30
  const std::vector<const ResourceSignature*> three{&c, &ms, &l};
  CHECK_THAT(table.factor(m, three, SharingMode::CCS_4), WithinAbs(1.30, 1e-12));
  CHECK_THAT(table.factor(m, three, SharingMode::MPS), WithinAbs(1.30, 1e-12));
  // MS next to two other MS jobs: 1 + 0.8 + 0.8 = 2.6
  const std::vector<const ResourceSignature*> two_ms{&ms, &ms};
  CHECK_THAT(table.factor(ms, two_ms, SharingMode::CCS_2), WithinAbs(2.6, 1e-12));
  CHECK(NoInterference{}.factor(m, three, SharingMode::MPS) == 1.0);
}

TEST_CASE("table under time-slice: 3+ co-runners average the pair excesses, by duty cycle", "[interference]")
{
  // A table fitted from time-sliced pairs (`calibrate fit` on pocl, pinned workers, campaign of 2026-11-25):
  // a streaming triad (MS) loses 14.9 % of each turn's work beside fma_fp32 (C) and 18.3 % beside l2_triad
  // (M): its caches are refilled after whichever ran before. θ = 1, ε = 0 (fitted).
  TableInterference::Table t{};
  for (auto& row : t)
    row.fill(1.0);
  t[3][0] = 1.149; // MS next to C
  t[3][2] = 1.183; // MS next to M
  const TableInterference table(t, "fitted", {SharingMode::TIME_SLICE});
  const auto ms = job(JobClass::MS, 1.0), c = job(JobClass::C, 1.0), m = job(JobClass::M, 1.0);
  // One co-runner: the pair's cell, as before.
  CHECK_THAT(table.factor(ms, std::vector<const ResourceSignature*>{&c}, SharingMode::TIME_SLICE),
             WithinAbs(1.149, 1e-12));
  // Both, each at duty 1: every turn follows one of them, half the turns each: 1 + (0.149 + 0.183) / 2
  // = 1.166 (the additive rule gave 1.332). The slowdown: time-slice factor max(3, 1 + 1·1·2) = 3,
  // × 1.166 = 3.498; measured in that campaign 3.343 (additive: 3.996, +19.5 %).
  const std::vector<const ResourceSignature*> both{&c, &m};
  CHECK_THAT(table.factor(ms, both, SharingMode::TIME_SLICE), WithinAbs(1.166, 1e-12));
  const auto s = slowdowns(SharingMode::TIME_SLICE, ts(1.0, 0.0), table, {ms, c, m});
  CHECK_THAT(s[0], WithinAbs(3.498, 1e-12));
  // l2_triad at duty 0.5: it ran before a third of the turns, fma_fp32 before two thirds:
  // 1 + (1 · 0.149 + 0.5 · 0.183) / 1.5 = 1 + 0.2405 / 1.5 = 1.160333...
  const auto m_half = job(JobClass::M, 0.5);
  CHECK_THAT(table.factor(ms, std::vector<const ResourceSignature*>{&c, &m_half}, SharingMode::TIME_SLICE),
             WithinAbs(1.0 + 0.2405 / 1.5, 1e-12));
  // Co-runners that never run (d = 0): the plain mean.
  const auto c0 = job(JobClass::C, 0.0), m0 = job(JobClass::M, 0.0);
  CHECK_THAT(table.factor(ms, std::vector<const ResourceSignature*>{&c0, &m0}, SharingMode::TIME_SLICE),
             WithinAbs(1.166, 1e-12));
  // Where kernels overlap, the excesses still add (previous test case): the same table in ccs-2.
  const TableInterference overlapping(t, "fitted", {SharingMode::CCS_2});
  CHECK_THAT(overlapping.factor(ms, both, SharingMode::CCS_2), WithinAbs(1.332, 1e-12));
}

TEST_CASE("slowdown = sharing factor × table factor, in the modes the table is for", "[interference]")
{
  // Reference §6.3's table is the contention of kernels that run at the same time: it applies in ccs-2,
  // ccs-4 and mps, not under time-slicing, where kernels never overlap and the sharing factor is the whole
  // slowdown (applying both made two decode jobs 1.645x slower than running one after the other).
  const TableInterference table(default_table(), "test");
  const auto c = job(JobClass::C, 0.3), l = job(JobClass::L, 0.3);
  // Time-sliced, d = 0.3 each: sharing max(0.6, 1 + 0.3·0.3) · 1.01 = 1.1009, and nothing more.
  const auto s = slowdowns(SharingMode::TIME_SLICE, ts(), table, {c, l});
  CHECK_THAT(s[0], WithinAbs(1.1009, 1e-12));
  CHECK_THAT(s[1], WithinAbs(1.1009, 1e-12));
  // Two MS decode jobs (d = 0.9) time-sliced: max(1.8, 1 + 0.81) · 1.01 = 1.8281 — not × T[MS][MS] = 1.8.
  const auto ms = job(JobClass::MS, 0.9);
  const auto decode = slowdowns(SharingMode::TIME_SLICE, ts(), table, {ms, ms});
  CHECK_THAT(decode[0], WithinAbs(1.8281, 1e-12));
  // ccs-2 (compute_share 0.4 → partition factor max(1, 0.8) = 1): C: T[C][L] = 1.02; L: T[L][C] = 1.06.
  auto c2 = c, l2 = l;
  c2.compute_share = l2.compute_share = 0.4;
  const auto p = slowdowns(SharingMode::CCS_2, ts(), table, {c2, l2});
  CHECK_THAT(p[0], WithinAbs(1.02, 1e-12));
  CHECK_THAT(p[1], WithinAbs(1.06, 1e-12));
  // A table made for time-sliced co-runs (what the calibration fitter writes) applies there.
  const TableInterference fitted(default_table(), "fitted", {SharingMode::TIME_SLICE});
  const auto f = slowdowns(SharingMode::TIME_SLICE, ts(), fitted, {c, l});
  CHECK_THAT(f[0], WithinAbs(1.1009 * 1.02, 1e-12));
  CHECK_THAT(f[1], WithinAbs(1.1009 * 1.06, 1e-12));
  CHECK(fitted.factor(c2, std::vector<const ResourceSignature*>{&l2}, SharingMode::CCS_2) == 1.0);
}

TEST_CASE("sharing_factor addresses one resident", "[interference]")
{
  const auto a = job(JobClass::C, 0.2), b = job(JobClass::C, 0.9);
  const std::vector<const ResourceSignature*> r{&a, &b};
  // Σd = 1.1; 1 + 0.2·0.9 = 1.18 → 1.18 · 1.01 = 1.1918 for both (d_j·Σ_{i≠j} d_i is symmetric for pairs)
  CHECK_THAT(sharing_factor(SharingMode::TIME_SLICE, ts(), r, 0), WithinAbs(1.1918, 1e-12));
  CHECK_THAT(sharing_factor(SharingMode::TIME_SLICE, ts(), r, 1), WithinAbs(1.1918, 1e-12));
}

// ---- ccs-2 / ccs-4, mps and the contention model (models/Interference.hpp) ----

namespace {
ResourceSignature sig(double duty, double share, double bw = 0.0)
{
  ResourceSignature s;
  s.duty_cycle = duty;
  s.compute_share = share;
  s.bw_util = bw;
  return s;
}
} // namespace

TEST_CASE("ccs-4: a compute-saturating job runs 4x slower whatever its neighbour", "[interference][ccs]")
{
  // Static split: each process owns 1/4 of the EUs, no borrowing: factor = max(1, c·4) = 4 for c = 1.
  const NoInterference none;
  const TimeSliceParams ts{};
  const auto saturating = sig(1.0, 1.0);
  for (const auto& neighbour : {sig(1.0, 1.0), sig(0.1, 0.05), sig(0.5, 0.25)}) {
    const std::vector<const ResourceSignature*> residents{&saturating, &neighbour};
    std::vector<double> out(2);
    compute_slowdowns(SharingMode::CCS_4, ts, none, residents, out);
    CHECK_THAT(out[0], WithinAbs(4.0, 1e-12));
  }
  // ...and even alone on its partition: the split is static.
  const std::vector<const ResourceSignature*> alone{&saturating};
  std::vector<double> one(1);
  compute_slowdowns(SharingMode::CCS_4, ts, none, alone, one);
  CHECK_THAT(one[0], WithinAbs(4.0, 1e-12));
}

TEST_CASE("ccs-4: a job needing at most a quarter of the EUs is not slowed", "[interference][ccs]")
{
  const NoInterference none;
  const auto small = sig(1.0, 0.25), smaller = sig(1.0, 0.1), big = sig(1.0, 1.0);
  const std::vector<const ResourceSignature*> residents{&small, &smaller, &big, &big};
  std::vector<double> out(4);
  compute_slowdowns(SharingMode::CCS_4, TimeSliceParams{}, none, residents, out);
  CHECK_THAT(out[0], WithinAbs(1.0, 1e-12)); // 0.25 · 4 = 1
  CHECK_THAT(out[1], WithinAbs(1.0, 1e-12)); // 0.1 · 4 = 0.4 → 1
  CHECK_THAT(out[2], WithinAbs(4.0, 1e-12));
  // ccs-2 halves: c = 0.75 → 1.5
  const auto three_quarters = sig(1.0, 0.75);
  const std::vector<const ResourceSignature*> two{&three_quarters, &small};
  std::vector<double> out2(2);
  compute_slowdowns(SharingMode::CCS_2, TimeSliceParams{}, none, two, out2);
  CHECK_THAT(out2[0], WithinAbs(1.5, 1e-12));
  CHECK_THAT(out2[1], WithinAbs(1.0, 1e-12));
}

TEST_CASE("contention: two bandwidth-saturating jobs share the bandwidth", "[interference][contention]")
{
  // b = 1 each: Σb = 2 → both slowed 2× (× the residual 1.03) once their kernels overlap (ccs, mps).
  const ContentionInterference model;
  const auto stream = sig(1.0, 0.25, 1.0);
  const std::vector<const ResourceSignature*> residents{&stream, &stream};
  std::vector<double> out(2);
  compute_slowdowns(SharingMode::CCS_2, TimeSliceParams{}, model, residents, out);
  CHECK_THAT(out[0], WithinAbs(2.0 * 1.03, 1e-12));
  CHECK_THAT(out[1], WithinAbs(2.0 * 1.03, 1e-12));
  // Light demands that fit together: only the residual (0.3 + 0.4 = 0.7 < 1).
  const auto a = sig(1.0, 0.25, 0.3), b = sig(1.0, 0.25, 0.4), none_bw = sig(1.0, 0.25, 0.0);
  const std::vector<const ResourceSignature*> light{&a, &b, &none_bw};
  std::vector<double> out3(3);
  compute_slowdowns(SharingMode::CCS_4, TimeSliceParams{}, model, light, out3);
  CHECK_THAT(out3[0], WithinAbs(1.03, 1e-12));
  CHECK_THAT(out3[2], WithinAbs(1.03, 1e-12));
  // Under time-slice kernels never overlap: no bandwidth contention term.
  const std::vector<const ResourceSignature*> ts_pair{&stream, &stream};
  CHECK(model.factor(stream, std::vector<const ResourceSignature*>{&stream}, SharingMode::TIME_SLICE) == 1.0);
}

namespace {
/// The bundled stream-triad profile's signature (workloads/profiles/default.yaml): class MS, duty 1,
/// b = 0.95 of the tile's achievable bandwidth, c = 0.5 (half the EUs reach it), β = 0.15.
ResourceSignature triad()
{
  ResourceSignature s;
  s.job_class = JobClass::MS;
  s.duty_cycle = 1.0;
  s.vec_util = 0.05;
  s.bw_util = 0.95;
  s.compute_share = 0.5;
  s.freq_sensitive = 0.15;
  return s;
}
} // namespace

TEST_CASE("ccs-4: four bandwidth-bound jobs are held by the tile's bandwidth, not partition × bandwidth",
          "[interference][ccs][contention]")
{
  // Four triads on one tile in ccs-4. Partition factor max(1, 0.5·4) = 2; bandwidth: together they ask
  // Σb = 4 · 0.95 = 3.8 tiles' worth, so no schedule can finish 4 × 100 s of triad in less than 380 s
  // (4 · 95 s of the tile's whole bandwidth). The two limits bound the job together (reference §6.3
  // max(s_part, s_bw)): slowdown = max(2, 3.8) = 3.8.
  const auto t = triad();
  const std::vector<const ResourceSignature*> four{&t, &t, &t, &t};
  std::vector<double> out(4);
  // contention: max(2, 3.8) · (1 + ρ = 1.03) = 3.914 (before: 2 · 3.8 · 1.03 = 7.828, i.e. 783 s).
  compute_slowdowns(SharingMode::CCS_4, TimeSliceParams{}, ContentionInterference{}, four, out);
  for (double s : out) {
    CHECK_THAT(s, WithinAbs(3.8 * 1.03, 1e-12));
    CHECK(s <= 3.8 * 1.05); // within 5 % of the bandwidth bound
  }
  // table (reference §6.3 midpoints, MS|MS = 1.8): the excesses add to 1 + 3 · 0.8 = 3.4, below the
  // bandwidth bound: max(2, 3.4, 3.8) = 3.8 (before: 2 · 3.4 = 6.8, i.e. 680 s).
  const TableInterference table(default_table(), "test");
  compute_slowdowns(SharingMode::CCS_4, TimeSliceParams{}, table, four, out);
  for (double s : out)
    CHECK_THAT(s, WithinAbs(3.8, 1e-12));
  // ccs-2, two triads: the table's MS|MS 1.8 is below their combined demand 1.9, which bounds them:
  // max(max(1, 0.5·2) = 1, 1.8, 1.9) = 1.9 (before: 1 · 1.8 = 1.8, faster than the bandwidth allows).
  const std::vector<const ResourceSignature*> two{&t, &t};
  std::vector<double> out2(2);
  compute_slowdowns(SharingMode::CCS_2, TimeSliceParams{}, table, two, out2);
  CHECK_THAT(out2[0], WithinAbs(1.9, 1e-12));
  CHECK_THAT(out2[1], WithinAbs(1.9, 1e-12));
  compute_slowdowns(SharingMode::CCS_2, TimeSliceParams{}, ContentionInterference{}, two, out2);
  CHECK_THAT(out2[0], WithinAbs(1.9 * 1.03, 1e-12)); // max(1, 1.9) · 1.03
}

TEST_CASE("partition and table: a compute-bound job is held by its partition, the residual multiplies",
          "[interference][ccs][contention]")
{
  // Two saturating C jobs (c = 1, b = 0.3) in ccs-2: partition 2, bandwidth Σb = 0.6 < 1.
  auto c = sig(1.0, 1.0, 0.3);
  c.job_class = JobClass::C;
  const std::vector<const ResourceSignature*> two{&c, &c};
  std::vector<double> out(2);
  // contention: max(2, 1) · 1.03 = 2.06.
  compute_slowdowns(SharingMode::CCS_2, TimeSliceParams{}, ContentionInterference{}, two, out);
  CHECK_THAT(out[0], WithinAbs(2.06, 1e-12));
  // table: C|C 1.02 is a co-run bound like the partition's: max(2, 1.02, 1) = 2.
  compute_slowdowns(SharingMode::CCS_2, TimeSliceParams{}, TableInterference(default_table(), "test"), two,
                    out);
  CHECK_THAT(out[0], WithinAbs(2.0, 1e-12));
  // mps, two saturating jobs with b = 0.8: SM demand Σ d·c = 2, bandwidth Σb = 1.6; the tighter limit
  // holds: max(2, 1.6) · 1.03 = 2.06 (a product would give 2 · 1.6 · 1.03 = 3.296: each job runs half the
  // time, so their kernels never ask for 1.6 tiles of bandwidth at once).
  auto m = sig(1.0, 1.0, 0.8);
  const std::vector<const ResourceSignature*> mps_pair{&m, &m};
  compute_slowdowns(SharingMode::MPS, TimeSliceParams{}, ContentionInterference{}, mps_pair, out);
  CHECK_THAT(out[0], WithinAbs(2.06, 1e-12));
}

TEST_CASE("contention under mig: only a small cross-instance term, by the co-runners' duty cycles",
          "[interference][contention][mig]")
{
  // Three jobs on three instances of one GPU, each with s = 0.5, m = 0.5 (c = 0.25, b = 0.1: the slice
  // alone does not slow them). Job 0's co-runners are busy 1.0 and 0.5 of the time: 1 + 0.01 · 1.5 = 1.015;
  // job 1: 1 + 0.01 · (0.2 + 0.5) = 1.007; job 2: 1 + 0.01 · 1.2 = 1.012. With `none`: 1 each.
  auto a = sig(0.2, 0.25, 0.1), b = sig(1.0, 0.25, 0.1), c = sig(0.5, 0.25, 0.1);
  const std::vector<const ResourceSignature*> three{&a, &b, &c};
  const std::vector<double> s{0.5, 0.5, 0.5}, m{0.5, 0.5, 0.5};
  std::vector<double> out(3);
  compute_slowdowns(SharingMode::MIG, TimeSliceParams{}, ContentionInterference{}, three, out, s, m);
  CHECK_THAT(out[0], WithinAbs(1.015, 1e-12));
  CHECK_THAT(out[1], WithinAbs(1.007, 1e-12));
  CHECK_THAT(out[2], WithinAbs(1.012, 1e-12));
  compute_slowdowns(SharingMode::MIG, TimeSliceParams{}, NoInterference{}, three, out, s, m);
  CHECK_THAT(out[0], WithinAbs(1.0, 1e-12));
  // Alone on the GPU: no term.
  const std::vector<const ResourceSignature*> one{&b};
  std::vector<double> alone(1);
  compute_slowdowns(SharingMode::MIG, TimeSliceParams{}, ContentionInterference{}, one, alone,
                    std::vector<double>{0.5}, std::vector<double>{0.5});
  CHECK_THAT(alone[0], WithinAbs(1.0, 1e-12));
}

TEST_CASE("mps: light kernels share the SMs, saturating ones degrade to time-slicing", "[interference][mps]")
{
  const NoInterference none;
  // Two light jobs: demand 1·0.3 + 1·0.3 = 0.6 < 1 → factor 1 (time-slice would give max(2, 1+1) = 2).
  const auto light = sig(1.0, 0.3);
  const std::vector<const ResourceSignature*> pair{&light, &light};
  std::vector<double> out(2);
  compute_slowdowns(SharingMode::MPS, TimeSliceParams{}, none, pair, out);
  CHECK_THAT(out[0], WithinAbs(1.0, 1e-12));
  // Two saturating jobs: demand 2 → factor 2.
  const auto heavy = sig(1.0, 1.0);
  const std::vector<const ResourceSignature*> heavy_pair{&heavy, &heavy};
  compute_slowdowns(SharingMode::MPS, TimeSliceParams{}, none, heavy_pair, out);
  CHECK_THAT(out[0], WithinAbs(2.0, 1e-12));
  // Duty cycles enter the demand: 0.5·1 + 0.5·1 + 0.5·1 = 1.5.
  const auto half = sig(0.5, 1.0);
  const std::vector<const ResourceSignature*> three{&half, &half, &half};
  std::vector<double> out3(3);
  compute_slowdowns(SharingMode::MPS, TimeSliceParams{}, none, three, out3);
  CHECK_THAT(out3[1], WithinAbs(1.5, 1e-12));
}

TEST_CASE("mode limits: one process per CCS, 48 MPS clients", "[interference][modes]")
{
  CHECK(max_residents(SharingMode::EXCLUSIVE) == 1);
  CHECK(max_residents(SharingMode::CCS_2) == 2);
  CHECK(max_residents(SharingMode::CCS_4) == 4);
  CHECK(max_residents(SharingMode::MPS) == 48);
  CHECK(max_residents(SharingMode::TIME_SLICE) == 0);
  CHECK(parse_sharing_mode("ccs-4") == SharingMode::CCS_4);
  CHECK(!parse_sharing_mode("ccs-3"));
}

TEST_CASE("mps: an active-thread cap slows a job that wants more SMs", "[interference][mps]")
{
  // c = 1 capped at p = 0.5: max(1, 1/0.5, demand 1·min(1, 0.5) = 0.5) = 2; a c = 0.4 job under the same
  // cap is not slowed (0.4/0.5 < 1). Caps also shrink the demand the others see: 0.5 + 0.4 = 0.9 < 1.
  const NoInterference none;
  const auto wide = sig(1.0, 1.0), narrow = sig(1.0, 0.4);
  const std::vector<const ResourceSignature*> residents{&wide, &narrow};
  const std::vector<double> caps{0.5, 0.5};
  std::vector<double> out(2);
  compute_slowdowns(SharingMode::MPS, TimeSliceParams{}, none, residents, out, caps);
  CHECK_THAT(out[0], WithinAbs(2.0, 1e-12));
  CHECK_THAT(out[1], WithinAbs(1.0, 1e-12));
}

namespace {
// Total slowdowns of the row-class job next to one column-class job (values of the shape of Gavel's V100
// table, calibration/interference/gavel-v100.yaml: C, X, M, MS, L).
PairTotalInterference::Table total_table()
{
  return {{{1.6, 2.2, 1.6, 1.7, 1.9},
           {1.8, 2.3, 1.6, 1.6, 1.6},
           {1.7, 1.8, 1.6, 1.25, 1.5},
           {2.8, 2.6, 1.5, 3.4, 1.6},
           {1.4, 1.5, 1.15, 1.2, 1.25}}};
}

ResourceSignature saturating(JobClass c)
{
  ResourceSignature s;
  s.job_class = c;
  s.duty_cycle = 0.95;
  s.compute_share = 1.0;
  return s;
}
} // namespace

TEST_CASE("pair-total: a pair on one mps device has exactly the measured total", "[interference][pair-total]")
{
  // Two saturating X jobs under MPS: the sharing factor alone is demand 0.95 + 0.95 = 1.9; × a `table` factor
  // it would be counted twice. The pair table's T[X][X] = 2.3 already is the whole slowdown.
  const PairTotalInterference model(total_table(), "test", {SharingMode::MPS});
  CHECK(model.name() == "pair-total");
  CHECK(model.gives_total_slowdown(SharingMode::MPS));
  CHECK_FALSE(model.gives_total_slowdown(SharingMode::TIME_SLICE));
  const auto x = saturating(JobClass::X), l = saturating(JobClass::L);
  const auto xx = slowdowns(SharingMode::MPS, ts(), model, {x, x});
  CHECK_THAT(xx[0], WithinAbs(2.3, 1e-12));
  CHECK_THAT(xx[1], WithinAbs(2.3, 1e-12));
  // Asymmetric pair: row = slowed job. X next to L: 1.6; L next to X: 1.5.
  const auto xl = slowdowns(SharingMode::MPS, ts(), model, {x, l});
  CHECK_THAT(xl[0], WithinAbs(1.6, 1e-12));
  CHECK_THAT(xl[1], WithinAbs(1.5, 1e-12));
  // Light jobs too: the measured total, not the sharing factor (demand 2 · 0.3 · 0.2 = 0.12 → 1).
  auto lite = l;
  lite.duty_cycle = 0.3;
  lite.compute_share = 0.2;
  const auto ll = slowdowns(SharingMode::MPS, ts(), model, {lite, lite});
  CHECK_THAT(ll[0], WithinAbs(1.25, 1e-12));
  // Alone: what the mode does to a job alone, 1 without a cap.
  const auto solo = slowdowns(SharingMode::MPS, ts(), model, {x});
  CHECK_THAT(solo[0], WithinAbs(1.0, 1e-12));
}

TEST_CASE("pair-total: 3+ co-runners add the measured excesses", "[interference][pair-total]")
{
  const PairTotalInterference model(total_table(), "test", {SharingMode::MPS});
  const auto c = saturating(JobClass::C), x = saturating(JobClass::X), ms = saturating(JobClass::MS);
  // X next to C and MS: 1 + (1.8 − 1) + (1.6 − 1) = 2.4; C next to X and MS: 1 + 1.2 + 0.7 = 2.9;
  // MS next to C and X: 1 + 1.8 + 1.6 = 4.4.
  const auto s = slowdowns(SharingMode::MPS, ts(), model, {c, x, ms});
  CHECK_THAT(s[0], WithinAbs(2.9, 1e-12));
  CHECK_THAT(s[1], WithinAbs(2.4, 1e-12));
  CHECK_THAT(s[2], WithinAbs(4.4, 1e-12));
  // n jobs that each halve the other's pace (T = 2, time-sharing) give n: 4 such jobs → 4.
  PairTotalInterference::Table halves{};
  for (auto& row : halves)
    row.fill(2.0);
  const PairTotalInterference share(halves, "T = 2", {SharingMode::MPS});
  const auto four = slowdowns(SharingMode::MPS, ts(), share, {x, x, x, x});
  for (double v : four)
    CHECK_THAT(v, WithinAbs(4.0, 1e-12));
}

TEST_CASE("pair-total: outside its modes the sharing factor alone applies, and an MPS cap still bounds",
          "[interference][pair-total]")
{
  const PairTotalInterference model(total_table(), "test", {SharingMode::MPS});
  const auto x = saturating(JobClass::X);
  // time-slice is not listed: max(Σd = 1.9, 1 + 0.95·0.95 = 1.9025) · 1.01 = 1.921525, nothing from the
  // table.
  const auto t = slowdowns(SharingMode::TIME_SLICE, ts(), model, {x, x});
  CHECK_THAT(t[0], WithinAbs(1.921525, 1e-12));
  CHECK(model.factor(x, std::vector<const ResourceSignature*>{&x}, SharingMode::TIME_SLICE) == 1.0);
  // Listed for time-slice too: the total replaces the time-slice factor (no double count there either).
  const PairTotalInterference both(total_table(), "test", {SharingMode::MPS, SharingMode::TIME_SLICE});
  const auto tb = slowdowns(SharingMode::TIME_SLICE, ts(), both, {x, x});
  CHECK_THAT(tb[0], WithinAbs(2.3, 1e-12));
  // An active-thread cap p = 0.25 on a c = 1 job: alone it runs 4× slower, more than T[X][X] = 2.3.
  const std::vector<const ResourceSignature*> residents{&x, &x};
  const std::vector<double> caps{0.25, 1.0};
  std::vector<double> out(2);
  compute_slowdowns(SharingMode::MPS, ts(), model, residents, out, caps);
  CHECK_THAT(out[0], WithinAbs(4.0, 1e-12));
  CHECK_THAT(out[1], WithinAbs(2.3, 1e-12));
}

TEST_CASE("pair-total: co-located jobs never move more than the tile's achievable bandwidth together",
          "[interference][pair-total][bandwidth]")
{
  // A pair table whose MS|MS total (1.8) is below what two stream triads need: each moves b = 0.95 of the
  // tile's achievable bandwidth alone, so together they ask Σb = 1.9 tiles' worth; at 1.8 they would move
  // 2 · 0.95 / 1.8 = 1.056 tiles. The floor holds each at Σb = 1.9 (2 · 0.95 / 1.9 = 1.0 tile).
  PairTotalInterference::Table t{};
  for (auto& row : t)
    row.fill(1.05);
  t[3][3] = 1.8; // MS|MS
  const auto tr = triad();
  for (auto mode : {SharingMode::CCS_2, SharingMode::TIME_SLICE, SharingMode::MPS}) {
    const PairTotalInterference model(t, "test", {mode});
    const auto s = slowdowns(mode, ts(), model, {tr, tr});
    CHECK_THAT(s[0], WithinAbs(1.9, 1e-12)); // before: max(solo 1, 1.8) = 1.8
    CHECK_THAT(s[1], WithinAbs(1.9, 1e-12));
    CHECK(2 * tr.bw_util / s[0] <= 1.0 + 1e-12);
  }
  // A job that moves no bytes is not held by its neighbours' bandwidth: C (b = 0) next to a triad in
  // ccs-2: max(ccs_slowdown(c = 0.4 → partition 1), T[C][MS] = 1.05) = 1.05; the triad: Σb = 0.95 < 1, so
  // max(1, T[MS][C] = 1.05) = 1.05.
  auto c = sig(1.0, 0.4);
  c.job_class = JobClass::C;
  const PairTotalInterference model(t, "test", {SharingMode::CCS_2});
  const auto s = slowdowns(SharingMode::CCS_2, ts(), model, {c, tr});
  CHECK_THAT(s[0], WithinAbs(1.05, 1e-12));
  CHECK_THAT(s[1], WithinAbs(1.05, 1e-12));
}

TEST_CASE("ccs-k: the partition and the bandwidth share are weighed by the job's balance β, as in mig",
          "[interference][ccs][roofline]")
{
  // Alone in ccs-4, a job with c = 1, β = 0.5 and no bandwidth: half its runtime stretches with the
  // partition (×4), half does not: 0.5 · 4 + 0.5 · 1 = 2.5 (before: max(1, 1 · 4) = 4).
  auto half = sig(1.0, 1.0);
  half.freq_sensitive = 0.5;
  CHECK_THAT(slowdowns(SharingMode::CCS_4, ts(), NoInterference{}, {half})[0], WithinAbs(2.5, 1e-12));
  // The ceiling u·k: an XMX job (xmx 0.9, c = 1, β = 0.3) issues 0.9 of the tile's matrix throughput
  // alone, so a quarter of the EUs need at least 0.9 · 4 = 3.6 times as long: max(0.3 · 4 + 0.7 = 1.9,
  // 3.6) = 3.6 (before: 4).
  auto xmx = sig(1.0, 1.0);
  xmx.xmx_util = 0.9;
  xmx.freq_sensitive = 0.3;
  CHECK_THAT(slowdowns(SharingMode::CCS_4, ts(), NoInterference{}, {xmx})[0], WithinAbs(3.6, 1e-12));
  // β = 1: the plain partition, max(1, c · k) = 4.
  CHECK_THAT(slowdowns(SharingMode::CCS_4, ts(), NoInterference{}, {sig(1.0, 1.0)})[0],
             WithinAbs(4.0, 1e-12));

  // ccs-2, contention: job A (c = 1, β = 0.8, b = 0.3) next to a triad (c = 0.5, β = 0.15, b = 0.95).
  // Bandwidth share Σb = 1.25 for both. A: 0.8 · max(1, 2) + 0.2 · 1.25 = 1.85 ≥ 1.25, × (1 + ρ) 1.03 =
  // 1.9055 (before: max(2, 1.25) · 1.03 = 2.06). Triad: 0.15 · max(1, 1) + 0.85 · 1.25 = 1.2125 < 1.25, so
  // the bandwidth ceiling holds: 1.25 · 1.03 = 1.2875 (as before). Together they move 0.3 / 1.9055 +
  // 0.95 / 1.2875 = 0.895 of the tile's bandwidth (≤ 1).
  auto a = sig(1.0, 1.0, 0.3);
  a.freq_sensitive = 0.8;
  const auto tr = triad();
  const auto s = slowdowns(SharingMode::CCS_2, ts(), ContentionInterference{}, {a, tr});
  CHECK_THAT(s[0], WithinAbs(1.85 * 1.03, 1e-12));
  CHECK_THAT(s[1], WithinAbs(1.25 * 1.03, 1e-12));
  CHECK(a.bw_util / s[0] + tr.bw_util / s[1] <= 1.0);
  // table (default, C-like rows): A is class C next to MS: bound max(T[C][MS] = 1.075, Σb = 1.25) = 1.25,
  // extra 1: 0.8 · 2 + 0.2 · 1.25 = 1.85 (before: max(2, 1.25) = 2).
  a.job_class = JobClass::C;
  const auto st = slowdowns(SharingMode::CCS_2, ts(), TableInterference(default_table(), "test"), {a, tr});
  CHECK_THAT(st[0], WithinAbs(1.85, 1e-12));
  // Triad next to C: bound max(T[MS][C] = 1.2, 1.25) = 1.25; 0.15 + 0.85 · 1.25 = 1.2125 → 1.25.
  CHECK_THAT(st[1], WithinAbs(1.25, 1e-12));
}
