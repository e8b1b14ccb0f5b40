"""good-partners in Python: lab 4's policy, the instructor's solution (the students' starter is
../good_partners.py). The same decisions as solution/GoodPartners.cpp, so the same schedule: jobs in
submission order, each on a device of its own, unless a device with exactly one job offers a good partner:
the pair makes at least `min_rate` jobs' worth of progress per second while together,
1/S(new) + 1/S(partner) with S their predicted slowdowns (lab 2, part A: taking turns makes 1). Among such
devices the best rate wins; else the lowest idle device; else the job waits (later jobs may still start).

    build/sim/colocsim run ... --policy-python experiments/labs/04-write-a-policy/solution/good_partners.py:GoodPartners
"""
import colocsim


class GoodPartners(colocsim.Policy):
    def __init__(self, min_rate=1.2):
        super().__init__()
        self.min_rate = min_rate
        self.waiting = []  # job indices, in the order they joined the queue
        self.placed = []  # per device, the jobs this decide() call put there

    def jobs_on(self, view, d):
        """Jobs on device d once this call's decisions apply: its residents and the jobs this call put there."""
        return len(view.residents(d)) + len(self.placed[d])

    def candidate(self, view, j, d):
        """Whether device d could take job j as the partner of the one job it has."""
        return view.device(d).available and self.jobs_on(view, d) == 1 and view.allows(j, d)

    @staticmethod
    def pair_rate(p):
        """While together the new job does 1/S of a second's work per second, and so does its partner."""
        return 1.0 / p.job_slowdown + 1.0 / p.max_corunner_slowdown

    def best_partner(self, view, j):
        best, best_rate = None, self.min_rate
        for d in range(view.device_count()):
            if not self.candidate(view, j, d):
                continue
            # placed[d]: a job this call put on d is not a resident yet; predict() counts it as one.
            p = view.predict(j, [d], self.placed[d])
            if not p.fits_memory:
                continue
            rate = self.pair_rate(p)
            if rate >= best_rate:
                best, best_rate = d, rate
        return best

    def idle_device(self, view, j):
        for d in range(view.device_count()):
            if view.device(d).available and self.jobs_on(view, d) == 0 and view.allows(j, d):
                return d
        return None

    def decide(self, view, events):
        for e in events:
            if isinstance(e, colocsim.JobSubmitted):
                self.waiting.append(e.job)
            elif isinstance(e, colocsim.JobFailed) and e.requeued:
                self.waiting.append(e.job)
        self.placed = [[] for _ in range(view.device_count())]
        out, still = [], []
        for j in self.waiting:
            if view.job(j).devices != 1:
                out.append(colocsim.Reject(j, "good-partners places single-device jobs only"))
                continue
            d = self.best_partner(view, j)
            if d is None:
                d = self.idle_device(view, j)
            if d is None:
                still.append(j)
                continue
            self.placed[d].append(j)
            out.append(colocsim.Place(j, [d]))
        self.waiting = still
        return out
