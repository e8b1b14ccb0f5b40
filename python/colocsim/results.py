"""Reading colocsim's output directories (docs/formats/outputs.md, docs/formats/sweep.md) into pandas."""
import json
import os


def _pandas():
    try:
        import pandas  # imported on first use: a policy run by the command line never needs it
    except ImportError as e:
        raise ImportError(
            "colocsim reads jobs and timeseries tables with pandas, which this Python does not have "
            "(Debian: apt-get install python3-pandas; or pip install pandas)"
        ) from e
    return pandas


def _read_table(directory, name):
    """name.csv or name.csv.gz of a run directory as a DataFrame (None if the run wrote neither; the
    ImportError if this Python has no pandas, raised when the table is asked for: a run needs no pandas)."""
    for file in (name + ".csv", name + ".csv.gz"):
        path = os.path.join(directory, file)
        if os.path.exists(path):
            try:
                _pandas()
            except ImportError as e:
                return e
            # compression is inferred from the suffix; ids stay text ("003" is not 3); round_trip: every
            # number is the double the file's shortest representation names (pandas' default parser is off
            # by an ulp on some, e.g. 1357.4856225)
            return _pandas().read_csv(path, dtype={"id": str} if name == "jobs" else None, float_precision="round_trip")
    return None


class Result:
    """One run: summary (dict, the fields of summary.json), jobs and timeseries (DataFrames, or None if the
    run did not write them), dir (the run directory; None for a temporary one)."""

    def __init__(self, summary, jobs, timeseries, dir=None):
        self.summary = summary
        self._jobs = jobs
        self._timeseries = timeseries
        self.dir = dir

    @property
    def jobs(self):
        if isinstance(self._jobs, ImportError):  # read without pandas: summary only
            raise self._jobs
        return self._jobs

    @jobs.setter
    def jobs(self, value):
        self._jobs = value

    @property
    def timeseries(self):
        if isinstance(self._timeseries, ImportError):
            raise self._timeseries
        return self._timeseries

    @timeseries.setter
    def timeseries(self, value):
        self._timeseries = value

    def __repr__(self):
        s = self.summary
        return (
            f"<colocsim.Result {s.get('scenario')}: policy {s.get('policy')}, makespan {s.get('makespan_s')} s, "
            f"{s.get('jobs_completed')} of {s.get('jobs_read')} jobs completed>"
        )


def load_run(dir):
    """The Result of a run directory (what `colocsim run -o DIR` wrote)."""
    dir = os.fspath(dir)
    path = os.path.join(dir, "summary.json")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{dir}: no summary.json; expected a colocsim run directory (colocsim run -o DIR)")
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    return Result(summary, _read_table(dir, "jobs"), _read_table(dir, "timeseries"), dir)


def _flatten(summary):
    """summary.json's fields as scalars: lists joined with ';' (plugins: their paths, as sweep.csv), maps as
    key.subkey columns."""
    row = {}
    for k, v in summary.items():
        if isinstance(v, dict):
            for sk, sv in v.items():
                row[f"{k}.{sk}"] = sv
        elif isinstance(v, list):
            row[k] = ";".join(x.get("path", "") if isinstance(x, dict) else str(x) for x in v)
        else:
            row[k] = v
    return row


def load_sweep(dir, jobs=False):
    """One tidy DataFrame of a sweep directory (what `colocsim sweep SPEC -o DIR` wrote).

    jobs=False: one row per run: run, status, the run's parameters as sweep.csv gives them (one column per
    axis, seed, and plugins/plugins_sha256 if any), then every field of the run's summary.json that is not
    already a column (an axis named `policy` keeps its value as given, e.g. first-fit:max_per_device=4).
    jobs=True: one row per job of every run: run, run_status (the sweep's status of the run), the
    parameters, then the run's jobs.csv (or jobs.csv.gz) columns.
    A failed run has empty summary fields and no jobs.
    """
    pd = _pandas()
    dir = os.fspath(dir)
    path = os.path.join(dir, "sweep.csv")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{dir}: no sweep.csv; expected a colocsim sweep directory (colocsim sweep SPEC -o DIR)")
    sweep = pd.read_csv(path, dtype={"run": str, "status": str}, keep_default_na=False, float_precision="round_trip")
    cols = list(sweep.columns)
    # sweep.csv: run, status, one column per axis, seed, [plugins, plugins_sha256], then summary numbers.
    last = cols.index("seed")
    if "plugins_sha256" in cols:
        last = cols.index("plugins_sha256")
    params = sweep[cols[: last + 1]].copy()
    if not jobs:
        rows = []
        for run in params["run"]:
            summary_path = os.path.join(dir, run, "summary.json")
            row = {"run": run}
            if os.path.exists(summary_path):
                with open(summary_path, encoding="utf-8") as f:
                    row.update({k: v for k, v in _flatten(json.load(f)).items() if k not in params.columns})
            rows.append(row)
        return params.merge(pd.DataFrame(rows), on="run", how="left")
    params = params.rename(columns={"status": "run_status"})  # jobs.csv has its own status
    frames = []
    for _, p in params.iterrows():
        table = _read_table(os.path.join(dir, p["run"]), "jobs")
        if table is None:
            continue
        for i, c in enumerate(params.columns):
            table.insert(i, c, p[c])
        frames.append(table)
    if not frames:
        return pd.DataFrame(columns=list(params.columns))
    return pd.concat(frames, ignore_index=True)
