// Profile catalog: the bundled default catalog loads and is consistent with its classes; the
// documented example parses to exact values; bad catalogs are reported at file:line:col.
#include "workloads/ProfileCatalog.hpp"

#include "WorkloadsTestSupport.hpp"

#include <algorithm>
#include <string>
#include <vector>

using namespace colocsim;
using Catch::Matchers::ContainsSubstring;
using colocsim::test::WithinAbs;

namespace {

const std::string& DATA = test::WORKLOADS_DATA;
const std::string DEFAULT_CATALOG = std::string(COLOCSIM_SOURCE_DIR) + "/workloads/profiles/default.yaml";
const std::string MLPERF_CATALOG = std::string(COLOCSIM_SOURCE_DIR) + "/workloads/profiles/mlperf.yaml";

/// A one-profile catalog with `body` as the profile's keys (indented 4 spaces by the caller).
std::string catalog_with(const std::string& body)
{
  return "format: colocsim-profiles/1\nprofiles:\n  p:\n" + body;
}

const std::string GOOD_BODY = "    class: C\n"
                              "    duty_cycle: {value: 0.5, tag: estimate, source: s}\n"
                              "    vec_util: {value: 0.5, tag: estimate, source: s}\n"
                              "    xmx_util: {value: 0.0, tag: estimate, source: s}\n"
                              "    bw_util: {value: 0.2, tag: estimate, source: s}\n"
                              "    mem: {value: 2GiB, tag: estimate, source: s}\n"
                              "    freq_sensitive: {value: 0.5, tag: estimate, source: s}\n";

} // namespace

TEST_CASE("profile catalog: the bundled catalogs load and every profile is in range", "[workloads][profiles]")
{
  for (const std::string& path : {DEFAULT_CATALOG, MLPERF_CATALOG}) {
    INFO(path);
    const auto catalog = ProfileCatalog::load_file(path);
    REQUIRE(catalog.size() >= (path == DEFAULT_CATALOG ? 10u : 4u));
    const auto names = catalog.names();
    CHECK(std::is_sorted(names.begin(), names.end()));

    for (const auto& p : catalog.profiles()) {
      INFO(p.name);
      const auto& s = p.sig;
      CHECK(!p.description.empty());
      CHECK(s.duty_cycle > 0);
      CHECK(s.duty_cycle <= 1);
      for (double f : {s.vec_util, s.xmx_util, s.bw_util, s.freq_sensitive}) {
        CHECK(f >= 0);
        CHECK(f <= 1);
        // Nothing is used, and nothing scales with the clock, while the engine is idle.
        CHECK(f <= s.duty_cycle + 1e-12);
      }
      CHECK(s.mem_bytes > 0);
      CHECK(s.mem_bytes <= 64e9); // fits one Max 1550 tile
      CHECK(s.compute_share > 0);
      CHECK(s.compute_share <= 1);
      // Every number of the bundled catalog, compute_share and scaling_serial included, is sourced.
      CHECK(p.sources.size() == (s.scaling_serial > 0 ? 8u : 7u) + (s.scaling_exponent != 1.0 ? 1u : 0u));
      // Classes as defined in models/ResourceSignature.hpp.
      switch (s.job_class) {
      case JobClass::MS:
        CHECK(s.bw_util >= 0.8);
        break;
      case JobClass::M:
        CHECK(s.bw_util <= 0.4);
        CHECK(s.bw_util >= std::max(s.vec_util, s.xmx_util));
        break;
      case JobClass::X:
        CHECK(s.xmx_util >= s.vec_util);
        break;
      case JobClass::C:
        CHECK(s.vec_util >= s.xmx_util);
        break;
      case JobClass::L:
        CHECK(s.vec_util <= 0.3);
        CHECK(s.bw_util <= 0.3);
        break;
      }
    }
  }
}

TEST_CASE("profile catalog: the default catalog holds the profiles the experiments rely on",
          "[workloads][profiles]")
{
  const auto catalog = ProfileCatalog::load_file(DEFAULT_CATALOG);
  // Costa et al. (SSCAD'25) complementary inference pair: low duty cycles that fit together.
  const auto& a = catalog.at("resnet50-infer-bs1", {});
  const auto& b = catalog.at("bert-base-infer-bs1", {});
  CHECK(a.sig.duty_cycle <= 0.45);
  CHECK(b.sig.duty_cycle <= 0.45);
  CHECK(a.sig.duty_cycle + b.sig.duty_cycle <= 1.0);
  CHECK(a.sig.job_class != b.sig.job_class);
  CHECK(a.sig.bw_util + b.sig.bw_util <= 1.0);

  // A bandwidth-bound inference profile.
  CHECK(catalog.at("llama3-8b-decode-bs1", {}).sig.job_class == JobClass::MS);

  // CARMA memory footprints are measurements with their source.
  const auto& bert = catalog.at("bert-base-train-bs32", {});
  CHECK(bert.sig.mem_bytes == Catch::Approx(19.83e9));
  CHECK(std::any_of(bert.sources.begin(), bert.sources.end(),
                    [](const std::string& s) { return s.find("mem: measurement; CARMA-README") == 0; }));
  CHECK(catalog.at("resnet50-train-bs32", {}).sig.mem_bytes == Catch::Approx(3.94e9));
  CHECK(catalog.at("resnet50-train-bs128", {}).sig.mem_bytes == Catch::Approx(13.24e9));
  CHECK(catalog.at("gpt2-large-train-bs8", {}).sig.mem_bytes == Catch::Approx(28.36e9));
  CHECK(catalog.at("maskrcnn-train", {}).sig.mem_bytes == Catch::Approx(28.61e9));
  // CARMA's CIFAR-100 table (itu-rad/CARMA README): resnet18 0.79 / 0.80 / 0.86 GB at batch 32 / 64 / 128;
  // the profile takes the largest, not a 1 GB bound above every measurement.
  CHECK(catalog.at("cifar-resnet18-train", {}).sig.mem_bytes == Catch::Approx(0.86e9));

  // Every class is represented.
  for (auto c : {JobClass::C, JobClass::X, JobClass::M, JobClass::MS, JobClass::L})
    CHECK(std::any_of(catalog.profiles().begin(), catalog.profiles().end(),
                      [c](const Profile& p) { return p.sig.job_class == c; }));
}

TEST_CASE("profile catalog: the documented example parses to exact values", "[workloads][profiles]")
{
  const auto catalog = ProfileCatalog::load_file(DATA + "profiles-example.yaml");
  REQUIRE(catalog.names() == std::vector<std::string>{"resnet50-infer-bs1", "resnet50-train-bs32"});
  const Profile* p = catalog.find("resnet50-infer-bs1");
  REQUIRE(p != nullptr);
  CHECK(p->description == "ResNet-50 image classification, batch 1");
  CHECK(p->sig.job_class == JobClass::X);
  CHECK(p->sig.duty_cycle == 0.35);
  CHECK(p->sig.vec_util == 0.06);
  CHECK(p->sig.xmx_util == 0.15);
  CHECK(p->sig.bw_util == 0.08);
  CHECK(p->sig.mem_bytes == 1.5e9);
  CHECK(p->sig.freq_sensitive == 0.3);
  CHECK(p->sources.front() == "duty_cycle: estimate; [E] small-batch inference: engine mostly idle");
  CHECK_THAT(p->origin.to_string(), ContainsSubstring("profiles-example.yaml:4:3"));

  const Profile* t = catalog.find("resnet50-train-bs32");
  REQUIRE(t != nullptr);
  CHECK(t->description.empty()); // optional
  CHECK(t->sig.mem_bytes == 3.94e9);
  CHECK(catalog.index_of("resnet50-train-bs32") == std::optional<std::size_t>(1));
  CHECK(!catalog.index_of("nope"));
  CHECK(catalog.find("nope") == nullptr);
}

TEST_CASE("profile catalog: an unknown profile names the valid ones at the place it was used",
          "[workloads][profiles]")
{
  const auto catalog = ProfileCatalog::load_file(DATA + "profiles-example.yaml");
  REQUIRE_THROWS_WITH(catalog.at("resnet", SourceLocation{"trace.csv", 12}),
                      ContainsSubstring("trace.csv:12: profile: unknown profile 'resnet'; valid: "
                                        "resnet50-infer-bs1, resnet50-train-bs32"));
}

TEST_CASE("profile catalog: every problem of a bad file is reported at file:line:col",
          "[workloads][profiles]")
{
  try {
    ProfileCatalog::load_file(DATA + "bad-profiles.yaml");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK(e.diagnostics().size() == 3);
    CHECK_THAT(msg, ContainsSubstring(
                        "bad-profiles.yaml:5:17: profiles.no-tag.duty_cycle.tag: missing evidence tag"));
    CHECK_THAT(msg,
               ContainsSubstring("bad-profiles.yaml:19:5: profiles.extra-key.l2_bytes: unknown key; valid: "
                                 "description, class, duty_cycle"));
    CHECK_THAT(msg,
               ContainsSubstring("bad-profiles.yaml:25:22: profiles.out-of-range.bw_util.value: out of range "
                                 "(got '1.5'); expected a fraction in [0, 1]"));
  }
}

TEST_CASE("profile catalog: individual mistakes", "[workloads][profiles]")
{
  auto load = [](const std::string& text) { return ProfileCatalog::load(text, "c.yaml"); };
  CHECK_NOTHROW(load(catalog_with(GOOD_BODY)));
  CHECK(load(catalog_with(GOOD_BODY)).at("p", {}).sig.mem_bytes == 2.0 * 1024 * 1024 * 1024);

  SECTION("wrong format tag")
  {
    std::string text = catalog_with(GOOD_BODY);
    text.replace(text.find("/1"), 2, "/9");
    REQUIRE_THROWS_WITH(load(text),
                        ContainsSubstring("c.yaml:1:9: format: unknown format (got "
                                          "'colocsim-profiles/9'); expected 'colocsim-profiles/1'"));
  }
  SECTION("unknown top-level key")
  {
    REQUIRE_THROWS_WITH(load(catalog_with(GOOD_BODY) + "extra: 1\n"),
                        ContainsSubstring("c.yaml:11:1: extra: unknown key; valid: format, profiles"));
  }
  SECTION("unknown class")
  {
    std::string body = GOOD_BODY;
    body.replace(body.find("class: C"), 8, "class: Q");
    REQUIRE_THROWS_WITH(
        load(catalog_with(body)),
        ContainsSubstring("c.yaml:4:12: profiles.p.class: unknown class (got 'Q'); valid: C, X, M, MS, L"));
  }
  SECTION("a bare number without provenance in a bundled catalog")
  {
    std::string body = GOOD_BODY;
    body.replace(body.find("{value: 0.5, tag: estimate, source: s}"), 38, "0.5");
    REQUIRE_THROWS_WITH(ProfileCatalog::load(catalog_with(body), "builtin:workloads/profiles/c.yaml"),
                        ContainsSubstring("builtin:workloads/profiles/c.yaml:5:17: profiles.p.duty_cycle: "
                                          "expected {value: ..., tag: ..., source: ...}"));
  }
  SECTION("a plain number out of range in a user's catalog")
  {
    std::string body = GOOD_BODY;
    body.replace(body.find("{value: 0.2, tag: estimate, source: s}"), 38, "1.5");
    REQUIRE_THROWS_WITH(
        load(catalog_with(body)),
        ContainsSubstring(
            "c.yaml:8:14: profiles.p.bw_util: out of range (got '1.5'); expected a fraction in [0, 1]"));
  }
  SECTION("zero duty cycle")
  {
    std::string body = GOOD_BODY;
    body.replace(body.find("value: 0.5"), 10, "value: 0");
    REQUIRE_THROWS_WITH(
        load(catalog_with(body)),
        ContainsSubstring(
            "profiles.p.duty_cycle.value: out of range (got '0'); expected a fraction in (0, 1]"));
  }
  SECTION("missing key")
  {
    std::string body = GOOD_BODY;
    body.erase(body.find("    mem:"), body.find("    freq_sensitive") - body.find("    mem:"));
    REQUIRE_THROWS_WITH(load(catalog_with(body)),
                        ContainsSubstring("c.yaml:4:5: profiles.p.mem: missing required key"));
  }
  SECTION("memory without a size")
  {
    std::string body = GOOD_BODY;
    body.replace(body.find("2GiB"), 4, "lots");
    REQUIRE_THROWS_WITH(load(catalog_with(body)), ContainsSubstring("profiles.p.mem.value: expected a size"));
  }
  SECTION("duplicate profile name")
  {
    std::string text = catalog_with(GOOD_BODY) + "  p:\n" + GOOD_BODY;
    REQUIRE_THROWS_WITH(
        load(text),
        ContainsSubstring(
            "c.yaml:11:3: profiles.p: duplicate key (first at line 3); expected each key once in a map"));
  }
  SECTION("YAML syntax error")
  {
    REQUIRE_THROWS_WITH(load("format: [unclosed\n"), ContainsSubstring("c.yaml:"));
  }
  SECTION("no profiles")
  {
    REQUIRE_THROWS_WITH(load("format: colocsim-profiles/1\nprofiles: {}\n"),
                        ContainsSubstring("no profiles"));
  }
}

TEST_CASE("profile catalog: a user's catalog may give plain numbers (solo measurements)",
          "[workloads][profiles]")
{
  // As a user writes them from nvidia-smi / DCGM (docs/formats/profiles.md, Solo measurements): no tags.
  const std::string text = "format: colocsim-profiles/1\n"
                           "profiles:\n"
                           "  my-train:\n"
                           "    class: X\n"
                           "    duty_cycle: 0.93\n"
                           "    vec_util: 0.12\n"
                           "    xmx_util: {value: 0.41, tag: measurement, source: \"dcgmi dmon -e 1004\"}\n"
                           "    bw_util: 0.35\n"
                           "    mem: 11GiB\n"
                           "    freq_sensitive: 0.8\n";
  const auto catalog = ProfileCatalog::load(text, "mine.yaml");
  const Profile& p = catalog.at("my-train", {});
  CHECK(p.sig.duty_cycle == 0.93);
  CHECK(p.sig.vec_util == 0.12);
  CHECK(p.sig.xmx_util == 0.41);
  CHECK(p.sig.bw_util == 0.35);
  CHECK(p.sig.mem_bytes == 11.0 * 1024 * 1024 * 1024);
  CHECK(p.sig.freq_sensitive == 0.8);
  CHECK(p.user_supplied == std::vector<std::string>{"duty_cycle = 0.93", "vec_util = 0.12", "bw_util = 0.35",
                                                    "mem = 11GiB", "freq_sensitive = 0.8"});
  CHECK(std::find(p.sources.begin(), p.sources.end(),
                  "duty_cycle: user-supplied; plain number in mine.yaml") != p.sources.end());
  CHECK(std::find(p.sources.begin(), p.sources.end(), "xmx_util: measurement; dcgmi dmon -e 1004") !=
        p.sources.end());
  // The same file as a bundled catalog is refused: bundled numbers keep their provenance.
  CHECK_THROWS_AS(ProfileCatalog::load(text, "builtin:workloads/profiles/mine.yaml"), InputError);
}

TEST_CASE("profile catalog: the format page shows the tested example and lists every bundled profile",
          "[workloads][profiles][docs]")
{
  const std::string page = test::slurp(std::string(COLOCSIM_SOURCE_DIR) + "/docs/formats/profiles.md");
  CHECK(page.find(test::slurp(DATA + "profiles-example.yaml")) != std::string::npos);
  for (const auto& file : {DEFAULT_CATALOG, MLPERF_CATALOG})
    for (const auto& name : ProfileCatalog::load_file(file).names()) {
      INFO(name);
      CHECK(page.find("| `" + name + "` |") != std::string::npos);
    }
}

TEST_CASE("profile catalog: scaling curves fitted to MLPerf Training v4.0", "[workloads][profiles]")
{
  const auto catalog = ProfileCatalog::load_file(DEFAULT_CATALOG);
  // resnet50-train-bs128: s = 0.00841 (calibration/tools/fit_mlperf_scaling.py, resnet on NVIDIA eos).
  const auto& r = catalog.at("resnet50-train-bs128", {}).sig;
  CHECK(r.scaling_serial == 0.00841);
  CHECK(r.scaling_efficiency(1) == 1.0);
  // e(8) = 1 / (0.00841·8 + 0.99159) = 1 / 1.05887 = 0.944403...
  CHECK_THAT(r.scaling_efficiency(8), WithinAbs(1.0 / 1.05887, 1e-12));
  // Profiles without a curve scale perfectly (e = 1): gpt2-large's CARMA time is already measured on 2 GPUs.
  CHECK(catalog.at("gpt2-large-train-bs8", {}).sig.scaling_efficiency(2) == 1.0);
  // mlperf-llama2-70b-lora-train: s = 0.0306, p = 0.783 (experiments/mlperf-scaling). By hand:
  // 63^0.783 = exp(0.783 · ln 63) = exp(3.24407) = 25.6380, e(64) = 1 / (1 + 0.0306 · 25.6380) = 0.560374.
  const auto mlperf = ProfileCatalog::load_file(MLPERF_CATALOG);
  const auto& l = mlperf.at("mlperf-llama2-70b-lora-train", {}).sig;
  CHECK(l.scaling_exponent == 0.783);
  CHECK_THAT(l.scaling_efficiency(64), WithinAbs(0.560374, 1e-6));
  // Out of range is an error at the value.
  const std::string bad =
      catalog_with(GOOD_BODY + "    scaling_serial: {value: 1.5, tag: estimate, source: s}\n");
  CHECK_THROWS_WITH(ProfileCatalog::load(bad, "bad.yaml"),
                    ContainsSubstring("profiles.p.scaling_serial.value: out of range (got '1.5'); expected a "
                                      "fraction in [0, 1]"));
  const std::string bad_p =
      catalog_with(GOOD_BODY + "    scaling_exponent: {value: 0, tag: estimate, source: s}\n");
  CHECK_THROWS_WITH(ProfileCatalog::load(bad_p, "bad.yaml"),
                    ContainsSubstring("profiles.p.scaling_exponent.value: out of range (got '0'); expected a "
                                      "number in (0, 2]"));
}

TEST_CASE("profile catalog: compute_share_by_batch interpolates in log(batch), clamped at the ends",
          "[workloads][profiles][mig]")
{
  // Points (1, 0.2), (16, 0.6), (64, 1.0). By hand: batch 4 lies half-way from 1 to 16 in ln (ln 4 / ln 16 =
  // 0.5) → 0.2 + 0.4·0.5 = 0.4; batch 32 half-way from 16 to 64 (ln 2 / ln 4) → 0.6 + 0.4·0.5 = 0.8;
  // batch 2: ln 2 / ln 16 = 0.25 → 0.3; below 1 and above 64 the end values.
  const auto catalog = ProfileCatalog::load(
      catalog_with(GOOD_BODY +
                   "    compute_share_by_batch: {value: {64: 1.0, 1: 0.2, 16: 0.6}, tag: measurement, "
                   "source: s}\n"),
      "c.yaml");
  const Profile& p = catalog.at("p", {});
  REQUIRE(p.depends_on_batch());
  CHECK(p.sig.compute_share == 1.0); // jobs without a batch keep the profile's own c (default 1)
  CHECK_THAT(p.signature_for_batch(4).compute_share, WithinAbs(0.4, 1e-12));
  CHECK_THAT(p.signature_for_batch(32).compute_share, WithinAbs(0.8, 1e-12));
  CHECK_THAT(p.signature_for_batch(2).compute_share, WithinAbs(0.3, 1e-12));
  CHECK_THAT(p.signature_for_batch(16).compute_share, WithinAbs(0.6, 1e-12));
  CHECK(p.signature_for_batch(1).compute_share == 0.2);
  CHECK(p.signature_for_batch(4096).compute_share == 1.0);
  // The vector utilisation (0.5) is capped at the batch's compute share (0.2 at batch 1); 0.5 < 0.8 stays.
  CHECK(p.signature_for_batch(1).vec_util == 0.2);
  CHECK(p.signature_for_batch(32).vec_util == 0.5);
  CHECK(p.signature_for_batch(32).duty_cycle == p.sig.duty_cycle);
}

TEST_CASE("profile catalog: mig_speed and mig_speed_by_batch give measured speeds per slice size",
          "[workloads][profiles][mig]")
{
  const auto catalog = ProfileCatalog::load(
      catalog_with(GOOD_BODY +
                   "    mig_speed: {value: {1g: 0.25, 3g: 0.8}, tag: measurement, source: s}\n"
                   "    mig_speed_by_batch: {value: {1: {1g: 0.5, 2g: 0.9}, 64: {1g: 0.2, 2g: 0.3}}, tag: "
                   "measurement, source: s}\n"),
      "c.yaml");
  const Profile& p = catalog.at("p", {});
  CHECK(p.sig.mig_speed[1] == 0.25);
  CHECK(p.sig.mig_speed[2] == 0.0); // not measured: the law decides
  CHECK(p.sig.mig_speed[3] == 0.8);
  // Batch 8: ln 8 / ln 64 = 0.5 → 1g 0.5 − 0.3·0.5 = 0.35, 2g 0.9 − 0.6·0.5 = 0.6; 3g has no batch rows: 0.8.
  const auto b8 = p.signature_for_batch(8);
  CHECK_THAT(b8.mig_speed[1], WithinAbs(0.35, 1e-12));
  CHECK_THAT(b8.mig_speed[2], WithinAbs(0.6, 1e-12));
  CHECK(b8.mig_speed[3] == 0.8);
  CHECK(b8.compute_share == p.sig.compute_share);
  CHECK(std::any_of(p.sources.begin(), p.sources.end(),
                    [](const std::string& s) { return s == "mig_speed: measurement; s"; }));
}

TEST_CASE("profile catalog: bad batch and MIG speed tables are reported at file:line:col",
          "[workloads][profiles][mig]")
{
  auto load = [](const std::string& extra) {
    return ProfileCatalog::load(catalog_with(GOOD_BODY + extra), "c.yaml");
  };
  REQUIRE_THROWS_WITH(
      load("    mig_speed: {value: {1g: 0.3, 8g: 0.5}, tag: measurement, source: s}\n"),
      ContainsSubstring("c.yaml:11:34: profiles.p.mig_speed.value.8g: unknown slice size '8g'; "
                        "expected 1g, 2g, 3g, 4g, 5g, 6g or 7g"));
  REQUIRE_THROWS_WITH(load("    mig_speed: {value: {1g: 1.5}, tag: measurement, source: s}\n"),
                      ContainsSubstring("c.yaml:11:29: profiles.p.mig_speed.value.1g: out of range or not a "
                                        "number (got '1.5'); expected a speed relative to the whole GPU"));
  REQUIRE_THROWS_WITH(
      load("    compute_share_by_batch: {value: {0: 0.5}, tag: estimate, source: s}\n"),
      ContainsSubstring("c.yaml:11:38: profiles.p.compute_share_by_batch.value: bad batch size "
                        "(got '0'); expected an integer in 1..1048576"));
  REQUIRE_THROWS_WITH(
      load("    compute_share_by_batch: {value: {2: 0}, tag: estimate, source: s}\n"),
      ContainsSubstring("profiles.p.compute_share_by_batch.value.2: out of range or not a number "
                        "(got '0'); expected a compute share in (0, 1]"));
  REQUIRE_THROWS_WITH(
      load("    mig_speed: {value: 0.5, tag: measurement, source: s}\n"),
      ContainsSubstring("c.yaml:11:24: profiles.p.mig_speed.value: expected a map of slice size"));
  REQUIRE_THROWS_WITH(load("    mig_speed: {value: {1g: 0.5}, source: s}\n"),
                      ContainsSubstring("profiles.p.mig_speed.tag: missing or unknown evidence tag"));
  // A valid tag and no source (found by the fuzz CTest, profiles harness): an input error, where reading the
  // missing source as a string escaped as a yaml-cpp InvalidNode exception.
  REQUIRE_THROWS_WITH(load("    mig_speed: {value: {1g: 0.5}, tag: measurement}\n"),
                      ContainsSubstring("profiles.p.mig_speed.source: missing"));
  REQUIRE_THROWS_WITH(
      load("    mig_speed_by_batch: {value: {1: {1g: 0.5}, 8: {2g: 0.4}}, tag: measurement, source: s}\n"),
      ContainsSubstring("profiles.p.mig_speed_by_batch.value.8: batch 8 names different slice sizes than the "
                        "first batch"));
}
