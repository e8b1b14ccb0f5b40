// FitIndex: "the lowest slot at or after `from` with capacity ≥ x" against hand-checked answers.
#include "tests/CatchCompat.hpp"

#include "policies/FitIndex.hpp"

#include <iterator>
#include <random>
#include <vector>

using namespace colocsim;

TEST_CASE("FitIndex finds the lowest slot with enough capacity", "[policies][fit-index]")
{
  FitIndex index(5);
  for (std::size_t i = 0; i < 5; ++i)
    index.set(i, 10.0 * static_cast<double>(i)); // 0, 10, 20, 30, 40
  CHECK(index.find_first(25) == 3);
  CHECK(index.find_first(25, 4) == 4);
  CHECK(index.find_first(0) == 0);
  CHECK(index.find_first(41) == FitIndex::NONE);
  index.set(3, FitIndex::UNAVAILABLE);
  CHECK(index.find_first(25) == 4);
  CHECK(index.find_first(5, 5) == FitIndex::NONE);
}

TEST_CASE("FitIndex answers as a scan of every slot does (random capacities, updates and queries)",
          "[policies][fit-index]")
{
  // The reference is the definition itself: the lowest slot i >= from whose capacity is not below the
  // threshold, found by looking at every slot. Sizes around powers of two (the tree's padding), capacities
  // from a few values (ties) with unavailable slots, thresholds on and between them.
  std::mt19937 rng(7);
  const double values[] = {FitIndex::UNAVAILABLE, 0.0, 1.0, 2.5, 4.0, 8.0};
  const double thresholds[] = {0.0, 0.5, 1.0, 2.5, 3.0, 4.0, 8.0, 9.0};
  std::size_t found = 0, none = 0;
  for (const std::size_t size : {1, 2, 3, 7, 8, 9, 31, 64, 100, 129}) {
    FitIndex index(size);
    std::vector<double> slots(size, FitIndex::UNAVAILABLE);
    for (int step = 0; step < 2000; ++step) {
      const std::size_t i = std::uniform_int_distribution<std::size_t>(0, size - 1)(rng);
      slots[i] = values[std::uniform_int_distribution<std::size_t>(0, std::size(values) - 1)(rng)];
      index.set(i, slots[i]);
      const double t =
          thresholds[std::uniform_int_distribution<std::size_t>(0, std::size(thresholds) - 1)(rng)];
      const std::size_t from = std::uniform_int_distribution<std::size_t>(0, size + 1)(rng);
      std::size_t expected = FitIndex::NONE;
      for (std::size_t k = from; k < size; ++k)
        if (!(slots[k] < t)) {
          expected = k;
          break;
        }
      REQUIRE(index.find_first(t, from) == expected);
      (expected == FitIndex::NONE ? none : found) += 1;
    }
  }
  CHECK(found > 5000); // both answers were asked for many times
  CHECK(none > 2000);
}
