// Validation of the `solo-utilisation` interference model (models/SoloUtilisation.hpp): how well do two jobs'
// SOLO measurements predict their speeds when they share one NVIDIA GPU? README.md names every source.
//
// Data: gavel-v100-pairs.csv, Gavel's (OSDI'20) measured throughputs of 26 training job types on a V100,
// alone and in every pair sharing one GPU (space sharing: both processes at once, kernels may overlap:
// colocsim's mps); solo-inputs.csv, each job type's solo steps/s [measurement] and its SM utilisation derived
// from its training FLOPs per step × steps/s ÷ the V100's fp32 peak [estimate] (derive_solo_inputs.py). Pairs
// used: as calibration/tools/import_gavel.py, without failed pairs (throughput 0, 0) and without pairs whose
// two throughputs are exactly both solo throughputs (filled-in copies): 611 ordered pairs, 316 unordered.
// Speed of a job in a pair = paired ÷ solo throughput. Model (the simulator's own compute_slowdowns with
// SoloUtilisationInterference, mode mps): each job's signature is vec_util = compute_share = its sm_util,
// duty cycle 1, nothing else. Procedure (leave one family out): for each of the 7 families, θ, γ, η are the
// grid point (θ 0..2 step 0.1, γ in {0.5, 1, 1.5, 2, 3}, η 0..0.6 step 0.05) with the least squared speed
// error over the pairs that do not involve the family; the family's jobs' speeds (every pair where the slowed
// job is of that family) are predicted with it. No parameter is tuned per pair or per job. Scores over the
// 611 predicted speeds: MAPE, Pearson r; over the 316 unordered pairs: the share classified correctly as good
// (both speeds >= 0.9) or bad. Against: speed 1 (no interference), the mean speed of the training folds, and
// (a ceiling, not a predictor: it sees the answers) the in-sample mean speed of each pair of families.
// Checked (--check): the table equals results.csv; Gavel's numbers typed from the source; sm_util and a
// prediction by hand; the scores pinned at today's values (the targets r >= 0.8, classification >= 85 %,
// MAPE <= 6 % are printed beside them; README.md says why the first and last are missed); the full-data
// fit is the model's default parameters.
// Command: build-test/experiments/validate-interference/colocsim-validate-interference [--check] [--csv FILE]
#include "experiments/Driver.hpp"
#include "models/SoloUtilisation.hpp"

#include <set>

using namespace colocsim;

namespace {

const std::string DIR = COLOCSIM_EXPERIMENT_DIR;

struct Job {
  std::string name, family;
  double solo = 0, sm_util = 0;
  ResourceSignature sig;
};

struct Pair {
  std::size_t a = 0, b = 0; ///< indices into the jobs
  double speed_a = 0, speed_b = 0;
};

std::vector<std::string> split_first(const std::string& line, std::size_t n)
{
  std::vector<std::string> f;
  std::stringstream ss(line);
  for (std::string x; f.size() < n && std::getline(ss, x, ',');)
    f.push_back(x);
  if (f.size() < n) throw std::runtime_error("short line: " + line);
  return f;
}

std::vector<Job> read_jobs()
{
  std::ifstream in(DIR + "/solo-inputs.csv");
  std::vector<Job> jobs;
  std::string line;
  std::getline(in, line); // header
  while (std::getline(in, line)) {
    const auto f = split_first(line, 6);
    Job j;
    j.name = f[0];
    j.family = f[1];
    j.solo = std::stod(f[3]);
    j.sm_util = std::stod(f[5]);
    j.sig.duty_cycle = 1.0;
    j.sig.vec_util = j.sm_util;
    j.sig.compute_share = j.sm_util;
    j.sig.bw_util = 0.0;
    jobs.push_back(j);
  }
  if (jobs.size() != 26) throw std::runtime_error("solo-inputs.csv: expected 26 job types");
  return jobs;
}

std::vector<Pair> read_pairs(const std::vector<Job>& jobs, int& failed, int& copies)
{
  const auto index = [&](const std::string& name) {
    for (std::size_t i = 0; i < jobs.size(); ++i)
      if (jobs[i].name == name) return i;
    throw std::runtime_error("gavel-v100-pairs.csv: unknown job " + name);
  };
  std::ifstream in(DIR + "/gavel-v100-pairs.csv");
  std::vector<Pair> pairs;
  std::string line;
  std::getline(in, line);
  failed = copies = 0;
  while (std::getline(in, line)) {
    const auto f = split_first(line, 4);
    Pair p;
    p.a = index(f[0]);
    p.b = index(f[1]);
    const double ta = std::stod(f[2]), tb = std::stod(f[3]);
    if (ta == 0 && tb == 0) {
      ++failed;
      continue;
    }
    if (ta == jobs[p.a].solo && tb == jobs[p.b].solo) {
      ++copies;
      continue;
    }
    p.speed_a = ta / jobs[p.a].solo;
    p.speed_b = tb / jobs[p.b].solo;
    pairs.push_back(p);
  }
  return pairs;
}

/// Predicted speeds of a and b sharing one GPU under mps (the simulator's compute_slowdowns).
std::pair<double, double> predict(const SoloUtilisationInterference& model, const Job& a, const Job& b)
{
  const TimeSliceParams ts{};
  const std::vector<const ResourceSignature*> residents{&a.sig, &b.sig};
  std::vector<double> out(2);
  compute_slowdowns(SharingMode::MPS, ts, model, residents, out);
  return {1.0 / out[0], 1.0 / out[1]};
}

struct Scores {
  std::size_t n = 0;
  double mape = 0, r = 0, class_acc = 0;
};

/// pred[i]: predicted speed of pairs[i].a next to pairs[i].b (ordered pairs); unordered classification uses
/// the prediction of (a, b) and of (b, a).
Scores score(const std::vector<Pair>& pairs, const std::vector<double>& pred)
{
  Scores s;
  s.n = pairs.size();
  double sum_e = 0, mx = 0, my = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    sum_e += std::fabs(pred[i] - pairs[i].speed_a) / pairs[i].speed_a;
    mx += pred[i];
    my += pairs[i].speed_a;
  }
  s.mape = 100 * sum_e / static_cast<double>(s.n);
  mx /= static_cast<double>(s.n);
  my /= static_cast<double>(s.n);
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    sxy += (pred[i] - mx) * (pairs[i].speed_a - my);
    sxx += (pred[i] - mx) * (pred[i] - mx);
    syy += (pairs[i].speed_a - my) * (pairs[i].speed_a - my);
  }
  s.r = sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0; // a constant predictor: r = 0
  std::map<std::pair<std::size_t, std::size_t>, std::pair<double, double>> by_pair; // (lo, hi): pred, meas
  std::map<std::pair<std::size_t, std::size_t>, std::pair<double, double>> mins;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto key = std::minmax(pairs[i].a, pairs[i].b);
    auto [it, fresh] = mins.try_emplace(key, pred[i], pairs[i].speed_a);
    if (!fresh)
      it->second = {std::min(it->second.first, pred[i]), std::min(it->second.second, pairs[i].speed_a)};
  }
  std::size_t right = 0;
  for (const auto& [key, v] : mins)
    right += (v.first >= 0.9) == (v.second >= 0.9) ? 1 : 0;
  s.class_acc = 100.0 * static_cast<double>(right) / static_cast<double>(mins.size());
  return s;
}

std::string fmt(double v, int digits = 4)
{
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

struct Fit {
  SoloUtilisationParams p;
  double sse = 0;
};

Fit fit(const std::vector<Job>& jobs, const std::vector<Pair>& train)
{
  Fit best{{}, 1e300};
  for (int ti = 0; ti <= 20; ++ti)
    for (const double g : {0.5, 1.0, 1.5, 2.0, 3.0})
      for (int ei = 0; ei <= 12; ++ei) {
        const SoloUtilisationParams p{.theta = ti * 0.1, .gamma = g, .eta = ei * 0.05};
        const SoloUtilisationInterference model(p);
        double sse = 0;
        for (const auto& pr : train) {
          const double e = predict(model, jobs[pr.a], jobs[pr.b]).first - pr.speed_a;
          sse += e * e;
        }
        if (sse < best.sse - 1e-12) best = {p, sse};
      }
  return best;
}

} // namespace

int main(int argc, char** argv)
{
  const auto args = experiments::parse_driver_args(argc, argv, "colocsim-validate-interference");
  if (!args) return 2;
  return experiments::guarded_main("colocsim-validate-interference", [&] {
    const auto jobs = read_jobs();
    int failed = 0, copies = 0;
    const auto pairs = read_pairs(jobs, failed, copies);
    std::vector<std::string> families;
    for (const auto& j : jobs)
      if (std::find(families.begin(), families.end(), j.family) == families.end())
        families.push_back(j.family);

    std::ostringstream table;
    table << "predictor,held_out,theta,gamma,eta,speeds,mape_pct,pearson_r,class_acc_pct\n";
    // Leave one family out.
    std::vector<double> pred_model(pairs.size()), pred_mean(pairs.size());
    for (const auto& fam : families) {
      std::vector<Pair> train;
      for (const auto& p : pairs)
        if (jobs[p.a].family != fam && jobs[p.b].family != fam) train.push_back(p);
      const Fit f = fit(jobs, train);
      double mean = 0;
      for (const auto& p : train)
        mean += p.speed_a;
      mean /= static_cast<double>(train.size());
      const SoloUtilisationInterference model(f.p);
      std::vector<Pair> held;
      std::vector<double> held_pred;
      for (std::size_t i = 0; i < pairs.size(); ++i)
        if (jobs[pairs[i].a].family == fam) {
          pred_model[i] = predict(model, jobs[pairs[i].a], jobs[pairs[i].b]).first;
          pred_mean[i] = mean;
          held.push_back(pairs[i]);
          held_pred.push_back(pred_model[i]);
        }
      const auto s = score(held, held_pred);
      table << "solo-utilisation," << fam << "," << fmt(f.p.theta, 2) << "," << fmt(f.p.gamma, 2) << ","
            << fmt(f.p.eta, 2) << "," << s.n << "," << fmt(s.mape, 1) << "," << fmt(s.r, 3) << ","
            << fmt(s.class_acc, 1) << "\n";
    }
    const auto model_all = score(pairs, pred_model);
    const auto mean_all = score(pairs, pred_mean);
    const auto one_all = score(pairs, std::vector<double>(pairs.size(), 1.0));
    // Ceiling: the in-sample mean speed of each (slowed family, co-runner family).
    std::map<std::pair<std::string, std::string>, std::pair<double, int>> cell;
    for (const auto& p : pairs) {
      auto& c = cell[{jobs[p.a].family, jobs[p.b].family}];
      c.first += p.speed_a;
      ++c.second;
    }
    std::vector<double> pred_cell;
    for (const auto& p : pairs) {
      const auto& c = cell[{jobs[p.a].family, jobs[p.b].family}];
      pred_cell.push_back(c.first / c.second);
    }
    const auto cell_all = score(pairs, pred_cell);
    const Fit full = fit(jobs, pairs);
    const auto row = [&](const std::string& name, const std::string& held, const Scores& s) {
      table << name << "," << held << ",,,," << s.n << "," << fmt(s.mape, 1) << "," << fmt(s.r, 3) << ","
            << fmt(s.class_acc, 1) << "\n";
    };
    row("solo-utilisation", "all (leave one family out)", model_all);
    row("speed-1", "all", one_all);
    row("mean", "all (leave one family out)", mean_all);
    row("family-pair-mean (in-sample ceiling)", "all", cell_all);
    table << "solo-utilisation (full-data fit; the model's defaults),all," << fmt(full.p.theta, 2) << ","
          << fmt(full.p.gamma, 2) << "," << fmt(full.p.eta, 2) << ",,,,\n";
    std::printf("%s", table.str().c_str());
    std::printf("pairs: %zu ordered used, %d failed and %d filled-in copies left out\n", pairs.size(), failed,
                copies);
    if (!args->csv.empty()) std::ofstream(args->csv) << table.str();
    if (!args->check) return 0;

    experiments::Checks checks;
    checks.table_is_committed(DIR, table.str());
    const auto job = [&](const std::string& name) -> const Job& {
      return *std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.name == name; });
    };
    const Job& r50 = job("ResNet-50 (batch size 64)");
    const Job& r18 = job("ResNet-18 (batch size 16)");
    // Typed from Gavel's simulation_throughputs.json (v100, scale factor 1), not read from the files.
    const auto measured = std::find_if(pairs.begin(), pairs.end(), [&](const Pair& p) {
      return jobs[p.a].name == r50.name && jobs[p.b].name == r18.name;
    });
    checks.expect(
        r50.solo == 4.394774823323071 && r18.solo == 32.353384328946916 && measured != pairs.end() &&
            std::fabs(measured->speed_a - 4.0687113803879855 / 4.394774823323071) < 1e-15 &&
            std::fabs(measured->speed_b - 20.365558661109052 / 32.353384328946916) < 1e-15,
        "Gavel's numbers: ResNet-50 bs64 solo 4.3948, ResNet-18 bs16 solo 32.353 steps/s, paired 4.0687 "
        "and 20.366");
    checks.expect(pairs.size() == 611 && failed == 40 && copies == 25,
                  "611 ordered pairs used, 40 failed and 25 copies left out (as the gavel-v100 import)");
    // sm_util by hand: 3 × 2 × 3.8e9 FLOP × 64 samples × 4.394775 steps/s ÷ 15.7e12 = 0.408462.
    checks.near(r50.sm_util, 0.408462, 1e-6, "ResNet-50 bs64 sm_util by hand");
    // Prediction by hand with θ 0.7, γ 2, η 0.25: u 0.408462 vs ResNet-18 bs16 u = 3 × 2 × 0.56e9 × 16 ×
    // 32.353384 ÷ 15.7e12 = 0.110785; share of ResNet-18 against ResNet-50 = 0.110785² / (0.110785² +
    // 0.408462²) = 0.068522, slowdown 1 + 0.25 + 0.7 × 0.068522 = 1.297965, speed 0.770437 (measured 0.9258);
    // ResNet-18: share 0.931478, slowdown 1.902035, speed 0.525753 (measured 0.6295).
    const SoloUtilisationInterference hand_model(
        SoloUtilisationParams{.theta = 0.7, .gamma = 2.0, .eta = 0.25});
    const auto hp = predict(hand_model, r50, r18);
    checks.near(hp.first, 0.770437, 2e-6, "ResNet-50 bs64 next to ResNet-18 bs16, by hand");
    checks.near(hp.second, 0.525753, 2e-6, "ResNet-18 bs16 next to ResNet-50 bs64, by hand");
    const SoloUtilisationParams defaults{};
    checks.expect(std::fabs(full.p.theta - defaults.theta) < 1e-9 &&
                      std::fabs(full.p.gamma - defaults.gamma) < 1e-9 &&
                      std::fabs(full.p.eta - defaults.eta) < 1e-9,
                  "the full-data fit is SoloUtilisationParams' defaults");
    // Pinned at today's values (can only improve); the targets beside them.
    checks.at_most(model_all.mape, 45.2, "leave-one-family-out MAPE (target 6 %: missed, README.md)");
    checks.at_least(model_all.r, 0.13, "leave-one-family-out Pearson r (target 0.8: missed, README.md)");
    checks.at_least(model_all.class_acc, 98.0,
                    "good/bad classification (target 85 %; the mean predictor, always bad, gets as much)");
    checks.at_most(model_all.mape, mean_all.mape, "MAPE no worse than the mean predictor's");
    checks.at_most(model_all.mape, one_all.mape, "MAPE below speed 1's");
    // The gap: even the mean of each pair of families, fitted on the answers, misses r 0.8 and MAPE 6 %.
    checks.at_most(cell_all.r, 0.8, "ceiling: in-sample family-pair means stay below r 0.8");
    checks.at_least(cell_all.mape, 6.0, "ceiling: in-sample family-pair means stay above MAPE 6 %");
    return checks.exit_status();
  });
}
