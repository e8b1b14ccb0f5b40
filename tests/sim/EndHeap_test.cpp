// The engine's end heap (sim/engine/EndHeap.hpp) against a brute-force reference: a std::set of (time, job)
// and a map of each job's entry, over thousands of random adds, moves (earlier and later), erases and pops
// with a fixed seed. Times are drawn from a few values, so that many ends tie and the job index decides.
#include "tests/CatchCompat.hpp"

#include "sim/engine/EndHeap.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <utility>
#include <vector>

using namespace colocsim;

namespace {

enum class Kind : std::uint32_t { A, B, C };

/// The reference: every job's entry, and the entries in heap order (time, then job index).
struct Reference {
  std::map<JobIndex, std::pair<double, Kind>> entry;
  std::set<std::pair<double, JobIndex>> order;
  void set(JobIndex j, double t, Kind k)
  {
    erase(j);
    entry[j] = {t, k};
    order.insert({t, j});
  }
  void erase(JobIndex j)
  {
    auto it = entry.find(j);
    if (it == entry.end()) return;
    order.erase({it->second.first, j});
    entry.erase(it);
  }
};

void check_same(const EndHeap<Kind>& heap, const Reference& ref)
{
  REQUIRE(heap.size() == ref.entry.size());
  REQUIRE(heap.empty() == ref.entry.empty());
  if (ref.order.empty()) return;
  const auto& [t, j] = *ref.order.begin();
  REQUIRE(heap.top().job == j);
  REQUIRE(heap.top().t == t);
  REQUIRE(heap.top().kind == ref.entry.at(j).second);
}

} // namespace

TEST_CASE("end heap: one entry per job, moved in place, taken in time then job order, as a sorted reference",
          "[engine][components]")
{
  std::mt19937 rng(20240611);
  EndHeap<Kind> heap;
  Reference ref;
  // Job indices from a window that drifts upwards (as the jobs read), with a few far below it (a job
  // restarted long after it was read): the heap's window of positions grows at both ends and shrinks.
  JobIndex low = 0;
  const auto pick_job = [&]() -> JobIndex {
    if (rng() % 50 == 0) return static_cast<JobIndex>(rng() % (low + 1));
    return low + static_cast<JobIndex>(rng() % 64);
  };
  const double times[] = {0.0, 1.0, 1.0,  2.5,  3.0,
                          3.0, 3.0, 7.25, 10.0, std::numeric_limits<double>::infinity()};
  const auto pick_time = [&]() {
    return rng() % 4 == 0 ? static_cast<double>(rng() % 1000) / 8 : times[rng() % std::size(times)];
  };
  std::size_t updates = 0, pops = 0, erases = 0, ties = 0;
  for (int step = 0; step < 20000; ++step) {
    if (step % 200 == 0) low += 16;
    const auto op = rng() % 10;
    if (op < 5) { // set: an add, or a move (earlier or later) of a job that has an entry
      JobIndex j = pick_job();
      if (op < 2 && !ref.entry.empty()) { // move one that is held, often
        auto it = ref.entry.begin();
        std::advance(it, static_cast<long>(rng() % ref.entry.size()));
        j = it->first;
        ++updates;
      }
      const double t = pick_time();
      const auto k = static_cast<Kind>(rng() % 3);
      heap.set(j, t, k);
      ref.set(j, t, k);
    } else if (op < 7) { // erase: a job held or not
      JobIndex j = pick_job();
      if (op == 5 && !ref.entry.empty()) {
        auto it = ref.entry.begin();
        std::advance(it, static_cast<long>(rng() % ref.entry.size()));
        j = it->first;
        ++erases;
      }
      heap.erase(j);
      ref.erase(j);
    } else if (!ref.order.empty()) { // pop the earliest
      if (ref.order.size() > 1 && std::next(ref.order.begin())->first == ref.order.begin()->first) ++ties;
      check_same(heap, ref);
      ref.erase(heap.top().job);
      heap.pop();
      ++pops;
    }
    check_same(heap, ref);
    for (int probe = 0; probe < 3; ++probe) {
      const JobIndex j = pick_job();
      REQUIRE(heap.contains(j) == (ref.entry.count(j) == 1));
    }
  }
  // Drained: every entry comes out in the reference's order, with its kind.
  while (!ref.order.empty()) {
    check_same(heap, ref);
    ref.erase(heap.top().job);
    heap.pop();
  }
  CHECK(heap.empty());
  // The sequence exercised what it is meant to: moves, erases, pops with ties at the top.
  CHECK(updates > 1000);
  CHECK(erases > 1000);
  CHECK(pops > 2000);
  CHECK(ties > 100);
}

TEST_CASE("end heap: a job's entry moved later sinks below the others, one moved earlier rises to the top",
          "[engine][components]")
{
  EndHeap<Kind> heap;
  for (JobIndex j = 0; j < 10; ++j)
    heap.set(j, 5.0, Kind::A); // ten ends at one instant: job order
  CHECK(heap.top().job == 0);
  heap.set(0, 6.0, Kind::B); // later: job 1 is first now
  CHECK(heap.top().job == 1);
  heap.set(9, 1.0, Kind::C); // earlier: job 9 is first, with its new kind
  CHECK(heap.top().job == 9);
  CHECK(heap.top().kind == Kind::C);
  heap.erase(9);
  heap.erase(9); // no entry: nothing changes
  std::vector<JobIndex> order;
  while (!heap.empty()) {
    order.push_back(heap.top().job);
    heap.pop();
  }
  CHECK(order == std::vector<JobIndex>{1, 2, 3, 4, 5, 6, 7, 8, 0});
  CHECK_FALSE(heap.contains(0));
}
