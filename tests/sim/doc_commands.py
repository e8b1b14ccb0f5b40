"""The CTests `docs/commands: DOC`: every shell command that a document shows a reader runs as written, and
the numbers the document shows for it are what it gives.

    python3 doc_commands.py --source SRC --build BUILD [--python ON|OFF] DOC

DOC is a page relative to the repository root (README.md, python/README.md, a lab's handout
experiments/labs/*/README.md, experiments/notebooks/README.md) or the notebook
experiments/notebooks/policy-comparison.ipynb. The commands are read from the page at each run, so a command
added to a page is tested without changing this file:

* the lines of its ```sh (```bash) blocks, a block run by one bash, as the reader's terminal runs them
  (variables set on one line hold on the next); a command spans lines ending in `\\` and until bash can parse
  it (`for ... done`); comment lines right after a command, starting at column 0 (`# 12881.23576`), show
  its output;
* the `$ ` lines of its ```console blocks, each followed by the output it shows;
* in the notebook, its documented line: an inline `jupyter nbconvert ...` in a markdown cell.

Where they run: a scratch folder BUILD/docs-commands/NAME standing for the reader's repository root: a
symbolic link to each top-level entry of the repository (the files `git ls-files` lists, so a reader's own
outputs are not there), and `build` and `build-test` both links to BUILD, the build tree of this test suite:
it holds everything the pages' prerequisites build (scripts/run-default.sh builds colocsim and the Python
package in build/, scripts/test.sh everything in build-test/). Outputs the commands write go to the scratch
folder, never into the repository. The environment is the one CTest was started with (the reader's PATH:
here perhaps a python3 that is not Debian's), less every COLOCSIM_* variable and PYTHONPATH, plus
PYTHONDONTWRITEBYTECODE=1 (no __pycache__ in the repository; it changes no output). bash runs with pipefail
so that a failing colocsim before `| grep` fails its command.

Compared: each output line the page shows must be a line of the command's output (in order), with the same
words and each number within the rounding shown (2.81 within ± 0.005; a line the page ends with ` …`: its
start); a command must exit with status 0.
Numbers in the page's prose are checked where marked as in the labs' ANSWERS.md
(experiments/labs/README.md): `<!--= RUN:FIELD -->2.81` before a number, RUN an output folder that a command
of the page wrote (relative to the repository root: `out-ia`), FIELD a number of its summary.json or
`JOB.COLUMN` of its jobs.csv; `A / B`, `A - B` and `|h`, `|kWh`, `|pct` (100 × (ratio − 1)) as there.
Figures a page shows are checked where marked: `<!--= figure OUT -->` right before `![caption](FILE)`, OUT a
file that a command of the page wrote (relative to the repository root: `advise-itp/front.svg`), FILE the
committed image (relative to the page): the two must have the same text, each number within 0.02 or 0.1 %
(rounding of the last digit; a changed model or chart moves far more), so the picture cannot go stale.

Commands that cannot run in a test are listed in NOT_RUN below with the reason (they are printed, and each
entry must still match a command of its page); commands that need a part this build lacks (the Python
package, Jupyter) are printed as not run with the reason. Exit status 0: all ran and matched; 1: a
mismatch or a failed command (each printed)."""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys

# (page, the start of the command, why it does not run here). Every entry must match a command of its page.
NOT_RUN = [
    ("README.md", "scripts/run-default.sh", "installs Debian packages and builds build/: the prerequisite itself"
     " (what it builds is checked instead: the CTest `docs/commands: run-default.sh builds what the pages need`)"),
    ("README.md", "scripts/test.sh", "installs packages, builds build-test/ and runs this whole suite"),
    ("README.md", "cmake --preset dev", "a Debug ASan build of its own and its whole suite (tens of minutes)"),
    ("README.md", "cmake --preset release", "a full Release build of its own in build/ (minutes)"),
    ("README.md", "python3 -m venv v && v/bin/pip install", "a from-scratch build of the whole simulator by pip"
     " (about 11 min of CPU): the CTest `python/pip-install` runs the same install into a virtualenv, taking"
     " the test build's module"),
    ("python/README.md", "cmake --install build-test --prefix /usr/local", "writes system folders (/usr/local)"),
    ("python/README.md", "python3 -c", "needs the package installed in /usr/local by the command before"),
    ("python/README.md", "v/bin/pip install --no-build-isolation PATH/TO/colocsim", "a path to fill in, and a"
     " from-scratch build of the whole simulator (about 11 min of CPU): the CTest `python/pip-install` runs the"
     " same install, taking the test build's module"),
    ("python/README.md", "v/bin/python -c", "needs the package pip installed into v/ by the command before"
     " (python/pip-install runs it)"),
    ("python/README.md", "v/bin/colocsim run --policy-python", "needs the package pip installed into v/"
     " (python/pip-install runs it)"),
]
RUN_TIMEOUT_S = 300
MARKER = "@@doc-command-end"


class Command:
    def __init__(self, text, line, expected=None, why_not=None):
        self.text = text  # as the page writes it (lines joined by newlines)
        self.line = line  # its first line in the page
        self.expected = expected or []  # output lines the page shows
        self.why_not = why_not  # the reason it does not run, or None
        self.output = ""
        self.status = None


def parses(text):
    """True when bash can parse `text` as complete commands (no open quote, loop or continuation)."""
    if text.rstrip().endswith("\\"):
        return False
    return subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True).returncode == 0


def fenced_blocks(text):
    """(info string, first line number of the body, body lines) of each fenced code block of a markdown text,
    indented ones (in list items) included, the indentation of the fence removed from the body."""
    blocks = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^( *)```(\S*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, info = len(m.group(1)), m.group(2)
        body, j = [], i + 1
        while j < len(lines) and not re.match(r"^ *```\s*$", lines[j]):
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        blocks.append((info, i + 2, body))
        i = j + 1
    return blocks


def sh_commands(first_line, body):
    """The commands of a ```sh block, each with the output comment lines that follow it."""
    commands, pending, start = [], [], None
    for k, line in enumerate(body):
        if not pending and commands and line.startswith("# "):
            commands[-1].expected.append(line[2:])
            continue
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if not pending:
            start = first_line + k
        pending.append(line)
        if parses("\n".join(pending)):
            commands.append(Command("\n".join(pending), start))
            pending = []
    if pending:
        commands.append(Command("\n".join(pending), start))  # bash will say what is wrong with it
    return commands


def console_commands(first_line, body):
    """The `$ ` commands of a ```console block, each with the output lines shown under it."""
    commands = []
    k = 0
    while k < len(body):
        if not body[k].startswith("$ "):
            if commands:
                commands[-1].expected.append(body[k])
            k += 1
            continue
        text, start = body[k][2:], first_line + k
        while text.endswith("\\") and k + 1 < len(body):
            k += 1
            text += "\n" + body[k]
        commands.append(Command(text, start))
        k += 1
    return commands


def page_blocks(source, page):
    """[(kind, [Command])] of the page: kind "sh" (one bash for the block) or "console" (one per command)."""
    path = os.path.join(source, page)
    if page.endswith(".ipynb"):
        with open(path, encoding="utf-8") as f:
            notebook = json.load(f)
        commands = []
        for cell in notebook["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            for m in re.finditer(r"`(jupyter nbconvert [^`]*\.ipynb[^`]*)`", "".join(cell["source"])):
                commands.append(Command(m.group(1), 0))
        return [("sh", [c]) for c in commands]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    blocks = []
    for info, first_line, body in fenced_blocks(text):
        if info in ("sh", "bash", "shell"):
            blocks.append(("sh", sh_commands(first_line, body)))
        elif info == "console":
            blocks.append(("console", console_commands(first_line, body)))
        elif info == "python":  # not shell commands: said, not run (python/README.md's examples of the API)
            print(f"NOT RUN  {page}:{first_line}: a ```python block (an example of the API, not a shell command)")
    return blocks


NUMBER = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?")


def number_value(text):
    """A number as a page writes it ("2,608", "−35", "1.06"): (value, half-unit of its last digit)."""
    digits = text.replace(",", "").replace("−", "-")
    decimals = len(digits.split(".")[1]) if "." in digits else 0
    return float(digits), 0.5 * 10 ** -decimals


def same_line(shown, got):
    """True when an output line `got` is the line `shown` in the page: the same words, every number within
    the rounding shown."""
    a, b = shown.split(), got.split()
    if a and a[-1] == "…":  # the page shows the start of the line
        a, b = a[:-1], b[: len(a) - 1]
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        xs, ys = NUMBER.split(x), NUMBER.split(y)
        xn, yn = NUMBER.findall(x), NUMBER.findall(y)
        if xs != ys or len(xn) != len(yn):
            return False
        for p, q in zip(xn, yn):
            value, half = number_value(p)
            try:
                got_value = float(q.replace(",", "").replace("−", "-"))
            except ValueError:
                return False
            if abs(got_value - value) > half * (1 + 1e-9) + 1e-12:
                return False
    return True


def compare(command):
    """The shown output lines not found, in order, in the command's output."""
    got = command.output.split("\n")
    missing, at = [], 0
    for shown in command.expected:
        if not shown.strip():
            continue
        k = next((k for k in range(at, len(got)) if same_line(shown, got[k])), None)
        if k is None:
            missing.append(shown)
        else:
            at = k + 1
    return missing


def repository_entries(source):
    """The top-level names of the repository's files (git ls-files), else of the tree less build folders."""
    p = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True)
    if p.returncode == 0 and p.stdout:
        return sorted({name.split("/")[0] for name in p.stdout.decode().split("\0") if name})
    return sorted(n for n in os.listdir(source) if not n.startswith((".", "build")))


def make_scratch(source, build, name):
    scratch = os.path.join(build, "docs-commands", name)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    for entry in repository_entries(source):
        if entry in ("build", "build-test"):
            continue
        os.symlink(os.path.join(source, entry), os.path.join(scratch, entry))
    for link in ("build", "build-test"):
        os.symlink(build, os.path.join(scratch, link))
    return scratch


def reader_environment(scratch):
    env = {k: v for k, v in os.environ.items() if not k.startswith("COLOCSIM_") and k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PWD"] = scratch
    return env


def run_block(kind, commands, scratch):
    """Runs the block's commands from the scratch root: a ```sh block in one bash, a console block's commands
    each in its own; fills each command's output and exit status."""
    groups = [commands] if kind == "sh" else [[c] for c in commands]
    for group in groups:
        script = ["set -o pipefail", "exec 2>&1"]
        for c in group:
            if c.why_not is None:
                script += [c.text, f'echo "{MARKER} $?"']
            else:
                script += [f'echo "{MARKER} skipped"']
        try:
            p = subprocess.run(["bash", "-c", "\n".join(script) + "\n"], cwd=scratch, env=reader_environment(scratch),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=RUN_TIMEOUT_S)
            out = p.stdout
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode(errors="replace") + f"\n(timed out after {RUN_TIMEOUT_S} s)"
        parts = re.split(rf"^{MARKER} (\S+)\n", out, flags=re.M)
        for k, c in enumerate(group):
            if 2 * k + 1 < len(parts):
                c.output, status = parts[2 * k], parts[2 * k + 1]
                c.status = None if status == "skipped" else int(status)
            else:  # the shell ended before this command's end (exit, timeout)
                c.output, c.status = (parts[2 * k] if 2 * k < len(parts) else ""), -1


# Prose numbers: `<!--= EXPR -->NUMBER`, as in the labs' ANSWERS.md.
UNITS = {"kWh": 1 / 3.6e6, "MJ": 1e-6, "kJ": 1e-3, "kW": 1e-3, "h": 1 / 3600, "min": 1 / 60}


def term(scratch, text):
    if ":" not in text:
        return float(text)
    run, field = text.split(":", 1)
    directory = os.path.join(scratch, run)
    if "." in field:
        job, column = field.split(".", 1)
        with open(os.path.join(directory, "jobs.csv"), newline="") as f:
            for row in csv.DictReader(f):
                if row["id"] == job:
                    return float(row[column])
        raise KeyError(f"no job {job} in {run}/jobs.csv")
    with open(os.path.join(directory, "summary.json"), encoding="utf-8") as f:
        return float(json.load(f)[field])


def evaluate(scratch, expr):
    expr, _, unit = expr.partition("|")
    unit = unit.strip()
    if " / " in expr:
        a, b = expr.split(" / ")
        v = term(scratch, a.strip()) / term(scratch, b.strip())
    elif " - " in expr:
        a, b = expr.split(" - ")
        v = term(scratch, a.strip()) - term(scratch, b.strip())
    else:
        v = term(scratch, expr.strip())
    if not unit:
        return v
    if unit == "pct":
        return 100 * (v - 1)
    return v * UNITS[unit]


def check_marks(source, page, scratch):
    """The page's marked prose numbers against the runs; returns the failures."""
    if page.endswith(".ipynb"):
        return [], 0
    with open(os.path.join(source, page), encoding="utf-8") as f:
        text = f.read()
    failures, n = [], 0
    for m in re.finditer(r"<!--=\s*(.*?)\s*-->\s*([−-]?\d[\d,]*(?:\.\d+)?)", text):
        line = text[: m.start()].count("\n") + 1
        n += 1
        value, half = number_value(m.group(2))
        try:
            got = evaluate(scratch, m.group(1))
        except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
            failures.append(f"{page}:{line}: {m.group(1)}: cannot evaluate ({e})")
            continue
        if not abs(got - value) <= half * (1 + 1e-9) + 1e-12:
            failures.append(f"{page}:{line}: writes {m.group(2)} for {m.group(1)}; the run gives {got:.6g}")
    return failures, n


FIGURE = re.compile(r"<!--=\s*figure\s+(\S+)\s*-->\s*!\[[^\]]*\]\(([^)\s]+)\)")
FIGURE_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")  # in SVG a comma separates x,y: no thousands separators


def same_figure(committed, made):
    """None when the text `made` is `committed` with every number within 0.02 or 0.1 %; else what differs."""
    a_text, b_text = FIGURE_NUMBER.split(committed), FIGURE_NUMBER.split(made)
    a_num, b_num = FIGURE_NUMBER.findall(committed), FIGURE_NUMBER.findall(made)
    if a_text != b_text or len(a_num) != len(b_num):
        for k, (x, y) in enumerate(zip(committed.split("\n"), made.split("\n"))):
            if FIGURE_NUMBER.split(x) != FIGURE_NUMBER.split(y):
                at = next((i for i, (u, v) in enumerate(zip(x, y)) if u != v), min(len(x), len(y)))
                return f"line {k + 1} differs: committed '...{x[max(0, at - 60):at + 60]}...', made " \
                       f"'...{y[max(0, at - 60):at + 60]}...'"
        return "the number of lines differs"
    for p, q in zip(FIGURE_NUMBER.finditer(committed), b_num):
        x, y = (float(t) for t in (p.group(0), q))
        if abs(x - y) > max(0.02, 1e-3 * abs(x)):
            line = committed[: p.start()].count("\n") + 1
            return f"line {line}: committed {p.group(0)}, made {q} (the first number that differs)"
    return None


def check_figures(source, page, scratch):
    """The page's marked figures against the files its commands wrote; returns the failures."""
    if page.endswith(".ipynb"):
        return [], 0
    with open(os.path.join(source, page), encoding="utf-8") as f:
        text = f.read()
    failures, n = [], 0
    for m in FIGURE.finditer(text):
        line = text[: m.start()].count("\n") + 1
        n += 1
        made_path = os.path.join(scratch, m.group(1))
        committed_path = os.path.normpath(os.path.join(source, os.path.dirname(page), m.group(2)))
        try:
            with open(made_path, encoding="utf-8") as f:
                made = f.read()
            with open(committed_path, encoding="utf-8") as f:
                committed = f.read()
        except OSError as e:
            failures.append(f"{page}:{line}: figure {m.group(2)}: cannot compare with {m.group(1)} ({e})")
            continue
        why = same_figure(committed, made)
        if why:
            failures.append(f"{page}:{line}: figure {m.group(2)} is not what the page's command writes to "
                            f"{m.group(1)}: {why}; if the change is meant, copy the new file over it")
    return failures, n


def needs(command):
    """The part of the build a command needs beyond colocsim, or None."""
    if "jupyter" in command.text:
        return "jupyter"
    if re.search(r"PYTHONPATH=|--policy-python|python3 -c", command.text):
        return "python"
    return None


def check_run_default(source, build):
    """scripts/run-default.sh, the prerequisite of the README's commands and of the labs, builds what they
    need: colocsim, and the Python package when it is configured (lab 4's part B runs `--policy-python`, which
    loads the package's bridge; its part A's `cmake --install build` installs the package, so it must be
    built). The script runs as written on stand-ins: setup-deps.sh, cmake (configure: prints the summary line
    of the Python package as ON or OFF; build: records its arguments) and build/sim/colocsim."""
    failures = []
    for python in ("ON", "OFF"):
        root = os.path.join(build, "docs-commands", "run-default-" + python)
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(os.path.join(root, "scripts"))
        os.makedirs(os.path.join(root, "bin"))
        os.makedirs(os.path.join(root, "build", "sim"))
        shutil.copy(os.path.join(source, "scripts", "run-default.sh"), os.path.join(root, "scripts"))
        stubs = {
            "scripts/setup-deps.sh": "echo 'colocsim: all packages are installed'\n",
            "bin/cmake": (f'if [ "$1" = --build ]; then echo "$*" >> "{root}/builds.txt"; exit 0; fi\n'
                          f'echo "-- colocsim configuration summary"\n'
                          f'echo "--   Python package  : {python} (a stand-in)"\n'),
            "build/sim/colocsim": f'echo "$*" > "{root}/colocsim-args.txt"\n',
        }
        for name, body in stubs.items():
            with open(os.path.join(root, name), "w") as f:
                f.write("#!/bin/sh\n" + body)
            os.chmod(os.path.join(root, name), 0o755)
        env = dict(os.environ, PATH=os.path.join(root, "bin") + os.pathsep + os.environ.get("PATH", ""))
        p = subprocess.run(["bash", os.path.join(root, "scripts", "run-default.sh")], cwd=root, env=env,
                           capture_output=True, text=True, timeout=60)
        builds = open(os.path.join(root, "builds.txt")).read().split() if os.path.exists(
            os.path.join(root, "builds.txt")) else []
        targets = set(builds[builds.index("--target") + 1:]) if "--target" in builds else set()
        wanted = {"colocsim", "colocsim_python"} if python == "ON" else {"colocsim"}
        print(f"scripts/run-default.sh with the Python package {python}: exit status {p.returncode}, "
              f"builds {' '.join(sorted(targets)) or 'nothing'}")
        if p.returncode != 0 or not wanted <= targets or not os.path.exists(os.path.join(root, "colocsim-args.txt")):
            failures.append(f"scripts/run-default.sh with the Python package {python} should build "
                            f"{' and '.join(sorted(wanted))} and run colocsim; it built {sorted(targets)} "
                            f"(exit status {p.returncode})\n{p.stdout}{p.stderr}")
    for f in failures:
        print("FAILED  " + f)
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--python", default="ON")
    ap.add_argument("page", help="a page, or run-default: check scripts/run-default.sh on stand-ins")
    args = ap.parse_args()
    source, build = os.path.realpath(args.source), os.path.realpath(args.build)
    if args.page == "run-default":
        return check_run_default(source, build)
    page = args.page
    blocks = page_blocks(source, page)
    commands = [c for _, cs in blocks for c in cs]
    if not commands:
        print(f"{page}: no shell command found (a ```sh or ```console block, or the notebook's line)")
        return 1
    failures = []
    for p, start, why in NOT_RUN:
        if p != page:
            continue
        matched = [c for c in commands if c.text.startswith(start)]
        if not matched:
            failures.append(f"{page}: NOT_RUN names '{start}', which the page no longer shows: remove the entry")
        for c in matched:
            c.why_not = why
    if page.endswith(".ipynb"):  # its documented line is also its folder's README's: run once, by that page
        readme = os.path.join(os.path.dirname(page), "README.md")
        if os.path.exists(os.path.join(source, readme)):
            shown = {c.text.replace("\\\n", " ") for _, cs in page_blocks(source, readme) for c in cs}
            for c in commands:
                if " ".join(c.text.split()) in {" ".join(t.split()) for t in shown}:
                    c.why_not = f"the same command as {readme}'s, run by the CTest `docs/commands: {readme}`"
    jupyter = shutil.which("jupyter")
    for c in commands:
        need = needs(c)
        if c.why_not is None and need == "python" and args.python != "ON":
            c.why_not = "the Python package is not part of this build (configure summary: Python package OFF)"
        if c.why_not is None and need == "jupyter" and (args.python != "ON" or not jupyter):
            c.why_not = "no jupyter (Debian jupyter-nbconvert) or no Python package in this build"
    scratch = make_scratch(source, build, re.sub(r"[^A-Za-z0-9]+", "-", page).strip("-"))
    for kind, cs in blocks:
        run_block(kind, cs, scratch)
    for c in commands:
        where = f"{page}:{c.line}" if c.line else page
        if c.why_not is not None:
            print(f"NOT RUN  {where}: {c.text.splitlines()[0]}\n         why: {c.why_not}")
            continue
        missing = compare(c)
        ok = c.status == 0 and not missing
        print(f"{'ok      ' if ok else 'FAILED  '}{where}: {c.text}")
        if not ok:
            failures.append(f"{where}: {c.text}")
            if c.status != 0:
                print(f"         exit status {c.status}")
            for shown in missing:
                print(f"         the page shows:  {shown}")
            print("         output:\n" + "\n".join("           " + l for l in c.output.rstrip().split("\n")))
    mark_failures, marks = check_marks(source, page, scratch)
    figure_failures, figures = check_figures(source, page, scratch)
    for f in mark_failures + figure_failures:
        print("FAILED  " + f)
    failures += mark_failures + figure_failures
    ran = sum(1 for c in commands if c.why_not is None)
    print(f"{page}: {ran} of {len(commands)} commands run, {sum(len(c.expected) for c in commands)} output lines, "
          f"{marks} marked numbers and {figures} figures compared; {len(failures)} failures; scratch folder "
          f"{scratch}")
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
