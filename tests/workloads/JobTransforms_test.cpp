// Workload transforms as reader decorators: time window, rebase, load scaling, seeded sampling and FGD-style
// inflation, each checked against hand-computed results.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/JobTransforms.hpp"

#include <algorithm>

using namespace colocsim;
using namespace colocsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {
Job job(const std::string& id, double submit, int devices = 1, int milli = 1000)
{
  Job j;
  j.id = id;
  j.submit_s = submit;
  j.duration_s = 10;
  j.devices = devices;
  j.gpu_milli = milli;
  return j;
}

/// Ten jobs submitted at 100, 200, ..., 1000 s.
std::vector<Job> ten()
{
  std::vector<Job> jobs;
  for (int i = 1; i <= 10; ++i)
    jobs.push_back(job("j" + std::to_string(i), 100.0 * i));
  return jobs;
}

std::unique_ptr<JobReader> chain(const std::string& text, std::vector<Job> jobs, TransformContext ctx = {})
{
  const auto t = TransformChain::parse(text, SourceLocation{"s.yaml"});
  auto make = t.apply([jobs] { return std::make_unique<VectorReader>(jobs); }, ctx);
  return make();
}

std::vector<double> submits(JobReader& r)
{
  std::vector<double> out;
  for (const auto& j : drain(r))
    out.push_back(j.submit_s);
  return out;
}
} // namespace

TEST_CASE("transforms: window, rebase and load", "[workloads][transforms]")
{
  auto w = chain("window=250..7min", ten());
  CHECK(submits(*w) == std::vector<double>{300, 400});
  CHECK_THAT(w->describe(),
             ContainsSubstring("window 250..420 s (kept 2, 2 before, stopped at the first job after)"));
  // [A, B): a job submitted exactly at A is kept, one exactly at B is not (it is the first job after).
  auto edges = chain("window=200..400", ten());
  CHECK(submits(*edges) == std::vector<double>{200, 300});
  CHECK_THAT(edges->describe(),
             ContainsSubstring("window 200..400 s (kept 2, 1 before, stopped at the first job after)"));
  auto open_end = chain("window=950..", ten());
  CHECK(submits(*open_end) == std::vector<double>{1000});

  auto rebased = chain("window=300..,rebase", ten());
  CHECK(submits(*rebased) == std::vector<double>{0, 100, 200, 300, 400, 500, 600, 700});

  // t0 = 100: submit' = 100 + (t - 100) / 4
  auto faster = chain("load=4", ten());
  const auto s = submits(*faster);
  CHECK(s.front() == 100);
  CHECK(s[1] == 125);
  CHECK(s.back() == 325);
}

TEST_CASE("transforms: seeded sampling keeps the same jobs whatever comes before", "[workloads][transforms]")
{
  std::vector<Job> many;
  for (int i = 0; i < 10000; ++i)
    many.push_back(job("p" + std::to_string(i), i));
  auto half = chain("sample=0.3", many, TransformContext{.seed = 5});
  const auto kept = drain(*half);
  CHECK_THAT(kept.size() / 10000.0, Catch::Matchers::WithinAbs(0.3, 0.015));
  // Windowing after or before sampling keeps the same jobs.
  auto a = chain("sample=0.3,window=2000..3000", many, TransformContext{.seed = 5});
  auto b = chain("window=2000..3000,sample=0.3", many, TransformContext{.seed = 5});
  CHECK(submits(*a) == submits(*b));
  CHECK_THAT(half->describe(), ContainsSubstring("sample p=0.3 seed 5 (kept " + std::to_string(kept.size())));
}

TEST_CASE("transforms: inflation clones jobs up to a share of the platform", "[workloads][transforms]")
{
  // Ten 1-device jobs on 100 devices; 150% → each job 15 times.
  auto r = chain("inflate=150%", ten(), TransformContext{.seed = 1, .capacity_devices = 100});
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 150);
  CHECK(jobs[0].id == "j1");
  CHECK(jobs[1].id == "j1#2");
  CHECK(jobs[14].id == "j1#15");
  CHECK(jobs[14].submit_s == 100);
  CHECK(jobs[15].id == "j2");
  for (std::size_t i = 1; i < jobs.size(); ++i)
    CHECK(jobs[i].submit_s >= jobs[i - 1].submit_s);

  // A fractional ratio: 400 half-device jobs request 200; 1.25 x 400 devices = 500 → ratio 2.5.
  std::vector<Job> halves;
  for (int i = 0; i < 400; ++i)
    halves.push_back(job("h" + std::to_string(i), i, 1, 500));
  auto f = chain("inflate=1.25", halves, TransformContext{.seed = 3, .capacity_devices = 400});
  double requested = 0;
  for (const auto& j : drain(*f))
    requested += j.devices * j.gpu_milli / 1000.0;
  CHECK_THAT(requested, Catch::Matchers::WithinAbs(500, 25));
  CHECK_THAT(f->describe(),
             ContainsSubstring("inflate to 1.25 x 400 devices (trace requests 200, ratio 2.5"));

  // Already above the target: nothing is cloned, and the user is told.
  auto none = chain("inflate=0.05", ten(), TransformContext{.capacity_devices = 100});
  CHECK(drain(*none).size() == 10);
  CHECK_THAT(none->warnings().at(0), ContainsSubstring("no job was cloned"));
}

TEST_CASE("transforms: bad lists name the transform and what was expected", "[workloads][transforms][errors]")
{
  const SourceLocation at{"s.yaml"};
  CHECK_THAT(
      input_error_of([&] { TransformChain::parse("reverse=1", at); }),
      ContainsSubstring("s.yaml: transforms: unknown transform 'reverse' (got 'reverse=1'); valid: window, "
                        "rebase, load, sample, inflate, tune, shuffle"));
  CHECK_THAT(
      input_error_of([&] { TransformChain::parse("window=5..1", at); }),
      ContainsSubstring("transforms.window: bad value (got '5..1'); expected A..B with durations A < B"));
  CHECK_THAT(
      input_error_of([&] { TransformChain::parse("load=0,sample=2", at); }),
      ContainsSubstring("transforms.load: bad value (got '0'); expected a factor > 0") &&
          ContainsSubstring("transforms.sample: bad value (got '2'); expected a probability in (0, 1]"));
  CHECK_THAT(input_error_of([&] { chain("inflate=2", ten()); }),
             ContainsSubstring("transforms.inflate: needs the platform's device count"));
  // 1e300 cloned without end (replay --transform inflate=1e300 never finished); 100 is the bound.
  CHECK_THAT(input_error_of([&] { TransformChain::parse("inflate=1e300", at); }),
             ContainsSubstring("transforms.inflate: bad value (got '1e300'); expected a fraction of the "
                               "platform's devices in (0, 100]"));
  CHECK_NOTHROW(TransformChain::parse("inflate=10000%", at));
  CHECK(TransformChain::parse("window=1h..1d, rebase ,load=2", at).text() ==
        "window=3600..86400,rebase,load=2");
}

TEST_CASE("transforms: FGD's tune rule and a seeded shuffle", "[workloads][transforms]")
{
  // Ten 1-device jobs on 4 devices, tune 1.3: target 5.2 devices; 10 > 5.2, so jobs are removed at random
  // until at most 5.2 remain requested: 5 jobs, originals, in submit order.
  auto down = chain("tune=1.3", ten(), TransformContext{.seed = 1, .capacity_devices = 4});
  const auto kept = drain(*down);
  REQUIRE(kept.size() == 5);
  for (std::size_t i = 1; i < kept.size(); ++i)
    CHECK(kept[i].submit_s > kept[i - 1].submit_s);

  // Below the target: a (0.5 device) and b (2 devices) request 2.5 of 10 x 1.0. Draws of them are appended
  // until the next draw's per-device share (0.5 or 1) would pass 10, so the total ends in (9, 11]: at most
  // one 2-device clone past 10, as FGD's rule allows.
  std::vector<Job> two{job("a", 0, 1, 500), job("b", 5, 2, 1000)};
  auto up = chain("tune=100%", two, TransformContext{.seed = 7, .capacity_devices = 10});
  const auto tuned = drain(*up);
  double total = 0;
  for (const auto& j : tuned) {
    total += j.devices * j.gpu_milli / 1000.0;
    CHECK((j.id == "a" || j.id == "b" || j.id.find("-tuned-") != std::string::npos));
    CHECK(j.submit_s == (j.id[0] == 'a' ? 0 : 5)); // clones keep the drawn job's submit time
  }
  CHECK(total > 9);
  CHECK(total <= 11);
  CHECK(tuned.size() > 2);
  CHECK(tuned[0].id == "a");

  // shuffle: the same submit times, 100 .. 1000, carried by a permutation of the ten jobs.
  auto sh = chain("shuffle", ten(), TransformContext{.seed = 3});
  const auto shuffled = drain(*sh);
  REQUIRE(shuffled.size() == 10);
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < shuffled.size(); ++i) {
    CHECK(shuffled[i].submit_s == 100.0 * static_cast<double>(i + 1));
    ids.push_back(shuffled[i].id);
  }
  auto sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == std::vector<std::string>{"j1", "j10", "j2", "j3", "j4", "j5", "j6", "j7", "j8", "j9"});
  CHECK(ids != std::vector<std::string>{"j1", "j2", "j3", "j4", "j5", "j6", "j7", "j8", "j9", "j10"});
  CHECK_THROWS_WITH(TransformChain::parse("shuffle=2", SourceLocation{"s.yaml"}),
                    ContainsSubstring("expected nothing (write just 'shuffle')"));
  CHECK_THROWS_WITH(chain("tune=1.3", ten()), ContainsSubstring("needs the platform's device count"));
}
