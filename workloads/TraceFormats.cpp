// The trace-format registry and the workload reader chain (TraceFormats.hpp).
#include "workloads/TraceFormats.hpp"

#include "models/GpuTypes.hpp"
#include "workloads/BatsimReader.hpp"
#include "workloads/InputLimits.hpp"
#include "workloads/ItpCsvReader.hpp"
#include "workloads/KubernetesReader.hpp"
#include "workloads/NativeCsv.hpp"
#include "workloads/OpenbReader.hpp"
#include "workloads/PaiReader.hpp"
#include "workloads/ProfileCatalog.hpp"
#include "workloads/ProfileMapper.hpp"
#include "workloads/SacctReader.hpp"
#include "workloads/SwfReader.hpp"

#include <sstream>

namespace colocsim {

namespace {

ParamSpec reorder_window_spec()
{
  return {.name = "reorder_window",
          .type = ParamType::INT,
          .default_text = "16384",
          .help =
              "rows held to put an unsorted file in submit order (memory O(window)); a row out of order by "
              "more is an error",
          .min = 1,
          .max = 1e8};
}

/// The option gpu_types ("T4|V100M16"): its names, empty ones skipped.
std::vector<std::string> gpu_types_option(const std::string& text)
{
  std::vector<std::string> out;
  for (const auto name : gpu_type_names(text))
    if (!name.empty()) out.emplace_back(name);
  return out;
}

std::size_t window_of(const ParamSet& o)
{
  return static_cast<std::size_t>(o.integer("reorder_window"));
}

/// Adds a first description ("swf theta.swf (options)") to a format's reader.
class Labelled final : public JobReader {
public:
  /// `check_limits`: refuse a job outside JobLimits (a format reader's; a given base reader is trusted).
  Labelled(std::unique_ptr<JobReader> inner, std::string label, bool check_limits)
      : inner_(std::move(inner)), label_(std::move(label)), check_limits_(check_limits)
  {
  }
  std::optional<Job> next() override
  {
    auto job = inner_->next();
    if (job && check_limits_) check_job_limits(*job);
    return job;
  }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  bool may_have_dependencies() const override { return inner_->may_have_dependencies(); }
  std::string describe() const override
  {
    const std::string inner = inner_->describe();
    return inner.empty() ? label_ : label_ + "; " + inner;
  }

private:
  std::unique_ptr<JobReader> inner_;
  std::string label_;
  bool check_limits_;
};

/// The end of the whole chain: a workload that yields no job at all is an error, saying what the reader
/// skipped (its warnings) and what the transforms kept (the chain's description), so that a header-only
/// file, a status filter or a window outside the trace does not run an empty simulation that exits 0.
class NonEmpty final : public JobReader {
public:
  NonEmpty(std::unique_ptr<JobReader> inner, SourceLocation where, std::string path)
      : inner_(std::move(inner)), where_(std::move(where)), path_(std::move(path))
  {
  }
  std::optional<Job> next() override
  {
    auto job = inner_->next();
    if (job) {
      ++count_;
    } else if (count_ == 0) {
      const auto skipped = inner_->warnings();
      throw InputError(where_, path_,
                       "no job to replay" +
                           (skipped.empty() ? std::string(" (the trace has no job rows)")
                                            : " (" + join(skipped, "; ") + ")") +
                           "; read as " + inner_->describe() +
                           "; expected at least one job (check the file, the status option and the window)");
    }
    return job;
  }
  std::vector<std::string> warnings() const override { return inner_->warnings(); }
  bool may_have_dependencies() const override { return inner_->may_have_dependencies(); }
  std::string describe() const override { return inner_->describe(); }

private:
  std::unique_ptr<JobReader> inner_;
  SourceLocation where_;
  std::string path_;
  std::size_t count_ = 0;
};

} // namespace

const std::vector<TraceFormat>& trace_formats()
{
  static const std::vector<TraceFormat> formats{
      {.name = "native",
       .summary = "colocsim's own CSV: id,submit_s,duration_s[,devices,gpu_milli,mem,profile,qos]",
       .doc = "docs/formats/native-csv.md",
       .options = {},
       .default_profile_map = "",
       .open = [](const std::string& path, const ParamSet&) { return open_native_csv(path); }},
      {.name = "swf",
       .summary = "Standard Workload Format (Parallel Workloads Archive; ALCF Theta logs tolerated)",
       .doc = "docs/formats/swf.md",
       .options =
           {{.name = "procs_per_device",
             .type = ParamType::INT,
             .default_text = "1",
             .help = "trace processors (nodes, in the Theta logs) per simulated device",
             .min = 1,
             .max = 1e6},
            {.name = "devices_per_proc",
             .type = ParamType::INT,
             .default_text = "1",
             .help = "simulated devices per trace processor (12: a Theta node as an Aurora node of 12 tiles)",
             .min = 1,
             .max = 1e6},
            {.name = "status",
             .type = ParamType::CHOICE,
             .default_text = "all",
             .help =
                 "rows to replay by SWF status: all that ran, not-cancelled (skip 5), completed (1 or -1)",
             .choices = {"all", "not-cancelled", "completed"}},
            reorder_window_spec()},
       .default_profile_map = "",
       .open =
           [](const std::string& path, const ParamSet& o) {
             const std::string& st = o.text("status");
             return open_swf(path,
                             SwfOptions{.procs_per_device = static_cast<int>(o.integer("procs_per_device")),
                                        .devices_per_proc = static_cast<int>(o.integer("devices_per_proc")),
                                        .status = st == "completed"       ? SwfStatusRule::COMPLETED
                                                  : st == "not-cancelled" ? SwfStatusRule::NOT_CANCELLED
                                                                          : SwfStatusRule::ALL,
                                        .reorder_window = window_of(o)});
           }},
      {.name = "itp",
       .summary = "Microsoft ITP / ElasticFlow CSV: job_id,submission_time,duration,num_gpu[,model_name,...]",
       .doc = "docs/formats/itp-csv.md",
       .options = {},
       // ElasticFlow's model names (assigned at random upstream) to the nearest bundled training profile.
       .default_profile_map = "class:resnet50=resnet50-train-bs32,vgg16=resnet50-train-bs128,"
                              "inception3=resnet50-train-bs32,bert=bert-base-train-bs32,"
                              "deepspeech2=bert-base-train-bs32,gpt2=gpt2-large-train-bs8",
       .open = [](const std::string& path, const ParamSet&) { return open_itp_csv(path); }},
      {.name = "openb",
       .summary = "Alibaba cluster-trace-gpu-v2023 pod lists (openb_pod_list_*.csv; FGD, ATC'23)",
       .doc = "docs/formats/alibaba-openb.md",
       .options =
           {{.name = "pending",
             .type = ParamType::CHOICE,
             .default_text = "skip",
             .help =
                 "pods never scheduled (no scheduled_time): skip them, or keep them with pending_duration",
             .choices = {"skip", "keep"}},
            {.name = "pending_duration",
             .type = ParamType::REAL,
             .default_text = "616s",
             .help = "pending=keep: run time of a pending pod (default: the default trace's median run)",
             .min = 1e-9,
             .unit = Unit::SECONDS},
            {.name = "untimed_duration",
             .type = ParamType::REAL,
             .default_text = "616s",
             .help = "5-column (multigpuNN) lists, which have no times: every pod's run time",
             .min = 1e-9,
             .unit = Unit::SECONDS},
            {.name = "untimed_interarrival",
             .type = ParamType::REAL,
             .default_text = "0s",
             .help = "5-column lists: pod i is submitted at i x this (0: all at once, as in FGD)",
             .min = 0,
             .unit = Unit::SECONDS},
            {.name = "gpu_types",
             .type = ParamType::STRING,
             .default_text = "A10|G2|G3|P100|T4|V100M16|V100M32",
             .help = "GPU types a gpu_spec may name, '|'-separated (the openb node list's models)"},
            reorder_window_spec()},
       .default_profile_map = "qos:LS=resnet50-infer-bs1,Guaranteed=resnet50-infer-bs1,BE=resnet50-train-"
                              "bs32,Burstable=resnet50-train-bs32",
       .open =
           [](const std::string& path, const ParamSet& o) {
             OpenbOptions opt;
             opt.pending = o.text("pending") == "keep" ? OpenbPendingRule::KEEP : OpenbPendingRule::SKIP;
             opt.pending_duration_s = o.real("pending_duration");
             opt.untimed_duration_s = o.real("untimed_duration");
             opt.untimed_interarrival_s = o.real("untimed_interarrival");
             opt.gpu_types = gpu_types_option(o.text("gpu_types"));
             opt.reorder_window = window_of(o);
             return open_openb(path, std::move(opt));
           }},
      {.name = "pai",
       .summary = "Alibaba cluster-trace-gpu-v2020 (PAI, NSDI'22) task or job table, headerless CSV",
       .doc = "docs/formats/alibaba-pai.md",
       .options =
           {{.name = "table",
             .type = ParamType::CHOICE,
             .default_text = "auto",
             .help = "which table: task (10 columns, with GPU requests), job (6 columns), auto (by columns)",
             .choices = {"auto", "task", "job"}},
            {.name = "status",
             .type = ParamType::CHOICE,
             .default_text = "all",
             .help = "finished rows to replay: all (Terminated and Failed) or terminated only",
             .choices = {"all", "terminated"}},
            {.name = "job_devices",
             .type = ParamType::INT,
             .default_text = "1",
             .help = "job table (no resources in it): devices of every job",
             .min = 1,
             .max = 1e6},
            {.name = "gpu_types",
             .type = ParamType::STRING,
             .default_text = "MISC|P100|T4|V100|V100M32",
             .help = "GPU types a task's gpu_type may name, '|'-separated (pai_machine_spec's types)"},
            reorder_window_spec()},
       .default_profile_map = "",
       .open =
           [](const std::string& path, const ParamSet& o) {
             PaiOptions opt;
             const std::string& t = o.text("table");
             opt.table = t == "task" ? PaiTable::TASK : t == "job" ? PaiTable::JOB : PaiTable::AUTO;
             opt.terminated_only = o.text("status") == "terminated";
             opt.job_devices = static_cast<int>(o.integer("job_devices"));
             opt.gpu_types = gpu_types_option(o.text("gpu_types"));
             opt.reorder_window = window_of(o);
             return open_pai(path, std::move(opt));
           }},
      {.name = "batsim",
       .summary = "Batsim JSON workload: {nb_res, jobs: [{id, subtime, walltime, res, profile}], profiles}",
       .doc = "docs/formats/batsim.md",
       .options = {{.name = "duration",
                    .type = ParamType::CHOICE,
                    .default_text = "profile",
                    .help =
                        "run time: profile (delay profiles and sequences of them; others their walltime) or "
                        "walltime (every job)",
                    .choices = {"profile", "walltime"}},
                   {.name = "devices_per_res",
                    .type = ParamType::INT,
                    .default_text = "1",
                    .help = "simulated devices per Batsim resource",
                    .min = 1,
                    .max = 1e6},
                   {.name = "res_per_device",
                    .type = ParamType::INT,
                    .default_text = "1",
                    .help = "Batsim resources per simulated device",
                    .min = 1,
                    .max = 1e6},
                   reorder_window_spec()},
       .default_profile_map = "",
       .open =
           [](const std::string& path, const ParamSet& o) {
             return open_batsim(
                 path,
                 BatsimOptions{.duration = o.text("duration") == "walltime" ? BatsimDurationRule::WALLTIME
                                                                            : BatsimDurationRule::PROFILE,
                               .devices_per_res = static_cast<int>(o.integer("devices_per_res")),
                               .res_per_device = static_cast<int>(o.integer("res_per_device")),
                               .reorder_window = window_of(o)});
           }},
      {.name = "sacct",
       .summary = "Slurm accounting: `sacct --parsable2` output, '|'-separated with a header line",
       .doc = "docs/formats/sacct.md",
       .options = {{.name = "duration",
                    .type = ParamType::CHOICE,
                    .default_text = "end-start",
                    .help = "run time: end-start (End - Start, suspended time included) or elapsed (the "
                            "Elapsed column, which leaves suspended time out)",
                    .choices = {"end-start", "elapsed"}},
                   reorder_window_spec()},
       .default_profile_map = "",
       .open =
           [](const std::string& path, const ParamSet& o) {
             return open_sacct(path, SacctOptions{.duration = o.text("duration") == "elapsed"
                                                                  ? SacctDuration::ELAPSED
                                                                  : SacctDuration::SPAN,
                                                  .reorder_window = window_of(o)});
           }},
      {.name = "kubernetes",
       .summary = "Kubernetes pod list: `kubectl get pods -A -o json` (a v1 List of Pods), one job per pod",
       .doc = "docs/formats/kubernetes.md",
       .options = {{.name = "gpu_memory",
                    .type = ParamType::REAL,
                    .default_text = "0",
                    .help =
                        "memory of one GPU: turns memory-only shares (aliyun.com/gpu-mem, nvidia.com/gpumem "
                        "without gpucores) into gpu_milli; 0: such pods hold whole GPUs",
                    .min = 0,
                    .max = 1125899906842624.0,
                    .unit = Unit::BYTES},
                   reorder_window_spec()},
       .default_profile_map = "",
       .open =
           [](const std::string& path, const ParamSet& o) {
             return open_kubernetes(path, KubernetesOptions{.gpu_memory_bytes = o.real("gpu_memory"),
                                                            .reorder_window = window_of(o)});
           }},
  };
  return formats;
}

std::vector<std::string> trace_format_names()
{
  std::vector<std::string> names;
  for (const auto& f : trace_formats())
    names.push_back(f.name);
  return names;
}

const TraceFormat& find_trace_format(std::string_view name, const SourceLocation& where)
{
  for (const auto& f : trace_formats())
    if (f.name == name) return f;
  throw InputError(where, "workload.format",
                   "unknown trace format '" + std::string(name) + "'; valid: " + join(trace_format_names()));
}

std::string describe_trace_formats()
{
  std::ostringstream os;
  os << "Trace formats (workload.format, replay --format). Options: workload.options \"k=v,...\" or replay "
        "--option k=v.\n\n";
  for (const auto& f : trace_formats()) {
    os << f.name << std::string(f.name.size() < 8 ? 8 - f.name.size() : 1, ' ') << f.summary << "\n"
       << "        " << f.doc << "\n";
    if (!f.options.empty()) os << describe_params(f.options, "        ");
    if (!f.default_profile_map.empty())
      os << "        default profile map: " << f.default_profile_map << "\n";
    os << "\n";
  }
  os << "Transforms (workload.transforms, replay --transform; applied in the order written, ',' between):\n";
  for (const auto& t : transform_infos()) {
    const std::string head = t.name + (t.value_help.empty() ? "" : "=" + t.value_help);
    os << "  " << head << std::string(head.size() < 14 ? 14 - head.size() : 1, ' ') << t.help << "\n";
  }
  os << "\nProfile maps (workload.profile_map, replay --profile-map; docs/formats/profile-map.md): rules\n"
        "separated by ';', first match wins, for jobs whose trace names no profile:\n"
        "  class:A=P,...   the trace's class column (ElasticFlow model_name, Batsim profile, PAI task_name)\n"
        "  qos:LS=P,...    the trace's QoS (openb LS, BE, Burstable, Guaranteed)\n"
        "  draw:P=W,...    seeded weighted draw per job id\n"
        "  none            no map (turns off a format's default map)\n"
        "Jobs no rule binds get workload.default_profile (replay --profile).\n";
  return os.str();
}

std::string describe_workload(const WorkloadSpec& spec)
{
  std::ostringstream os;
  os << spec.format << " " << spec.path;
  if (!spec.options.empty()) {
    os << " (";
    bool first = true;
    for (const auto& [k, v] : spec.options) {
      os << (first ? "" : ",") << k << "=" << v.text;
      first = false;
    }
    os << ")";
  }
  if (!spec.transforms.empty()) os << "; transforms " << spec.transforms;
  std::string map = spec.profile_map;
  if (map.empty()) {
    const auto& formats = trace_formats();
    for (const auto& f : formats)
      if (f.name == spec.format) map = f.default_profile_map;
    if (map.empty()) map = "none";
  }
  os << "; profile map " << map;
  return os.str();
}

std::unique_ptr<JobReader> open_workload(const WorkloadSpec& spec,
                                         const std::function<std::unique_ptr<JobReader>()>& base)
{
  const TraceFormat& format = find_trace_format(spec.format, spec.where);
  DiagnosticSink sink;
  ParamSet options = parse_params(format.options, spec.options, spec.path_prefix + ".options", sink);
  TransformChain transforms;
  ProfileMap map;
  const std::string map_text = spec.profile_map.empty() ? format.default_profile_map : spec.profile_map;
  auto collect = [&](const auto& f) {
    try {
      f();
    } catch (const InputError& e) {
      for (const auto& d : e.diagnostics())
        sink.add(d);
    }
  };
  collect([&] {
    transforms = TransformChain::parse(spec.transforms, spec.where, spec.path_prefix + ".transforms");
  });
  collect([&] {
    map = ProfileMap::parse(map_text, spec.where, spec.path_prefix + ".profile_map");
    if (spec.catalog) map.check(*spec.catalog, spec.where, spec.path_prefix + ".profile_map");
  });
  sink.throw_if_any();

  std::string label = spec.source_label.empty() ? format.name + " " + spec.path : spec.source_label;
  if (!format.options.empty()) label += " (" + options.to_string() + ")";
  ReaderFactory make;
  if (base)
    make = [base, label] { return std::make_unique<Labelled>(base(), label, false); };
  else
    make = [&format, path = spec.path, options, label] {
      return std::make_unique<Labelled>(format.open(path, options), label, true);
    };
  make = transforms.apply(std::move(make),
                          TransformContext{.seed = spec.seed, .capacity_devices = spec.capacity_devices});
  SourceLocation where = spec.where;
  if (where.file.empty()) where = SourceLocation{spec.path};
  return std::make_unique<NonEmpty>(std::make_unique<ProfileMapper>(make(), std::move(map), spec.seed), where,
                                    spec.path_prefix);
}

} // namespace colocsim
