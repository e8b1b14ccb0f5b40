#include "workloads/JobDag.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/topological_sort.hpp>

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace colocsim {

namespace {
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using EdgeT = boost::graph_traits<Graph>::edge_descriptor;

/// Records the first back edge a depth-first search meets (an edge into a vertex still on the stack).
struct CycleFinder : boost::default_dfs_visitor {
  std::vector<Vertex>* parent;
  bool* found;
  Vertex* from;
  Vertex* to;
  void tree_edge(EdgeT e, const Graph& g) const { (*parent)[boost::target(e, g)] = boost::source(e, g); }
  void back_edge(EdgeT e, const Graph& g) const
  {
    if (*found) return;
    *found = true;
    *from = boost::source(e, g);
    *to = boost::target(e, g);
  }
};
} // namespace

void JobDag::add(const Job& job)
{
  nodes_.push_back(Node{job.id, job.duration_s, job.think_time_s, job.depends_on, job.origin});
}

DagSummary JobDag::summarize(std::size_t max_problems) const
{
  DagSummary s;
  s.jobs = nodes_.size();
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    index.emplace(nodes_[i].id, i); // the first job of an id, as in the engine

  // Edge dependency → dependent.
  Graph g(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const auto& n = nodes_[i];
    if (!n.depends_on.empty()) ++s.with_dependencies;
    for (const auto& dep : n.depends_on) {
      const auto it = index.find(dep);
      if (it == index.end()) {
        ++s.missing;
        if (s.problems.size() < max_problems)
          s.problems.push_back(n.origin.to_string() + ": job '" + n.id + "' depends on '" + dep +
                               "', which is not in the trace (the replay ignores this dependency)");
        continue;
      }
      if (it->second > i) {
        ++s.forward;
        if (s.problems.size() < max_problems)
          s.problems.push_back(n.origin.to_string() + ": job '" + n.id + "' depends on '" + dep +
                               "', which comes later (" + nodes_[it->second].origin.to_string() +
                               "): a replay reads the trace in order and ignores this dependency");
      }
      boost::add_edge(it->second, i, g);
      ++s.edges;
    }
  }

  std::vector<Vertex> order;
  try {
    boost::topological_sort(g, std::back_inserter(order));
  } catch (const boost::not_a_dag&) {
    std::vector<Vertex> parent(boost::num_vertices(g));
    bool found = false;
    Vertex from = 0, to = 0;
    CycleFinder finder;
    finder.parent = &parent;
    finder.found = &found;
    finder.from = &from;
    finder.to = &to;
    boost::depth_first_search(g, boost::visitor(finder));
    if (found) { // to → ... → from (tree edges), then from → to closes it
      std::vector<std::string> ids{nodes_[from].id};
      for (Vertex v = from; v != to; v = parent[v])
        ids.push_back(nodes_[parent[v]].id);
      std::reverse(ids.begin(), ids.end());
      ids.push_back(nodes_[to].id);
      s.cycle = ids;
    }
    return s;
  }

  // Longest path in topological order (order is reversed: dependents first).
  std::reverse(order.begin(), order.end());
  std::vector<double> finish(nodes_.size(), 0), ready(nodes_.size(), 0);
  std::vector<long long> prev(nodes_.size(), -1); // the dependency that makes each job ready last
  for (Vertex v : order) {
    finish[v] = ready[v] + nodes_[v].duration_s;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const Vertex w = boost::target(*e, g);
      const double r = finish[v] + nodes_[w].think_time_s;
      if (prev[w] < 0 || r > ready[w]) {
        ready[w] = r;
        prev[w] = static_cast<long long>(v);
      }
    }
  }
  if (nodes_.empty()) return s;
  const auto last = static_cast<std::size_t>(std::max_element(finish.begin(), finish.end()) - finish.begin());
  s.critical_path_s = finish[last];
  for (long long v = static_cast<long long>(last); v >= 0; v = prev[static_cast<std::size_t>(v)])
    s.critical_chain.push_back(nodes_[static_cast<std::size_t>(v)].id);
  std::reverse(s.critical_chain.begin(), s.critical_chain.end());
  return s;
}

} // namespace colocsim
