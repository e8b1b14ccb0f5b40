"""Reading colocsim's output directories (docs/formats/outputs.md, docs/formats/sweep.md) into pandas."""
import io
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


def _table_file(directory, name):
    """The path of name.csv or name.csv.gz in a run directory, None if the run wrote neither."""
    for file in (name + ".csv", name + ".csv.gz"):
        path = os.path.join(directory, file)
        if os.path.exists(path):
            return path
    return None


def _parse_table(source, name, gzipped):
    """A table (a path, or the bytes of one) as a DataFrame: ids stay text ("003" is not 3); round_trip:
    every number is the double the file's shortest representation names (pandas' default parser is off by
    an ulp on some, e.g. 1357.4856225)."""
    pd = _pandas()
    if isinstance(source, bytes):
        source = io.BytesIO(source)
    return pd.read_csv(source, dtype={"id": str} if name == "jobs" else None, float_precision="round_trip",
                       compression="gzip" if gzipped else None)


def _read_table(directory, name):
    """name.csv or name.csv.gz of a run directory as a DataFrame (None if the run wrote neither)."""
    path = _table_file(directory, name)
    return None if path is None else _parse_table(path, name, path.endswith(".gz"))


class _Unread:
    """A table of a run not read yet: read on first use, so that a run and its summary need no pandas."""

    def __init__(self, name, path):
        self.name, self.path, self.data = name, path, None

    def keep(self):
        """Holds the file's bytes, for a run directory about to be removed."""
        with open(self.path, "rb") as f:
            self.data = f.read()

    def read(self):
        return _parse_table(self.path if self.data is None else self.data, self.name, self.path.endswith(".gz"))


class Result:
    """One run: summary (dict, the fields of summary.json), jobs and timeseries (DataFrames, or None if the
    run did not write them), dir (the run directory; None for a temporary one)."""

    def __init__(self, summary, jobs, timeseries, dir=None):
        self.summary = summary
        self._tables = {"jobs": jobs, "timeseries": timeseries}
        self.dir = dir

    def _table(self, name):
        table = self._tables[name]
        if isinstance(table, _Unread):  # pandas is imported here, on first use, not by run() or load_run()
            table = self._tables[name] = table.read()
        return table

    @property
    def jobs(self):
        return self._table("jobs")

    @jobs.setter
    def jobs(self, value):
        self._tables["jobs"] = value

    @property
    def timeseries(self):
        return self._table("timeseries")

    @timeseries.setter
    def timeseries(self, value):
        self._tables["timeseries"] = value

    def _keep_tables(self):
        """Holds the unread tables' bytes: the run directory is about to be removed."""
        for table in self._tables.values():
            if isinstance(table, _Unread):
                table.keep()

    def __repr__(self):
        s = self.summary
        return (
            f"<colocsim.Result {s.get('scenario')}: policy {s.get('policy')}, makespan {s.get('makespan_s')} s, "
            f"{s.get('jobs_completed')} of {s.get('jobs_read')} jobs completed>"
        )


def load_run(dir):
    """The Result of a run directory (what `colocsim run -o DIR` wrote). Its jobs and timeseries tables are
    read with pandas on first use: the summary alone needs no pandas."""
    dir = os.fspath(dir)
    path = os.path.join(dir, "summary.json")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{dir}: no summary.json; expected a colocsim run directory (colocsim run -o DIR)")
    with open(path, encoding="utf-8") as f:
        summary = json.load(f)
    tables = {}
    for name in ("jobs", "timeseries"):
        path = _table_file(dir, name)
        tables[name] = None if path is None else _Unread(name, path)
    return Result(summary, tables["jobs"], tables["timeseries"], dir)


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
