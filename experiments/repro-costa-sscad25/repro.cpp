// Reproduction of Costa, Rigo, Osthoff, Rizzi, Navaux, Lorenzon, "Otimização de Fábricas de IA
// Sustentáveis por Compartilhamento de GPU" (SSCAD 2025; reference §3.1, key SSCAD25).
//
// Scenario: one tile of an Aurora Max 1550 card; every pair of the bundled inference profiles (and each
// profile with itself), two jobs of 600 s each submitted at t = 0 on tile 0, run one after the other
// (exclusive-fcfs) and co-located (first-fit, both on the tile), under Intel's default 1-CCS time-slicing
// (table interference) and split into 2 CCS (contention interference). Claim checked: for the best
// complementary pair, co-location cuts the time by up to 50 % and the energy by up to 43 % (makespan ≈ 0.50×,
// energy ≈ 0.57× of sequential); a bandwidth-bound pair gains little. Command:
// build/experiments/repro-costa-sscad25/colocsim-repro-costa [--check]
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
  RunInputs in = build_run(load_scenario(
      scenario, {"workload.trace=" + trace, "platform.sharing=" + sharing, "interference=" + interference},
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

int main(int argc, char** argv)
{
  const bool check = argc > 1 && std::string(argv[1]) == "--check";
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

  // The best complementary pair: distinct profiles, lowest co-located makespan ratio in ccs-2.
  const Row* best = nullptr;
  const Row* bandwidth = nullptr;
  for (const auto& r : rows) {
    if (r.mode != "ccs-2") continue;
    if (r.a != r.b && (!best || r.t_ratio < best->t_ratio - 1e-9 ||
                       (std::abs(r.t_ratio - best->t_ratio) <= 1e-9 && r.e_card < best->e_card)))
      best = &r;
    if (r.a == "llama3-8b-decode-bs1" && r.b == r.a) bandwidth = &r;
  }
  std::printf("\nbest complementary pair (ccs-2): %s + %s\n", best->a.c_str(), best->b.c_str());
  std::printf("  makespan  %.3f x sequential   (Costa et al.: 0.50, deviation %+.3f)\n", best->t_ratio,
              best->t_ratio - 0.50);
  std::printf("  energy    %.3f x (tile) / %.3f x (card) / %.3f x (node)   (Costa et al.: 0.57, domain not "
              "stated; card deviation %+.3f)\n",
              best->e_tile, best->e_card, best->e_node, best->e_card - 0.57);
  std::printf(
      "bandwidth-bound pair (ccs-2): %s x2: makespan %.3f x, energy %.3f x (card): little or no gain\n",
      bandwidth->a.c_str(), bandwidth->t_ratio, bandwidth->e_card);

  if (!check) return 0;
  // Checked expectation (README.md): the published "up to" numbers within the estimate's uncertainty.
  const bool ok = best->t_ratio >= 0.45 && best->t_ratio <= 0.60 && best->e_card >= 0.50 &&
                  best->e_card <= 0.65 && bandwidth->t_ratio >= 0.85;
  std::printf("check: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
