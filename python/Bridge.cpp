// The Python bridge (python/README.md): a policy plugin (policies/PluginApi.hpp) that `colocsim run
// --policy-python FILE.py:Class` loads. It registers the policy `python` (parameters `file` and `class`),
// whose factory starts an embedded interpreter on first use, imports the package colocsim from the folder
// this library lies in, and asks it for the class's object (colocsim._core._policy_for_plugin). So the
// colocsim executable links no libpython; only this library does, and only runs that ask for it load it.
#define COLOCSIM_PLUGIN_NAME "colocsim Python bridge"
#include "policies/PluginApi.hpp"

#include <pybind11/embed.h>

#include <dlfcn.h>

#include <filesystem>

namespace py = pybind11;

namespace {

/// This library's own folder (the package folder colocsim/), from the address of one of its functions.
std::filesystem::path own_folder()
{
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&own_folder), &info) == 0 || !info.dli_fname) return {};
  return std::filesystem::path(info.dli_fname).parent_path();
}

/// Starts the interpreter once (no Python signal handlers: Ctrl-C stays the command line's) with the
/// package's parent folder first on sys.path.
void ensure_interpreter()
{
  if (Py_IsInitialized()) return;
  // The plugin loader opens this library with RTLD_LOCAL, so libpython's symbols would stay invisible to the
  // extension modules Python imports (colocsim._core, numpy, ...), which expect them global: promote it.
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&Py_IsInitialized), &info) != 0 && info.dli_fname)
    ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  py::initialize_interpreter(false);
  py::module_::import("sys").attr("path").attr("insert")(0, own_folder().parent_path().string());
  PyEval_SaveThread(); // the factory takes the GIL when it needs it (gil_scoped_acquire)
}

std::string last_line(py::error_already_set& e)
{
  try {
    py::list lines = py::module_::import("traceback").attr("format_exception_only")(e.type(), e.value());
    std::string s = py::str(lines[py::len(lines) - 1]);
    while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
      s.pop_back();
    return s;
  } catch (const std::exception&) {
    return e.what();
  }
}

std::unique_ptr<colocsim::Policy> make_policy(const colocsim::ParamSet& p)
{
  ensure_interpreter();
  py::gil_scoped_acquire gil;
  try {
    py::object capsule =
        py::module_::import("colocsim._core").attr("_policy_for_plugin")(p.text("file"), p.text("class"));
    auto* policy = static_cast<colocsim::Policy*>(PyCapsule_GetPointer(capsule.ptr(), "colocsim.Policy"));
    if (!policy) throw py::error_already_set();
    return std::unique_ptr<colocsim::Policy>(policy);
  } catch (py::error_already_set& e) {
    // colocsim.InputError's text is "WHERE: policy-python: what went wrong" already (WHERE: the file, or
    // FILE:LINE in it); others: the last line.
    std::string what = last_line(e);
    const std::string type = "colocsim._core.InputError: ", path = ": policy-python: ";
    colocsim::SourceLocation where{p.text("file")};
    const auto sep = what.find(path);
    if (what.rfind(type, 0) == 0 && sep != std::string::npos) {
      std::string file = what.substr(type.size(), sep - type.size());
      const auto colon = file.rfind(':');
      if (colon != std::string::npos && colon + 1 < file.size() && file.size() - colon <= 10 &&
          file.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
        where.line = std::stoi(file.substr(colon + 1));
        file.resize(colon);
      }
      where.file = file;
      what = what.substr(sep + path.size());
    } else
      what = "cannot load the Python policy " + p.text("class") + ": " + what;
    throw colocsim::InputError(where, "policy-python", what);
  }
}

const std::vector<colocsim::ParamSpec>& params()
{
  static const std::vector<colocsim::ParamSpec> specs = {
      colocsim::ParamSpec{.name = "file",
                          .type = colocsim::ParamType::STRING,
                          .default_text = "",
                          .help = "the Python file that defines the policy class"},
      colocsim::ParamSpec{.name = "class",
                          .type = colocsim::ParamType::STRING,
                          .help = "the class (a subclass of colocsim.Policy), constructed without arguments",
                          .required = true}};
  return specs;
}

} // namespace

COLOCSIM_POLICY_PLUGIN({"python",
                        "a policy written in Python: a subclass of colocsim.Policy (python/README.md)",
                        "the user's Python class", params(), &make_policy,
                        "whatever the Python class decides"})
