// `colocsim pack`: FGD's packing study (packing/Packing.hpp) on a node table and a pod list: pods arrive one
// by one, never leave, and are dropped (counted, with the reason) when they fit nowhere; the allocation and
// fragmentation curve against the arrived workload goes to a CSV.
#include "cli/CliCommands.hpp"
#include "packing/Packing.hpp"

#include "base/Errors.hpp"
#include "workloads/NodeInventory.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

namespace colocsim {

namespace {

const char* const PACK_HELP = R"(usage: colocsim pack --nodes FILE --pods FILE [options]

FGD's workload-inflation study (Weng et al., USENIX ATC'23): pods of an openb pod list arrive one by one on
the nodes of an openb node table (host CPU and memory, GPUs of one model) and never leave; a pod that fits
nowhere is dropped, not queued. Prints the allocation ratio at the end, the unallocated GPUs, the
fragmentation ratio at 50/80/90 % arrived and the dropped pods by reason (experiments/repro-fgd-atc23).

options:
  --nodes FILE       openb node table (sn,cpu_milli,memory_mib,gpu,model)
  --pods FILE        openb pod list (11 columns, or the 5-column multigpu variant), plain or .csv.gz
  --policy NAME      random, dot-product, gpu-clustering, gpu-packing, best-fit or fgd (default fgd)
  --seed N           seed of the tuning draws, the shuffle, the tie order and random (default 1)
  --tune X           inflate (or deflate) the pods to X times the GPUs (default 0: as listed; FGD: 1.3)
  --shuffle          shuffle the (tuned) pods with the seed (FGD does)
  --curve-step P     one curve row per P of arrived capacity, 1e-06..1 (default 0.01; 0: one row per
                     pod; never more than one row per pod)
  -o, --output FILE  write the curve CSV (arrivals,arrived,allocated,fragmentation,dropped) there
)";

double number(const std::string& flag, const std::string& text, double lo, double hi)
{
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v) && v >= lo && v <= hi) return v;
  } catch (const std::exception&) {
  }
  char range[96];
  std::snprintf(range, sizeof range, "a number in [%g, %g]", lo, hi);
  throw UsageError(flag + ": '" + text + "' is not " + range);
}

} // namespace

int cmd_pack(const std::vector<std::string>& args, std::ostream& out)
{
  std::string nodes_file, pods_file, output;
  packing::Options o;
  o.policy = "fgd";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw UsageError(a + " needs a value; see colocsim pack --help");
      return args[++i];
    };
    if (a == "--help" || a == "-h") {
      out << PACK_HELP;
      return 0;
    }
    if (a == "--nodes")
      nodes_file = value();
    else if (a == "--pods")
      pods_file = value();
    else if (a == "--policy")
      o.policy = value();
    else if (a == "--seed")
      o.seed = static_cast<std::uint64_t>(number(a, value(), 0, 9007199254740992.0));
    else if (a == "--tune")
      o.tune = number(a, value(), 0, 100);
    else if (a == "--shuffle")
      o.shuffle = true;
    else if (a == "--curve-step") {
      o.curve_step = number(a, value(), 0, 1);
      if (o.curve_step > 0 && o.curve_step < packing::MIN_CURVE_STEP)
        throw UsageError(a + ": '" + args[i] +
                         "' is below 1e-06; expected 0 (one row per pod) or a step in " +
                         "[1e-06, 1] of the GPU capacity");
    } else if (a == "-o" || a == "--output")
      output = value();
    else
      throw UsageError("unknown option '" + a + "'; see colocsim pack --help");
  }
  if (nodes_file.empty() || pods_file.empty())
    throw UsageError("pack needs --nodes FILE and --pods FILE; see colocsim pack --help");
  const auto nodes = packing::nodes_from(load_openb_nodes(nodes_file));
  const auto pods = packing::load_openb_pods(pods_file);
  const packing::Result r = packing::run(nodes, pods, o);
  char line[256];
  std::snprintf(line, sizeof line,
                "pods=%zu\nplaced=%zu\ndropped=%zu\nallocated=%.4f\nunallocated_gpus=%.1f\n", r.pods.size(),
                r.placed, r.dropped, r.curve.empty() ? 0.0 : r.curve.back().allocated, r.unallocated_gpus());
  out << line;
  for (const double at : {0.5, 0.8, 0.9}) {
    std::snprintf(line, sizeof line, "fragmentation_at_%d_pct=%.4f\n",
                  static_cast<int>(std::lround(at * 100)), r.fragmentation_at(at));
    out << line;
  }
  for (const auto& [reason, n] : r.drops)
    out << "dropped: " << n << " (" << reason << ")\n";
  if (!output.empty()) {
    std::ofstream f(output);
    if (!f) throw UsageError("cannot write " + output);
    f << packing::curve_csv(r);
  }
  return 0;
}

} // namespace colocsim
