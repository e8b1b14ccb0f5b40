// Validation of colocsim's MIG speed law against public per-slice measurements (README.md names every
// source): how well does a profile written from a solo run and ONE slice measurement predict the job's speed
// on the other MIG slice sizes?
//
// Data: measurements.csv, 7 workloads on an A100-SXM4-80GB (NJIT Wulver: GROMACS, QLoRA fine-tuning of
// Qwen2.5-1.5B, FP16 and TF32 matrix multiplication, three small PyTorch CNN trainings), each on 1g.10gb,
// 2g.20gb and 3g.40gb, four of them also on the whole GPU (MIG off). Speed = the run's rate over its
// reference run's (the whole GPU, or 3g.40gb where NJIT has no whole-GPU run).
// Law (models/Interference.hpp mig_slowdown, the simulator's own function): on an instance with s = its SMs /
// the device's 108 and m = its memory slices / 8 (models/mig/a100-80gb.yaml, models/devices/a100-80gb.yaml),
//   slowdown = max(β·max(1, c/s) + (1 − β)·max(1, b/m), b/m, u/s, 1),   with b = k·c and u = 0.
// Procedure (leave one workload out): for the held-out workload, the global β and k are the grid point
// (β in 0..1 step 0.05, k in 0..1.5 step 0.25) with the lowest MAPE on the OTHER workloads, each predicted
// the same way; then for each of its slice measurements in turn (the "one slice measurement" of the profile)
// c is solved so that the law gives that measured speed, and the law predicts its other slices. Errors are
// |predicted − measured| / measured, averaged per predicted slice size (MAPE).
// Checked (--check): the table equals results.csv; the measured speeds (typed by hand from the sources, not
// read from the file) are what measurements.csv gives; a hand-computed prediction (GROMACS, β = 1, k = 0, c
// from 1g); MAPE per slice size within the bounds README.md reports; a saturating job on 7g.80gb is 108/98
// slower than on the whole GPU (the engine test "a job on 7g.40gb runs slower than on the whole A100" checks
// the same in a simulation).
// Command: build/experiments/validate-mig/colocsim-validate-mig [--check] [--csv FILE]
#include "experiments/Driver.hpp"
#include "models/DeviceSpec.hpp"
#include "models/Interference.hpp"
#include "models/Mig.hpp"
#include "sim/Resources.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace colocsim;

namespace {

const std::string DIR = COLOCSIM_EXPERIMENT_DIR;
const std::vector<std::string> SLICES{"1g.10gb", "2g.20gb", "3g.40gb"};

struct Workload {
  std::string name;
  std::string ref;                     ///< "whole" or "3g.40gb"
  std::map<std::string, double> speed; ///< by slice, relative to ref (ref itself: 1)
  std::map<std::string, double> value; ///< as measured
};

/// Reads measurements.csv (rate: speed = value / ref value; time: ref value / value).
std::vector<Workload> read_measurements(const std::string& path)
{
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<Workload> out;
  std::map<std::string, std::string> kind_of;
  std::string line;
  int n = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;
      continue;
    }
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    if (f.size() != 6) throw std::runtime_error(path + ":" + std::to_string(n) + ": expected 6 fields");
    auto it = std::find_if(out.begin(), out.end(), [&](const Workload& w) { return w.name == f[0]; });
    if (it == out.end()) {
      out.push_back(Workload{f[0], "", {}, {}});
      it = out.end() - 1;
    }
    it->value[f[1]] = std::stod(f[2]);
    kind_of[f[0]] = f[4];
  }
  for (auto& w : out) {
    w.ref = w.value.count("whole") ? "whole" : "3g.40gb";
    const double r = w.value.at(w.ref);
    for (const auto& [slice, v] : w.value)
      w.speed[slice] = kind_of[w.name] == "time" ? r / v : v / r;
  }
  return out;
}

struct Shares {
  double s = 1, m = 1;
};

struct Model {
  std::map<std::string, Shares> shares; ///< by slice name; "whole" = 1, 1

  double slowdown(double c, double beta, double k, const std::string& slice) const
  {
    ResourceSignature j;
    j.compute_share = c;
    j.freq_sensitive = beta;
    j.bw_util = std::min(1.0, k * c);
    const auto& sh = shares.at(slice);
    return mig_slowdown(j, sh.s, sh.m);
  }
  double speed(double c, double beta, double k, const std::string& slice, const std::string& ref) const
  {
    return slowdown(c, beta, k, ref) / slowdown(c, beta, k, slice);
  }
  /// c in (0, 1] such that the law gives `target` on `slice` (the speed falls as c grows; clamped at the
  /// ends).
  double fit_c(double beta, double k, const std::string& slice, const std::string& ref, double target) const
  {
    double lo = 1e-4, hi = 1.0;
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (speed(mid, beta, k, slice, ref) > target ? lo : hi) = mid;
    }
    return 0.5 * (lo + hi);
  }
};

struct Prediction {
  std::string workload, fit_slice, slice;
  double beta, k, c, measured, predicted;
  double error() const { return std::fabs(predicted - measured) / measured; }
};

/// Every (fit slice, predicted slice) pair of `w` under global β and k.
std::vector<Prediction> predict(const Model& model, const Workload& w, double beta, double k)
{
  std::vector<Prediction> out;
  for (const auto& f : SLICES) {
    if (f == w.ref || !w.speed.count(f)) continue;
    const double c = model.fit_c(beta, k, f, w.ref, w.speed.at(f));
    for (const auto& g : SLICES) {
      if (g == w.ref || g == f || !w.speed.count(g)) continue;
      out.push_back({w.name, f, g, beta, k, c, w.speed.at(g), model.speed(c, beta, k, g, w.ref)});
    }
  }
  return out;
}

double mape(const std::vector<Prediction>& p)
{
  double sum = 0;
  for (const auto& x : p)
    sum += x.error();
  return p.empty() ? 0 : sum / static_cast<double>(p.size());
}

std::string fmt(double v, int digits = 4)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

} // namespace

int main(int argc, char** argv)
{
  const auto args = experiments::parse_driver_args(argc, argv, "colocsim-validate-mig");
  if (!args) return 2;

  // The instances' shares of the whole GPU, from the bundled tables (the simulator's own numbers).
  const auto dev_file = read_text_file("builtin:models/devices/a100-80gb.yaml");
  const DeviceSpec device = load_device_spec(dev_file.text, dev_file.name);
  const auto mig_file = read_text_file("builtin:models/mig/a100-80gb.yaml");
  const MigGeometry geo(load_mig_table(mig_file.text, mig_file.name));
  Model model;
  model.shares["whole"] = {1.0, 1.0};
  for (const auto& name : {"1g.10gb", "2g.20gb", "3g.40gb", "7g.80gb"}) {
    const auto& p = geo.profiles()[geo.profile_index(name)];
    model.shares[name] = {mig_sm_fraction(p, device.compute_units.value), mig_memory_fraction(geo, p)};
  }

  const auto workloads = read_measurements(DIR + "/measurements.csv");

  // Leave one workload out: β and k from the others, c from one slice of the held-out workload.
  std::vector<Prediction> all;
  std::vector<std::pair<std::string, std::pair<double, double>>> chosen;
  for (const auto& held : workloads) {
    double best = 1e300, best_beta = 1, best_k = 0;
    for (int bi = 0; bi <= 20; ++bi)
      for (int ki = 0; ki <= 6; ++ki) {
        const double beta = bi * 0.05, k = ki * 0.25;
        std::vector<Prediction> others;
        for (const auto& w : workloads)
          if (w.name != held.name)
            for (auto& p : predict(model, w, beta, k))
              others.push_back(p);
        const double e = mape(others);
        if (e < best - 1e-12) {
          best = e;
          best_beta = beta;
          best_k = k;
        }
      }
    chosen.push_back({held.name, {best_beta, best_k}});
    for (auto& p : predict(model, held, best_beta, best_k))
      all.push_back(p);
  }

  std::ostringstream table;
  table << "workload,reference,fit_slice,slice,beta,k,c,measured_speed,predicted_speed,error_pct\n";
  for (const auto& p : all) {
    const auto& w = *std::find_if(workloads.begin(), workloads.end(),
                                  [&](const Workload& x) { return x.name == p.workload; });
    table << p.workload << "," << w.ref << "," << p.fit_slice << "," << p.slice << "," << fmt(p.beta, 2)
          << "," << fmt(p.k, 2) << "," << fmt(p.c) << "," << fmt(p.measured) << "," << fmt(p.predicted) << ","
          << fmt(100 * p.error(), 1) << "\n";
  }
  std::map<std::string, std::vector<Prediction>> by_slice;
  for (const auto& p : all)
    by_slice[p.slice.substr(0, 2)].push_back(p);
  for (const auto& [g, ps] : by_slice)
    table << "mape," << g << ",,,,,," << ps.size() << " predictions,," << fmt(100 * mape(ps), 1) << "\n";
  table << "mape,all,,,,,," << all.size() << " predictions,," << fmt(100 * mape(all), 1) << "\n";

  // The whole-GPU comparison: 3g.40gb against the whole GPU where NJIT measured both, and what the law says
  // of 7g.80gb (98 of the 108 SMs, all 8 memory slices) for each workload's profile (c from its 1g run).
  std::ostringstream whole;
  whole << "workload,measured_3g_over_whole,predicted_3g_over_whole,predicted_7g_over_whole\n";
  for (const auto& w : workloads) {
    if (w.ref != "whole") continue;
    const auto& bk =
        std::find_if(chosen.begin(), chosen.end(), [&](const auto& x) { return x.first == w.name; })->second;
    const double c = model.fit_c(bk.first, bk.second, "1g.10gb", "whole", w.speed.at("1g.10gb"));
    whole << w.name << "," << fmt(w.speed.at("3g.40gb")) << ","
          << fmt(model.speed(c, bk.first, bk.second, "3g.40gb", "whole")) << ","
          << fmt(model.speed(c, bk.first, bk.second, "7g.80gb", "whole")) << "\n";
  }
  // results.csv holds the predictions and MAPE rows only (one table, one header: it is parsed strictly);
  // the whole-GPU comparison is printed after it.
  std::printf("%s\n%s", table.str().c_str(), whole.str().c_str());
  if (!args->csv.empty()) std::ofstream(args->csv) << table.str();
  if (!args->check) return 0;

  experiments::Checks checks;
  checks.table_is_committed(DIR, table.str());
  // The measured speeds, typed from the sources (README.md), not read from measurements.csv.
  const auto speed_of = [&](const std::string& w, const std::string& s) {
    return std::find_if(workloads.begin(), workloads.end(), [&](const Workload& x) { return x.name == w; })
        ->speed.at(s);
  };
  checks.expect(std::fabs(speed_of("gromacs", "1g.10gb") - 43.28 / 118.59) < 1e-12 &&
                    std::fabs(speed_of("qlora-qwen2.5-1.5b", "3g.40gb") - 130.9 / 173.2) < 1e-12 &&
                    std::fabs(speed_of("cifar10-deepcnn", "1g.10gb") - 158.72 / 295.44) < 1e-12,
                "measured speeds as the sources give them (GROMACS 1g 43.28/118.59, QLoRA 3g 130.9/173.2, "
                "CIFAR-10 DeepCNN 1g 158.72 s/295.44 s of 3g)");
  // By hand, GROMACS with β = 1, k = 0 (the law is max(1, c/s)): c from 1g = (14/108)/(43.28/118.59) =
  // 0.355190; on 2g.20gb (28/108 = 0.259259) the speed is s/c = 0.729917 against 81.205/118.59 = 0.684754.
  const double c_hand = model.fit_c(1.0, 0.0, "1g.10gb", "whole", 43.28 / 118.59);
  checks.expect(
      std::fabs(c_hand - 0.355190) < 1e-5 &&
          std::fabs(model.speed(c_hand, 1.0, 0.0, "2g.20gb", "whole") - 0.729917) < 1e-5,
      "hand-computed GROMACS prediction: c = 0.355190 from 1g, 2g speed 0.729917 (measured 0.684754)");
  checks.expect(mape(by_slice["2g"]) <= 0.10, "2g MAPE " + fmt(100 * mape(by_slice["2g"]), 1) + " % <= 10 %");
  checks.expect(mape(by_slice["3g"]) <= 0.10, "3g MAPE " + fmt(100 * mape(by_slice["3g"]), 1) + " % <= 10 %");
  checks.expect(mape(by_slice["1g"]) <= 0.12,
                "1g MAPE " + fmt(100 * mape(by_slice["1g"]), 1) +
                    " % <= 12 % (misses the 10 % target: the three small CNN trainings, README.md)");
  // Whole GPU vs 7g.80gb: a saturating job (c = 1, β = 1) runs at 98/108 of the whole GPU.
  checks.expect(std::fabs(model.speed(1.0, 1.0, 0.0, "7g.80gb", "whole") - 98.0 / 108.0) < 1e-12,
                "a saturating job on 7g.80gb runs at 98/108 = 0.9074 of the whole A100");
  return checks.exit_status();
}
