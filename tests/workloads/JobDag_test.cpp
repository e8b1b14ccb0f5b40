// The dependency graph of a trace (workloads/JobDag): critical path by hand, dependencies on missing and on
// later jobs, and the cycle that only dependencies on later jobs can make.
#include "tests/CatchCompat.hpp"

#include "workloads/JobDag.hpp"

using namespace colocsim;

namespace {
Job job(const std::string& id, double duration, std::vector<std::string> deps = {}, double think = 0,
        int line = 0)
{
  Job j;
  j.id = id;
  j.duration_s = duration;
  j.depends_on = std::move(deps);
  j.think_time_s = think;
  j.origin = SourceLocation{"t.csv", line};
  return j;
}
} // namespace

TEST_CASE("the critical path is the longest chain of durations and think times", "[workloads][dag]")
{
  // a(100) and b(50) feed c(30, think 20); d(40) follows c; e(500) stands alone.
  // Chains: a→c→d = 100+20+30+40 = 190; b→c→d = 50+20+30+40 = 140; e = 500 → the critical path is e.
  JobDag dag;
  for (const auto& j : {job("a", 100), job("b", 50), job("c", 30, {"a", "b"}, 20), job("d", 40, {"c"})})
    dag.add(j);
  auto s = dag.summarize();
  CHECK(s.jobs == 4);
  CHECK(s.with_dependencies == 2);
  CHECK(s.edges == 3);
  CHECK(s.critical_path_s == 190);
  CHECK(s.critical_chain == std::vector<std::string>{"a", "c", "d"});
  CHECK(s.cycle.empty());
  dag.add(job("e", 500));
  s = dag.summarize();
  CHECK(s.critical_path_s == 500);
  CHECK(s.critical_chain == std::vector<std::string>{"e"});
}

TEST_CASE("dependencies on missing or later jobs are counted and described, and a cycle is found",
          "[workloads][dag]")
{
  JobDag dag;
  dag.add(job("a", 10, {"c"}, 0, 2)); // c comes later: a forward dependency
  dag.add(job("b", 10, {"a", "ghost"}, 0, 3));
  dag.add(job("c", 10, {"b"}, 0, 4)); // closes a -> b -> c -> a
  const auto s = dag.summarize();
  CHECK(s.missing == 1);
  CHECK(s.forward == 1);
  REQUIRE(s.problems.size() == 2);
  CHECK(s.problems[0] ==
        "t.csv:2: job 'a' depends on 'c', which comes later (t.csv:4): a replay reads the trace "
        "in order and ignores this dependency");
  CHECK(
      s.problems[1] ==
      "t.csv:3: job 'b' depends on 'ghost', which is not in the trace (the replay ignores this dependency)");
  REQUIRE(s.cycle.size() == 4);
  CHECK(s.cycle.front() == s.cycle.back());
  // The three jobs each appear once around the cycle, in dependency order.
  std::vector<std::string> around(s.cycle.begin(), s.cycle.end() - 1);
  std::sort(around.begin(), around.end());
  CHECK(around == std::vector<std::string>{"a", "b", "c"});
  for (std::size_t i = 0; i + 1 < s.cycle.size(); ++i) {
    const auto& from = s.cycle[i];
    const auto& to = s.cycle[i + 1];
    // "from -> to": to depends on from.
    CHECK(((from == "a" && to == "b") || (from == "b" && to == "c") || (from == "c" && to == "a")));
  }
  CHECK(s.critical_path_s == 0);
}
