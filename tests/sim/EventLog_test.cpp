// The event log (--log-events FILE; docs/formats/outputs.md, Event log): whole logs of small runs worked
// out by hand and compared line by line, every line parsed by the project's strict JSON reader, the log
// on or off leaving the other outputs byte-identical, and the file rules (no overwrite without --force, a
// failed write names the file, a failed run keeps the log up to the failure).
//
// Fixture numbers (tests/data/sim: base.yaml, calibration-test.yaml, profiles-test.yaml): two tiles of
// 64 GB; time-slice sharing with table C|C = 1.25, so two `busy` (class C, duty 1) jobs on one tile each
// run at slowdown max(1, Σd = 2, 1 + 1·1·1 = 2) × 1.25 = 2.5, rate 0.4; alone, rate 1. first-fit with
// max_per_device 2 and memory: none; memory.oom_delay 60 s, memory.max_retries 3.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "workloads/JsonStream.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace colocsim::test;
namespace fs = std::filesystem;

namespace {

const std::string DATA = std::string(COLOCSIM_TEST_DATA) + "/sim/";

/// One line of the log, read by the project's strict JSON reader (JsonStream): its members in order,
/// arrays as "[a,b]" of their elements' text.
struct Line {
  double t = NAN;
  std::string kind;
  std::vector<std::pair<std::string, std::string>> members; ///< all but t and kind
  std::string get(const std::string& key) const
  {
    for (const auto& [k, v] : members)
      if (k == key) return v;
    return "(none)";
  }
  /// "kind key=value ...", for comparing with the hand-worked lines.
  std::string text() const
  {
    std::string s = kind;
    for (const auto& [k, v] : members)
      s += " " + k + "=" + v;
    return s;
  }
};

Line parse_line(const std::string& text, const std::string& where)
{
  using K = colocsim::JsonStream::Kind;
  std::istringstream in(text);
  colocsim::JsonStream js(in, where);
  Line line;
  REQUIRE(js.peek_kind() == K::OBJECT);
  js.begin_object();
  std::string key;
  std::vector<std::string> seen;
  while (js.next_member(key)) {
    INFO(where << ": " << key);
    CHECK(std::find(seen.begin(), seen.end(), key) == seen.end()); // no key twice
    seen.push_back(key);
    const K kind = js.peek_kind();
    if (seen.size() == 1) {
      REQUIRE(key == "t"); // every line starts with its time, then its kind
      REQUIRE(kind == K::NUMBER);
      line.t = js.number_value();
      continue;
    }
    if (seen.size() == 2) {
      REQUIRE(key == "kind");
      REQUIRE(kind == K::STRING);
      line.kind = js.string_value();
      continue;
    }
    std::string value;
    if (kind == K::ARRAY) {
      js.begin_array();
      value = "[";
      for (bool first = true; js.next_element(); first = false) {
        REQUIRE(js.peek_kind() != K::OBJECT);
        REQUIRE(js.peek_kind() != K::ARRAY);
        value += (first ? "" : ",") + js.scalar_text();
      }
      value += "]";
    } else {
      REQUIRE(kind != K::OBJECT);
      value = js.scalar_text();
    }
    line.members.emplace_back(key, value);
  }
  js.expect_end();
  return line;
}

/// Every line of an event log, each checked to be one JSON object; times never go back.
std::vector<Line> read_log(const fs::path& file)
{
  std::ifstream f(file);
  REQUIRE(f);
  std::vector<Line> lines;
  int n = 0;
  for (std::string text; std::getline(f, text);) {
    const std::string where = file.string() + ":" + std::to_string(++n);
    lines.push_back(parse_line(text, where));
    if (lines.size() > 1) CHECK(lines.back().t >= lines[lines.size() - 2].t);
  }
  return lines;
}

/// `colocsim run base.yaml` on a trace of tests/data/sim with a policy, writing the log to `log`.
colocsim::test::CliResult run_logged(const std::string& trace, const std::string& policy, const fs::path& out,
                                     const fs::path& log, std::vector<std::string> extra = {})
{
  std::vector<std::string> args{
      "run", DATA + "base.yaml", "--set", "workload.trace=" + DATA + trace, "--quiet", "-o", out.string()};
  if (!policy.empty()) {
    args.push_back("--policy");
    args.push_back(policy);
  }
  if (!log.empty()) {
    args.push_back("--log-events");
    args.push_back(log.string());
  }
  args.insert(args.end(), extra.begin(), extra.end());
  return cli(args);
}

struct Expected {
  double t;
  std::string text;
};

/// The same words, where a `key=number` may differ by 1e-6 (a time a policy computed, such as wake_at's `at`:
/// SimGrid's clock carries over between the runs of one process and rounds it, 3599.9999999999995).
bool same_text(const std::string& got, const std::string& want)
{
  INFO(got << " vs " << want);
  std::istringstream a(got), b(want);
  std::string x, y;
  while (true) {
    const bool more_a = static_cast<bool>(a >> x), more_b = static_cast<bool>(b >> y);
    if (!more_a || !more_b) return more_a == more_b;
    if (x == y) continue;
    const auto ex = x.find('='), ey = y.find('=');
    if (ex == std::string::npos || ex != ey || x.compare(0, ex, y, 0, ey) != 0) return false;
    char* end_x = nullptr;
    char* end_y = nullptr;
    const double vx = std::strtod(x.c_str() + ex + 1, &end_x), vy = std::strtod(y.c_str() + ey + 1, &end_y);
    if (*end_x != '\0' || *end_y != '\0' || end_x == x.c_str() + ex + 1 || !(std::abs(vx - vy) <= 1e-6))
      return false;
  }
}

void check_log(const std::vector<Line>& lines, const std::vector<Expected>& expected)
{
  for (std::size_t i = 0; i < std::max(lines.size(), expected.size()); ++i) {
    INFO("line " << i + 1);
    REQUIRE(i < lines.size());
    REQUIRE(i < expected.size());
    CHECK(same_text(lines[i].text(), expected[i].text));
    CHECK_THAT(lines[i].t, WithinAbs(expected[i].t, 1e-6));
  }
}

/// The place decisions of a log: (job, devices) → time.
std::map<std::pair<std::string, std::string>, double> placements(const std::vector<Line>& lines)
{
  std::map<std::pair<std::string, std::string>, double> out;
  for (const auto& l : lines)
    if (l.kind == "place") out[{l.get("job"), l.get("devices")}] = l.t;
  return out;
}

// three-exclusive.csv: j1 (100 s) and j2 (50 s) at 0, j3 (30 s) at 10, all `busy`.
//
// first-fit (max 2 per tile): at 0 j1 and j2 both go to tile 0, the first with room (rate 0.4 each); at 10
// tile 0 is full and j3 runs alone on tile 1 until 10 + 30 = 40. j2's 50 s of work at 0.4 end at 125; j1
// has then done 50 s and runs its last 50 alone at rate 1: it ends at 175. Each policy call follows the
// events of its instant: "decide" with the events, waiting and running jobs after them; each decision
// with the jobs waiting just before it and how many waiting jobs that joined the queue earlier it
// overtakes.
const std::vector<Expected> FIRST_FIT = {
    {0, "submit job=j1 requests=1 profile=busy"},
    {0, "submit job=j2 requests=1 profile=busy"},
    {0, "decide policy=first-fit events=2 waiting=2 running=0"},
    {0, "place job=j1 devices=[0] waiting=2 overtakes=0"},
    {0, "place job=j2 devices=[0] waiting=1 overtakes=0"},
    {10, "submit job=j3 requests=1 profile=busy"},
    {10, "decide policy=first-fit events=1 waiting=1 running=2"},
    {10, "place job=j3 devices=[1] waiting=1 overtakes=0"},
    {40, "complete job=j3 devices=[1]"},
    {40, "decide policy=first-fit events=1 waiting=0 running=2"},
    {125, "complete job=j2 devices=[0]"},
    {125, "decide policy=first-fit events=1 waiting=0 running=1"},
    {175, "complete job=j1 devices=[0]"},
    {175, "decide policy=first-fit events=1 waiting=0 running=0"},
};

// exclusive-fcfs: j1 → tile 0, j2 → tile 1 at 0; j3 waits at 10 (a call with no decision) until j2 ends
// at 50, runs 50..80 on tile 1; j1 ends at 100. Every job alone: rate 1.
const std::vector<Expected> FCFS = {
    {0, "submit job=j1 requests=1 profile=busy"},
    {0, "submit job=j2 requests=1 profile=busy"},
    {0, "decide policy=exclusive-fcfs events=2 waiting=2 running=0"},
    {0, "place job=j1 devices=[0] waiting=2 overtakes=0"},
    {0, "place job=j2 devices=[1] waiting=1 overtakes=0"},
    {10, "submit job=j3 requests=1 profile=busy"},
    {10, "decide policy=exclusive-fcfs events=1 waiting=1 running=2"},
    {50, "complete job=j2 devices=[1]"},
    {50, "decide policy=exclusive-fcfs events=1 waiting=1 running=1"},
    {50, "place job=j3 devices=[1] waiting=1 overtakes=0"},
    {80, "complete job=j3 devices=[1]"},
    {80, "decide policy=exclusive-fcfs events=1 waiting=0 running=1"},
    {100, "complete job=j1 devices=[0]"},
    {100, "decide policy=exclusive-fcfs events=1 waiting=0 running=0"},
};

} // namespace

TEST_CASE("event log: first-fit and exclusive-fcfs on three jobs give the hand-worked lines", "[eventlog]")
{
  const auto dir = fresh_dir("eventlog", "hand");
  REQUIRE(run_logged("three-exclusive.csv", "", dir / "ff", dir / "ff.jsonl").status == 0);
  REQUIRE(run_logged("three-exclusive.csv", "exclusive-fcfs", dir / "fcfs", dir / "fcfs.jsonl").status == 0);
  const auto ff = read_log(dir / "ff.jsonl");
  const auto fcfs = read_log(dir / "fcfs.jsonl");
  SECTION("first-fit")
  {
    check_log(ff, FIRST_FIT);
  }
  SECTION("exclusive-fcfs")
  {
    check_log(fcfs, FCFS);
  }
  SECTION("the two differ exactly in the decisions worked out")
  {
    // Same jobs placed; j1 identically; j2 on tile 0 (shared) against tile 1; j3 on tile 1 at 10 against 50.
    const auto a = placements(ff), b = placements(fcfs);
    REQUIRE(a.size() == 3);
    REQUIRE(b.size() == 3);
    CHECK(a.at({"j1", "[0]"}) == b.at({"j1", "[0]"}));
    CHECK(a.count({"j2", "[0]"}) == 1);
    CHECK(b.count({"j2", "[1]"}) == 1);
    CHECK_THAT(a.at({"j3", "[1]"}), WithinAbs(10, 1e-9));
    CHECK_THAT(b.at({"j3", "[1]"}), WithinAbs(50, 1e-6));
  }
  SECTION("times are written as jobs.csv writes them")
  {
    // A place is the job's start, a completion its end: the same text as in jobs.csv (each job ran once).
    std::map<std::string, std::pair<std::string, std::string>> csv; // id → (start_s, end_s)
    std::istringstream rows(slurp(dir / "ff" / "jobs.csv"));
    std::string row;
    std::getline(rows, row); // header: id,submit_s,start_s,end_s,...
    while (std::getline(rows, row)) {
      std::vector<std::string> cols;
      std::istringstream cs(row);
      for (std::string c; std::getline(cs, c, ',');)
        cols.push_back(c);
      csv[cols.at(0)] = {cols.at(2), cols.at(3)};
    }
    REQUIRE(csv.size() == 3);
    std::ifstream f(dir / "ff.jsonl");
    int checked = 0;
    for (std::string text; std::getline(f, text);) {
      const auto l = parse_line(text, "ff.jsonl");
      const std::string t = text.substr(5, text.find(',') - 5); // {"t":<here>,
      if (l.kind == "place") {
        CHECK(t == csv.at(l.get("job")).first);
        ++checked;
      } else if (l.kind == "complete") {
        CHECK(t == csv.at(l.get("job")).second);
        ++checked;
      }
    }
    CHECK(checked == 6);
  }
  fs::remove_all(dir);
}

TEST_CASE("event log: EASY's backfill overtakes the waiting head", "[eventlog]")
{
  // easy.csv on two exclusive tiles (tests/policies/PoliciesEngine_test, EASY): j1 [0, 100] on tile 0;
  // j2 (2 devices, at 1) waits for both tiles; j3 (50 s, at 2) backfills onto tile 1 ([2, 52], ends before
  // the head's reservation at 100), overtaking j2; j4 (200 s, at 3) would delay j2 and waits; j2 runs
  // [100, 150] on both tiles; j4 [150, 350] on tile 0.
  const auto dir = fresh_dir("eventlog", "easy");
  REQUIRE(run_logged("easy.csv", "exclusive-easy", dir / "out", dir / "easy.jsonl",
                     {"--set", "platform.sharing=exclusive"})
              .status == 0);
  std::vector<Expected> places;
  for (const auto& l : read_log(dir / "easy.jsonl"))
    if (l.kind == "place") places.push_back({l.t, l.text()});
  const std::vector<Expected> expected = {
      {0, "place job=j1 devices=[0] waiting=1 overtakes=0"},
      {2, "place job=j3 devices=[1] waiting=2 overtakes=1"},
      {100, "place job=j2 devices=[0,1] waiting=2 overtakes=0"},
      {150, "place job=j4 devices=[0] waiting=1 overtakes=0"},
  };
  REQUIRE(places.size() == expected.size());
  for (std::size_t i = 0; i < places.size(); ++i) {
    CHECK(places[i].text == expected[i].text);
    CHECK_THAT(places[i].t, WithinAbs(expected[i].t, 1e-6));
  }
  fs::remove_all(dir);
}

TEST_CASE("event log: failures, requeues, a rejection and the jobs it cancels", "[eventlog]")
{
  const auto dir = fresh_dir("eventlog", "fail");
  SECTION("out of memory")
  {
    // oom.csv: big1 and big2 (40 GB each, `huge`) on one 64 GB tile (first-fit, memory: none). big2 joins
    // big1 at 10 and overflows: it fails 60 s (memory.oom_delay) after each start, at 70, 130, 190 (requeued
    // three times, memory.max_retries 3) and for good at 250; the policy puts it back on tile 0 each time.
    // big1 ends at 1120 (Engine_test, out of memory).
    REQUIRE(run_logged("oom.csv", "", dir / "out", dir / "oom.jsonl").status == 0);
    std::vector<Expected> expected = {
        {0, "submit job=big1 requests=1 profile=huge"},
        {0, "decide policy=first-fit events=1 waiting=1 running=0"},
        {0, "place job=big1 devices=[0] waiting=1 overtakes=0"},
        {10, "submit job=big2 requests=1 profile=huge"},
        {10, "decide policy=first-fit events=1 waiting=1 running=1"},
        {10, "place job=big2 devices=[0] waiting=1 overtakes=0"},
    };
    for (const double t : {70.0, 130.0, 190.0}) {
      expected.push_back({t, "fail job=big2 devices=[0] requeued=true reason=out of memory"});
      expected.push_back({t, "decide policy=first-fit events=1 waiting=1 running=1"});
      expected.push_back({t, "place job=big2 devices=[0] waiting=1 overtakes=0"});
    }
    expected.push_back({250, "fail job=big2 devices=[0] requeued=false reason=out of memory"});
    expected.push_back({250, "decide policy=first-fit events=1 waiting=0 running=1"});
    expected.push_back({1120, "complete job=big1 devices=[0]"});
    expected.push_back({1120, "decide policy=first-fit events=1 waiting=0 running=0"});
    check_log(read_log(dir / "oom.jsonl"), expected);
  }
  SECTION("a rejection and the jobs it cancels")
  {
    // deps-cancel.csv on two tiles: `big` asks for 3 devices and first-fit rejects it at 0; f (depends on
    // big) is cancelled right then, g (depends on f) on arrival at 5: neither reaches the policy, so each
    // has an "end" line. h (10 s) and x (10 s, its dependency is ignored) share tile 0 from 5 and 6:
    // h alone 5..6 (1 s done), both at 0.4 until h's last 9 s end at 6 + 22.5 = 28.5; x then has done 9 s
    // and ends at 29.5.
    REQUIRE(run_logged("deps-cancel.csv", "", dir / "out", dir / "deps.jsonl").status == 0);
    check_log(read_log(dir / "deps.jsonl"),
              {
                  {0, "submit job=big requests=3 profile=busy"},
                  {0, "decide policy=first-fit events=1 waiting=1 running=0"},
                  {0, "reject job=big waiting=1 reason=requests more devices than the platform has"},
                  {0, "end job=f status=cancelled reason=a job it depends on was rejected"},
                  {5, "end job=g status=cancelled reason=a job it depends on was cancelled"},
                  {5, "submit job=h requests=1 profile=busy"},
                  {5, "decide policy=first-fit events=1 waiting=1 running=0"},
                  {5, "place job=h devices=[0] waiting=1 overtakes=0"},
                  {6, "submit job=x requests=1 profile=busy"},
                  {6, "decide policy=first-fit events=1 waiting=1 running=1"},
                  {6, "place job=x devices=[0] waiting=1 overtakes=0"},
                  {28.5, "complete job=h devices=[0]"},
                  {28.5, "decide policy=first-fit events=1 waiting=0 running=1"},
                  {29.5, "complete job=x devices=[0]"},
                  {29.5, "decide policy=first-fit events=1 waiting=0 running=0"},
              });
  }
  fs::remove_all(dir);
}

TEST_CASE("event log: on or off, jobs.csv, timeseries.csv and summary.json are the same bytes", "[eventlog]")
{
  const auto dir = fresh_dir("eventlog", "same");
  for (const char* trace : {"three-exclusive.csv", "oom.csv", "deps-cancel.csv", "easy.csv"}) {
    INFO(trace);
    const std::string policy = std::string(trace) == "easy.csv" ? "exclusive-easy" : "";
    const auto off = dir / (std::string(trace) + ".off"), on = dir / (std::string(trace) + ".on");
    REQUIRE(run_logged(trace, policy, off, {}).status == 0);
    REQUIRE(run_logged(trace, policy, on, dir / (std::string(trace) + ".jsonl")).status == 0);
    CHECK(fs::file_size(dir / (std::string(trace) + ".jsonl")) > 0);
    for (const char* file : {"jobs.csv", "timeseries.csv"}) {
      INFO(file);
      CHECK(slurp(off / file) == slurp(on / file));
    }
    // summary.json: every line but wall_s, the run's wall-clock time, which no two runs share.
    auto without_wall = [](const std::string& text) {
      std::istringstream in(text);
      std::string kept;
      int dropped = 0;
      for (std::string l; std::getline(in, l);)
        if (l.find("\"wall_s\":") == std::string::npos)
          kept += l + "\n";
        else
          ++dropped;
      CHECK(dropped == 1);
      return kept;
    };
    CHECK(without_wall(slurp(off / "summary.json")) == without_wall(slurp(on / "summary.json")));
  }
  fs::remove_all(dir);
}

TEST_CASE("event log: an existing file needs --force, a failed write names the file", "[eventlog][outputs]")
{
  const auto dir = fresh_dir("eventlog", "files");
  const auto log = dir / "events.jsonl";
  colocsim::test::write_file(log, "an earlier log\n");
  const auto refused = run_logged("pair.csv", "", dir / "a", log);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, ContainsSubstring(log.string() + ": --log-events: already exists; pass --force"));
  CHECK(slurp(log) == "an earlier log\n");
  CHECK(!fs::exists(dir / "a")); // refused before the run
  const auto forced = run_logged("pair.csv", "", dir / "b", log, {"--force"});
  CHECK(forced.status == 0);
  // pair.csv: a and b submitted at 0 and placed on tile 0 (2 submits, a decide, 2 places), both complete at
  // 250 (2 completions, a decide).
  CHECK(read_log(log).size() == 8);
  // No staging file is left next to it.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
    ++entries;
  CHECK(entries == 2); // events.jsonl and b
  if (fs::exists("/dev/full")) {
    const auto full = run_logged("pair.csv", "", dir / "c", "/dev/full");
    CHECK(full.status == 1);
    CHECK_THAT(full.err, ContainsSubstring("colocsim: cannot write /dev/full: No space left on device"));
    CHECK(!fs::exists(dir / "c")); // the results are not moved into place either
  }
  fs::remove_all(dir);
}

TEST_CASE("event log: a run that fails keeps the log up to the failure, with an error line", "[eventlog]")
{
  // b names a profile the catalog does not have: the run stops when b arrives at 10 (exit 2), after a was
  // placed at 0. No results are written; the log is, ending with the error.
  const auto dir = fresh_dir("eventlog", "failed");
  colocsim::test::write_file(dir / "bad.csv",
                             "id,submit_s,duration_s,profile\na,0,100,busy\nb,10,50,nosuch\n");
  const auto r = cli({"run", DATA + "base.yaml", "--set", "workload.trace=" + (dir / "bad.csv").string(),
                      "-o", (dir / "out").string(), "--log-events", (dir / "bad.jsonl").string(), "--quiet"});
  CHECK(r.status == 2);
  CHECK_THAT(r.err, ContainsSubstring("bad.csv:3: profile: unknown profile 'nosuch'"));
  CHECK(!fs::exists(dir / "out"));
  const auto lines = read_log(dir / "bad.jsonl");
  REQUIRE(lines.size() == 4);
  CHECK(lines[0].text() == "submit job=a requests=1 profile=busy");
  CHECK(lines[1].kind == "decide");
  CHECK(lines[2].text() == "place job=a devices=[0] waiting=1 overtakes=0");
  CHECK(lines[3].kind == "error");
  CHECK_THAT(lines[3].get("message"), ContainsSubstring("bad.csv:3"));
  CHECK_THAT(lines[3].get("message"), ContainsSubstring("nosuch"));
  fs::remove_all(dir);
}

namespace {
const std::vector<Expected> MIG_LINES = {
    // mig.yaml: one A100-40GB in mig mode, one 7g.40gb instance; mig-manager sizing by memory (Mig_test,
    // "splits a whole GPU ... fuses empty instances"): s1..s3 (4 GB) need 1g.5gb: fission of the 7g.40gb
    // into 7 × 1g.5gb at 0, ready after the 5 s reconfiguration; big (18 GB) at 10 needs 3g.20gb: fusion of
    // the empty 1g@4..6, ready at 15. s1..s3 run 100 s at slowdown 0.3·0.25·108/14 + 0.7 = 1.278571: end at
    // 5 + 127.857143; big at 0.8·0.9·108/42 + 0.2 = 2.051429: ends at 15 + 205.142857.
    {0, "reconfigure_mig devices=[0] destroy=[7g.40gb@0] "
        "create=[1g.5gb@0,1g.5gb@1,1g.5gb@2,1g.5gb@3,1g.5gb@4,1g.5gb@5,1g.5gb@6]"},
    {5, "device_ready devices=[0] mode=mig"},
    {5, "place job=s1 devices=[0] instances=[1g.5gb@0] waiting=3 overtakes=0"},
    {5, "place job=s2 devices=[0] instances=[1g.5gb@1] waiting=2 overtakes=0"},
    {5, "place job=s3 devices=[0] instances=[1g.5gb@2] waiting=1 overtakes=0"},
    {10, "reconfigure_mig devices=[0] destroy=[1g.5gb@4,1g.5gb@5,1g.5gb@6] create=[3g.20gb@4]"},
    {15, "device_ready devices=[0] mode=mig"},
    {15, "place job=big devices=[0] instances=[3g.20gb@4] waiting=1 overtakes=0"},
    {5 + 127.857143, "complete job=s1 devices=[0]"},
    {5 + 127.857143, "complete job=s2 devices=[0]"},
    {5 + 127.857143, "complete job=s3 devices=[0]"},
    {15 + 205.142857, "complete job=big devices=[0]"},
};

const std::vector<Expected> POWER_LINES = {
    // power-burst.csv on 2 nodes of 2 tiles, power-aware over exclusive-fcfs, idle_s 600, min_on 1, boot
    // 300 s (PoliciesEngine_test, power-aware): a runs [0, 100] on tile 0; node 1, idle since 0, is powered
    // off at 600 (the policy's wake-up); the node stays on for min_on. At 2000 the four 1000 s jobs come:
    // node 1's power-off is reported first, b1 and b2 take node 0's tiles, node 1 is powered on and boots
    // until 2300, when b3 and b4 take its tiles 2 and 3. Node 0 is idle from 3000 and powered off at 3600.
    {0, "place job=a devices=[0] waiting=1 overtakes=0"},
    {0, "wake_at at=600"},
    {600, "wakeup"},
    {600, "power_off node=1"},
    {2000, "node_off node=1"},
    {2000, "place job=b1 devices=[0] waiting=4 overtakes=0"},
    {2000, "place job=b2 devices=[1] waiting=3 overtakes=0"},
    {2000, "power_on node=1"},
    {2300, "node_on node=1"},
    {2300, "place job=b3 devices=[2] waiting=2 overtakes=0"},
    {2300, "place job=b4 devices=[3] waiting=1 overtakes=0"},
    {3000, "wake_at at=3600"},
    {3600, "wakeup"},
    {3600, "power_off node=0"},
};

/// The lines of a log of the given kinds, in order.
std::vector<Line> only(const std::vector<Line>& lines, const std::vector<std::string>& kinds)
{
  std::vector<Line> out;
  for (const auto& l : lines)
    if (std::find(kinds.begin(), kinds.end(), l.kind) != kinds.end()) out.push_back(l);
  return out;
}
} // namespace

TEST_CASE("event log: MIG fission and fusion, power-off and boot, worked out by hand", "[eventlog][mig]")
{
  const auto dir = fresh_dir("eventlog", "mig-power");
  SECTION("mig-manager")
  {
    REQUIRE(cli({"run", DATA + "mig.yaml", "--policy", "mig-manager:sizing=memory", "-o",
                 (dir / "mig").string(), "--log-events", (dir / "mig.jsonl").string(), "--quiet"})
                .status == 0);
    check_log(only(read_log(dir / "mig.jsonl"), {"reconfigure_mig", "device_ready", "place", "complete"}),
              MIG_LINES);
  }
  SECTION("power-aware")
  {
    REQUIRE(run_logged("power-burst.csv", "power-aware:inner=exclusive-fcfs,idle_s=600,min_on=1", dir / "pw",
                       dir / "power.jsonl", {"--set", "platform.nodes=2", "--set", "platform.node_boot=300s"})
                .status == 0);
    check_log(only(read_log(dir / "power.jsonl"),
                   {"place", "wake_at", "wakeup", "power_off", "power_on", "node_off", "node_on"}),
              POWER_LINES);
  }
  fs::remove_all(dir);
}

TEST_CASE("event log: outputs.md documents every kind and field the logs hold", "[eventlog][docs]")
{
  const auto dir = fresh_dir("eventlog", "docs");
  std::vector<fs::path> logs;
  auto logged = [&](const std::string& name) {
    logs.push_back(dir / (name + ".jsonl"));
    return logs.back();
  };
  REQUIRE(run_logged("three-exclusive.csv", "", dir / "a", logged("ff")).status == 0);
  REQUIRE(run_logged("oom.csv", "", dir / "b", logged("oom")).status == 0);
  REQUIRE(run_logged("deps-cancel.csv", "", dir / "c", logged("deps")).status == 0);
  REQUIRE(run_logged("power-burst.csv", "power-aware:inner=exclusive-fcfs,idle_s=600,min_on=1", dir / "d",
                     logged("power"), {"--set", "platform.nodes=2"})
              .status == 0);
  REQUIRE(cli({"run", DATA + "mig.yaml", "-o", (dir / "e").string(), "--log-events", logged("mig").string(),
               "--quiet"})
              .status == 0);
  colocsim::test::write_file(dir / "bad.csv", "id,submit_s,duration_s,profile\na,0,100,nosuch\n");
  REQUIRE(
      run_logged("", "", dir / "f", logged("bad"), {"--set", "workload.trace=" + (dir / "bad.csv").string()})
          .status == 2);
  const std::string page = slurp(colocsim::test::source("docs/formats/outputs.md"));
  const auto section = page.substr(page.find("## Event log"));
  std::set<std::string> kinds, keys;
  for (const auto& log : logs)
    for (const auto& l : read_log(log)) {
      kinds.insert(l.kind);
      for (const auto& [k, v] : l.members)
        keys.insert(k);
    }
  // Every kind of line these runs wrote, and every field, is named in the section.
  CHECK(kinds.size() >= 16);
  for (const auto& k : kinds) {
    INFO("kind " << k);
    CHECK(section.find("`" + k + "`") != std::string::npos);
  }
  for (const auto& k : keys) {
    INFO("field " << k);
    CHECK(section.find("`" + k + "`") != std::string::npos);
  }
  fs::remove_all(dir);
}

TEST_CASE("event log: replay writes it too, under the same file rules", "[eventlog][replay]")
{
  // three-exclusive.csv replayed on one Aurora node with the test profiles: each job is submitted, placed
  // and completed once, whatever the calibration makes of their times.
  const auto dir = fresh_dir("eventlog", "replay");
  const std::vector<std::string> args{"replay",
                                      DATA + "three-exclusive.csv",
                                      "--format",
                                      "native",
                                      "--platform",
                                      "aurora-node",
                                      "--set",
                                      "workload.profiles=" + DATA + "profiles-test.yaml",
                                      "--quiet",
                                      "--log-events",
                                      (dir / "replay.jsonl").string()};
  auto with_output = [&](const std::string& out, std::vector<std::string> more = {}) {
    auto a = args;
    a.push_back("-o");
    a.push_back((dir / out).string());
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  REQUIRE(cli(with_output("a")).status == 0);
  std::map<std::string, int> count;
  for (const auto& l : read_log(dir / "replay.jsonl"))
    ++count[l.kind];
  CHECK(count["submit"] == 3);
  CHECK(count["place"] == 3);
  CHECK(count["complete"] == 3);
  const auto again = cli(with_output("b"));
  CHECK(again.status == 2);
  CHECK_THAT(again.err, ContainsSubstring("replay.jsonl: --log-events: already exists; pass --force"));
  CHECK(cli(with_output("c", {"--force"})).status == 0);
  fs::remove_all(dir);
}

TEST_CASE("event log: outputs.events writes events.jsonl with the results", "[eventlog]")
{
  const auto dir = fresh_dir("eventlog", "in-dir");
  const auto out = dir / "out";
  REQUIRE(run_logged("three-exclusive.csv", "", out, {}, {"--set", "outputs.events=true"}).status == 0);
  check_log(read_log(out / "events.jsonl"), FIRST_FIT);
  // It counts among the results: a second run into the directory needs --force, and one with --force that
  // writes no log removes the earlier run's, as it does a jobs.csv it does not write.
  const auto again = run_logged("three-exclusive.csv", "", out, {}, {"--set", "outputs.events=true"});
  CHECK(again.status == 2);
  colocsim::test::write_file(dir / "jobs-only.csv", slurp(out / "jobs.csv"));
  fs::remove(out / "summary.json");
  fs::remove(out / "jobs.csv");
  fs::remove(out / "timeseries.csv");
  CHECK(run_logged("three-exclusive.csv", "", out, {}).status == 2); // events.jsonl alone: results
  REQUIRE(run_logged("three-exclusive.csv", "", out, {}, {"--force"}).status == 0);
  CHECK(!fs::exists(out / "events.jsonl"));
  CHECK(slurp(out / "jobs.csv") == slurp(dir / "jobs-only.csv"));
  // --log-events FILE takes precedence: the log goes there, not into the directory.
  REQUIRE(run_logged("three-exclusive.csv", "", dir / "out2", dir / "elsewhere.jsonl",
                     {"--set", "outputs.events=true"})
              .status == 0);
  CHECK(!fs::exists(dir / "out2" / "events.jsonl"));
  check_log(read_log(dir / "elsewhere.jsonl"), FIRST_FIT);
  fs::remove_all(dir);
}

TEST_CASE("event log: --log-events DIR/events.jsonl survives --force into the same directory", "[eventlog]")
{
  // events.jsonl is one of the results --force clears when a run does not write it (outputs.events): a log
  // asked for by name at that place is this run's, and stays.
  const auto dir = fresh_dir("eventlog", "same-place");
  const auto out = dir / "out";
  REQUIRE(run_logged("three-exclusive.csv", "", out, out / "events.jsonl").status == 0);
  check_log(read_log(out / "events.jsonl"), FIRST_FIT);
  REQUIRE(
      run_logged("three-exclusive.csv", "exclusive-fcfs", out, out / "events.jsonl", {"--force"}).status ==
      0);
  REQUIRE(fs::exists(out / "events.jsonl"));
  check_log(read_log(out / "events.jsonl"), FCFS);
  fs::remove_all(dir);
}
