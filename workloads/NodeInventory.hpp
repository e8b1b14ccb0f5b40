#pragma once
// What a trace's cluster was made of: nodes with their GPU type and count, read from the node tables that
// ship with GPU traces (docs/formats/alibaba-openb.md, docs/formats/alibaba-pai.md). It is plain data for
// building a heterogeneous platform later; the engine does not read it yet.
//
// Sources: the Alibaba v2023 `openb_node_list_{all,gpu}_node.csv` (header
// `sn,cpu_milli,memory_mib,gpu,model`) and the Alibaba v2020 `pai_machine_spec.csv` (no header:
// `machine,gpu_type,cap_cpu,cap_mem,cap_gpu`).
#include "base/Errors.hpp"

#include <cstddef>
#include <istream>
#include <map>
#include <string>
#include <vector>

namespace colocsim {

struct InventoryNode {
  std::string name;
  std::string gpu_model; ///< e.g. "V100M32"; empty for a CPU-only node
  int gpus = 0;
  double cpu_cores = 0;
  double memory_bytes = 0; ///< host memory
  SourceLocation origin;
};

/// Nodes that are alike (same GPU model and count, CPU and memory), counted.
struct NodeGroup {
  std::string gpu_model;
  int gpus_per_node = 0;
  double cpu_cores = 0;
  double memory_bytes = 0;
  std::size_t nodes = 0;
};

struct NodeInventory {
  std::string source;               ///< the file it was read from
  std::vector<InventoryNode> nodes; ///< file order

  long long gpus() const;        ///< total GPUs
  std::size_t gpu_nodes() const; ///< nodes with at least one GPU
  /// GPUs per model, CPU-only nodes left out; sorted by model name.
  std::map<std::string, long long> gpus_by_model() const;
  /// Groups of alike nodes, sorted by model, then GPUs per node, CPU, memory.
  std::vector<NodeGroup> groups() const;
  /// One line per group, e.g. "V100M32  8 GPUs x 21 nodes  (96 cores, 512 GiB)", then a total line.
  std::string describe() const;
};

/// Reads an openb node list. Throws InputError (`file:line:col: field: ...`) on a bad header or row.
NodeInventory read_openb_nodes(std::istream& in, const std::string& file);
NodeInventory load_openb_nodes(const std::string& path);

/// Reads the PAI 2020 machine table (no header; `gpu_type` CPU = no GPU, MISC = older K40m/K80/M60).
NodeInventory read_pai_machines(std::istream& in, const std::string& file);
NodeInventory load_pai_machines(const std::string& path);

} // namespace colocsim
