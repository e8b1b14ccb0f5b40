// The README's example policy (LargestFirst.hpp, quoted verbatim in policies/README.md) compiles and makes
// its characteristic choice on the fake view; the engine tier runs it end to end (PoliciesEngine_test.cpp).
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"
#include "tests/policies/LargestFirst.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("the README's example policy starts the largest waiting job first", "[policies][example]")
{
  FakeClusterView view;
  view.add_device(SharingMode::EXCLUSIVE);
  view.add_device(SharingMode::EXCLUSIVE);
  const auto small = view.add_job(make_job(1)), large = view.add_job(make_job(2));
  example::LargestFirst policy;
  CHECK(placements(view.submit(policy, {small, large})) == std::map<JobIndex, Devices>{{large, {0, 1}}});
  CHECK(placements(view.complete(policy, large)) == std::map<JobIndex, Devices>{{small, {0}}});
  CHECK(read_source_file("policies/README.md").find(read_source_file("tests/policies/LargestFirst.hpp")) !=
        std::string::npos);
}
