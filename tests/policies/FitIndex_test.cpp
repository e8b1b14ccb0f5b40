// FitIndex: "the lowest slot at or after `from` with capacity ≥ x" against hand-checked answers.
#include "tests/CatchCompat.hpp"

#include "policies/FitIndex.hpp"

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
