// Reproduction of Costa, Rigo, Osthoff, Rizzi, Navaux, Lorenzon, "Otimização de Fábricas de IA
// Sustentáveis por Compartilhamento de GPU" (SSCAD 2025; reference §3.1, key SSCAD25).
//
// Scenario: one tile of an Aurora Max 1550 card; every pair of the bundled inference profiles (and each
// profile with itself), two jobs of 600 s each submitted at t = 0 on tile 0, run one after the other
// (exclusive-fcfs) and co-located (first-fit, both on the tile), under Intel's default 1-CCS time-slicing
// (table interference) and split into 2 CCS (contention interference). Claim checked: for the best
// complementary pair, co-location cuts the time by up to 50 % and the energy by up to 43 % (makespan ≈ 0.50×,
// energy ≈ 0.57× of sequential); a bandwidth-bound pair gains little.
// Checked (--check; README.md "The check"): against the paper (abstract): the best ccs-2 pair's makespan
// 0.50 ± 0.03 and card energy 0.57 ± 0.03 of sequential; by hand: that makespan = 0.5 × (1 + ρ), ρ = 0.03 the
// contention residual (both jobs fit their half tile, c ≤ 0.5, and the HBM, Σb ≤ 1), and the two-decoder
// pair's = 0.5 × 1.7 × (1 + ρ) (Σb = 2 × 0.85); pinned gaps that can only shrink: under 1-CCS time-slicing
// the best pair's makespan ≤ 0.58 and card energy ≤ 0.63 (paper 0.50 / 0.57).
// Command: build/experiments/repro-costa-sscad25/colocsim-repro-costa [--check]
#include "experiments/Driver.hpp"
#include "models/PowerModel.hpp"
#include "sim/Engine.hpp"
#include "sim/Scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace colocsim;

namespace {

const std::vector<std::string> PROFILES{"resnet50-infer-bs1", "bert-base-infer-bs1", "llama3-8b-decode-bs1",
                                        "llama3-8b-infer-bs64", "stable-diffusion-infer"};
constexpr double DURATION_S = 600.0;

struct Energy {
  double makespan_s = 0, tile_j = 0, card_j = 0, node_j = 0;
};

Energy run(const std::string& trace, const std::string& policy, const std::string& sharing,
           const std::string& interference)
{
  const std::string scenario = std::string(COLOCSIM_EXPERIMENT_DIR) + "/scenario.yaml";
  RunInputs in = build_run(
      load_scenario(scenario,
                    experiments::with_env_sets({"workload.trace=" + trace, "platform.sharing=" + sharing,
                                                "interference=" + interference}),
                    policy));
  // The sibling tile's draw, idle throughout: the calibration's static power at the clock an idle tile
  // holds (Aurora pins it at the default 1.5 GHz: 110.5 W; models/README.md "Power").
  const auto& type = in.platform.types[0];
  const double idle_tile_w =
      device_power(type.power, {}, type.spec->freq_default_hz.value / type.spec->freq_max_hz.value).total_w;
  RunObserver none;
  const RunTotals t = run_simulation(in.setup(), none);
  Energy e;
  e.makespan_s = t.t_end_s - t.t_first_submit_s;
  e.tile_j = t.energy_device_j;                              // the one simulated tile
  e.card_j = t.energy_device_j + idle_tile_w * e.makespan_s; // + the card's other tile, idle throughout
  e.node_j = e.card_j + t.energy_node_j;                     // + the node baseline
  return e;
}

struct Row {
  std::string a, b, mode;
  double t_ratio, e_tile, e_card, e_node;
};

} // namespace

namespace {
int driver_main(int argc, char** argv)
{
  const auto args = experiments::parse_driver_args(argc, argv, "colocsim-repro-costa");
  if (!args) return 2;
  const auto dir = std::filesystem::temp_directory_path() / ("colocsim-costa-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);

  std::vector<Row> rows;
  struct Mode {
    const char* sharing;
    const char* interference;
  };
  for (const Mode mode : {Mode{"time-slice", "table"}, Mode{"ccs-2", "contention"}}) {
    for (std::size_t i = 0; i < PROFILES.size(); ++i) {
      for (std::size_t k = i; k < PROFILES.size(); ++k) {
        const auto trace = dir / ("pair-" + std::to_string(i) + "-" + std::to_string(k) + ".csv");
        std::ofstream(trace) << "id,submit_s,duration_s,profile\na,0," << DURATION_S << "," << PROFILES[i]
                             << "\nb,0," << DURATION_S << "," << PROFILES[k] << "\n";
        // Sequential: each job alone on the whole tile (no CCS split), one after the other.
        const Energy seq = run(trace.string(), "exclusive-fcfs", "exclusive", mode.interference);
        const Energy co =
            run(trace.string(), "first-fit:max_per_device=2,memory=profile", mode.sharing, mode.interference);
        rows.push_back(Row{PROFILES[i], PROFILES[k], mode.sharing, co.makespan_s / seq.makespan_s,
                           co.tile_j / seq.tile_j, co.card_j / seq.card_j, co.node_j / seq.node_j});
      }
    }
  }
  std::filesystem::remove_all(dir);

  std::printf("%-24s %-24s %-10s %9s %9s %9s %9s\n", "job A", "job B", "mode", "T_co/T_seq", "E tile",
              "E card", "E node");
  for (const auto& r : rows)
    std::printf("%-24s %-24s %-10s %9.3f %9.3f %9.3f %9.3f\n", r.a.c_str(), r.b.c_str(), r.mode.c_str(),
                r.t_ratio, r.e_tile, r.e_card, r.e_node);
  if (!args->csv.empty()) {
    std::ofstream out(args->csv);
    out << "job_a,job_b,mode,makespan_ratio,energy_tile_ratio,energy_card_ratio,energy_node_ratio\n";
    for (const auto& r : rows)
      out << r.a << ',' << r.b << ',' << r.mode << ',' << r.t_ratio << ',' << r.e_tile << ',' << r.e_card
          << ',' << r.e_node << '\n';
  }

  // The best complementary pair: distinct profiles, lowest co-located makespan ratio (ties: lowest card
  // energy), in ccs-2 and under time-slicing.
  auto best_of = [&](const std::string& mode) {
    const Row* best = nullptr;
    for (const auto& r : rows)
      if (r.mode == mode && r.a != r.b &&
          (!best || r.t_ratio < best->t_ratio - 1e-9 ||
           (std::abs(r.t_ratio - best->t_ratio) <= 1e-9 && r.e_card < best->e_card)))
        best = &r;
    return best;
  };
  const Row* best = best_of("ccs-2");
  const Row* sliced = best_of("time-slice");
  const Row* bandwidth = nullptr;
  for (const auto& r : rows)
    if (r.mode == "ccs-2" && r.a == "llama3-8b-decode-bs1" && r.b == r.a) bandwidth = &r;
  std::printf("\nbest complementary pair (ccs-2): %s + %s\n", best->a.c_str(), best->b.c_str());
  std::printf("  makespan  %.3f x sequential   (Costa et al.: 0.50, deviation %+.3f)\n", best->t_ratio,
              best->t_ratio - 0.50);
  std::printf("  energy    %.3f x (tile) / %.3f x (card) / %.3f x (node)   (Costa et al.: 0.57, domain not "
              "stated; card deviation %+.3f)\n",
              best->e_tile, best->e_card, best->e_node, best->e_card - 0.57);
  std::printf("best complementary pair (time-slice): %s + %s: makespan %.3f x, energy %.3f x (card)\n",
              sliced->a.c_str(), sliced->b.c_str(), sliced->t_ratio, sliced->e_card);
  std::printf(
      "bandwidth-bound pair (ccs-2): %s x2: makespan %.3f x, energy %.3f x (card): little or no gain\n",
      bandwidth->a.c_str(), bandwidth->t_ratio, bandwidth->e_card);

  if (!args->check) return 0;
  experiments::Checks checks;
  // 1. The paper (Costa et al., SSCAD 2025, abstract: "up to 50 %" time, "up to 43 %" energy). Tolerance
  //    ±0.03 (README.md): the unknown energy domain alone spreads our pair over 0.526–0.602, so ±0.03
  //    around 0.57 admits the card domain (0.566) and rejects the tile (0.602) and node (0.526) domains.
  checks.near(best->t_ratio, 0.50, 0.03,
              "best ccs-2 pair (" + best->a + " + " + best->b +
                  "): makespan vs sequential = Costa et al.'s 0.50 (abstract: 'up to 50 %')");
  checks.near(best->e_card, 0.57, 0.03,
              "best ccs-2 pair: card energy vs sequential = Costa et al.'s 0.57 (abstract: 'up to 43 %')");
  // 2. By hand (models/README.md, contention): in ccs-2 a job with compute share c ≤ 0.5 is not slowed by its
  //    half tile (max(1, 2c) = 1); the pair's bandwidth demands fit the HBM (Σb ≤ 1), so each runs
  //    1 + ρ = 1.03 times slower (ρ: the contention residual, reference §6.3's ε midpoint): both 600 s jobs
  //    end at 618 s against 1200 s one after the other, 0.515. Two Llama-3-8B decoders (c = 0.5,
  //    b = 0.85 each): Σb = 1.7 bounds them, 600 × 1.7 × 1.03 / 1200 = 0.8755.
  checks.near(
      best->t_ratio, 600 * 1.03 / 1200, 1e-6,
      "best ccs-2 pair: makespan = 600 s x (1 + 0.03) / 1200 s by hand (both fit half a tile and the HBM)");
  checks.near(bandwidth->t_ratio, 600 * 1.7 * 1.03 / 1200, 1e-6,
              "two Llama-3-8B decoders, ccs-2: makespan = 600 s x 1.7 x 1.03 / 1200 s by hand (HBM-bound)");
  // 3. Pinned gaps (README.md "How close"): under Intel's default 1-CCS time-slicing the model does not reach
  //    the paper's numbers (the estimated duty cycles 0.35 / 0.40 make the pair take turns); today 0.576 and
  //    0.621 against 0.50 and 0.57. The bounds can only move toward the paper.
  checks.at_most(sliced->t_ratio, 0.58,
                 "best time-slice pair: makespan vs sequential (paper 0.50; gap pinned, can only shrink)");
  checks.at_most(sliced->e_card, 0.63,
                 "best time-slice pair: card energy vs sequential (paper 0.57; gap pinned, can only shrink)");
  return checks.exit_status();
}
} // namespace

int main(int argc, char** argv)
{
  return experiments::guarded_main("colocsim-repro-costa", [&] { return driver_main(argc, argv); });
}
