#!/usr/bin/env python3
"""EASY backfilling, written from the textbook definition, independent of colocsim's C++.

Lifka, "The ANL/IBM SP scheduling system", JSSPP 1995; Mu'alem & Feitelson, "Utilization, predictability,
workloads, and user runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6), 2001:
  * jobs wait in one queue in arrival order; the head starts as soon as enough processors are free;
  * when the head cannot start, it gets a reservation: the shadow time is the earliest expected end of a
    running job at which enough processors will be free for it, and the extra processors are those free at
    the shadow time beyond what the head needs;
  * a later job may start now if it fits in the free processors and either is expected to end by the shadow
    time, or takes no more than the extra processors (which it then uses up).
Estimates: exact (the run time), requested (SWF field 9; the job is killed at it), predicted (Tsafrir, Etsion &
Feitelson, IEEE TPDS 18(6) 2007: the mean of the user's last two run times, at most the requested time, the
requested time until the user has two; a running job past its prediction is expected at its requested time).
Where the textbook is silent the conventions are colocsim's documented ones (README.md of this folder).
Usage: easy_ref.py TRACE.swf PROCS [exact|requested|predicted] [LOAD] > starts.csv
"""
import heapq
import math
import sys


def read_swf(path, procs, load=1.0):
    """SWF rows as dicts, in submit order (file order among equal submit times). Rows that never ran (run
    time <= 0) are skipped; rows asking for more processors than the machine has are returned apart.
    load F compresses inter-arrival times: submit' = t0 + (submit - t0) / F, t0 the first job's submit."""
    jobs, too_big = [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            s = line.split(";", 1)[0].split()
            if not s:
                continue
            try:
                v = [float(x) for x in s[:18]]
                if len(v) < 12:
                    raise ValueError(f"{len(v)} fields")
            except ValueError as e:
                print(f"{path}:{number}: {e}; expected 18 numeric SWF fields", file=sys.stderr)
                sys.exit(2)
            run, size = v[3], v[4] if v[4] > 0 else v[7]
            if run <= 0 or size <= 0:
                continue
            job = {"id": int(v[0]), "submit": v[1], "run": run, "size": int(size),
                   "req": v[8] if v[8] > 0 else 0.0, "user": s[11] if s[11] != "-1" else ""}
            (too_big if job["size"] > procs else jobs).append(job)
    t0 = min(j["submit"] for j in jobs + too_big)
    for j in jobs + too_big:
        j["submit"] = t0 + (j["submit"] - t0) / load
    jobs.sort(key=lambda j: j["submit"])  # stable: file order among equal submit times
    for i, j in enumerate(jobs):
        j["index"] = i
    return jobs, too_big


class Easy:
    def __init__(self, procs, mode):
        self.free, self.mode = procs, mode
        self.queue = []    # waiting jobs, arrival order
        self.running = []  # started, not yet ended
        self.history = {}  # user -> run times of their ended jobs, most recent last (predicted)

    def limit(self, job):
        """Seconds after its start at which the job is killed: its request, unless estimates are exact."""
        return job["req"] if self.mode != "exact" and job["req"] > 0 else math.inf

    def estimate(self, job):
        requested = job["req"] if job["req"] > 0 else job["run"]
        if self.mode == "exact":
            return job["run"]
        if self.mode == "predicted":
            past = self.history.get(job["user"], [])
            if job["user"] and len(past) >= 2:
                return min(requested, (past[-1] + past[-2]) / 2)
        return requested

    def expected_end(self, job, now):
        """Where a running job is expected to end, seen at `now`: start + its estimate; once that has
        passed, its kill time; with no kill time, any moment (now)."""
        if job["est_end"] >= now:
            return job["est_end"]
        kill = job["start"] + self.limit(job)
        return kill if math.isfinite(kill) and kill > now else now

    def start(self, job, now):
        self.queue.remove(job)
        self.free -= job["size"]
        job["start"] = now
        job["est_end"] = now + min(self.estimate(job), self.limit(job))
        job["end"] = now + min(job["run"], self.limit(job))  # the real end: its run time, or killed
        self.running.append(job)

    def finish(self, job):
        self.running.remove(job)
        self.free += job["size"]
        self.history.setdefault(job["user"], []).append(job["end"] - job["start"])

    def schedule(self, now):
        """One scheduling pass at time `now` (after every end and arrival at `now` is applied)."""
        while self.queue and self.queue[0]["size"] <= self.free:  # FCFS while the head fits
            self.start(self.queue[0], now)
        if not self.queue:
            return
        head = self.queue[0]
        ends = sorted((self.expected_end(r, now), r["size"]) for r in self.running)
        avail, shadow, extra = self.free, math.inf, 0
        for t, size in ends:
            avail += size
            if avail >= head["size"]:
                shadow = t  # the head's reservation
                break
        if shadow < math.inf:  # free at the shadow time: everything ending by then, not only the first
            extra = self.free + sum(size for t, size in ends if t <= shadow) - head["size"]
        for job in list(self.queue[1:]):
            if job["size"] > self.free:
                continue
            if now + min(self.estimate(job), self.limit(job)) <= shadow:
                self.start(job, now)  # ends by the shadow time: cannot delay the head
            elif job["size"] <= extra:
                extra -= job["size"]  # outlasts the shadow time on processors the head does not need
                self.start(job, now)


def simulate(jobs, procs, mode):
    """Event loop: at each instant, ends first (by job index), then arrivals, then one scheduling pass."""
    easy = Easy(procs, mode)
    arrivals = sorted(jobs, key=lambda j: (j["submit"], j["index"]))
    ends = []  # heap of (end, index, job)
    a = 0
    while a < len(arrivals) or ends:
        now = min(arrivals[a]["submit"] if a < len(arrivals) else math.inf, ends[0][0] if ends else math.inf)
        while ends and ends[0][0] == now:
            easy.finish(heapq.heappop(ends)[2])
        while a < len(arrivals) and arrivals[a]["submit"] == now:
            easy.queue.append(arrivals[a])
            a += 1
        started = set(id(r) for r in easy.running)
        easy.schedule(now)
        for r in easy.running:
            if id(r) not in started:
                heapq.heappush(ends, (r["end"], r["index"], r))
    return jobs


def main(argv):
    if not 3 <= len(argv) <= 5 or (len(argv) >= 4 and argv[3] not in ("exact", "requested", "predicted")):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    procs = int(argv[2])
    jobs, too_big = read_swf(argv[1], procs, float(argv[4]) if len(argv) == 5 else 1.0)
    simulate(jobs, procs, argv[3] if len(argv) >= 4 else "exact")
    print("id,submit_s,start_s,end_s,size")
    for j in jobs:
        print(f"{j['id']},{j['submit']:.17g},{j['start']:.17g},{j['end']:.17g},{j['size']}")
    if too_big:
        print(f"easy_ref: {len(too_big)} job(s) ask for more than {procs} processors: left out",
              file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
