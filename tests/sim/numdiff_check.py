#!/usr/bin/env python3
"""scripts/numdiff.py, the tolerance mode of scripts/same-outputs.sh, on small file pairs made here.

Each case writes two files into a temporary directory, runs `numdiff.py --rtol R [options] A B` and checks the
exit status (0 the same within the tolerance, 1 different, 2 bad usage) and that the output names what it
must: the first differing line and why, and the largest relative difference with its FILE:LINE:COLUMN. The
expected relative differences are worked out by hand in each case's comment. It also checks that
same-outputs.sh refuses a bad --rtol with its usage (exit 2) before running anything.

  tests/sim/numdiff_check.py        (from anywhere; finds the scripts from its own path)
"""
import gzip
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NUMDIFF = os.path.join(ROOT, "scripts", "numdiff.py")
SAME_OUTPUTS = os.path.join(ROOT, "scripts", "same-outputs.sh")

# (name, text A, text B, numdiff options, expected exit status, fragments the output must hold)
CASES = [
    ("equal files", "id,t_s\njob-1,12.5\n", "id,t_s\njob-1,12.5\n", ["--rtol", "1e-9"], 0,
     ["max rel diff: 0\n"]),
    # |1.0000000005 - 1| / 1.0000000005 = 4.99999999750e-10 -> printed 5e-10, at line 2, column 8
    ("5e-10 relative passes at 1e-9", "id,t_s\njob-1,1.0\n", "id,t_s\njob-1,1.0000000005\n",
     ["--rtol", "1e-9", "--label", "jobs.csv"], 0, ["max rel diff: 5e-10 at jobs.csv:2:7 (1.0 vs 1.0000000005)"]),
    # inside JSON: |123400.0002 - 123400| / 123400.0002 = 1.62e-9 > 1e-9 (and passes at 1e-8)
    ("2e-9 relative fails at 1e-9 (JSON)", '{\n  "energy_j": 1.234e+05,\n  "n": 3\n}\n',
     '{\n  "energy_j": 123400.0002,\n  "n": 3\n}\n', ["--rtol", "1e-9", "--label", "summary.json"], 1,
     ["DIFFERENT summary.json:2:15: 1.234e+05 vs 123400.0002: relative difference 1.62e-09 > rtol 1e-09",
      '  A:   "energy_j": 1.234e+05,', "max rel diff: 1.62e-09 at summary.json:2:15"]),
    ("the same pair passes at 1e-8", '"energy_j": 1.234e+05,\n', '"energy_j": 123400.0002,\n',
     ["--rtol", "1e-8", "--label", "s"], 0, ["max rel diff: 1.62e-09 at s:1:13"]),
    # 1 + 2e-9 exactly as in the brief: |1.000000002 - 1| / 1.000000002 = 1.999999996e-9 > 1e-9
    ("2e-9 relative fails at 1e-9 (CSV)", "12.5,1,ok\n", "12.5,1.000000002,ok\n", ["--rtol", "1e-9", "--label", "c"],
     1, ["DIFFERENT c:1:6: 1 vs 1.000000002: relative difference 2e-09 > rtol 1e-09"]),
    ("a word differing fails", "12.5,3,ok\n", "12.5,3,ko\n", ["--rtol", "1e-9", "--label", "c"], 1,
     ["DIFFERENT c:1: text differs (from column 8)", "  A: 12.5,3,ok", "  B: 12.5,3,ko"]),
    ("job-17 vs job-18 fails even at rtol 1e6", "job-17,1.0\n", "job-18,1.0\n", ["--rtol", "1e6", "--label", "j"], 1,
     ["DIFFERENT j:1: text differs (from column 6)"]),
    ("run-3 vs run-4 in a path fails at rtol 10", "out/run-3/jobs.csv\n", "out/run-4/jobs.csv\n",
     ["--rtol", "10"], 1, ["text differs (from column 9)"]),
    ("a MIG profile 3g vs 4g and 1.70x vs 1.71x are words", "static-7x1g 3g 1.70x\n", "static-7x1g 4g 1.71x\n",
     ["--rtol", "0.5", "--label", "p"], 1, ["DIFFERENT p:1: text differs (from column 13)"]),
    ("an extra line fails", "a,1\nb,2\n", "a,1\nb,2\nc,3\n", ["--rtol", "1e-9", "--label", "x"], 1,
     ["DIFFERENT x:3: 2 lines vs 3", "  A: (end of file)", "  B: c,3"]),
    ("a line missing at the end of the file fails", "a,1\nb,2\n", "a,1\n", ["--rtol", "1", "--label", "x"], 1,
     ["DIFFERENT x:2: 2 lines vs 1"]),
    ("a final newline missing fails", "a,1\n", "a,1", ["--rtol", "1", "--label", "x"], 1,
     ["one side ends with a newline, the other does not"]),
    ("lines in another order fail", "a,1\nb,2\n", "b,2\na,1\n", ["--rtol", "1e-9", "--label", "x"], 1,
     ["DIFFERENT x:1: text differs (from column 1)"]),
    # 3e-17 <= the 1e-12 floor: rounding, not a difference (its relative difference is 1)
    ("0 vs 3e-17 passes (absolute floor)", "idle_s,0\n", "idle_s,3e-17\n", ["--rtol", "1e-9", "--label", "t"], 0,
     ["1 number pair(s) judged by the absolute floor 1e-12 (values below 0.001), the largest difference 3e-17 at t:1:8",
      "max rel diff: 0\n"]),
    # below 1e-12 / 1e-9 = 1e-3 the floor judges: |1.05e-11 - 1e-11| = 5e-13 <= 1e-12 passes (relative 0.048)
    ("1e-11 vs 1.05e-11 passes (absolute floor)", "1e-11\n", "1.05e-11\n", ["--rtol", "1e-9", "--label", "t"], 0,
     ["1 number pair(s) judged by the absolute floor", "max rel diff: 0\n"]),
    # above 1e-3 the relative test judges even a difference below the floor, and it is the one reported:
    # |3685.0174557609145 - 3685.017455760914| = 5e-13 (as doubles 4.55e-13, one ulp), / 3685.017 = 1.23e-16
    ("a last-digit change of 3685.0 is reported relatively", "e,3685.017455760914\n", "e,3685.0174557609145\n",
     ["--rtol", "1e-9", "--label", "j"], 0, ["max rel diff: 1.23e-16 at j:1:3"]),
    ("0 vs 3e-17 fails without the floor", "idle_s,0\n", "idle_s,3e-17\n",
     ["--rtol", "1e-9", "--atol", "0", "--label", "t"], 1,
     ["DIFFERENT t:1:8: 0 vs 3e-17: relative difference 1 > rtol 1e-09"]),
    ("0 vs 3e-12 fails (above the floor)", "idle_s,0\n", "idle_s,3e-12\n", ["--rtol", "1e-9", "--label", "t"], 1,
     ["DIFFERENT t:1:8: 0 vs 3e-12: absolute difference 3e-12 > the floor 1e-12"]),
    ("1e5 vs 100000.0 passes: numbers compare as values", "n: 1e5\n", "n: 100000.0\n",
     ["--rtol", "0", "--label", "v"], 0, ["1 number(s) written differently but equal as values, the first at v:1:4"]),
    ("a number ending a sentence", "done in 48.\n", "done in 48.0000000001.\n", ["--rtol", "1e-9", "--label", "s"], 0,
     ["max rel diff: 2.08e-12 at s:1:9"]),
    ("a version string is a word", "SimGrid 3.32.0\n", "SimGrid 3.32.1\n", ["--rtol", "1", "--label", "v"], 1,
     ["text differs (from column 14)"]),
    # the largest of several: |2.000001 - 2| / 2.000001 = 5.0e-7 on line 2 beats 1e-9 on line 1
    ("the largest relative difference is the one reported", "1.0,5\n2,6\n", "1.000000001,5\n2.000001,6\n",
     ["--rtol", "1e-3", "--label", "m"], 0, ["max rel diff: 5e-07 at m:2:1 (2 vs 2.000001)"]),
    ("both paths are named without --label", "x 1\n", "x 2\n", ["--rtol", "1e-9"], 1, [" A {a}: x 1", " B {b}: x 2"]),
    ("a bad --rtol is refused", "x\n", "x\n", ["--rtol", "-1"], 2, ["expected a non-negative number, got '-1'"]),
    ("a missing file is refused", "x\n", None, ["--rtol", "1e-9"], 2, ["cannot read {b}"]),
]


def write(path, text):
    with open(path, "w", newline="") as f:
        f.write(text)


def run_numdiff(args):
    p = subprocess.run([sys.executable, NUMDIFF] + args, capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def main():
    failures = []
    with tempfile.TemporaryDirectory(prefix="numdiff-check.") as tmp:
        for i, (name, text_a, text_b, options, want_rc, fragments) in enumerate(CASES):
            a, b = os.path.join(tmp, f"{i}-a.txt"), os.path.join(tmp, f"{i}-b.txt")
            write(a, text_a)
            if text_b is not None:
                write(b, text_b)
            rc, out = run_numdiff(options + [a, b])
            missing = [f for f in fragments if f.format(a=a, b=b) not in out]
            ok = rc == want_rc and not missing
            print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {rc} (expected {want_rc})")
            if not ok:
                failures.append(name)
                print("  missing: " + "; ".join(repr(f) for f in missing) + "\n  output:\n    " +
                      out.rstrip().replace("\n", "\n    "))

        # gzip compares decompressed: the same text, compressed at two levels (different bytes), passes; a
        # number off by 1e-6 relative inside fails.
        text = "t_s,power_w\n0,1371.8430915522215\n"
        for name, other, want_rc in [("gzip files compare decompressed", text, 0),
                                     ("gzip files: a difference inside", text.replace("1371.84309", "1371.84446"), 1)]:
            a, b = os.path.join(tmp, "ts-a.csv.gz"), os.path.join(tmp, "ts-b.csv.gz")
            with open(a, "wb") as f:
                f.write(gzip.compress(text.encode(), compresslevel=1, mtime=0))
            with open(b, "wb") as f:
                f.write(gzip.compress(other.encode(), compresslevel=9, mtime=0))
            rc, out = run_numdiff(["--rtol", "1e-9", a, b])
            ok = rc == want_rc
            print(f"{'ok  ' if ok else 'FAIL'} {name}: exit {rc} (expected {want_rc})")
            if not ok:
                failures.append(name)
                print("  output:\n    " + out.rstrip().replace("\n", "\n    "))

        # Binary files compare byte for byte: two PNG-like files whose bytes differ only in a digit are different
        # however large the tolerance (their bytes are not text, so nothing in them is a number).
        a, b = os.path.join(tmp, "fig-a.png"), os.path.join(tmp, "fig-b.png")
        with open(a, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR 1.0")
        with open(b, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR 1.1")
        rc, out = run_numdiff(["--rtol", "1", a, b])
        ok = rc == 1 and "DIFFERENT " + a + " (binary): the bytes differ from byte 20 (20 vs 20 bytes)" in out
        print(f"{'ok  ' if ok else 'FAIL'} binary files compare byte for byte: exit {rc} (expected 1)")
        if not ok:
            failures.append("binary")
            print("  output:\n    " + out.rstrip().replace("\n", "\n    "))
        rc, out = run_numdiff(["--rtol", "0", a, a])
        if rc != 0:
            failures.append("binary same")
            print(f"FAIL a binary file against itself: exit {rc}\n    {out}")

    # same-outputs.sh refuses a bad --rtol (before looking at the build directories).
    for args in (["--rtol", "abc", tmp, tmp], ["--rtol"], ["--rtol", "-1e-9", tmp, tmp]):
        p = subprocess.run(["bash", SAME_OUTPUTS] + args, capture_output=True, text=True, timeout=60)
        ok = p.returncode == 2 and "usage:" in p.stderr and "[--rtol R]" in p.stderr
        print(f"{'ok  ' if ok else 'FAIL'} same-outputs.sh {' '.join(args)}: exit {p.returncode} (expected 2)")
        if not ok:
            failures.append("same-outputs.sh " + " ".join(args))
            print("  " + (p.stdout + p.stderr).strip()[-400:])

    if failures:
        sys.exit(f"{len(failures)} case(s) failed: " + "; ".join(failures))
    print(f"all {len(CASES) + 7} cases passed")


if __name__ == "__main__":
    main()
