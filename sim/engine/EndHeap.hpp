#pragma once
// The engine's end heap (docs/architecture.md, The event core): the next end of every running job, earliest
// first, one entry per job. A job's entry moves in place when its end moves (its rate changed) and leaves
// when the job's end is taken or the job is removed, so the heap never holds stale entries and never reads a
// job's state to tell them apart. It replaced a std::priority_queue with lazy deletion, in which about three
// entries were pushed per job and two of them popped as stale, each pop reading the job's state (a cache
// miss): `Simulation::next_end` was the top symbol of `colocsim bench` (11 % of the run).
//
// A 4-ary heap of 16-byte entries: half the depth of a binary heap, a node's four children in 64 bytes (one
// or two cache lines), so fewer cache misses per sift (d-heaps: D. B. Johnson, "Priority queues with update
// and finding minimum spanning trees", IPL 4(3), 1975; their cache behaviour: A. LaMarca and R. E. Ladner,
// "The influence of caches on the performance of heaps", ACM JEA 1, 1996). Each job's position in the heap is
// kept in a window of positions from the smallest job index held to the largest (4 bytes a job in it), as
// JobSlots keeps its states: a job that runs for ever keeps 4 bytes per later job, not more.
#include "policies/Policy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace colocsim {

template <class Kind> class EndHeap {
public:
  /// Job `job` ends (`kind`) at sim time `t`. Ordered by time, then job index: the order in which ends at
  /// one instant are taken does not depend on the order in which they were set.
  struct Entry {
    double t;
    JobIndex job;
    Kind kind;
  };

  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  /// The earliest end (the smallest job index among the earliest); the heap must not be empty.
  const Entry& top() const { return heap_.front(); }
  bool contains(JobIndex j) const { return position(j) != NONE; }

  /// Job j's next end is now (t, kind): its entry is added, or moved in place if it has one.
  void set(JobIndex j, double t, Kind kind)
  {
    std::uint32_t& p = slot(j);
    if (p == NONE) {
      if (heap_.size() >= NONE) throw std::length_error("end heap: more than 2^32 - 1 running jobs");
      p = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(Entry{t, j, kind});
      sift_up(p);
      return;
    }
    const std::uint32_t i = p;
    const Entry moved{t, j, kind};
    const bool earlier = before(moved, heap_[i]);
    heap_[i] = moved;
    if (earlier)
      sift_up(i);
    else
      sift_down(i);
  }
  /// Removes the earliest end; the heap must not be empty.
  void pop() { erase_at(0); }
  /// Removes job j's entry, if it has one.
  void erase(JobIndex j)
  {
    const std::uint32_t p = position(j);
    if (p != NONE) erase_at(p);
  }

private:
  static constexpr std::uint32_t NONE = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::size_t ARITY = 4;

  static bool before(const Entry& a, const Entry& b) { return a.t < b.t || (a.t == b.t && a.job < b.job); }

  std::uint32_t position(JobIndex j) const
  {
    return j >= base_ && j - base_ < pos_.size() ? pos_[j - base_] : NONE;
  }
  /// Job j's position cell, the window grown to hold it.
  std::uint32_t& slot(JobIndex j)
  {
    if (pos_.empty()) base_ = j;
    if (j < base_) {
      pos_.insert(pos_.begin(), base_ - j, NONE);
      base_ = j;
    }
    if (j - base_ >= pos_.size()) pos_.resize(std::size_t{j - base_} + 1, NONE);
    return pos_[j - base_];
  }
  /// Job j has left the heap: its cell is cleared and the window shrinks to the jobs still held.
  void clear_slot(JobIndex j)
  {
    pos_[j - base_] = NONE;
    while (!pos_.empty() && pos_.front() == NONE) {
      pos_.pop_front();
      ++base_;
    }
    while (!pos_.empty() && pos_.back() == NONE)
      pos_.pop_back();
  }
  void place(std::uint32_t i, const Entry& e)
  {
    heap_[i] = e;
    pos_[e.job - base_] = i;
  }
  void erase_at(std::uint32_t i)
  {
    const JobIndex gone = heap_[i].job;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i < heap_.size()) { // the last entry fills the hole, then moves to its place
      place(i, last);
      if (i > 0 && before(last, heap_[(i - 1) / ARITY]))
        sift_up(i);
      else
        sift_down(i);
    }
    clear_slot(gone);
  }
  void sift_up(std::uint32_t i)
  {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / ARITY;
      if (!before(e, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, e);
  }
  void sift_down(std::uint32_t i)
  {
    const Entry e = heap_[i];
    const std::size_t n = heap_.size();
    while (true) {
      const std::size_t first = ARITY * i + 1;
      if (first >= n) break;
      const std::size_t last = std::min(first + ARITY, n);
      std::size_t best = first;
      for (std::size_t c = first + 1; c < last; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      place(i, heap_[best]);
      i = static_cast<std::uint32_t>(best);
    }
    place(i, e);
  }

  std::vector<Entry> heap_;
  /// pos_[j - base_]: job j's index in heap_, NONE if it has no entry; from the smallest job index held to
  /// the largest.
  std::deque<std::uint32_t> pos_;
  JobIndex base_ = 0;
};

} // namespace colocsim
