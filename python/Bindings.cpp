// colocsim._core (python/README.md): the policy API of policies/Policy.hpp exposed as it is (the view, the
// events, the decisions, the Policy base class a Python policy subclasses), and a run: the same
// load_scenario + run_scenario as `colocsim run` (sim/RunScenario.hpp), into an output directory the package
// then reads (python/colocsim/results.py).
#include "policies/Policy.hpp"
#include "policies/PolicyRegistry.hpp"
#include "sim/Engine.hpp"
#include "sim/RunScenario.hpp"
#include "sim/Scenario.hpp"

#include "PolicyDocs.hpp" // generated from the headers' comments (python/gen_policy_docs.py)

#include <pybind11/functional.h>
#include <pybind11/iostream.h>
#include <pybind11/operators.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace py = pybind11;
using namespace colocsim;

namespace {

/// Where a Python exception came from and what it says: the innermost frame of its traceback (file, line)
/// and the traceback's last line ("ZeroDivisionError: division by zero").
struct PythonErrorText {
  SourceLocation where;
  std::string last_line;
};

PythonErrorText describe_python_error(py::error_already_set& e)
{
  PythonErrorText t;
  try {
    auto traceback = py::module_::import("traceback");
    py::list lines = traceback.attr("format_exception_only")(e.type(), e.value());
    if (!lines.empty()) {
      std::string last = py::str(lines[py::len(lines) - 1]);
      while (!last.empty() && (last.back() == '\n' || last.back() == ' '))
        last.pop_back();
      t.last_line = last;
    }
    py::object tb = e.trace();
    while (!tb.is_none() && !tb.attr("tb_next").is_none())
      tb = tb.attr("tb_next");
    if (e.matches(PyExc_SyntaxError) && !py::getattr(e.value(), "filename", py::none()).is_none()) {
      // Raised by the compiler, not by a frame: the traceback ends in importlib; the error names the file.
      t.where.file = py::str(e.value().attr("filename"));
      const py::object line = e.value().attr("lineno");
      if (!line.is_none()) t.where.line = line.cast<int>();
    } else if (!tb.is_none()) {
      t.where.file = py::str(tb.attr("tb_frame").attr("f_code").attr("co_filename"));
      t.where.line = tb.attr("tb_lineno").cast<int>();
    }
  } catch (const std::exception&) {
    t.last_line = e.what();
  }
  if (t.where.file.empty()) t.where.file = "python policy";
  return t;
}

std::string type_name(py::handle o)
{
  return py::str(py::type::handle_of(o).attr("__name__"));
}

std::string class_name(py::handle self)
{
  return py::str(py::type::handle_of(self).attr("__qualname__"));
}

/// "<place job 3 on devices [1, 2]>": describe() of policies/Policy.hpp.
template <class D> std::string repr_of(const D& d)
{
  std::string s = "<"; // not "<" + describe(..): GCC 12's -Wrestrict false positive on it
  s += describe(Decision{d});
  s += '>';
  return s;
}

/// The view a Python policy's decide() receives (colocsim.ClusterView): the engine's ClusterView for the
/// length of that call only. A policy may keep the object past the call (in an attribute, after
/// colocsim.run() returns, when the engine is gone): then every method raises RuntimeError instead of reading
/// freed memory. Every device index is checked (IndexError), as the engine's view does not check them all;
/// job indices the engine checks itself. What it returns are copies, which stay valid.
class PyView {
public:
  explicit PyView(const ClusterView& view) : view_(&view) {}
  void invalidate() { view_ = nullptr; }
  const ClusterView& get() const
  {
    if (!view_)
      throw std::runtime_error(
          "this ClusterView was passed to an earlier decide() call and is no longer valid: a view is valid "
          "only during the decide() call it is passed to; keep the values you need from it, not the view");
    return *view_;
  }
  /// The view, once `d` is known to be one of its devices.
  const ClusterView& with_device(DeviceIndex d) const
  {
    const ClusterView& v = get();
    if (d >= v.device_count())
      throw py::index_error("device " + std::to_string(d) + " does not exist (" +
                            std::to_string(v.device_count()) + " devices: 0 to device_count() - 1)");
    return v;
  }

private:
  const ClusterView* view_;
};

/// Ctrl-C and SIGTERM while Python code decides (python/README.md, "Stopping a run"). The run's handler
/// (InterruptGuard of the command line or of colocsim.run) only sets a flag the engine reads between events,
/// which a decide() that sleeps or loops never returns to. While Python runs, ForwardSignals puts
/// forward_signal in front of it: it records the signal, passes it on to the run's handler and makes
/// Python raise KeyboardInterrupt at its next check (PyErr_SetInterrupt: async-signal-safe), which ends a
/// sleep or a loop; decide() then throws RunInterrupted. Python must have a SIGINT handler of its own for
/// that (PythonSigint, while the policy lives).
volatile std::sig_atomic_t python_signal = 0; ///< the signal that came while Python decided; 0: none
struct sigaction outer_int {
}, outer_term{}; ///< the run's handlers, in force outside decide()

extern "C" void forward_signal(int sig)
{
  python_signal = sig;
  PyErr_SetInterrupt();
  const struct sigaction& outer = sig == SIGINT ? outer_int : outer_term;
  if (outer.sa_handler == SIG_IGN) return;
  if (outer.sa_handler == SIG_DFL) { // no run's handler: the default action, as without this one
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  } else if ((outer.sa_flags & SA_SIGINFO) != 0) {
    outer.sa_sigaction(sig, nullptr, nullptr);
  } else {
    outer.sa_handler(sig);
  }
}

/// forward_signal in force for SIGINT and SIGTERM while it lives.
class ForwardSignals {
public:
  ForwardSignals()
  {
    struct sigaction sa {};
    sa.sa_handler = forward_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &outer_int);
    sigaction(SIGTERM, &sa, &outer_term);
  }
  ~ForwardSignals()
  {
    sigaction(SIGINT, &outer_int, nullptr);
    sigaction(SIGTERM, &outer_term, nullptr);
  }
  ForwardSignals(const ForwardSignals&) = delete;
  ForwardSignals& operator=(const ForwardSignals&) = delete;
};

/// Python's own SIGINT handler is signal.default_int_handler (it raises KeyboardInterrupt) while it lives,
/// the handler the operating system calls staying the run's: the command line's embedded interpreter
/// installs none, and a notebook's may be the user's. Only the main thread can set one: elsewhere nothing
/// changes, and a decide() that blocks cannot be stopped (python/README.md).
class PythonSigint {
public:
  PythonSigint()
  {
    try {
      auto threading = py::module_::import("threading");
      if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return;
      auto signal = py::module_::import("signal");
      struct sigaction os {};
      sigaction(SIGINT, nullptr, &os);
      old_ = signal.attr("getsignal")(SIGINT);
      signal.attr("signal")(SIGINT, signal.attr("default_int_handler"));
      sigaction(SIGINT, &os, nullptr);
      set_ = true;
    } catch (py::error_already_set&) {
    }
  }
  ~PythonSigint()
  {
    if (!set_) return;
    try {
      auto signal = py::module_::import("signal");
      struct sigaction os {};
      sigaction(SIGINT, nullptr, &os);
      signal.attr("signal")(SIGINT, old_.is_none() ? signal.attr("SIG_DFL") : old_);
      sigaction(SIGINT, &os, nullptr);
    } catch (py::error_already_set&) {
    }
  }
  PythonSigint(const PythonSigint&) = delete;
  PythonSigint& operator=(const PythonSigint&) = delete;

private:
  py::object old_;
  bool set_ = false;
};

/// The run stopped by a signal while `cls`.decide ran at `view`'s time.
[[noreturn]] void throw_interrupted(const ClusterView& view, const std::string& cls)
{
  throw RunInterrupted(python_signal, "stopped at t=" + std::to_string(view.now()) +
                                          " s of simulated time, in " + cls + ".decide");
}

/// The C++ side of colocsim.Policy: decide() calls the Python subclass's decide(view, events) and converts
/// what it returns to decisions. A Python exception, a missing decide or a result that is not a list of
/// decisions becomes an InputError naming the class, the file and line and the traceback's last line (exit 2
/// from the command line, colocsim.InputError in Python).
class PyPolicy : public Policy {
public:
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const Policy*>(this), "decide");
    py::handle self = py::cast(static_cast<Policy*>(this), py::return_value_policy::reference);
    const std::string cls = class_name(self);
    if (!f)
      throw InputError(SourceLocation{"python policy " + cls}, "policy-python",
                       cls + " defines no decide(self, view, events); expected a method returning a list of "
                             "decisions (colocsim.Place, colocsim.Reject, colocsim.WakeAt, ...)");
    py::object view_object = py::cast(PyView(view));
    struct Invalidate { // the view ends with this call, however it ends
      PyView& v;
      ~Invalidate() { v.invalidate(); }
    } invalidate{view_object.cast<PyView&>()};
    py::object result;
    try {
      py::list evs(events.size());
      for (std::size_t i = 0; i < events.size(); ++i)
        evs[i] = py::cast(events[i]);
      const ForwardSignals forward;
      result = f(view_object, evs);
      // A signal Python has not acted on yet (it came as decide returned) raises here, not in later code.
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    } catch (py::error_already_set& e) {
      if (python_signal != 0) throw_interrupted(view, cls);
      const auto t = describe_python_error(e);
      throw InputError(t.where, "policy-python", cls + ".decide raised " + t.last_line);
    }
    if (python_signal != 0) throw_interrupted(view, cls); // decide caught the KeyboardInterrupt itself
    std::vector<Decision> out;
    if (result.is_none()) return out;
    if (!py::isinstance<py::list>(result) && !py::isinstance<py::tuple>(result))
      throw InputError(
          SourceLocation{"python policy " + cls}, "policy-python",
          cls + ".decide returned a " + type_name(result) +
              "; expected a list of decisions (colocsim.Place, colocsim.Reject, colocsim.WakeAt, "
              "colocsim.SetFrequency, colocsim.Repartition, colocsim.SetNodePower, "
              "colocsim.ReconfigureMig)");
    const auto seq = py::reinterpret_borrow<py::sequence>(result);
    out.reserve(seq.size());
    for (std::size_t i = 0; i < seq.size(); ++i) {
      py::object item = seq[i];
      try {
        out.push_back(item.cast<Decision>());
      } catch (const py::cast_error&) {
        throw InputError(SourceLocation{"python policy " + cls}, "policy-python",
                         cls + ".decide returned a list whose element " + std::to_string(i) + " is a " +
                             type_name(item) +
                             "; expected a decision (colocsim.Place, colocsim.Reject, colocsim.WakeAt, "
                             "colocsim.SetFrequency, colocsim.Repartition, colocsim.SetNodePower, "
                             "colocsim.ReconfigureMig)");
      }
    }
    return out;
  }
};

/// What the engine owns for a Python policy: the Python object (kept alive) and its C++ base.
class PythonPolicyHandle final : public Policy {
public:
  explicit PythonPolicyHandle(py::object obj) : obj_(std::move(obj)), impl_(obj_.cast<Policy*>())
  {
    python_signal = 0;
  }
  ~PythonPolicyHandle() override
  {
    py::gil_scoped_acquire gil;
    sigint_.reset();
    obj_ = py::object();
  }
  std::vector<Decision> decide(const ClusterView& view, std::span<const Event> events) override
  {
    return impl_->decide(view, events);
  }

private:
  py::object obj_;
  Policy* impl_;
  std::optional<PythonSigint> sigint_{std::in_place}; ///< made and reset with the GIL held
};

/// A Policy object from FILE.py:Class, through the package's loader (colocsim._load_policy). Python errors
/// become InputError at the file.
std::unique_ptr<Policy> load_python_policy(const std::string& file, const std::string& cls)
{
  py::gil_scoped_acquire gil;
  try {
    py::object obj = py::module_::import("colocsim").attr("_load_policy")(file, cls);
    return std::make_unique<PythonPolicyHandle>(std::move(obj));
  } catch (py::error_already_set& e) {
    const auto t = describe_python_error(e);
    // An error in the policy file itself (a SyntaxError, an exception while importing it or in the class's
    // constructor) is reported at its line there; one elsewhere at the file, saying where it was raised.
    std::error_code ec1, ec2;
    if (t.where.line > 0 &&
        std::filesystem::weakly_canonical(t.where.file, ec1) ==
            std::filesystem::weakly_canonical(file, ec2) &&
        !ec1 && !ec2)
      throw InputError(t.where, "policy-python",
                       "cannot make a policy of " + file + ":" + cls + ": " + t.last_line);
    throw InputError(SourceLocation{file}, "policy-python",
                     "cannot make a policy of " + file + ":" + cls + ": " + t.last_line + " (at " +
                         t.where.to_string() + ")");
  }
}

/// The policy object colocsim.run(policy=obj) hands to the engine (null: load from the parameters).
py::object* current_policy_object = nullptr;

std::vector<ParamSpec> python_policy_params()
{
  return {ParamSpec{.name = "file",
                    .type = ParamType::STRING,
                    .default_text = "",
                    .help = "the Python file that defines the policy class"},
          ParamSpec{.name = "class",
                    .type = ParamType::STRING,
                    .help = "the class (a subclass of colocsim.Policy), constructed without arguments",
                    .required = true}};
}

/// Registers the policy `python` in this process, once.
void register_python_policy()
{
  for (const auto& p : policy_registry())
    if (p.name == "python") return;
  static const std::vector<ParamSpec> params = python_policy_params();
  register_policies(
      {PolicyInfo{"python", "a policy written in Python: a subclass of colocsim.Policy (python/README.md)",
                  "the user's Python class", params,
                  [](const ParamSet& p) -> std::unique_ptr<Policy> {
                    if (current_policy_object) {
                      py::gil_scoped_acquire gil;
                      return std::make_unique<PythonPolicyHandle>(*current_policy_object);
                    }
                    return load_python_policy(p.text("file"), p.text("class"));
                  },
                  "whatever the Python class decides"}});
}

/// While it lives, what a run writes to C's stderr (the progress lines of sim/Engine.cpp) and to std::cerr
/// (warnings) goes to Python's sys.stderr rather than to file descriptor 2: a notebook replaces sys.stderr,
/// not the descriptor, so the cell shows them. glibc lets a program assign `stderr`.
class StderrToPython {
public:
  StderrToPython()
  {
    cookie_io_functions_t io{};
    io.write = &write;
    file_ = ::fopencookie(nullptr, "w", io);
    if (file_ == nullptr) return; // out of memory: the descriptor, as before
    std::setvbuf(file_, nullptr, _IOLBF, BUFSIZ);
    saved_ = stderr;
    stderr = file_;
  }
  ~StderrToPython()
  {
    if (file_ == nullptr) return;
    stderr = saved_;
    std::fclose(file_); // flushes
  }
  StderrToPython(const StderrToPython&) = delete;
  StderrToPython& operator=(const StderrToPython&) = delete;

private:
  static ssize_t write(void*, const char* buf, std::size_t size)
  {
    py::gil_scoped_acquire gil;
    try {
      py::object err = py::module_::import("sys").attr("stderr");
      if (!err.is_none()) {
        err.attr("write")(py::reinterpret_steal<py::str>(
            PyUnicode_DecodeUTF8(buf, static_cast<Py_ssize_t>(size), "replace")));
        err.attr("flush")();
      }
    } catch (py::error_already_set&) { // a closed sys.stderr: the text is lost, the run goes on
    }
    return static_cast<ssize_t>(size);
  }
  std::FILE* file_ = nullptr;
  std::FILE* saved_ = nullptr;
  py::scoped_estream_redirect cerr_; // std::cerr → sys.stderr
};

/// colocsim.run's engine: `colocsim run [SCENARIO] --set ... --policy P -o OUT [--force]`, in this process.
/// The consent to run code a scenario names (its plugins, a policy `python`'s file) is this call's
/// allow_plugins, as --allow-plugins is one command's: the policy `python` is registered for every call, so
/// that what a call may run never depends on what earlier calls of the process ran.
py::dict run(const std::optional<std::string>& scenario_file, const std::vector<std::string>& sets,
             const std::string& policy, py::object policy_object, const std::string& out, bool force,
             bool quiet, bool allow_plugins)
{
  std::vector<std::string> all_sets = sets;
  py::object keep = policy_object;
  register_python_policy();
  if (!policy_object.is_none()) {
    if (!py::isinstance<Policy>(policy_object))
      throw py::type_error("policy must be a policy name (str) or a colocsim.Policy object, not a " +
                           type_name(policy_object));
    py::handle type = py::type::handle_of(policy_object);
    all_sets.push_back("policy=python");
    all_sets.push_back("policy.params.class=" + std::string(py::str(type.attr("__module__"))) + "." +
                       std::string(py::str(type.attr("__qualname__"))));
  }
  struct Restore {
    ~Restore() { current_policy_object = nullptr; }
  } restore;
  current_policy_object = policy_object.is_none() ? nullptr : &keep;

  Scenario scenario = load_scenario(
      scenario_file.value_or(DEFAULT_SCENARIO), all_sets, policy_object.is_none() ? policy : std::string(),
      PluginConsent{.allow_all = allow_plugins, .command_line = {}, .load = true});
  scenario.set_on_command_line = assignment_keys(sets); // as typed: relative to the current directory
  scenario.outputs.dir = out;
  scenario.outputs.force = force;
  RunOptions options;
  progress_from_environment(options, quiet);
  options.on_message = [](const RunMessage& m) { std::cerr << message_line(m) << "\n"; };
  RunResult result;
  {
    StderrToPython progress; // progress and warnings reach a notebook's cell
    result = run_scenario(scenario, options);
  }
  if (!quiet) {
    std::ostringstream printed;
    print_run_result(result, scenario, printed);
    py::print(printed.str(), py::arg("end") = "");
  }
  py::dict d;
  d["dir"] = scenario.outputs.dir.string();
  return d;
}

} // namespace

PYBIND11_MODULE(_core, m)
{
  m.doc() = "colocsim's simulator and policy API (python/README.md); use the package colocsim";
  m.attr("__version__") = COLOCSIM_VERSION;
  m.attr("_executable") = COLOCSIM_EXECUTABLE; // the build tree's colocsim (colocsim.sweep() runs it)

  static py::exception<InputError> input_error(m, "InputError", PyExc_ValueError);
  static py::exception<DecisionError> decision_error(m, "DecisionError", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input_error(e.what());
    } catch (const DecisionError& e) {
      decision_error(e.what());
    } catch (const RunInterrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });

  py::enum_<SharingMode>(m, "SharingMode")
      .value("EXCLUSIVE", SharingMode::EXCLUSIVE)
      .value("TIME_SLICE", SharingMode::TIME_SLICE)
      .value("CCS_2", SharingMode::CCS_2)
      .value("CCS_4", SharingMode::CCS_4)
      .value("MPS", SharingMode::MPS)
      .value("MIG", SharingMode::MIG);
  m.def("max_residents", &max_residents, py::arg("mode"),
        "most jobs a sharing mode lets share one device (0: no limit of its own; models/DeviceSpec.hpp)");
  py::enum_<JobClass>(m, "JobClass")
      .value("C", JobClass::C)
      .value("X", JobClass::X)
      .value("M", JobClass::M)
      .value("MS", JobClass::MS)
      .value("L", JobClass::L);

  py::class_<Job>(m, "Job", "a job as the trace gave it (models/Job.hpp); read-only")
      .def_readonly("id", &Job::id)
      .def_readonly("submit_s", &Job::submit_s)
      .def_readonly("duration_s", &Job::duration_s, policy_docs::Job_duration_s)
      .def_readonly("devices", &Job::devices, policy_docs::Job_devices)
      .def_readonly("gpu_milli", &Job::gpu_milli, policy_docs::Job_gpu_milli)
      .def_readonly("mem_request_bytes", &Job::mem_request_bytes, policy_docs::Job_mem_request_bytes)
      .def_readonly("profile", &Job::profile, policy_docs::Job_profile)
      .def_readonly("qos", &Job::qos, policy_docs::Job_qos)
      .def_readonly("gpu_types", &Job::gpu_types, policy_docs::Job_gpu_types)
      .def_readonly("depends_on", &Job::depends_on, policy_docs::Job_depends_on)
      .def_readonly("think_time_s", &Job::think_time_s, policy_docs::Job_think_time_s)
      .def_readonly("user", &Job::user, policy_docs::Job_user)
      .def_readonly("trace_status", &Job::trace_status, policy_docs::Job_trace_status)
      .def_readonly("cpus", &Job::cpus, policy_docs::Job_cpus)
      .def_readonly("host_mem_bytes", &Job::host_mem_bytes, policy_docs::Job_host_mem_bytes)
      .def_readonly("trace_class", &Job::trace_class, policy_docs::Job_trace_class)
      .def_readonly("requested_s", &Job::requested_s, policy_docs::Job_requested_s)
      .def_readonly("batch_size", &Job::batch_size, policy_docs::Job_batch_size);

  py::class_<ResourceSignature>(m, "ResourceSignature", "a job's behaviour from its profile; read-only")
      .def_readonly("job_class", &ResourceSignature::job_class)
      .def_readonly("duty_cycle", &ResourceSignature::duty_cycle, policy_docs::ResourceSignature_duty_cycle)
      .def_readonly("vec_util", &ResourceSignature::vec_util, policy_docs::ResourceSignature_vec_util)
      .def_readonly("xmx_util", &ResourceSignature::xmx_util, policy_docs::ResourceSignature_xmx_util)
      .def_readonly("bw_util", &ResourceSignature::bw_util, policy_docs::ResourceSignature_bw_util)
      .def_readonly("mem_bytes", &ResourceSignature::mem_bytes, policy_docs::ResourceSignature_mem_bytes)
      .def_readonly("freq_sensitive", &ResourceSignature::freq_sensitive,
                    policy_docs::ResourceSignature_freq_sensitive)
      .def_readonly("compute_share", &ResourceSignature::compute_share,
                    policy_docs::ResourceSignature_compute_share)
      .def_readonly("scaling_serial", &ResourceSignature::scaling_serial,
                    policy_docs::ResourceSignature_scaling_serial)
      .def_readonly("scaling_exponent", &ResourceSignature::scaling_exponent,
                    policy_docs::ResourceSignature_scaling_exponent)
      .def_readonly("mig_speed", &ResourceSignature::mig_speed, policy_docs::ResourceSignature_mig_speed)
      .def("scaling_efficiency", &ResourceSignature::scaling_efficiency, py::arg("n"));

  py::class_<DeviceView>(m, "DeviceView", policy_docs::DeviceView)
      .def_readonly("index", &DeviceView::index)
      .def_readonly("node", &DeviceView::node)
      .def_readonly("card", &DeviceView::card, policy_docs::DeviceView_card)
      .def_readonly("mode", &DeviceView::mode)
      .def_readonly("memory_bytes", &DeviceView::memory_bytes, policy_docs::DeviceView_memory_bytes)
      .def_readonly("residents", &DeviceView::residents, policy_docs::DeviceView_residents)
      .def_readonly("power_w", &DeviceView::power_w, policy_docs::DeviceView_power_w)
      .def_readonly("freq_hz", &DeviceView::freq_hz, policy_docs::DeviceView_freq_hz)
      .def_readonly("available", &DeviceView::available, policy_docs::DeviceView_available)
      .def_readonly("freq_min_hz", &DeviceView::freq_min_hz, policy_docs::DeviceView_freq_min_hz)
      .def_readonly("freq_max_hz", &DeviceView::freq_max_hz)
      .def_readonly("type", &DeviceView::type, policy_docs::DeviceView_type)
      .def_readonly("speed", &DeviceView::speed, policy_docs::DeviceView_speed)
      .def_readonly("version", &DeviceView::version, policy_docs::DeviceView_version);

  py::class_<MigInstance>(m, "MigInstance", policy_docs::MigInstance)
      .def(py::init<std::size_t, unsigned>(), py::arg("profile"), py::arg("start"))
      .def_readwrite("profile", &MigInstance::profile)
      .def_readwrite("start", &MigInstance::start)
      .def(py::self == py::self);
  py::class_<MigChange>(m, "MigChange", policy_docs::MigChange)
      .def(py::init([](std::vector<std::size_t> destroy, std::vector<MigInstance> create) {
             return MigChange{std::move(destroy), std::move(create)};
           }),
           py::arg("destroy") = std::vector<std::size_t>{}, py::arg("create") = std::vector<MigInstance>{})
      .def_readwrite("destroy", &MigChange::destroy)
      .def_readwrite("create", &MigChange::create);
  py::class_<MigProfile>(m, "MigProfile", policy_docs::MigProfile)
      .def_readonly("name", &MigProfile::name)
      .def_readonly("id", &MigProfile::id)
      .def_readonly("compute_slices", &MigProfile::compute_slices)
      .def_readonly("memory_slices", &MigProfile::memory_slices, policy_docs::MigProfile_memory_slices)
      .def_readonly("sms", &MigProfile::sms)
      .def_readonly("max_instances", &MigProfile::max_instances)
      .def_readonly("memory_bytes", &MigProfile::memory_bytes)
      .def_readonly("starts", &MigProfile::starts, policy_docs::MigProfile_starts);
  py::class_<MigGeometry>(m, "MigGeometry", "a GPU's MIG geometry (models/Mig.hpp)")
      .def_property_readonly("name", &MigGeometry::name)
      .def_property_readonly("compute_slices", &MigGeometry::compute_slices)
      .def_property_readonly("memory_slices", &MigGeometry::memory_slices)
      .def_property_readonly("max_gpu_instances", &MigGeometry::max_gpu_instances)
      .def_property_readonly("reconfiguration_latency_s", &MigGeometry::reconfiguration_latency_s)
      .def_property_readonly("profiles", &MigGeometry::profiles)
      .def("profile_index", &MigGeometry::profile_index, py::arg("name"))
      .def("lowest_start", &MigGeometry::lowest_start, py::arg("current"), py::arg("profile"));
  py::class_<MigSlot>(m, "MigSlot", policy_docs::MigSlot)
      .def_readonly("gi", &MigSlot::gi, policy_docs::MigSlot_gi)
      .def_readonly("job", &MigSlot::job, policy_docs::MigSlot_job)
      .def_readonly("ready", &MigSlot::ready, policy_docs::MigSlot_ready);

  py::class_<PlacementPrediction>(m, "PlacementPrediction", policy_docs::PlacementPrediction)
      .def_readonly("job_slowdown", &PlacementPrediction::job_slowdown,
                    policy_docs::PlacementPrediction_job_slowdown)
      .def_readonly("max_corunner_slowdown", &PlacementPrediction::max_corunner_slowdown,
                    policy_docs::PlacementPrediction_max_corunner_slowdown)
      .def_readonly("job_interference", &PlacementPrediction::job_interference,
                    policy_docs::PlacementPrediction_job_interference)
      .def_readonly("max_corunner_interference", &PlacementPrediction::max_corunner_interference,
                    policy_docs::PlacementPrediction_max_corunner_interference)
      .def_readonly("added_power_w", &PlacementPrediction::added_power_w,
                    policy_docs::PlacementPrediction_added_power_w)
      .def_readonly("job_rate", &PlacementPrediction::job_rate, policy_docs::PlacementPrediction_job_rate)
      .def_readonly("fits_memory", &PlacementPrediction::fits_memory,
                    policy_docs::PlacementPrediction_fits_memory);

  // The view is valid only during the decide() call it is passed to (PyView: a stale one raises
  // RuntimeError); what its methods return are copies.
  py::class_<PyView>(m, "ClusterView", policy_docs::ClusterView)
      .def(
          "now", [](const PyView& v) { return v.get().now(); },
          "The simulated time of this decide() call, in seconds.")
      .def(
          "device_count", [](const PyView& v) { return v.get().device_count(); },
          "The number of devices (tiles / GPUs) of the platform.")
      .def(
          "device", [](const PyView& v, DeviceIndex d) { return v.with_device(d).device(d); }, py::arg("d"),
          "Device d as it is now (a DeviceView, a copy).")
      .def(
          "job", [](const PyView& v, JobIndex j) { return Job(v.get().job(j)); }, py::arg("j"),
          "Job j (index in submission order) as the trace gave it (a Job, a copy).")
      .def(
          "residents",
          [](const PyView& v, DeviceIndex d) {
            const auto r = v.with_device(d).residents(d);
            return std::vector<JobIndex>(r.begin(), r.end());
          },
          py::arg("d"), policy_docs::ClusterView_residents)
      .def(
          "signature", [](const PyView& v, JobIndex j) { return ResourceSignature(v.get().signature(j)); },
          py::arg("j"), policy_docs::ClusterView_signature)
      .def(
          "predict",
          [](const PyView& v, JobIndex j, const std::vector<DeviceIndex>& devices,
             const std::vector<JobIndex>& also) {
            for (const DeviceIndex d : devices)
              v.with_device(d);
            return v.get().predict(j, devices, also);
          },
          py::arg("j"), py::arg("devices"), py::arg("also") = std::vector<JobIndex>{},
          policy_docs::ClusterView_predict)
      .def(
          "mig_geometry",
          [](const PyView& v, DeviceIndex d) -> std::optional<MigGeometry> {
            const MigGeometry* g = v.with_device(d).mig_geometry(d);
            if (!g) return std::nullopt;
            return *g;
          },
          py::arg("d"), policy_docs::ClusterView_mig_geometry)
      .def(
          "mig_instances", [](const PyView& v, DeviceIndex d) { return v.with_device(d).mig_instances(d); },
          py::arg("d"), policy_docs::ClusterView_mig_geometry)
      .def(
          "allows", [](const PyView& v, JobIndex j, DeviceIndex d) { return v.with_device(d).allows(j, d); },
          py::arg("j"), py::arg("d"), policy_docs::ClusterView_allows)
      .def(
          "estimate", [](const PyView& v, JobIndex j) { return v.get().estimate(j); }, py::arg("j"),
          policy_docs::ClusterView_estimate)
      .def(
          "time_limit", [](const PyView& v, JobIndex j) { return v.get().time_limit(j); }, py::arg("j"),
          policy_docs::ClusterView_time_limit)
      .def(
          "mig_slowdown_alone",
          [](const PyView& v, JobIndex j, DeviceIndex d, std::size_t profile) {
            (void)v.get().job(j); // the engine's view reads the job only for a device in mig mode
            return v.with_device(d).mig_slowdown_alone(j, d, profile);
          },
          py::arg("j"), py::arg("d"), py::arg("profile"), policy_docs::ClusterView_mig_slowdown_alone);

  // Events (engine → policy).
  py::class_<JobSubmitted>(m, "JobSubmitted")
      .def(py::init<JobIndex>(), py::arg("job"))
      .def_readonly("job", &JobSubmitted::job)
      .def("__repr__",
           [](const JobSubmitted& e) { return "JobSubmitted(job=" + std::to_string(e.job) + ")"; });
  py::class_<JobCompleted>(m, "JobCompleted")
      .def(py::init([](JobIndex j, std::vector<DeviceIndex> d) {
             return JobCompleted{j, std::move(d)};
           }),
           py::arg("job"), py::arg("devices"))
      .def_readonly("job", &JobCompleted::job)
      .def_readonly("devices", &JobCompleted::devices)
      .def("__repr__",
           [](const JobCompleted& e) { return "JobCompleted(job=" + std::to_string(e.job) + ")"; });
  py::class_<JobFailed>(m, "JobFailed", policy_docs::JobFailed)
      .def(py::init([](JobIndex j, std::vector<DeviceIndex> d, std::string reason, bool requeued) {
             return JobFailed{j, std::move(d), std::move(reason), requeued};
           }),
           py::arg("job"), py::arg("devices"), py::arg("reason") = "", py::arg("requeued") = false)
      .def_readonly("job", &JobFailed::job)
      .def_readonly("devices", &JobFailed::devices)
      .def_readonly("reason", &JobFailed::reason)
      .def_readonly("requeued", &JobFailed::requeued)
      .def("__repr__", [](const JobFailed& e) { return "JobFailed(job=" + std::to_string(e.job) + ")"; });
  py::class_<Wakeup>(m, "Wakeup", policy_docs::Wakeup)
      .def(py::init<double>(), py::arg("at_s"))
      .def_readonly("at_s", &Wakeup::at_s);
  py::class_<DeviceRepartitioned>(m, "DeviceRepartitioned", policy_docs::DeviceRepartitioned)
      .def(py::init<DeviceIndex, SharingMode>(), py::arg("device"), py::arg("mode"))
      .def_readonly("device", &DeviceRepartitioned::device)
      .def_readonly("mode", &DeviceRepartitioned::mode);
  py::class_<NodePowered>(m, "NodePowered", policy_docs::NodePowered)
      .def(py::init<std::uint32_t, bool>(), py::arg("node"), py::arg("on"))
      .def_readonly("node", &NodePowered::node)
      .def_readonly("on", &NodePowered::on);

  // Decisions (policy → engine); repr: describe() of policies/Policy.hpp.
  py::class_<Place>(m, "Place", policy_docs::Place)
      .def(py::init([](JobIndex j, std::vector<DeviceIndex> d, double share, std::vector<std::uint32_t> gis) {
             return Place{j, std::move(d), share, std::move(gis)};
           }),
           py::arg("job"), py::arg("devices"), py::arg("thread_share") = 1.0,
           py::arg("instances") = std::vector<std::uint32_t>{})
      .def_readwrite("job", &Place::job)
      .def_readwrite("devices", &Place::devices)
      .def_readwrite("thread_share", &Place::thread_share, policy_docs::Place_thread_share)
      .def_readwrite("instances", &Place::instances, policy_docs::Place_instances)
      .def("__repr__", &repr_of<Place>);
  py::class_<Reject>(m, "Reject", policy_docs::Reject)
      .def(py::init([](JobIndex j, std::string why) {
             return Reject{j, std::move(why)};
           }),
           py::arg("job"), py::arg("reason"))
      .def_readwrite("job", &Reject::job)
      .def_readwrite("reason", &Reject::reason)
      .def("__repr__", &repr_of<Reject>);
  py::class_<WakeAt>(m, "WakeAt", policy_docs::WakeAt)
      .def(py::init<double>(), py::arg("at_s"))
      .def_readwrite("at_s", &WakeAt::at_s)
      .def("__repr__", &repr_of<WakeAt>);
  py::class_<SetFrequency>(m, "SetFrequency", policy_docs::SetFrequency)
      .def(py::init<DeviceIndex, double>(), py::arg("device"), py::arg("freq_hz"))
      .def_readwrite("device", &SetFrequency::device)
      .def_readwrite("freq_hz", &SetFrequency::freq_hz)
      .def("__repr__", &repr_of<SetFrequency>);
  py::class_<Repartition>(m, "Repartition", policy_docs::Repartition)
      .def(py::init<DeviceIndex, SharingMode>(), py::arg("device"), py::arg("mode"))
      .def_readwrite("device", &Repartition::device)
      .def_readwrite("mode", &Repartition::mode)
      .def("__repr__", &repr_of<Repartition>);
  py::class_<SetNodePower>(m, "SetNodePower", policy_docs::SetNodePower)
      .def(py::init<std::uint32_t, bool>(), py::arg("node"), py::arg("on"))
      .def_readwrite("node", &SetNodePower::node)
      .def_readwrite("on", &SetNodePower::on)
      .def("__repr__", &repr_of<SetNodePower>);
  py::class_<ReconfigureMig>(m, "ReconfigureMig", policy_docs::ReconfigureMig)
      .def(py::init([](DeviceIndex d, MigChange c) {
             return ReconfigureMig{d, std::move(c)};
           }),
           py::arg("device"), py::arg("change"))
      .def_readwrite("device", &ReconfigureMig::device)
      .def_readwrite("change", &ReconfigureMig::change)
      .def("__repr__", &repr_of<ReconfigureMig>);

  static const std::string policy_doc =
      std::string(
          "Base class of policies written in Python: implement decide(self, view, events) returning a "
          "list of decisions.\n\nFrom policies/Policy.hpp:\n") +
      policy_docs::Policy_hpp;
  py::class_<Policy, PyPolicy>(m, "Policy", policy_doc.c_str())
      .def(py::init<>())
      .def(
          "decide",
          [](Policy&, const ClusterView&, py::list) -> py::list {
            throw py::type_error(
                "colocsim.Policy.decide is abstract: define decide(self, view, events) in the "
                "subclass");
          },
          "decide(self, view, events) -> list of decisions: called once per simulated instant at which "
          "something "
          "happened, with the view (valid during the call only) and the events since the last call (the "
          "order "
          "is in help(colocsim.Policy)).");

  m.def("run", &run, py::arg("scenario"), py::arg("sets"), py::arg("policy"), py::arg("policy_object"),
        py::arg("out"), py::arg("force"), py::arg("quiet"), py::arg("allow_plugins"));
  m.def(
      "_policy_for_plugin",
      [](const std::string& file, const std::string& cls) {
        // For the bridge (python/Bridge.cpp): a heap Policy whose ownership passes to the caller.
        return py::capsule(load_python_policy(file, cls).release(), "colocsim.Policy");
      },
      py::arg("file"), py::arg("cls"));
}
