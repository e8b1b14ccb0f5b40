"""The CTest python/pytest: runs pytest over python/tests, or exits 77 (CTest: skipped) saying what is
missing. CMakeLists.txt sets PYTHONPATH to the build tree's package and COLOCSIM_BIN to the built colocsim."""
import os
import sys

SKIP = 77

missing = []
for module, package in (("pytest", "python3-pytest"), ("pandas", "python3-pandas")):
    try:
        __import__(module)
    except ImportError:
        missing.append(f"{module} (Debian package {package})")
if missing:
    print("python/pytest skipped: " + ", ".join(missing) + " not installed for " + sys.executable)
    sys.exit(SKIP)
try:
    import colocsim  # noqa: F401
except ImportError as e:
    print(f"python/pytest skipped: the module colocsim is not importable ({e}); PYTHONPATH={os.environ.get('PYTHONPATH')}")
    sys.exit(SKIP)

import pytest

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", os.path.dirname(os.path.abspath(__file__))] + sys.argv[1:]))
