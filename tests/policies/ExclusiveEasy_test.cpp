// exclusive-easy (EASY backfilling): the queue head gets a reservation at the shadow time; a later job
// starts now only if it ends by then or uses devices the head will not need.
#include "tests/CatchCompat.hpp"
#include "tests/policies/FakeClusterView.hpp"

using namespace colocsim;
using namespace colocsim::test;
using Devices = std::vector<DeviceIndex>;

TEST_CASE("exclusive-easy backfills exactly the job that does not delay the head", "[policies][easy]")
{
  // Two exclusive devices. j1 runs [0, 100] on device 0. At t = 2: head j2 needs both devices, so it
  // reserves them at the shadow time 100 (device 1 free now + device 0 at 100; no spare device then).
  // j3 (50 s) on device 1 ends at 52 ≤ 100: backfilled. j4 (200 s) would end at 202 > 100 and there is no
  // spare device: it waits.
  FakeClusterView view;
  view.add_device(SharingMode::EXCLUSIVE);
  view.add_device(SharingMode::EXCLUSIVE);
  const auto j1 = view.add_job(make_job(1, 1000, 100));
  const auto j2 = view.add_job(make_job(2, 1000, 50));
  const auto j3 = view.add_job(make_job(1, 1000, 50));
  const auto j4 = view.add_job(make_job(1, 1000, 200));
  auto policy = make_policy("exclusive-easy");
  CHECK(placements(view.submit(*policy, {j1})) == std::map<JobIndex, Devices>{{j1, {0}}});
  view.now_s = 2;
  CHECK(placements(view.submit(*policy, {j2, j3, j4})) == std::map<JobIndex, Devices>{{j3, {1}}});
  // j3 ends at 52: device 1 is free, but j4 would still end after the shadow time (252 > 100).
  view.now_s = 52;
  CHECK(placements(view.complete(*policy, j3)).empty());
  // j1 ends at 100: the head starts on both devices; j4 follows it.
  view.now_s = 100;
  CHECK(placements(view.complete(*policy, j1)) == std::map<JobIndex, Devices>{{j2, {0, 1}}});
  view.now_s = 150;
  CHECK(placements(view.complete(*policy, j2)) == std::map<JobIndex, Devices>{{j4, {0}}});
}

TEST_CASE("exclusive-easy lets a long job take a device the head does not need", "[policies][easy]")
{
  // Five devices; jA holds devices 0 and 1 until t = 100; 2, 3, 4 are free. Head jH needs 4: at the shadow
  // time 100, 3 + 2 = 5 devices are free, one spare. jL1 (1000 s, ends long after 100) takes the spare
  // device; jL2 (the same) would eat into the head's reservation and waits.
  FakeClusterView view;
  for (int i = 0; i < 5; ++i)
    view.add_device(SharingMode::EXCLUSIVE);
  const auto jA = view.add_job(make_job(2, 1000, 100));
  const auto jH = view.add_job(make_job(4, 1000, 10));
  const auto jL1 = view.add_job(make_job(1, 1000, 1000));
  const auto jL2 = view.add_job(make_job(1, 1000, 1000));
  auto policy = make_policy("exclusive-easy");
  CHECK(placements(view.submit(*policy, {jA})) == std::map<JobIndex, Devices>{{jA, {0, 1}}});
  view.now_s = 1;
  CHECK(placements(view.submit(*policy, {jH, jL1, jL2})) == std::map<JobIndex, Devices>{{jL1, {2}}});
  view.now_s = 100;
  CHECK(placements(view.complete(*policy, jA)) == std::map<JobIndex, Devices>{{jH, {0, 1, 3, 4}}});
}

TEST_CASE("exclusive-easy counts every running job that ends at the shadow time", "[policies][easy]")
{
  // Eight devices. j1 and j2 (3 devices, 100 s each) start at 0 on devices 0-2 and 3-5. At t = 1 head j3
  // needs 4: devices 6, 7 are free, and at the shadow time 100 both j1 and j2 end, so 2 + 3 + 3 = 8 devices
  // are free then and 8 - 4 = 4 are spare. At t = 2, j4 (2 devices, 1,000 s, far past 100) takes the two
  // free devices: 4 spare ≥ 2. Counting only j1's release (2 + 3 = 5, 1 spare) made it wait until 100.
  FakeClusterView view;
  for (int i = 0; i < 8; ++i)
    view.add_device(SharingMode::EXCLUSIVE);
  const auto j1 = view.add_job(make_job(3, 1000, 100));
  const auto j2 = view.add_job(make_job(3, 1000, 100));
  const auto j3 = view.add_job(make_job(4, 1000, 10));
  const auto j4 = view.add_job(make_job(2, 1000, 1000));
  auto policy = make_policy("exclusive-easy");
  CHECK(placements(view.submit(*policy, {j1, j2})) ==
        std::map<JobIndex, Devices>{{j1, {0, 1, 2}}, {j2, {3, 4, 5}}});
  view.now_s = 1;
  CHECK(placements(view.submit(*policy, {j3})).empty());
  view.now_s = 2;
  CHECK(placements(view.submit(*policy, {j4})) == std::map<JobIndex, Devices>{{j4, {6, 7}}});
  // At 100 both end: the head takes four of the six free devices.
  view.now_s = 100;
  CHECK(placements(view.complete(*policy, j1)).empty()); // 3 free devices: the head still waits for j2
  CHECK(placements(view.complete(*policy, j2)) == std::map<JobIndex, Devices>{{j3, {0, 1, 2, 3}}});
}

TEST_CASE("exclusive-easy expects a gang job to run at its scaling efficiency", "[policies][easy]")
{
  // Three devices; jA (2 devices, 100 s, e(2) = 1 / (0.25·2 + 0.75) = 0.8) starts at 0 and runs 100 / 0.8
  // = 125 s. Head jH needs all 3 devices: its reservation is at 125, not 100. jB (1 device, 110 s) on the
  // free device 2 would end at 1 + 110 = 111 ≤ 125 and is backfilled; jC (1 device, 130 s, ends at 131 >
  // 125, no spare device) waits. Estimating jA's end without e(2) (100) refused jB.
  FakeClusterView view;
  for (int i = 0; i < 3; ++i)
    view.add_device(SharingMode::EXCLUSIVE);
  ResourceSignature scaling = busy_signature();
  scaling.scaling_serial = 0.25;
  const auto jA = view.add_job(make_job(2, 1000, 100), scaling);
  const auto jH = view.add_job(make_job(3, 1000, 10));
  const auto jC = view.add_job(make_job(1, 1000, 130));
  const auto jB = view.add_job(make_job(1, 1000, 110));
  auto policy = make_policy("exclusive-easy");
  CHECK(placements(view.submit(*policy, {jA})) == std::map<JobIndex, Devices>{{jA, {0, 1}}});
  view.now_s = 1;
  CHECK(placements(view.submit(*policy, {jH, jC, jB})) == std::map<JobIndex, Devices>{{jB, {2}}});
}

TEST_CASE("exclusive-easy backfills a job that ends exactly at the shadow time", "[policies][easy]")
{
  // As above, but the later job j3 runs 98 s: started at t = 2 it ends at 100, the shadow time itself, when
  // the head's reservation begins; it delays nothing, so it is backfilled although no device is spare then.
  FakeClusterView view;
  view.add_device(SharingMode::EXCLUSIVE);
  view.add_device(SharingMode::EXCLUSIVE);
  const auto j1 = view.add_job(make_job(1, 1000, 100));
  const auto j2 = view.add_job(make_job(2, 1000, 50));
  const auto j3 = view.add_job(make_job(1, 1000, 98));
  auto policy = make_policy("exclusive-easy");
  CHECK(placements(view.submit(*policy, {j1})) == std::map<JobIndex, Devices>{{j1, {0}}});
  view.now_s = 2;
  CHECK(placements(view.submit(*policy, {j2, j3})) == std::map<JobIndex, Devices>{{j3, {1}}});
}
