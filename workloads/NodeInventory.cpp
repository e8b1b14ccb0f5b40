#include "workloads/NodeInventory.hpp"

#include "workloads/CsvLines.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

namespace colocsim {

long long NodeInventory::gpus() const
{
  long long n = 0;
  for (const auto& node : nodes)
    n += node.gpus;
  return n;
}

std::size_t NodeInventory::gpu_nodes() const
{
  return static_cast<std::size_t>(
      std::count_if(nodes.begin(), nodes.end(), [](const InventoryNode& n) { return n.gpus > 0; }));
}

std::map<std::string, long long> NodeInventory::gpus_by_model() const
{
  std::map<std::string, long long> out;
  for (const auto& node : nodes)
    if (node.gpus > 0) out[node.gpu_model] += node.gpus;
  return out;
}

std::vector<NodeGroup> NodeInventory::groups() const
{
  using Key = std::tuple<std::string, int, double, double>;
  std::map<Key, std::size_t> counts;
  for (const auto& n : nodes)
    ++counts[Key{n.gpu_model, n.gpus, n.cpu_cores, n.memory_bytes}];
  std::vector<NodeGroup> out;
  for (const auto& [k, count] : counts)
    out.push_back(NodeGroup{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k), count});
  return out;
}

std::string NodeInventory::describe() const
{
  std::ostringstream os;
  for (const auto& g : groups())
    os << (g.gpu_model.empty() ? std::string("(CPU)") : g.gpu_model) << "  " << g.gpus_per_node << " GPUs x "
       << g.nodes << " nodes  (" << g.cpu_cores << " cores, " << g.memory_bytes / (1024.0 * 1024 * 1024)
       << " GiB)\n";
  os << "total: " << nodes.size() << " nodes, " << gpu_nodes() << " with GPUs, " << gpus() << " GPUs\n";
  return os.str();
}

namespace {

std::ifstream open_or_throw(const std::string& path)
{
  return open_input_file(path, "node table");
}

} // namespace

NodeInventory read_openb_nodes(std::istream& in, const std::string& file)
{
  static constexpr const char* COLUMNS[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
  CsvLines csv(in, file);
  if (!csv.next())
    throw InputError(SourceLocation{file}, "header",
                     "empty file; expected the header sn,cpu_milli,memory_mib,gpu,model");
  int col[5];
  std::vector<std::string> missing;
  for (int c = 0; c < 5; ++c)
    if ((col[c] = column_index(csv, COLUMNS[c])) < 0) missing.emplace_back(COLUMNS[c]);
  if (!missing.empty())
    throw InputError(csv.at(), "header",
                     "missing column(s) " + join(missing) + "; expected sn,cpu_milli,memory_mib,gpu,model");
  const std::size_t width = csv.size();
  NodeInventory inv;
  inv.source = file;
  while (csv.next()) {
    DiagnosticSink sink;
    if (csv.size() != width)
      throw InputError(csv.at(), "row",
                       "wrong number of fields (got " + std::to_string(csv.size()) + "); expected " +
                           std::to_string(width) + " as in the header");
    InventoryNode node;
    node.origin = csv.at();
    node.name = csv[static_cast<std::size_t>(col[0])];
    if (node.name.empty()) csv.bad(static_cast<std::size_t>(col[0]), "sn", "empty", "a node name", sink);
    if (auto v =
            csv.number(static_cast<std::size_t>(col[1]), "cpu_milli", "milli-cores, a number >= 0", sink, 0))
      node.cpu_cores = *v / 1000.0;
    if (auto v = csv.number(static_cast<std::size_t>(col[2]), "memory_mib", "MiB, a number >= 0", sink, 0))
      node.memory_bytes = *v * 1024.0 * 1024.0;
    if (auto v = csv.number(static_cast<std::size_t>(col[3]), "gpu", "a whole number of GPUs >= 0", sink, 0,
                            1e6, true))
      node.gpus = static_cast<int>(*v);
    node.gpu_model = csv[static_cast<std::size_t>(col[4])];
    if (node.gpus > 0 && node.gpu_model.empty())
      csv.bad(static_cast<std::size_t>(col[4]), "model", "empty", "the GPU model of a node with GPUs", sink);
    sink.throw_if_any();
    inv.nodes.push_back(std::move(node));
  }
  return inv;
}

NodeInventory load_openb_nodes(const std::string& path)
{
  auto in = open_or_throw(path);
  return read_openb_nodes(in, path);
}

NodeInventory read_pai_machines(std::istream& in, const std::string& file)
{
  CsvLines csv(in, file);
  NodeInventory inv;
  inv.source = file;
  while (csv.next()) {
    if (csv.size() != 5)
      throw InputError(csv.at(), "row",
                       "wrong number of fields (got " + std::to_string(csv.size()) +
                           "); expected 5: machine,gpu_type,cap_cpu,cap_mem,cap_gpu (no header)");
    if (csv.line() == 1 && csv[0] == "machine") continue; // tolerate a header row
    DiagnosticSink sink;
    InventoryNode node;
    node.origin = csv.at();
    node.name = csv[0];
    node.gpu_model = csv[1] == "CPU" ? std::string() : csv[1];
    if (auto v = csv.number(2, "cap_cpu", "cores, a number >= 0", sink, 0)) node.cpu_cores = *v;
    if (auto v = csv.number(3, "cap_mem", "GB, a number >= 0", sink, 0)) node.memory_bytes = *v * 1e9;
    if (auto v = csv.number(4, "cap_gpu", "a whole number of GPUs >= 0", sink, 0, 1e6, true))
      node.gpus = static_cast<int>(*v);
    sink.throw_if_any();
    inv.nodes.push_back(std::move(node));
  }
  return inv;
}

NodeInventory load_pai_machines(const std::string& path)
{
  auto in = open_or_throw(path);
  return read_pai_machines(in, path);
}

} // namespace colocsim
