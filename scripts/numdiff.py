#!/usr/bin/env python3
"""numdiff.py --rtol R [--atol A] [--label NAME] A B: are two text files the same, numbers within a tolerance?

The tolerance mode of scripts/same-outputs.sh (CONTRIBUTING.md, Refactoring the engine), usable alone. The two
files must have the same lines in the same order; each line is cut into words and the text between them, and
the two lines must be the same once every number is set aside, character for character; the numbers, taken
in order, must then agree as values:

  |a - b| <= max(R * max(|a|, |b|), A)        (A, the absolute floor, is 1e-12 unless --atol says otherwise)

that is, relatively where R * max(|a|, |b|) >= A (for R = 1e-9, values of 1e-3 and more) and by the floor
below that.

A word is a maximal run of ASCII letters, digits and `_ . + -`; full stops that end it end a sentence and are
text; what is left is a number when it is, whole, a decimal or scientific float (`12`, `-0.5`, `.5`,
`1.234e+05`; `48.` is 48 and a full stop). So `"energy_j": 1.234e+05,` holds one number and `12.5,3,ok` two,
while `job-17`, `run-3`, `cifar-resnet18-train`, `3g`, `1.70x`, `v3.32.0`, `2026-11-28`, `0x1F`, `12.5s` and
`nan` are words and must be identical however large R is. Numbers are compared as values: `1e5` and
`100000.0` are the same number, and so are `0` and `-0`.

Why an absolute floor: a quantity that is 0 on one side and 3e-17 on the other is rounding (terms that cancel,
accumulated in another order), not a difference, and no relative tolerance accepts it (its relative difference
is 1). What cancelling leaves is a few ulps of the terms: ~1e-16 for shares and fractions of 1, ~1e-12 for
times of about 1e4 s. 1e-12 covers that and is far below any result colocsim reports (seconds, joules, watts,
fractions). A residue of larger terms (an energy of 1e7 J cancelling to 0 leaves ~1e-9) is reported as a
difference for a person to judge; --atol raises the floor explicitly.

Whatever the verdict, the last line printed is the largest relative difference |a - b| / max(|a|, |b|) found
among the number pairs judged relatively, and where (FILE:LINE:COLUMN, FILE being side A's
name and COLUMN the column of the number on side A, both counted from 1), so that a reviewer sees how close
"the same" was:
  max rel diff: 3.1e-13 at out/jobs.csv:14:38 (3685.017455760914 vs 3685.0174557609154)
  max rel diff: 0
A line before it counts the differing pairs judged by the floor (with their largest difference), if any, and
one the numbers written differently but equal as values. On a difference, the first is printed first: "DIFFERENT FILE:LINE[:COLUMN]:
why", then both lines ("  A PATH: ...", "  B PATH: ..."; "  A: ...", "  B: ..." with --label).

Files compressed with gzip are compared decompressed; files that are not UTF-8 text, or hold a NUL byte
(images and other binary files), are compared byte for byte. FILE is --label when given (same-outputs.sh
names the output file so), else each side's own path.

Exit status: 0 when the files are the same within the tolerance, 1 when they differ, 2 on bad usage or a file
that cannot be read.

  scripts/numdiff.py --rtol 1e-9 old/out/jobs.csv new/out/jobs.csv
"""
import argparse
import gzip
import math
import re
import sys

DEFAULT_ATOL = 1e-12
WORD = re.compile(r"[A-Za-z0-9_.+\-]+", re.ASCII)
NUMBER = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?", re.ASCII)
HOLE = "\0"  # stands for a number in a line's skeleton (text files hold no NUL: those are compared as binary)


def read(path):
    """The file's text, or its bytes when it is binary (after gunzip for a gzip file)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    if b"\0" in data:
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def split(line):
    """(skeleton, [(text, value, column)]): the line with each number replaced by HOLE, and the numbers."""
    parts, numbers, pos = [], [], 0
    for m in WORD.finditer(line):
        word = m.group()
        head = word.rstrip(".")  # full stops ending a word end a sentence: `48.` is 48 and a full stop
        if head and NUMBER.fullmatch(head):
            parts.append(line[pos : m.start()] + HOLE + word[len(head) :])
            numbers.append((head, float(head), m.start() + 1))
            pos = m.end()
    parts.append(line[pos:])
    return "".join(parts), numbers


def fmt(x):
    return "0" if x == 0 else f"{x:.3g}"


def clip(s, n=200):
    return s if len(s) <= n else s[:n] + "..."


class Report:
    def __init__(self, rtol, atol, name_a, name_b):
        self.rtol, self.atol = rtol, atol
        self.name_a, self.name_b = name_a, name_b
        self.first = None  # (where, why, line_a, line_b)
        self.max_rel = None  # (rel, where, text_a, text_b)
        self.equal_values = None  # (count, where of the first): written differently, equal as values
        self.floor = None  # (count, largest |a-b|, where)

    def where(self, line, col=None):
        return f"{self.name_a}:{line}" if col is None else f"{self.name_a}:{line}:{col}"

    def differ(self, where, why, line_a, line_b):
        if self.first is None:
            self.first = (where, why, line_a, line_b)

    def compare_lines(self, n, line_a, line_b):
        if line_a == line_b:
            return
        skel_a, nums_a = split(line_a)
        skel_b, nums_b = split(line_b)
        if skel_a != skel_b:
            col = next((i for i, (x, y) in enumerate(zip(line_a, line_b)) if x != y), min(len(line_a), len(line_b)))
            self.differ(self.where(n), f"text differs (from column {col + 1})", line_a, line_b)
            return
        for (ta, a, col), (tb, b, _) in zip(nums_a, nums_b):
            if ta == tb:
                continue
            where = self.where(n, col)
            d = abs(a - b)
            if a == b:
                count, first = self.equal_values or (0, where)
                self.equal_values = (count + 1, first)
                continue
            m = max(abs(a), abs(b))
            if math.isfinite(d) and self.rtol * m < self.atol:  # near 0: the absolute floor judges
                count, largest, at = self.floor or (0, 0.0, where)
                self.floor = (count + 1, d, where) if d > largest else (count + 1, largest, at)
                if d > self.atol:
                    self.differ(where, f"{ta} vs {tb}: absolute difference {fmt(d)} > the floor {fmt(self.atol)} "
                                f"(values this small are not judged relatively)", line_a, line_b)
                continue
            rel = d / m if math.isfinite(d) else math.inf
            if self.max_rel is None or rel > self.max_rel[0]:
                self.max_rel = (rel, where, ta, tb)
            if not rel <= self.rtol:
                self.differ(where, f"{ta} vs {tb}: relative difference {fmt(rel)} > rtol {fmt(self.rtol)}", line_a,
                            line_b)

    def compare_text(self, a, b):
        lines_a, lines_b = a.split("\n"), b.split("\n")
        newline_a, newline_b = lines_a[-1] == "", lines_b[-1] == ""  # the file ends with a newline
        if newline_a:
            lines_a.pop()
        if newline_b:
            lines_b.pop()
        for n, (la, lb) in enumerate(zip(lines_a, lines_b), 1):
            self.compare_lines(n, la, lb)
        n = min(len(lines_a), len(lines_b))
        if len(lines_a) != len(lines_b):
            extra_a = lines_a[n] if n < len(lines_a) else "(end of file)"
            extra_b = lines_b[n] if n < len(lines_b) else "(end of file)"
            self.differ(self.where(n + 1), f"{len(lines_a)} lines vs {len(lines_b)}", extra_a, extra_b)
        elif newline_a != newline_b:
            self.differ(self.where(n), "one side ends with a newline, the other does not",
                        lines_a[-1] if lines_a else "", lines_b[-1] if lines_b else "")

    def print(self):
        if self.first is not None:
            where, why, line_a, line_b = self.first
            print(f"DIFFERENT {where}: {why}")
            if line_a is not None:
                same = self.name_a == self.name_b
                print(f"  A{'' if same else ' ' + self.name_a}: {clip(line_a)}")
                print(f"  B{'' if same else ' ' + self.name_b}: {clip(line_b)}")
        if self.equal_values is not None:
            print(f"{self.equal_values[0]} number(s) written differently but equal as values, "
                  f"the first at {self.equal_values[1]}")
        if self.floor is not None:
            count, largest, at = self.floor
            below = fmt(self.atol / self.rtol) if self.rtol else "any size"
            print(f"{count} number pair(s) judged by the absolute floor {fmt(self.atol)} (values below {below}), "
                  f"the largest difference {fmt(largest)} at {at}")
        if self.max_rel is None:
            print("max rel diff: 0")
        else:
            rel, where, ta, tb = self.max_rel
            print(f"max rel diff: {fmt(rel)} at {where} ({ta} vs {tb})")


def non_negative(text):
    try:
        x = float(text)
    except ValueError:
        x = -1.0
    if not x >= 0 or not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"expected a non-negative number, got '{text}'")
    return x


def main():
    p = argparse.ArgumentParser(description="Compare two text files line by line, numbers within a "
                                "relative tolerance (see the header of this script).")
    p.add_argument("--rtol", type=non_negative, required=True, help="relative tolerance, e.g. 1e-9")
    p.add_argument("--atol", type=non_negative, default=DEFAULT_ATOL,
                   help=f"absolute floor for values near 0 (default {DEFAULT_ATOL:g})")
    p.add_argument("--label", help="the name to print for both files (default: each one's path)")
    p.add_argument("a")
    p.add_argument("b")
    args = p.parse_args()
    texts = []
    for path in (args.a, args.b):
        try:
            texts.append(read(path))
        except (OSError, EOFError) as e:  # gzip.BadGzipFile is an OSError
            print(f"numdiff.py: cannot read {path}: {e.strerror or e}", file=sys.stderr)
            return 2
    a, b = texts
    report = Report(args.rtol, args.atol, args.label or args.a, args.label or args.b)
    if isinstance(a, str) and isinstance(b, str):
        report.compare_text(a, b)
    elif a != b:
        a = a.encode() if isinstance(a, str) else a
        b = b.encode() if isinstance(b, str) else b
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        report.differ(f"{report.name_a} (binary)", f"the bytes differ from byte {at + 1} ({len(a)} vs {len(b)} bytes)",
                      None, None)
    report.print()
    return 1 if report.first is not None else 0


if __name__ == "__main__":
    sys.exit(main())
