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
// kept in a ring covering the job indices from the smallest held to the largest (4 to 8 bytes a job of that
// window), as JobSlots keeps its states in a window: a job that runs for ever costs at most 8 bytes per later
// job, not more.
#include "policies/Policy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
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

  std::uint32_t position(JobIndex j) const { return j >= lo_ && j < hi_ ? pos_[j & mask_] : NONE; }
  /// Job j's position cell, the window widened to hold it (the ring grown if it is too small).
  std::uint32_t& slot(JobIndex j)
  {
    const JobIndex lo = lo_ == hi_ ? j : std::min(lo_, j);
    const JobIndex hi = lo_ == hi_ ? j + 1 : std::max(hi_, j + 1);
    if (hi - lo > pos_.size()) grow(hi - lo);
    lo_ = lo;
    hi_ = hi;
    return pos_[j & mask_];
  }
  /// The ring holds at least `width` cells: the next power of two at least twice the width, each job of the
  /// window copied to its new cell.
  void grow(std::size_t width)
  {
    std::size_t size = std::max<std::size_t>(pos_.size(), 64);
    while (size < 2 * width)
      size *= 2;
    std::vector<std::uint32_t> ring(size, NONE);
    const std::size_t mask = size - 1;
    for (JobIndex k = lo_; k < hi_; ++k)
      ring[k & mask] = pos_[k & mask_];
    pos_.swap(ring);
    mask_ = mask;
  }
  /// Job j has left the heap: its cell is cleared and the window shrinks to the jobs still held (every cell
  /// outside the window is NONE).
  void clear_slot(JobIndex j)
  {
    pos_[j & mask_] = NONE;
    while (lo_ < hi_ && pos_[lo_ & mask_] == NONE)
      ++lo_;
    while (hi_ > lo_ && pos_[(hi_ - 1) & mask_] == NONE)
      --hi_;
  }
  void place(std::uint32_t i, const Entry& e)
  {
    heap_[i] = e;
    pos_[e.job & mask_] = i;
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
  /// pos_[j & mask_]: job j's index in heap_ for j in the window [lo_, hi_), from the smallest job index
  /// held to the largest; NONE for a job without an entry. A ring of a power-of-two size at least the
  /// window's width: cells are found with a mask, and a window that moves up (or down: a job restarted long
  /// after it was read) reuses its cells without moving any.
  std::vector<std::uint32_t> pos_;
  std::size_t mask_ = 0;
  JobIndex lo_ = 0, hi_ = 0;
};

} // namespace colocsim
