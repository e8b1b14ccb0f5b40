// The profile mapping layer: rule parsing, first-match-wins binding by class and QoS, the seeded per-job
// draw, and the description recorded with the results.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/ProfileCatalog.hpp"
#include "workloads/ProfileMapper.hpp"

#include <map>

using namespace colocsim;
using namespace colocsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {
Job job(const std::string& id, const std::string& cls = "", const std::string& qos = "",
        const std::string& profile = "")
{
  Job j;
  j.id = id;
  j.duration_s = 1;
  j.trace_class = cls;
  j.qos = qos;
  j.profile = profile;
  return j;
}
} // namespace

TEST_CASE("profile map: the written forms", "[workloads][profile-map]")
{
  const SourceLocation at{"scenario.yaml", 7, 3};
  CHECK(ProfileMap::parse("", at).empty());
  CHECK(ProfileMap::parse("none", at).empty());
  CHECK(ProfileMap::parse("resnet50=resnet50-train-bs32", at).text() == "class:resnet50=resnet50-train-bs32");
  const auto m = ProfileMap::parse("qos:LS=a, BE=b ; draw:a=3,b=1", at);
  REQUIRE(m.rules().size() == 2);
  CHECK(m.rules()[0].kind == ProfileMap::Kind::QOS);
  CHECK(m.rules()[1].kind == ProfileMap::Kind::DRAW);
  CHECK(m.text() == "qos:LS=a,BE=b;draw:a=3,b=1");

  CHECK_THAT(
      input_error_of([&] { ProfileMap::parse("size:1=a", at); }),
      ContainsSubstring("scenario.yaml:7:3: profile_map: unknown rule kind 'size' (got 'size:1=a'); expected "
                        "class:A=P,..."));
  CHECK_THAT(input_error_of([&] { ProfileMap::parse("qos:LS", at); }),
             ContainsSubstring("profile_map: expected value=profile items (got 'LS' in 'qos:LS')"));
  CHECK_THAT(input_error_of([&] { ProfileMap::parse("draw:a=x", at); }),
             ContainsSubstring("profile_map: not a weight (got 'x' for a); expected a number >= 0"));
  CHECK_THAT(input_error_of([&] { ProfileMap::parse("draw:a=0,b=0", at); }),
             ContainsSubstring("sum to 0; expected at least one weight > 0"));

  const auto catalog =
      ProfileCatalog::load_file(std::string(COLOCSIM_SOURCE_DIR) + "/workloads/profiles/default.yaml");
  CHECK_NOTHROW(ProfileMap::parse("qos:LS=resnet50-infer-bs1", at).check(catalog, at));
  CHECK_THAT(input_error_of([&] { ProfileMap::parse("qos:LS=resnet-51", at).check(catalog, at); }),
             ContainsSubstring(
                 "scenario.yaml:7:3: profile_map: unknown profile 'resnet-51'; valid: bert-base-infer-bs1"));
}

TEST_CASE("profile mapper: first matching rule wins, trace-named profiles are kept",
          "[workloads][profile-map]")
{
  auto inner = std::make_unique<VectorReader>(
      std::vector<Job>{job("1", "resnet50", "BE"), job("2", "vgg16", "LS"), job("3", "vgg16", "BE"),
                       job("4", "", "", "stream-triad"), job("5", "vgg16", "Burstable")});
  ProfileMapper m(std::move(inner), ProfileMap::parse("class:resnet50=r;qos:LS=i,BE=t", {}), 1);
  const auto jobs = drain(m);
  CHECK(jobs[0].profile == "r");
  CHECK(jobs[1].profile == "i");
  CHECK(jobs[2].profile == "t");
  CHECK(jobs[3].profile == "stream-triad");
  CHECK(jobs[4].profile.empty()); // left to workload.default_profile
  CHECK(m.describe() ==
        "vector of 5; profiles: named by the trace (1), class resnet50->r (1), qos LS->i (1), qos "
        "BE->t (1), unbound, left to workload.default_profile (1)");
}

TEST_CASE("profile mapper: the seeded draw depends only on the seed and the job id",
          "[workloads][profile-map]")
{
  std::vector<Job> jobs;
  for (int i = 0; i < 20000; ++i)
    jobs.push_back(job("job-" + std::to_string(i)));
  const auto map = ProfileMap::parse("draw:a=3,b=1", {});
  ProfileMapper m(std::make_unique<VectorReader>(jobs), map, 42);
  std::map<std::string, std::string> first;
  std::size_t a = 0;
  for (const auto& j : drain(m)) {
    first[j.id] = j.profile;
    a += j.profile == "a";
  }
  CHECK_THAT(a / 20000.0, Catch::Matchers::WithinAbs(0.75, 0.01));
  CHECK_THAT(m.describe(), ContainsSubstring("draw(seed 42) a p=0.75 (" + std::to_string(a) + ")"));

  // Every other job, in reverse order: each keeps its draw.
  std::vector<Job> some;
  for (int i = 19999; i >= 0; i -= 2)
    some.push_back(job("job-" + std::to_string(i)));
  ProfileMapper again(std::make_unique<VectorReader>(some), map, 42);
  for (const auto& j : drain(again))
    CHECK(first.at(j.id) == j.profile);

  // Another seed gives another assignment.
  ProfileMapper other(std::make_unique<VectorReader>(jobs), map, 43);
  std::size_t same = 0;
  for (const auto& j : drain(other))
    same += first.at(j.id) == j.profile;
  CHECK(same < 19000);
}
