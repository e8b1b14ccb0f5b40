// Kubernetes pod lists (`kubectl get pods -A -o json`) read as a trace: a fixture shaped as kubectl prints
// it with one pod per case (tests/data/workloads/kubernetes/README.md), then small inline lists for each rule
// and each error.
#include "tests/workloads/WorkloadsTestSupport.hpp"

#include "workloads/KubernetesReader.hpp"
#include "workloads/TraceFormats.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

using namespace colocsim;
using namespace colocsim::test;
using Catch::Matchers::ContainsSubstring;

namespace {
const std::string EXAMPLE = WORKLOADS_DATA + "kubernetes/pods.json";

/// A List holding `pods`, one per line: pod i is on line i + 2.
std::string list_of(const std::vector<std::string>& pods)
{
  std::string out = "{\"apiVersion\": \"v1\", \"items\": [\n";
  for (std::size_t i = 0; i < pods.size(); ++i)
    out += pods[i] + (i + 1 < pods.size() ? ",\n" : "\n");
  return out + "], \"kind\": \"List\", \"metadata\": {\"resourceVersion\": \"\"}}\n";
}

/// One pod on one line: created at `created`, one container with `limits`, ran 10:00:10 → 10:01:50 (100 s).
std::string pod(const std::string& limits, const std::string& phase = "Succeeded",
                const std::string& created = "2024-03-01T10:00:00Z", const std::string& name = "p")
{
  return R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"creationTimestamp": ")" + created +
         R"(", "name": ")" + name + R"(", "namespace": "ns"}, "spec": {"containers": [{"name": "c", )" +
         R"("resources": {"limits": {)" + limits +
         R"(}}}]}, "status": {"containerStatuses": [{"name": "c", )" +
         R"("state": {"terminated": {"exitCode": 0, "finishedAt": "2024-03-01T10:01:50Z", "reason": "Completed", )" +
         R"("startedAt": "2024-03-01T10:00:10Z"}}}], "phase": ")" + phase + R"("}})";
}

std::vector<Job> read_text(const std::string& text, KubernetesOptions o = {})
{
  std::istringstream in(text);
  KubernetesReader r(in, "t.json", o);
  return drain(r);
}

std::string error_of(const std::string& text, KubernetesOptions o = {})
{
  return input_error_of([&] { read_text(text, o); });
}

/// "t.json:LINE:COL" of the first occurrence of `needle` in `text` (1-based, as JsonStream counts).
std::string at(const std::string& text, const std::string& needle)
{
  const auto pos = text.find(needle);
  REQUIRE(pos != std::string::npos);
  const auto line_start = text.rfind('\n', pos);
  const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n');
  const auto col = pos - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  return "t.json:" + std::to_string(line) + ":" + std::to_string(col);
}
} // namespace

TEST_CASE("kubernetes: every pod of the example becomes the job worked out by hand",
          "[workloads][kubernetes]")
{
  auto r = open_kubernetes(EXAMPLE);
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 7);
  // ml/resnet-train-0-vx5mf: the first GPU pod created (10:00:00; the CPU-only web pod of 09:58 is not
  // replayed), so submit 0. Ran 10:00:30 → 11:00:30 on 2 whole A100s.
  CHECK(jobs[0].id == "ml/resnet-train-0-vx5mf");
  CHECK(jobs[0].submit_s == 0);
  CHECK(jobs[0].duration_s == 3600);
  CHECK(jobs[0].devices == 2);
  CHECK(jobs[0].gpu_milli == 1000);
  CHECK(jobs[0].mem_request_bytes == 0);
  CHECK(jobs[0].gpu_types == "NVIDIA-A100-SXM4-80GB");
  CHECK(jobs[0].requested_s == 7200); // activeDeadlineSeconds
  CHECK(jobs[0].cpus == 16);
  CHECK(jobs[0].host_mem_bytes == 64.0 * 1024 * 1024 * 1024); // 64Gi
  CHECK(jobs[0].user == "ml");
  CHECK(jobs[0].trace_class == "resnet"); // app.kubernetes.io/name
  CHECK(jobs[0].qos == "Burstable");
  CHECK(jobs[0].trace_status == "completed");
  // ml/bert-infer-mig-5k8xz: created 10:05:00 (300 s). One MIG 1g.5gb device: 1 of 7 slices = 143 milli,
  // 5 GB. Its first run (lastState, 10:05:10) failed and restarted; the last ended 10:35:10: 1800 s.
  CHECK(jobs[1].id == "ml/bert-infer-mig-5k8xz");
  CHECK(jobs[1].submit_s == 300);
  CHECK(jobs[1].duration_s == 1800);
  CHECK(jobs[1].devices == 1);
  CHECK(jobs[1].gpu_milli == 143);
  CHECK(jobs[1].mem_request_bytes == 5e9);
  CHECK(jobs[1].gpu_types == "NVIDIA-A100-SXM4-40GB");
  CHECK(jobs[1].trace_status == "completed");
  // media/transcode-h7v2k: 10:10:00 (600 s); one Intel GPU, 10:10:04 → 10:25:04 = 900 s; no product label.
  CHECK(jobs[2].id == "media/transcode-h7v2k");
  CHECK(jobs[2].submit_s == 600);
  CHECK(jobs[2].duration_s == 900);
  CHECK(jobs[2].devices == 1);
  CHECK(jobs[2].gpu_milli == 1000);
  CHECK(jobs[2].gpu_types.empty());
  CHECK(jobs[2].cpus == 2);
  CHECK(jobs[2].host_mem_bytes == 4.0 * 1024 * 1024 * 1024);
  CHECK(jobs[2].user == "media");
  // ml/sweep-12-zt6hd: 10:15:00 (900 s), failed at its deadline of 1800 s: timeout.
  CHECK(jobs[3].id == "ml/sweep-12-zt6hd");
  CHECK(jobs[3].submit_s == 900);
  CHECK(jobs[3].duration_s == 1800);
  CHECK(jobs[3].requested_s == 1800);
  CHECK(jobs[3].trace_status == "timeout");
  // ml/ddp-train-4xk2l: 10:20:00 (1200 s). The init container asks for 4 GPUs, the app containers 1 + 1
  // (the evaluator by its limit only): max(4, 2) = 4. CPUs max(4, 8 + 2) = 10, memory max(16, 32 + 8) =
  // 40 Gi. The init container started first (10:20:30), the trainer finished last (11:02:00): 2490 s.
  CHECK(jobs[4].id == "ml/ddp-train-4xk2l");
  CHECK(jobs[4].submit_s == 1200);
  CHECK(jobs[4].duration_s == 2490);
  CHECK(jobs[4].devices == 4);
  CHECK(jobs[4].cpus == 10);
  CHECK(jobs[4].host_mem_bytes == 40.0 * 1024 * 1024 * 1024);
  CHECK(jobs[4].trace_class == "ddp-train"); // label app
  CHECK(jobs[4].trace_status == "failed");
  // ml/vgpu-notebook-hm2qp: 10:25:00 (1500 s); HAMi: 30 % of the cores (300 milli) and 3000 MiB.
  CHECK(jobs[5].id == "ml/vgpu-notebook-hm2qp");
  CHECK(jobs[5].submit_s == 1500);
  CHECK(jobs[5].duration_s == 7200);
  CHECK(jobs[5].devices == 1);
  CHECK(jobs[5].gpu_milli == 300);
  CHECK(jobs[5].mem_request_bytes == 3000.0 * 1024 * 1024);
  CHECK(jobs[5].qos == "BestEffort");
  // ml/oom-train-9qv7d: 10:30:00 (1800 s), OOMKilled after 720 s.
  CHECK(jobs[6].id == "ml/oom-train-9qv7d");
  CHECK(jobs[6].submit_s == 1800);
  CHECK(jobs[6].duration_s == 720);
  CHECK(jobs[6].trace_status == "out-of-memory");
  CHECK(jobs[6].qos == "Guaranteed");
  CHECK(jobs[6].origin.file == EXAMPLE);
  const auto w = r->warnings();
  REQUIRE(w.size() == 4);
  CHECK_THAT(w[0], ContainsSubstring("skipped 1 Pending pod(s)"));
  CHECK_THAT(w[1], ContainsSubstring("skipped 1 Running pod(s)"));
  CHECK_THAT(w[2], ContainsSubstring("skipped 1 finished pod(s) without a GPU request"));
  // In the file's namespace/name order, bert (10:05), resnet (10:00), sweep (10:15) and vgpu (10:25)
  // each come after a later pod.
  CHECK_THAT(w[3], ContainsSubstring("4 pod(s) were out of creationTimestamp order"));
  CHECK(r->describe() == "submit 0 = 2024-03-01T10:00:00Z (the first pod's creationTimestamp)");
}

TEST_CASE("kubernetes: RFC 3339 times, exactly, and bad ones named with their field",
          "[workloads][kubernetes]")
{
  const SourceLocation loc{"t", 3, 7};
  CHECK(parse_rfc3339("1970-01-01T00:00:00Z", loc, "f").seconds == 0);
  CHECK(parse_rfc3339("2024-03-01T10:00:00Z", loc, "f").seconds == 1709287200);
  CHECK(parse_rfc3339("2024-03-01t10:00:00z", loc, "f").seconds == 1709287200);
  // +02:00 is two hours ahead of UTC: 12:00 there is 10:00 UTC; -05:30 is behind.
  CHECK(parse_rfc3339("2024-03-01T12:00:00+02:00", loc, "f").seconds == 1709287200);
  CHECK(parse_rfc3339("2024-03-01T04:30:00-05:30", loc, "f").seconds == 1709287200);
  const auto frac = parse_rfc3339("2024-02-29T23:59:59.125Z", loc, "f"); // leap day
  CHECK(frac.seconds == 1709251199);
  CHECK(frac.fraction == 0.125);
  CHECK(parse_rfc3339("2024-03-01T10:00:00.000000001Z", loc, "f").fraction == 1e-9);
  for (const char* bad :
       {"2024-03-01T10:00:00", "2024-03-01 10:00:00Z", "2023-02-29T00:00:00Z", "2024-13-01T00:00:00Z",
        "2024-03-01T24:00:00Z", "2024-03-01T10:00:00.Z", "2024-03-01T10:00:00+2:00",
        "2024-03-01T10:00:00+24:00", "2024-03-01T10:00:00Zjunk", "yesterday", "1970-01-01T00:00:00+00:01"})
    CHECK_THAT(input_error_of([&] { parse_rfc3339(bad, loc, "startedAt"); }),
               ContainsSubstring("t:3:7: startedAt: ") &&
                   ContainsSubstring("(got '" + std::string(bad) + "')"));
  CHECK_THAT(input_error_of([&] { parse_rfc3339("2400-01-01T00:00:00Z", loc, "startedAt"); }),
             ContainsSubstring("out of range"));

  // Durations come from whole seconds and fractions apart: 10:00:00.75+01:00 → 09:01:40.25Z is 100.5 s...
  // after the start at 09:00:00.25Z → exactly 100 s.
  const std::string text =
      list_of({R"({"metadata": {"creationTimestamp": "2024-03-01T09:00:00Z", "name": "a"}, )"
               R"("spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}]}, )"
               R"("status": {"phase": "Succeeded", "containerStatuses": [{"state": {"terminated": )"
               R"({"startedAt": "2024-03-01T10:00:00.25+01:00", "finishedAt": )"
               R"("2024-03-01T09:01:40.25Z"}}}]}})"});
  const auto jobs = read_text(text);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == "a"); // no namespace: the name alone
  CHECK(jobs[0].duration_s == 100);
}

TEST_CASE("kubernetes: quantities as the API writes them", "[workloads][kubernetes]")
{
  CHECK(parse_k8s_quantity("1") == 1);
  CHECK(parse_k8s_quantity("500m") == 0.5);
  CHECK(parse_k8s_quantity("16Gi") == 16.0 * 1024 * 1024 * 1024);
  CHECK(parse_k8s_quantity("2k") == 2000);
  CHECK(parse_k8s_quantity("1e3") == 1000);
  CHECK(parse_k8s_quantity("1.5G") == 1.5e9);
  CHECK(parse_k8s_quantity(".5") == 0.5);
  CHECK(parse_k8s_quantity("-1") == -1);
  for (const char* bad : {"", "x", "1x", "1 ", "Gi", "1.2.3", "1e", "1e1000", "--1", "1KiB"})
    CHECK_FALSE(parse_k8s_quantity(bad));
}

TEST_CASE("kubernetes: GPU requests of each kind, limits for absent requests", "[workloads][kubernetes]")
{
  auto one = [](const std::string& limits, KubernetesOptions o = {}) {
    const auto jobs = read_text(list_of({pod(limits)}), o);
    REQUIRE(jobs.size() == 1);
    return jobs[0];
  };
  CHECK(one(R"("nvidia.com/gpu": "8")").devices == 8);
  CHECK(one(R"("nvidia.com/gpu": 2)").devices == 2); // a JSON number, as a hand-written list may have
  // MIG: 3g.20gb is 3 of 7 slices = 429 milli, 20 GB per device; 7g.80gb a whole GPU.
  const Job mig = one(R"("nvidia.com/mig-3g.20gb": "2")");
  CHECK(mig.devices == 2);
  CHECK(mig.gpu_milli == 429);
  CHECK(mig.mem_request_bytes == 20e9);
  CHECK(one(R"("nvidia.com/mig-7g.80gb": "1")").gpu_milli == 1000);
  CHECK(one(R"("nvidia.com/mig-2g.10gb": "1")").gpu_milli == 286);
  CHECK(one(R"("gpu.intel.com/i915": "1")").devices == 1);
  // HAMi: gpucores is the share; gpumem-percentage is one when gpucores is absent; no nvidia.com/gpu: 1.
  CHECK(one(R"("nvidia.com/gpu": "2", "nvidia.com/gpucores": "50")").gpu_milli == 500);
  CHECK(one(R"("nvidia.com/gpu": "2", "nvidia.com/gpucores": "50")").devices == 2);
  CHECK(one(R"("nvidia.com/gpumem-percentage": "25")").gpu_milli == 250);
  CHECK(one(R"("nvidia.com/gpumem-percentage": "25")").devices == 1);
  // Memory-only shares: whole GPUs without gpu_memory, a share of it with: 4 GiB of 16 GiB = 250.
  CHECK(one(R"("aliyun.com/gpu-mem": "4")").gpu_milli == 1000);
  CHECK(one(R"("aliyun.com/gpu-mem": "4")").mem_request_bytes == 4.0 * 1024 * 1024 * 1024);
  const KubernetesOptions sixteen{.gpu_memory_bytes = 16.0 * 1024 * 1024 * 1024};
  CHECK(one(R"("aliyun.com/gpu-mem": "4")", sixteen).gpu_milli == 250);
  CHECK(one(R"("nvidia.com/gpu": "1", "nvidia.com/gpumem": "4096")", sixteen).gpu_milli == 250);
  // An explicit 0 is no GPU.
  std::istringstream zero(list_of({pod(R"("nvidia.com/gpu": "0", "cpu": "2")")}));
  KubernetesReader zr(zero, "z.json");
  CHECK(drain(zr).empty());
  CHECK_THAT(zr.warnings().at(0), ContainsSubstring("skipped 1 finished pod(s) without a GPU request"));

  std::istringstream in(list_of({pod(R"("aliyun.com/gpu-mem": "4")")}));
  KubernetesReader r(in, "m.json");
  drain(r);
  CHECK_THAT(r.warnings().at(0), ContainsSubstring("1 pod(s) asked for GPU memory only"));
}

TEST_CASE("kubernetes: the effective request: requests before limits, init containers, sidecars",
          "[workloads][kubernetes]")
{
  auto pod_with = [](const std::string& spec) {
    return R"({"metadata": {"creationTimestamp": "2024-03-01T10:00:00Z", "name": "p"}, "spec": )" + spec +
           R"(, "status": {"phase": "Succeeded", "containerStatuses": [{"state": {"terminated": )"
           R"({"startedAt": "2024-03-01T10:00:00Z", "finishedAt": "2024-03-01T10:00:10Z"}}}]}})";
  };
  auto job_of = [&](const std::string& spec) {
    const auto jobs = read_text(list_of({pod_with(spec)}));
    REQUIRE(jobs.size() == 1);
    return jobs[0];
  };
  // A request wins over the limit of the same resource.
  CHECK(job_of(R"({"containers": [{"resources": {"limits": {"nvidia.com/gpu": "4", "cpu": "8"}, )"
               R"("requests": {"nvidia.com/gpu": "2", "cpu": "500m"}}}]})")
            .devices == 2);
  // Init containers run one at a time: max(3, 1 + 1) = 3; app containers sum: 1 + 1 = 2 > 1.
  CHECK(job_of(R"({"initContainers": [{"resources": {"limits": {"nvidia.com/gpu": "3"}}}, )"
               R"({"resources": {"limits": {"nvidia.com/gpu": "1"}}}], )"
               R"("containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}, )"
               R"({"resources": {"limits": {"nvidia.com/gpu": "1"}}}]})")
            .devices == 3);
  CHECK(job_of(R"({"initContainers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}], )"
               R"("containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}, )"
               R"({"resources": {"limits": {"nvidia.com/gpu": "1"}}}]})")
            .devices == 2);
  // A sidecar (restartPolicy Always) runs beside the later init containers and the app containers:
  // max(1 + 2, 1 + 1) = 3.
  CHECK(
      job_of(
          R"({"initContainers": [{"restartPolicy": "Always", "resources": {"limits": {"nvidia.com/gpu": "1"}}}, )"
          R"({"resources": {"limits": {"nvidia.com/gpu": "2"}}}], )"
          R"("containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}]})")
          .devices == 3);
  // Mixed shares in one pod: 1 whole GPU and a 1g.5gb instance: 2 devices at the largest share, counted.
  std::istringstream in(
      list_of({pod_with(R"({"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}, )"
                        R"({"resources": {"limits": {"nvidia.com/mig-1g.5gb": "1"}}}]})")}));
  KubernetesReader r(in, "m.json");
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].devices == 2);
  CHECK(jobs[0].gpu_milli == 1000);
  CHECK_THAT(r.warnings().at(0), ContainsSubstring("1 pod(s) held GPUs of different shares"));
}

TEST_CASE("kubernetes: phases, and pods that cannot be replayed, are counted", "[workloads][kubernetes]")
{
  const std::string gpu = R"("nvidia.com/gpu": "1")";
  std::istringstream in(list_of(
      {pod(gpu, "Pending", "2024-03-01T10:00:00Z", "a"), pod(gpu, "Running", "2024-03-01T10:00:00Z", "b"),
       pod(gpu, "Unknown", "2024-03-01T10:00:00Z", "c"), pod(gpu, "Pending", "2024-03-01T10:00:00Z", "d"),
       pod(gpu, "Failed", "2024-03-01T10:00:05Z", "e")}));
  KubernetesReader r(in, "t.json");
  const auto jobs = drain(r);
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0].id == "ns/e");
  CHECK(jobs[0].trace_status == "failed");
  CHECK(jobs[0].duration_s == 100);
  const auto w = r.warnings();
  REQUIRE(w.size() == 3);
  CHECK_THAT(w[0], ContainsSubstring("t.json: skipped 2 Pending pod(s)"));
  CHECK_THAT(w[1], ContainsSubstring("skipped 1 Running pod(s)"));
  CHECK_THAT(w[2], ContainsSubstring("skipped 1 Unknown pod(s)"));

  // Failed without any terminated container: startTime only (no end), or nothing at all.
  const std::string no_end =
      R"({"metadata": {"creationTimestamp": "2024-03-01T10:00:00Z", "name": "q"}, "spec": {"containers": )"
      R"([{"resources": {"limits": {"nvidia.com/gpu": "1"}}}]}, "status": {"phase": "Failed", "reason": )"
      R"("Evicted", "startTime": "2024-03-01T10:00:01Z"}})";
  const std::string never =
      R"({"metadata": {"creationTimestamp": "2024-03-01T10:00:00Z", "name": "n"}, )"
      R"("spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1"}}}]}, )"
      R"("status": {"phase": "Failed", "reason": "OutOfnvidia.com/gpu"}})";
  std::istringstream in2(list_of({no_end, never, pod(gpu)}));
  KubernetesReader r2(in2, "t.json");
  CHECK(drain(r2).size() == 1);
  const auto w2 = r2.warnings();
  REQUIRE(w2.size() == 2);
  CHECK_THAT(w2[0], ContainsSubstring("skipped 1 finished pod(s) that never started"));
  CHECK_THAT(w2[1], ContainsSubstring("skipped 1 finished pod(s) without a finishedAt"));
}

TEST_CASE("kubernetes: bad input is an error with file, line, column, field and what was expected",
          "[workloads][kubernetes][errors]")
{
  const std::string gpu = R"("nvidia.com/gpu": "1")";
  // Not a List.
  CHECK_THAT(error_of("[]"), ContainsSubstring("t.json:1:1: json: not an object; expected a List object"));
  CHECK_THAT(error_of(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {}})"),
             ContainsSubstring("t.json:1:30: kind: a single Pod (kubectl get pod NAME -o json); expected "
                               "\"kind\": \"List\""));
  CHECK_THAT(error_of(R"({"apiVersion": "v1", "kind": "List"})"),
             ContainsSubstring("t.json:1:1: items: missing"));
  CHECK_THAT(error_of(R"({"items": []})"), ContainsSubstring("t.json:1:1: kind: missing"));
  CHECK_THAT(error_of(R"({"items": [], "kind": "ServiceList"})"),
             ContainsSubstring("t.json:1:23: kind: not a pod list (got 'ServiceList')"));
  CHECK_THAT(error_of(R"({"items": {}, "kind": "List"})"),
             ContainsSubstring("t.json:1:11: items: expected an array"));
  CHECK_THAT(error_of(list_of({R"({"kind": "Service", "metadata": {}})"})),
             ContainsSubstring("t.json:2:10: items[0].kind: not a pod (got 'Service')"));
  CHECK_THAT(error_of(""), ContainsSubstring("t.json:1:1: json:"));

  // Missing fields: at the pod's opening brace.
  const std::string no_created = R"({"metadata": {"name": "p"}, "status": {"phase": "Succeeded"}})";
  CHECK_THAT(
      error_of(list_of({pod(gpu), no_created})),
      ContainsSubstring("t.json:3:1: items[1].metadata.creationTimestamp: missing; expected the time the pod "
                        "was created"));
  CHECK_THAT(error_of(list_of({R"({"metadata": {"creationTimestamp": "2024-03-01T10:00:00Z"}})"})),
             ContainsSubstring("t.json:2:1: items[0].metadata.name: missing"));
  CHECK_THAT(
      error_of(list_of({R"({"metadata": {"creationTimestamp": "2024-03-01T10:00:00Z", "name": "p"}})"})),
      ContainsSubstring("t.json:2:1: items[0].status.phase: missing"));

  // Quantities, at the value.
  const std::string x = list_of({pod(R"("nvidia.com/gpu": "x")")});
  CHECK_THAT(error_of(x),
             ContainsSubstring(at(x, "\"x\"") +
                               ": items[0].spec.containers[0].resources.limits.nvidia.com/gpu: not a "
                               "quantity (got 'x'); expected a whole number of GPUs"));
  const std::string neg = list_of({pod(R"("nvidia.com/gpu": "-1")")});
  CHECK_THAT(error_of(neg),
             ContainsSubstring(at(neg, "\"-1\"") +
                               ": items[0].spec.containers[0].resources.limits.nvidia.com/gpu: "
                               "negative (got '-1')"));
  CHECK_THAT(error_of(list_of({pod(R"("nvidia.com/gpu": "500m")")})),
             ContainsSubstring("not a whole number (got '500m')"));
  CHECK_THAT(error_of(list_of({pod(R"("nvidia.com/gpu": "2000000")")})),
             ContainsSubstring("too large (got '2000000')"));
  CHECK_THAT(error_of(list_of({pod(R"("nvidia.com/gpu": "1e300")")})), ContainsSubstring("too large"));
  CHECK_THAT(error_of(list_of({pod(R"("nvidia.com/gpu": true)")})),
             ContainsSubstring("limits.nvidia.com/gpu: expected a quantity"));
  CHECK_THAT(error_of(list_of({pod(R"("nvidia.com/gpu": "1", "nvidia.com/gpucores": "150")")})),
             ContainsSubstring("limits.nvidia.com/gpucores: too large (got '150')"));
  CHECK_THAT(error_of(list_of({pod(R"("nvidia.com/mig-8g.80gb": "1")")})),
             ContainsSubstring("limits.nvidia.com/mig-8g.80gb: a MIG profile of 8 compute slices"));
  CHECK_THAT(error_of(list_of({pod(R"("nvidia.com/mig-big": "1")")})),
             ContainsSubstring("limits.nvidia.com/mig-big: not a MIG resource name"));
  CHECK_THAT(error_of(list_of({pod(gpu + R"(, "memory": "lots")")})),
             ContainsSubstring("limits.memory: not a quantity (got 'lots')"));
  CHECK_THAT(error_of(list_of({pod(gpu, "Done")})),
             ContainsSubstring("items[0].status.phase: unknown phase (got 'Done')"));

  // Times.
  const std::string bad_time = list_of({pod(gpu, "Succeeded", "2024-03-01T10:00:00")});
  CHECK_THAT(error_of(bad_time),
             ContainsSubstring(at(bad_time, "\"2024-03-01T10:00:00\"") +
                               ": items[0].metadata.creationTimestamp: not a time: no time zone"));
  std::string backwards = list_of({pod(gpu)});
  backwards.replace(backwards.find("10:01:50Z"), 9, "09:59:59Z");
  CHECK_THAT(
      error_of(backwards),
      ContainsSubstring(at(backwards, "\"2024-03-01T09:59:59Z\"") +
                        ": items[0].status.containerStatuses[0].state.terminated.finishedAt: earlier than "
                        "startedAt 2024-03-01T10:00:10Z"));
  // Truncated file: JsonStream's error at the end.
  const std::string whole = list_of({pod(gpu)});
  CHECK_THAT(error_of(whole.substr(0, whole.size() / 2)), ContainsSubstring("t.json:2:"));
  CHECK_THAT(error_of(list_of({pod(gpu)}) + "{"), ContainsSubstring("after the end of the document"));
  // Nesting past JsonStream's bound: an error at the byte offset that names the limit, not another format.
  const std::string deep =
      R"({"kind": "List", "items": [{"metadata": {"annotations": )" + std::string(100000, '[');
  CHECK_THAT(error_of(deep),
             ContainsSubstring("t.json:1:") && ContainsSubstring("nested more than 64 deep") &&
                 ContainsSubstring("a Kubernetes pod list") && !ContainsSubstring("expected a Batsim"));
  // A GPU product with a blank.
  CHECK_THAT(
      error_of(list_of({R"({"metadata": {"creationTimestamp": "2024-03-01T10:00:00Z", "name": "p"}, )"
                        R"("spec": {"nodeSelector": {"nvidia.com/gpu.product": "Tesla T4"}}, )"
                        R"("status": {"phase": "Pending"}})"})),
      ContainsSubstring("spec.nodeSelector.nvidia.com/gpu.product: not a GPU product name (got 'Tesla T4')"));
}

TEST_CASE("kubernetes: the items array is read one pod at a time", "[workloads][kubernetes]")
{
  // 20,000 GPU pods in creation order. With a window of 1 the first job is handed out after reading only
  // the first pods, not the file; draining then yields every pod once.
  constexpr int N = 20000;
  std::vector<std::string> pods;
  pods.reserve(N);
  for (int i = 0; i < N; ++i) {
    const int s = i % 60, m = i / 60 % 60, h = i / 3600;
    char created[32];
    std::snprintf(created, sizeof created, "2024-03-01T%02d:%02d:%02dZ", h, m, s);
    pods.push_back(pod(R"("nvidia.com/gpu": "1")", "Succeeded", created, "p" + std::to_string(i)));
  }
  const std::string text = list_of(pods);
  std::istringstream in(text);
  KubernetesReader r(in, "big.json", {.reorder_window = 1});
  const auto first = r.next();
  REQUIRE(first);
  CHECK(first->id == "ns/p0");
  const auto consumed = static_cast<std::size_t>(in.tellg());
  CHECK(consumed < 3 * pods[0].size());
  CHECK(consumed < text.size() / 1000);
  std::size_t count = 1;
  while (r.next())
    ++count;
  CHECK(count == N);
}

TEST_CASE("kubernetes: registered as a trace format with its options", "[workloads][kubernetes]")
{
  WorkloadSpec spec;
  spec.format = "kubernetes";
  spec.path = EXAMPLE;
  spec.options["gpu_memory"] = GivenValue{.text = "16GiB"};
  auto r = open_workload(spec);
  const auto jobs = drain(*r);
  REQUIRE(jobs.size() == 7);
  CHECK(jobs[0].id == "ml/resnet-train-0-vx5mf");
  CHECK_THAT(r->describe(), ContainsSubstring("kubernetes " + EXAMPLE + " (gpu_memory="));
  CHECK_THAT(r->describe(), ContainsSubstring("submit 0 = 2024-03-01T10:00:00Z"));
  spec.options["gpu_memory"] = GivenValue{.text = "-1"};
  CHECK_THAT(input_error_of([&] { open_workload(spec); }), ContainsSubstring("workload.options.gpu_memory"));
}
