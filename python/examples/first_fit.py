"""first-fit, written in Python: the same decisions as the C++ policy `first-fit` (policies/FirstFit.cpp on
policies/SlotPolicy.cpp and policies/FcfsQueue.cpp), so a run with it writes the same jobs.csv,
timeseries.csv and summary.json numbers (python/tests/test_policies.py checks it byte for byte).

Jobs in submission order, the queue head blocking the rest; each goes to the lowest-index devices that have a
free slot (fewer than max_per_device of this policy's jobs, within the sharing mode's own limit), enough free
memory by the memory notion, are available and whose type the job accepts.

    colocsim run --policy-python python/examples/first_fit.py:FirstFit
    colocsim.run(policy=FirstFit())
"""
import bisect

import colocsim


class FirstFit(colocsim.Policy):
    def __init__(self, max_per_device=2, memory="declared"):
        super().__init__()
        if memory not in ("declared", "profile", "none"):
            raise ValueError(f"memory must be declared, profile or none, not {memory!r}")
        self.max_per_device = max_per_device
        self.memory = memory
        self.initialised = False
        self.queue = []  # waiting job indices, sorted (submission order)

    # -- bookkeeping (SlotPolicy) --
    def capacity_for(self, mode):
        limit = colocsim.max_residents(mode)
        return self.max_per_device if limit == 0 else min(self.max_per_device, limit)

    def job_mem(self, view, j):
        if self.memory == "declared":
            return view.job(j).mem_request_bytes
        if self.memory == "profile":
            return view.signature(j).mem_bytes
        return 0.0

    def init(self, view):
        n = view.device_count()
        self.slots, self.capacity, self.mem_free, self.node_of = [0] * n, [0] * n, [0.0] * n, [0] * n
        self.max_memory = 0.0
        self.type_memory = {}  # device type -> [first device, largest memory]
        self.node_off = set()
        for d in range(n):
            dv = view.device(d)
            self.capacity[d] = self.capacity_for(dv.mode)
            self.mem_free[d] = dv.memory_bytes
            self.max_memory = max(self.max_memory, dv.memory_bytes)
            tm = self.type_memory.setdefault(dv.type, [d, dv.memory_bytes])
            tm[1] = max(tm[1], dv.memory_bytes)
            self.node_of[d] = dv.node
            self.slots[d] = dv.residents
            for r in view.residents(d):
                self.mem_free[d] -= self.job_mem(view, r)
        self.initialised = True

    def occupy(self, view, j, devices, sign):
        m = self.job_mem(view, j)
        for d in devices:
            self.slots[d] += sign
            self.mem_free[d] -= sign * m

    def never_runs(self, view, j):
        need = self.job_mem(view, j)
        if need > self.max_memory:
            return "needs more memory than any device has"
        job = view.job(j)
        if job.gpu_types:
            most = 0.0
            for first, memory in self.type_memory.values():
                if view.allows(j, first):
                    most = max(most, memory)
            if need > most:
                return f"needs more memory than any device of its types '{job.gpu_types}' has"
        return None

    # -- the FCFS queue's event handling (FcfsQueue::handle) --
    def handle(self, view, events, out):
        for e in events:
            if isinstance(e, colocsim.JobSubmitted):
                j, why = e.job, None
                job = view.job(j)
                if job.devices > view.device_count():
                    why = "requests more devices than the platform has"
                elif job.gpu_types and job.devices > 1:
                    fit = sum(1 for d in range(view.device_count()) if view.allows(j, d))
                    if fit < job.devices:
                        why = f"requests {job.devices} devices of types '{job.gpu_types}'; the platform has {fit}"
                if why is None:
                    why = self.never_runs(view, j)
                if why is not None:
                    out.append(colocsim.Reject(j, why))
                else:
                    bisect.insort(self.queue, j)
            elif isinstance(e, colocsim.JobCompleted):
                self.occupy(view, e.job, e.devices, -1)
            elif isinstance(e, colocsim.JobFailed):
                self.occupy(view, e.job, e.devices, -1)
                if e.requeued:
                    bisect.insort(self.queue, e.job)
            elif isinstance(e, colocsim.DeviceRepartitioned):
                self.capacity[e.device] = self.capacity_for(e.mode)
            elif isinstance(e, colocsim.NodePowered):
                for d, node in enumerate(self.node_of):
                    if node == e.node:
                        (self.node_off.discard if e.on else self.node_off.add)(d)

    # -- the choice (FirstFit::choose) --
    def choose(self, view, j, mem):
        need = view.job(j).devices
        devices = []
        for d in range(len(self.slots)):
            if self.slots[d] >= self.capacity[d] or d in self.node_off or self.mem_free[d] < mem:
                continue
            if not view.device(d).available or not view.allows(j, d):
                continue
            devices.append(d)
            if len(devices) == need:
                return devices
        return []

    def decide(self, view, events):
        if not self.initialised:
            self.init(view)
        out = []
        self.handle(view, events, out)
        while self.queue:  # strict submission order: the head blocks the rest
            j = self.queue[0]
            devices = self.choose(view, j, self.job_mem(view, j))
            if len(devices) != view.job(j).devices:
                break
            self.occupy(view, j, devices, +1)
            self.queue.pop(0)
            out.append(colocsim.Place(j, devices))
        return out
