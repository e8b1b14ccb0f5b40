// A scenario (or a sweep spec's scenario) from someone else never runs plugin code without consent on the
// command line. The plugin here (tests/plugins/bad_plugins.cpp, kind 9) writes a marker file from its
// constructor, which runs inside dlopen: a marker proves the command loaded it. Every command runs the
// real colocsim binary, so this test process loads nothing. The expected SHA-256 comes from the system's
// `sha256sum`, independent of colocsim's own implementation.
#include "tests/CatchCompat.hpp"
#include "tests/sim/CliTestSupport.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using colocsim::test::ContainsSubstring;
using colocsim::test::slurp;

namespace {
namespace fs = std::filesystem;

struct Result {
  int status;
  std::string out, err;
};

struct Fixture {
  fs::path dir, plugin, marker;
  std::string sha256;

  Fixture(const std::string& name)
  {
    dir = fs::temp_directory_path() / ("colocsim-consent-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    plugin = dir / "libmarker.so";
    fs::copy_file(PLUGIN_marker, plugin);
    marker = dir / "marker.txt";
    ::setenv("COLOCSIM_TEST_PLUGIN_MARKER", marker.c_str(), 1);
    const auto sum = run_shell("sha256sum " + plugin.string());
    REQUIRE(sum.status == 0);
    sha256 = sum.out.substr(0, 64);
    REQUIRE(sha256.size() == 64);
    scenario("scenario.yaml", "[libmarker.so]");
    std::ofstream(dir / "spec.yaml") << "scenario: scenario.yaml\nseeds: [1, 2]\n";
  }
  ~Fixture() { fs::remove_all(dir); }

  void scenario(const std::string& file, const std::string& plugins) const
  {
    std::ofstream(dir / file) << "name: consent\nplugins: " << plugins
                              << "\nplatform: {preset: aurora-node}\nworkload: {trace: "
                              << COLOCSIM_SOURCE_DIR
                              << "/sim/scenarios/default/jobs.csv}\npolicy: test-marker\n"
                                 "outputs: {timeseries: false}\n";
  }

  Result run_shell(const std::string& command) const
  {
    const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
    const int status = colocsim::test::shell(command + " >" + out.string() + " 2>" + err.string());
    return {status, slurp(out.string()), slurp(err.string())};
  }

  Result colocsim(const std::string& args) const
  {
    return run_shell("cd " + dir.string() + " && " + COLOCSIM_BINARY + " " + args);
  }

  bool loaded() const { return fs::exists(marker); }
};
} // namespace

TEST_CASE("without consent, no command loads a plugin a scenario names: exit 2 and the list of plugins",
          "[plugins][consent]")
{
  Fixture f("refused");
  const std::string listed = "scenario.yaml:2:11: plugins: " + f.plugin.string() + " (sha256 " + f.sha256 +
                             ") is not loaded without consent: loading a plugin runs its code; pass "
                             "--allow-plugins to load every plugin this file names, or --policy-plugin " +
                             f.plugin.string() + " for this one";
  for (const std::string args : {"validate scenario.yaml", "run scenario.yaml -o out --quiet",
                                 "sweep spec.yaml -o sweep -j 1", "sweep spec.yaml --dry-run"}) {
    INFO(args);
    const auto r = f.colocsim(args);
    CHECK(r.status == 2);
    CHECK_THAT(r.err, ContainsSubstring(listed));
    CHECK_FALSE(f.loaded());
  }
  CHECK_FALSE(fs::exists(f.dir / "out" / "summary.json"));
  CHECK_FALSE(fs::exists(f.dir / "sweep" / "sweep.csv"));

  // A plugin that does not exist is listed as such.
  f.scenario("missing.yaml", "[libmarker.so, nowhere/libgone.so]");
  const auto r = f.colocsim("validate missing.yaml");
  CHECK(r.status == 2);
  CHECK_THAT(r.err,
             ContainsSubstring((f.dir / "nowhere/libgone.so").string() + " (no such file) is not loaded "
                                                                         "without consent"));
  CHECK_THAT(r.err, ContainsSubstring(f.plugin.string() + " (sha256 " + f.sha256 + ")"));

  // --help-scenario reads no scenario.
  CHECK(f.colocsim("run scenario.yaml --help-scenario").status == 0);
  CHECK_FALSE(f.loaded());
}

TEST_CASE("validate and sweep --dry-run with consent list the plugins but load none", "[plugins][consent]")
{
  Fixture f("no-load");
  const auto v = f.colocsim("validate scenario.yaml --allow-plugins");
  INFO(v.err);
  CHECK(v.status == 0);
  CHECK_THAT(v.out, ContainsSubstring("policy test-marker (not checked: not built in, and not loaded by a "
                                      "plugin given with --policy-plugin)"));
  CHECK_THAT(v.out,
             ContainsSubstring("  plugin " + f.plugin.string() + ": exists, sha256 " + f.sha256 +
                               ", not loaded (validate loads only plugins given with --policy-plugin)"));
  CHECK_FALSE(f.loaded());

  const auto d = f.colocsim("sweep spec.yaml --dry-run --allow-plugins");
  INFO(d.err);
  CHECK(d.status == 0);
  CHECK_THAT(d.out, ContainsSubstring("run-0002  colocsim run scenario.yaml --allow-plugins --set seed=2"));
  CHECK_FALSE(f.loaded());

  // Given on the command line, the same file is loaded (and its policy checked) by validate too.
  const auto given = f.colocsim("validate scenario.yaml --policy-plugin ./libmarker.so");
  INFO(given.err);
  CHECK(given.status == 0);
  CHECK_THAT(given.out, ContainsSubstring("policy test-marker\n"));
  CHECK_THAT(given.out, ContainsSubstring(", loaded (given with --policy-plugin)"));
  CHECK(f.loaded());
}

TEST_CASE("with consent a run loads the plugin and records its path and sha256", "[plugins][consent]")
{
  Fixture f("allowed");
  const auto r = f.colocsim("run scenario.yaml --allow-plugins -o out --quiet");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(f.loaded());
  CHECK_THAT(slurp((f.dir / "out" / "summary.json").string()),
             ContainsSubstring("\"plugins\": [{\"path\": \"" + f.plugin.string() + "\", \"sha256\": \"" +
                               f.sha256 + "\"}],"));
  CHECK_THAT(slurp((f.dir / "out" / "summary.json").string()),
             ContainsSubstring("\"policy\": \"test-marker\""));

  // The same file given with --policy-plugin is consent for it.
  fs::remove(f.marker);
  const auto given =
      f.colocsim("run scenario.yaml --policy-plugin " + f.plugin.string() + " -o out2 --quiet");
  INFO(given.err);
  CHECK(given.status == 0);
  CHECK(f.loaded());

  // A sweep passes the consent on to its runs, and sweep.csv names the plugin of every run.
  const auto s = f.colocsim("sweep spec.yaml --allow-plugins -o sweep -j 1 --quiet");
  INFO(s.err);
  REQUIRE(s.status == 0);
  std::istringstream csv(slurp((f.dir / "sweep" / "sweep.csv").string()));
  std::string header, row1, row2;
  std::getline(csv, header);
  std::getline(csv, row1);
  std::getline(csv, row2);
  CHECK(header.rfind("run,status,seed,plugins,plugins_sha256,", 0) == 0);
  CHECK(row1.rfind("run-0001,ok,1," + f.plugin.string() + "," + f.sha256 + ",", 0) == 0);
  CHECK(row2.rfind("run-0002,ok,2," + f.plugin.string() + "," + f.sha256 + ",", 0) == 0);
}

TEST_CASE("a saved scenario whose plugin changed since warns with the old and the new sha256",
          "[plugins][consent]")
{
  Fixture f("changed");
  const std::string old_hash(64, '0');
  f.scenario("saved.yaml", "[{path: libmarker.so, sha256: \"" + old_hash + "\"}]");
  const auto r = f.colocsim("run saved.yaml --allow-plugins -o out --quiet");
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK_THAT(r.err,
             ContainsSubstring("colocsim: warning: plugin " + f.plugin.string() +
                               " changed since the scenario was saved (saved.yaml:2:11): its sha256 was " +
                               old_hash + ", now " + f.sha256));
  // The recorded hash is the file's: no warning.
  f.scenario("same.yaml", "[{path: libmarker.so, sha256: \"" + f.sha256 + "\"}]");
  const auto same = f.colocsim("run same.yaml --allow-plugins -o out-same --quiet");
  CHECK(same.status == 0);
  CHECK_THAT(same.err, !ContainsSubstring("changed since"));

  // replay records the plugin with its sha256 in the scenario it saves; rerunning that scenario needs
  // consent like any other.
  const auto rp = f.colocsim("replay " + std::string(COLOCSIM_SOURCE_DIR) +
                             "/sim/scenarios/default/jobs.csv --format native --platform aurora-node "
                             "--policy-plugin libmarker.so --policy test-marker -o replay --quiet");
  INFO(rp.err);
  REQUIRE(rp.status == 0);
  CHECK_THAT(slurp((f.dir / "replay" / "scenario.yaml").string()),
             ContainsSubstring("plugins:\n  - {path: \"" + f.plugin.string() + "\", sha256: \"" + f.sha256 +
                               "\"}\n"));
  CHECK_THAT(slurp((f.dir / "replay" / "summary.json").string()), ContainsSubstring(f.sha256));
  CHECK(f.colocsim("run replay/scenario.yaml -o rerun --quiet").status == 2);
  CHECK(f.colocsim("run replay/scenario.yaml --allow-plugins -o rerun --quiet").status == 0);
}
