// The teaching labs stay true (experiments/labs/README.md): each lab's handout commands run (the ```sh lines
// of its README.md that start with build/sim/colocsim), every number its ANSWERS.md marks is what those runs
// give within the rounding shown, the numbers marked `hand:` (worked out by hand in ANSWERS.md) too, and the
// handout gives none of the checked numbers away.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include "cli/Cli.hpp"
#include "experiments/Driver.hpp"
#include "workloads/ProfileCatalog.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <tuple>
#include <unistd.h>

using colocsim::test::read_source_file;

namespace {
namespace fs = std::filesystem;

std::string trim(std::string s)
{
  const auto b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\n");
  return s.substr(b, e + 1 - b);
}

/// The commands of a handout: the lines of its ```sh blocks that start with `build/sim/colocsim` (a
/// trailing `# comment` left out), as words.
std::vector<std::vector<std::string>> handout_commands(const std::string& readme)
{
  std::vector<std::vector<std::string>> commands;
  std::istringstream in(readme);
  bool in_sh = false;
  for (std::string line; std::getline(in, line);) {
    const std::string t = trim(line);
    if (t.rfind("```", 0) == 0) {
      in_sh = !in_sh && t == "```sh";
      continue;
    }
    if (!in_sh || t.rfind("build/sim/colocsim ", 0) != 0) continue;
    auto words = colocsim::test::shell_words(t.substr(0, t.find(" #")));
    words.erase(words.begin());
    commands.push_back(words);
  }
  return commands;
}

/// Runs a lab's handout commands from the repository root's point of view: `experiments/...` paths (also
/// after `KEY=`) become absolute, the lab's output folder `out_name` becomes `out`, and each `from` word of
/// `replace` its `to`.
void run_handout(const std::string& lab, const std::string& out_name, const fs::path& out,
                 const std::map<std::string, std::string>& replace = {})
{
  ::setenv("COLOCSIM_EXE", COLOCSIM_BINARY, 1);
  const auto commands = handout_commands(read_source_file("experiments/labs/" + lab + "/README.md"));
  REQUIRE(!commands.empty());
  for (auto args : commands) {
#ifndef LABS_PYTHON
    // Built without the Python package (the dev preset: the system interpreter cannot load sanitized code):
    // the Python parts of the handouts are left out, and so are their answers (python_run below).
    if (std::find(args.begin(), args.end(), "--policy-python") != args.end()) continue;
#endif
    for (auto& a : args) {
      if (const auto r = replace.find(a); r != replace.end())
        a = r->second;
      else if (a.rfind("experiments/", 0) == 0)
        a = std::string(COLOCSIM_SOURCE_DIR) + "/" + a;
      else if (const auto eq = a.find("=experiments/"); eq != std::string::npos) // --set KEY=experiments/...
        a = a.substr(0, eq + 1) + COLOCSIM_SOURCE_DIR + "/" + a.substr(eq + 1);
      else if (a == out_name || a.rfind(out_name + "/", 0) == 0)
        a = out.string() + a.substr(out_name.size());
    }
    if (args[0] == "run" || args[0] == "sweep") args.push_back("--quiet");
    std::string line;
    for (const auto& a : args)
      line += " " + a;
    INFO("colocsim" << line);
    const auto r = colocsim::test::cli(args);
    INFO(r.err);
    REQUIRE(r.status == 0);
  }
}

/// A number as ANSWERS.md writes it ("2,608", "−35", "1.06"): its value and the half-unit of its last digit.
struct Written {
  std::string text;
  double value = 0, half_unit = 0.5;
};

std::optional<Written> parse_written(const std::string& s, std::size_t at)
{
  static const std::regex number(R"(^(\s*)(−|-|\+)?([0-9][0-9,]*(\.[0-9]+)?))");
  std::smatch m;
  const std::string rest = s.substr(at, 64);
  if (!std::regex_search(rest, m, number)) return std::nullopt;
  Written w;
  w.text = m[2].str() + m[3].str();
  std::string digits;
  for (char c : m[3].str())
    if (c != ',') digits += c;
  w.value = std::stod(digits) * (m[2].matched && m[2].str() != "+" ? -1.0 : 1.0);
  const auto decimals = m[4].matched ? m[4].str().size() - 1 : 0;
  w.half_unit = 0.5 * std::pow(10.0, -static_cast<double>(decimals));
  return w;
}

/// The values a lab's runs give: `RUN:FIELD`, RUN a folder under the lab's output (`run-0003`,
/// `stream/run-0001`), FIELD a number of its summary.json or `JOB.COLUMN` of its jobs.csv.
class Runs {
public:
  explicit Runs(fs::path out) : out_(std::move(out)) {}

  double term(const std::string& text) const
  {
    const auto colon = text.find(':');
    if (colon == std::string::npos) return std::stod(text); // a constant
    const fs::path run = out_ / text.substr(0, colon);
    const std::string field = text.substr(colon + 1);
    if (const auto dot = field.find('.'); dot != std::string::npos) {
      const auto rows = colocsim::experiments::read_csv_rows((run / "jobs.csv").string());
      for (const auto& row : rows)
        if (row.at("id") == field.substr(0, dot)) return std::stod(row.at(field.substr(dot + 1)));
      FAIL("no job " << field.substr(0, dot) << " in " << (run / "jobs.csv"));
      return std::nan("");
    }
    const std::string summary = colocsim::test::slurp((run / "summary.json").string());
    const std::string key = "\n  \"" + field + "\": ";
    const auto at = summary.find(key);
    if (at == std::string::npos) {
      FAIL("no top-level " << field << " in " << (run / "summary.json"));
      return std::nan("");
    }
    return std::stod(summary.substr(at + key.size(), 40));
  }

  /// EXPR = TERM [(/ or −) TERM] [|UNIT], UNIT kWh (÷ 3.6e6), MJ (÷ 1e6), kJ (÷ 1e3), kW (÷ 1e3), h (÷ 3600)
  /// or pct (100 × (x − 1), for a ratio).
  double eval(const std::string& expr) const
  {
    std::string e = expr, unit;
    if (const auto bar = e.find('|'); bar != std::string::npos) {
      unit = trim(e.substr(bar + 1));
      e = e.substr(0, bar);
    }
    double v = 0;
    if (const auto slash = e.find(" / "); slash != std::string::npos)
      v = term(trim(e.substr(0, slash))) / term(trim(e.substr(slash + 3)));
    else if (const auto minus = e.find(" - "); minus != std::string::npos)
      v = term(trim(e.substr(0, minus))) - term(trim(e.substr(minus + 3)));
    else
      v = term(trim(e));
    if (unit.empty()) return v;
    if (unit == "kWh") return v / 3.6e6;
    if (unit == "MJ") return v / 1e6;
    if (unit == "kJ") return v / 1e3;
    if (unit == "kW") return v / 1e3;
    if (unit == "h") return v / 3600;
    if (unit == "pct") return 100 * (v - 1);
    FAIL("unknown unit '" << unit << "' in " << expr);
    return std::nan("");
  }

private:
  fs::path out_;
};

struct Checked {
  std::size_t numbers = 0, by_hand = 0;
  std::vector<std::string> texts; ///< the numbers as written, to look for in the handout
};

void check_number(const Runs& runs, const std::string& expr, const Written& w, Checked& c)
{
  const double got = runs.eval(expr);
  INFO("ANSWERS.md writes " << w.text << " for " << expr << "; the run gives " << got);
  CHECK(std::abs(got - w.value) <= w.half_unit * (1 + 1e-9) + 1e-9);
  ++c.numbers;
  c.texts.push_back(w.text);
}

/// Every marked number of ANSWERS.md against the runs: `<!--= [hand:] EXPR -->NUMBER`, and tables after
/// `<!-- check-table: SPEC... -->` with one SPEC per column: `run` (the column naming the row's RUN), `-`
/// (not checked) or FIELD[|UNIT] (EXPR `RUN:FIELD[|UNIT]`; `RUN:JOB.FIELD` where the run column says
/// RUN:JOB).
Checked check_answers(const std::string& lab, const Runs& runs)
{
  const std::string answers = read_source_file("experiments/labs/" + lab + "/ANSWERS.md");
  Checked c;
  for (std::size_t at = answers.find("<!--="); at != std::string::npos; at = answers.find("<!--=", at + 1)) {
    const auto end = answers.find("-->", at);
    REQUIRE(end != std::string::npos);
    std::string expr = trim(answers.substr(at + 5, end - at - 5));
    const bool by_hand = expr.rfind("hand:", 0) == 0;
    if (by_hand) expr = trim(expr.substr(5));
#ifndef LABS_PYTHON
    if (expr.find("-python:") != std::string::npos) continue; // a run of a Python part (run_handout)
#endif
    const auto w = parse_written(answers, end + 3);
    INFO(lab << "/ANSWERS.md: no number after <!--= " << expr << " -->");
    REQUIRE(w.has_value());
    check_number(runs, expr, *w, c);
    if (by_hand) ++c.by_hand;
  }
  for (std::size_t at = answers.find("<!-- check-table:"); at != std::string::npos;
       at = answers.find("<!-- check-table:", at + 1)) {
    const auto end = answers.find("-->", at);
    const auto spec = colocsim::test::shell_words(answers.substr(at + 17, end - at - 17));
    std::istringstream table(answers.substr(end + 4));
    std::string line;
    std::getline(table, line); // header
    std::getline(table, line); // |---|
    std::size_t rows = 0;
    while (std::getline(table, line) && line.rfind("|", 0) == 0) {
      std::vector<std::string> cells;
      std::istringstream ls(line.substr(1));
      for (std::string cell; std::getline(ls, cell, '|');)
        cells.push_back(trim(cell));
      REQUIRE(cells.size() >= spec.size());
      std::string run;
      for (std::size_t i = 0; i < spec.size(); ++i)
        if (spec[i] == "run") run = cells[i];
      run.erase(std::remove(run.begin(), run.end(), '`'), run.end());
      for (std::size_t i = 0; i < spec.size(); ++i) {
        if (spec[i] == "run" || spec[i] == "-") continue;
        const auto w = parse_written(cells[i], 0);
        INFO(lab << "/ANSWERS.md: no number in the cell '" << cells[i] << "' of " << run);
        REQUIRE(w.has_value());
        // RUN, or RUN:JOB for a table of jobs (the column's FIELD then is a jobs.csv column)
        check_number(runs, run + (run.find(':') == std::string::npos ? ":" : ".") + spec[i], *w, c);
      }
      ++rows;
    }
    CHECK(rows > 0);
  }
  CHECK(c.numbers >= 5);
  INFO(lab << ": at least one answer is a number worked out by hand in ANSWERS.md (marked hand:)");
  CHECK(c.by_hand >= 1);
  return c;
}

/// The handout gives no answer away: no checked number (of two digits or more) appears in README.md as a
/// number of its own (not part of a longer one).
void check_handout_keeps_answers(const std::string& lab, const Checked& c)
{
  const std::string readme = read_source_file("experiments/labs/" + lab + "/README.md");
  CHECK(readme.find("## Questions") != std::string::npos);
  const auto is_digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  for (const auto& text : c.texts) {
    std::size_t digits = 0;
    for (char ch : text)
      digits += is_digit(ch) ? 1 : 0;
    if (digits < 2) continue;
    for (auto at = readme.find(text); at != std::string::npos; at = readme.find(text, at + 1)) {
      const auto after = at + text.size();
      const bool left =
          at > 0 && (is_digit(readme[at - 1]) || readme[at - 1] == '.' || readme[at - 1] == ',');
      const bool right =
          after < readme.size() &&
          (is_digit(readme[after]) || ((readme[after] == '.' || readme[after] == ',') &&
                                       after + 1 < readme.size() && is_digit(readme[after + 1])));
      INFO(lab << "/README.md (the handout) shows the answer " << text
               << " at: " << readme.substr(at > 40 ? at - 40 : 0, 80));
      CHECK((left || right));
    }
  }
}

fs::path lab_out(const std::string& lab)
{
  const auto out = fs::temp_directory_path() / ("colocsim-" + lab + "-" + std::to_string(::getpid()));
  fs::remove_all(out);
  return out;
}
} // namespace

TEST_CASE("01-exclusive-vs-shared: the handout's commands give ANSWERS.md's numbers", "[labs]")
{
  const std::string lab = "01-exclusive-vs-shared";
  const auto out = lab_out(lab);
  run_handout(lab, "lab1-out", out);
  const Runs runs(out);
  check_handout_keeps_answers(lab, check_answers(lab, runs));

  // Question 6, the exclusive rows worked out without the engine: strict FCFS of the mix on the 4 tiles,
  // one job per tile (experiments::fcfs_exclusive), each job alone in one of the tile's k partitions (k = 1
  // under time-slicing), so it runs duration × max(β·max(1, k·c) + (1 − β), k·u, 1) with c its profile's
  // compute_share, β its freq_sensitive share (the EU-bound part of the run time) and u its larger EU
  // utilisation (vec or xmx): models/README.md, a partition does not lend its idle EUs, only the EU-bound
  // part of the run stretches, and alone no co-runner adds contention (bandwidth bound 1).
  const auto catalog = colocsim::ProfileCatalog::load_file(std::string(COLOCSIM_SOURCE_DIR) +
                                                           "/workloads/profiles/default.yaml");
  int run_number = 1; // run-0001..: light before heavy, then time-slice, ccs-2, ccs-4, exclusive first
  for (const std::string mix : {"light", "heavy"}) {
    const auto trace = colocsim::experiments::read_csv_rows(std::string(COLOCSIM_SOURCE_DIR) +
                                                            "/experiments/labs/" + lab + "/" + mix + ".csv");
    REQUIRE(!trace.empty());
    for (const double k : {1.0, 2.0, 4.0}) {
      std::vector<colocsim::experiments::FcfsJob> jobs;
      double slowdown_sum = 0;
      for (const auto& row : trace) {
        const auto* profile = catalog.find(row.at("profile"));
        REQUIRE(profile != nullptr);
        const auto& sig = profile->sig;
        const double beta = sig.freq_sensitive;
        const double slowdown = std::max({beta * std::max(1.0, k * sig.compute_share) + (1.0 - beta),
                                          k * std::max(sig.vec_util, sig.xmx_util), 1.0});
        slowdown_sum += slowdown;
        jobs.push_back({std::stod(row.at("submit_s")), std::stod(row.at("duration_s")) * slowdown,
                        static_cast<std::size_t>(std::stoul(row.at("devices")))});
      }
      const auto brute = colocsim::experiments::fcfs_exclusive(jobs, 4);
      char run[16];
      std::snprintf(run, sizeof run, "run-%04d", run_number);
      run_number += 2;
      INFO(mix << " k=" << k << " exclusive-fcfs (" << run << ") against the brute-force schedule");
      CHECK(runs.term(std::string(run) + ":makespan_s") == Approx(brute.makespan_s).epsilon(1e-6));
      CHECK(runs.term(std::string(run) + ":wait_mean_s") == Approx(brute.wait_mean_s).epsilon(1e-6));
      CHECK(runs.term(std::string(run) + ":jct_mean_s") == Approx(brute.jct_mean_s).epsilon(1e-6));
      CHECK(runs.term(std::string(run) + ":corun_slowdown_mean") ==
            Approx(slowdown_sum / static_cast<double>(trace.size())).epsilon(1e-6));
    }
  }
  fs::remove_all(out);
}

TEST_CASE("03-energy: the handout's commands give ANSWERS.md's numbers", "[labs]")
{
  const std::string lab = "03-energy";
  const auto out = lab_out(lab);
  run_handout(lab, "lab3-out", out);
  check_handout_keeps_answers(lab, check_answers(lab, Runs(out)));
  fs::remove_all(out);
}

TEST_CASE("02-choosing-partners: the handout's commands give ANSWERS.md's numbers", "[labs]")
{
  const std::string lab = "02-choosing-partners";
  const auto out = lab_out(lab);
  run_handout(lab, "lab2-out", out);
  check_handout_keeps_answers(lab, check_answers(lab, Runs(out)));
  fs::remove_all(out);
}

TEST_CASE("04-write-a-policy: the solution gives ANSWERS.md's numbers, the starter strict FCFS", "[labs]")
{
  const std::string lab = "04-write-a-policy";
  const auto out = lab_out(lab);
  // The handout's commands with the instructor's solution, built from solution/GoodPartners.cpp as the
  // lab's CMakeLists.txt builds the students' file (tests/sim/CMakeLists.txt).
  // Part B's Python starter is replaced by the Python solution (solution/good_partners.py).
  const std::string py = std::string(COLOCSIM_SOURCE_DIR) + "/experiments/labs/" + lab;
  run_handout(lab, "lab4-out", out,
              {{"lab4-build/libgood_partners.so", LAB4_SOLUTION},
               {"experiments/labs/04-write-a-policy/good_partners.py:GoodPartners",
                py + "/solution/good_partners.py:GoodPartners"}});
  check_handout_keeps_answers(lab, check_answers(lab, Runs(out)));
#ifdef LABS_PYTHON
  // Part B: the Python solution's schedule is the C++ solution's, byte for byte.
  CHECK(colocsim::test::slurp((out / "tiny-python" / "jobs.csv").string()) ==
        colocsim::test::slurp((out / "tiny" / "jobs.csv").string()));
#endif

  // The starter as shipped (no TODO done) never shares: on the tiny case and on the stream it gives strict
  // FCFS on whole GPUs, worked out without the engine (experiments::fcfs_exclusive; alone on an mps GPU a
  // job runs its duration).
  const auto starter = out / "starter";
  const std::string dir = std::string(COLOCSIM_SOURCE_DIR) + "/experiments/labs/";
  for (const auto& [name, scenario, trace, gpus] :
       std::vector<std::tuple<std::string, std::string, std::string, std::size_t>>{
           {"tiny", dir + lab + "/tiny.yaml", dir + lab + "/tiny.csv", 1},
           {"stream", dir + "02-choosing-partners/pairs.yaml", dir + "02-choosing-partners/stream.csv", 4}}) {
    // In the real binary: this process has the solution's good-partners registered already.
    const std::string command =
        std::string(COLOCSIM_BINARY) + " run " + scenario + " --set workload.trace=" + trace +
        " --set platform.cards_per_node=" + std::to_string(gpus) + " --policy-plugin " + LAB4_STARTER +
        " --policy good-partners -o " + (starter / name).string() + " --quiet";
    INFO(command);
    REQUIRE(colocsim::test::shell(command) == 0);
    std::vector<colocsim::experiments::FcfsJob> jobs;
    for (const auto& row : colocsim::experiments::read_csv_rows(trace))
      jobs.push_back({std::stod(row.at("submit_s")), std::stod(row.at("duration_s")), 1});
    const auto brute = colocsim::experiments::fcfs_exclusive(jobs, gpus);
    const Runs runs(starter);
    INFO("the starter on " << name << " against strict FCFS on " << gpus << " GPUs");
    CHECK(runs.term(name + ":makespan_s") == Approx(brute.makespan_s).epsilon(1e-9));
    CHECK(runs.term(name + ":wait_mean_s") == Approx(brute.wait_mean_s).epsilon(1e-9));
    CHECK(runs.term(name + ":jct_mean_s") == Approx(brute.jct_mean_s).epsilon(1e-9));
    CHECK(runs.term(name + ":corun_slowdown_mean") == Approx(1.0).epsilon(1e-9));
  }
  fs::remove_all(out);
}
