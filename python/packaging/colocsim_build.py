"""The build backend of the Python package colocsim (PEP 517; pyproject.toml names it): what `pip install
PATH` runs. It builds with the project's own CMake (the targets colocsim_python: the module, the policy
bridge, the .py files, python/CMakeLists.txt; and colocsim: the command line), then zips the package folder
the build made and the executable into a wheel for the interpreter that runs it.

Standard library only (no setuptools, no wheel package, no network): any CPython 3 with pip can install
colocsim, in a virtualenv or not, needing only what the C++ build needs (cmake, a compiler, the -dev
packages of scripts/deps.txt, the interpreter's headers). python/README.md, "Installing with pip".

COLOCSIM_BUILD_DIR=DIR: use the CMake build directory DIR (configured already, e.g. build-test) instead of
build-pip/<interpreter>/ in the source tree; it must have been configured for a Python of the same ABI.
"""
import base64
import hashlib
import io
import os
import re
import stat
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "colocsim"
SUMMARY = "A discrete-event simulator of GPU sharing: runs, sweeps and co-location policies in Python"


class BuildError(Exception):
    """A build that cannot go on; pip prints the message."""


def _version():
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        m = re.search(r"project\(\s*colocsim\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not m:
        raise BuildError(f"{ROOT}/CMakeLists.txt: no `project(colocsim VERSION X.Y.Z ...)`; expected the version there")
    return m.group(1)


def _soabi():
    return sysconfig.get_config_var("SOABI") or f"cpython-{sys.version_info[0]}{sys.version_info[1]}"


def _tag():
    """The wheel's tag: cp311-cp311-linux_x86_64 (the module is built for this interpreter's ABI)."""
    py = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    parts = _soabi().split("-")  # cpython-311-x86_64-linux-gnu, cpython-37m-..., cpython-313t-...
    abi = "cp" + parts[1] if len(parts) > 1 and parts[0] == "cpython" else py
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{py}-{abi}-{plat}"


def _base_python():
    """The interpreter itself (a virtualenv's python is a link to it): CMake's Python3_EXECUTABLE."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _run(cmd, **kw):
    print("colocsim build: " + " ".join(cmd), file=sys.stderr, flush=True)
    try:
        return subprocess.run(cmd, check=True, **kw)
    except FileNotFoundError as e:
        raise BuildError(f"cannot run {cmd[0]} ({e}); expected CMake >= 3.25 on PATH (Debian: cmake)") from e
    except subprocess.CalledProcessError as e:
        raise BuildError(f"`{' '.join(cmd)}` failed with exit status {e.returncode} (its output is above)") from e


def _build():
    """Builds the package; returns (package folder of the build, the colocsim executable)."""
    given = os.environ.get("COLOCSIM_BUILD_DIR")
    python = _base_python()
    if given:
        build = os.path.abspath(given)
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            raise BuildError(f"COLOCSIM_BUILD_DIR={given}: no CMakeCache.txt; expected a configured CMake build directory")
    else:
        key = hashlib.sha256(python.encode()).hexdigest()[:8]
        build = os.path.join(ROOT, "build-pip", f"{_soabi()}-{key}")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            _run(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DCOLOCSIM_TESTS=OFF",
                  "-DCOLOCSIM_PYTHON=ON", f"-DPython3_EXECUTABLE={python}"])
    files_list = os.path.join(build, "python", "wheel-files.txt")
    if not os.path.isdir(os.path.join(build, "python")):
        raise BuildError(f"{build} is configured without the Python package (its configure summary, line "
                         "`Python package`, says why: pybind11-dev or the Python headers missing)")
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    _run(["cmake", "--build", build, "--target", "colocsim_python", "colocsim", "--parallel", jobs])
    with open(files_list, encoding="utf-8") as f:
        lines = dict(line.rstrip("\n").split("=", 1) for line in f if "=" in line)
    package, exe = lines["package"], lines["executable"]
    core = "_core" + sysconfig.get_config_var("EXT_SUFFIX")
    if not os.path.exists(os.path.join(package, core)):
        found = [n for n in os.listdir(package) if n.startswith("_core")]
        raise BuildError(f"{build} built the module for another Python ({', '.join(found) or 'none'}; this is "
                         f"{sys.version.split()[0]}, {python}: expected {core}); configure it with "
                         f"-DPython3_EXECUTABLE={python}, or leave COLOCSIM_BUILD_DIR unset")
    return package, exe, core


def _package_files(package, exe, core):
    """(name in the wheel, file, executable?) of every file of the package."""
    out = []
    for name in sorted(os.listdir(package)):
        if name.endswith(".py") or name in (core, "libcolocsim_pybridge.so"):
            out.append((f"{NAME}/{name}", os.path.join(package, name), False))
    out.append((f"{NAME}/bin/colocsim", exe, True))
    return out


def _metadata(version):
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {version}\n"
        f"Summary: {SUMMARY}\n"
        "License: Apache-2.0\n"
        "Requires-Python: >=3.9\n"
        "Provides-Extra: tables\n"
        'Requires-Dist: pandas; extra == "tables"\n'
    )


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _zip_add(z, name, data, executable=False):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


# ---- PEP 517 hooks ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    package, exe, core = _build()
    tag = _tag()
    dist_info = f"{NAME}-{version}.dist-info"
    entries = [(name, open(path, "rb").read(), x) for name, path, x in _package_files(package, exe, core)]
    entries += [
        (f"{dist_info}/METADATA", _metadata(version).encode(), False),
        (f"{dist_info}/WHEEL",
         f"Wheel-Version: 1.0\nGenerator: colocsim_build {version}\nRoot-Is-Purelib: false\nTag: {tag}\n".encode(), False),
        (f"{dist_info}/entry_points.txt", b"[console_scripts]\ncolocsim = colocsim.__main__:main\n", False),
    ]
    wheel = f"{NAME}-{version}-{tag}.whl"
    os.makedirs(wheel_directory, exist_ok=True)
    record = io.StringIO()
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w") as z:
        for name, data, executable in entries:
            _zip_add(z, name, data, executable)
            record.write(f"{name},{_record_hash(data)},{len(data)}\n")
        record.write(f"{dist_info}/RECORD,,\n")
        _zip_add(z, f"{dist_info}/RECORD", record.getvalue().encode())
    return wheel


def build_sdist(sdist_directory, config_settings=None):
    """The files git tracks, as colocsim-VERSION.tar.gz (a source tree pip can build the same way)."""
    version = _version()
    try:
        tracked = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise BuildError(f"an sdist lists the files git tracks; `git ls-files` failed in {ROOT} ({e})") from e
    base = f"{NAME}-{version}"
    name = f"{base}.tar.gz"
    os.makedirs(sdist_directory, exist_ok=True)
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel in sorted(p for p in tracked.decode().split("\0") if p):
            path = os.path.join(ROOT, rel)
            if os.path.isfile(path):
                t.add(path, arcname=f"{base}/{rel}", recursive=False)
        data = _metadata(version).encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return name
