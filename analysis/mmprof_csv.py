"""Load mmprof CSV files into pandas with their types, and summarise runs.

Run with Debian's interpreter (/usr/bin/python3), which has python3-pandas:

    /usr/bin/python3 analysis/mmprof_csv.py results/byte_8t.csv

prints one line per run: the median, mean, standard deviation and CV of its
repetitions, computed from the rows (so a notebook and mmprof's own table
can be compared).

As a module: load(path) and load_attribution(path) read NAME.csv and
NAME.attribution.csv with their types; runs(df) summarises every run,
job_runs(df) only the jobs themselves (empty `control`), and summary(df)
is the jobs' table in mmprof's units.  mmprof_plots.py draws them.
"""

import math
import sys

import numpy as np
import pandas as pd

SCHEMA_VERSION = 2

# Columns whose cell may be empty: empty means "does not apply" (or, for
# counters, "not counted"), never 0.
_INT = ["threads", "access", "buffer", "run", "parent", "set", "rep", "round", "position",
        "bytes", "elapsed_ns", "result", "seed", "npus", "thread_ns_min", "thread_ns_max",
        "nivcsw", "wall_ns"]
_BOOL = ["result_ok", "oversubscribed", "prefault", "disturbed"]
_TEXT = ["job", "probe", "kernel", "refcount", "tally", "placement", "control", "run_id",
         "host", "cpu_model", "kernel_release", "mmprof_version", "file", "fill",
         "advice", "cache", "pus_planned", "pus_seen", "disturbed_why", "order_seed", "log"]

# NAME.attribution.csv: text columns, and numbers whose cell may be empty.
_ATTRIBUTION_TEXT = ["run_id", "job", "probe", "kernel", "refcount", "tally", "placement",
                     "cache", "cause", "detail", "controls", "order", "evidence",
                     "evidence_missing"]
_ATTRIBUTION_NUM = ["run", "threads", "access", "buffer", "bytes", "ns_per_byte", "ci_low",
                    "ci_high", "share", "share_low", "share_high", "rounds",
                    "evidence_before", "evidence_after"]
_ATTRIBUTION_BOOL = ["interacting", "significant", "understated", "disturbed"]

# What identifies one run: its invocation and its number in the plan; the
# rest describes it.
ID_KEYS = ["run", "parent", "set"]
RUN_KEYS = ["run_id"] + ID_KEYS + ["job", "probe", "kernel", "threads", "access", "buffer",
                                   "refcount", "tally", "placement", "control", "file",
                                   "prefault", "advice", "cache"]
# What a run is, whatever its number: runs that differ only in these are
# the same measurement at another point (plots draw them as one line).
DESCRIBE_KEYS = [k for k in RUN_KEYS if k not in ID_KEYS]

# Student's t, 97.5% quantile (as mmprof's src/intervals.c): the two-sided
# 95% interval's multiplier for df degrees of freedom.
_T975 = [float("inf"), 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
         2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
MIN_CLEAN_ROUNDS = 3


def load(path):
    """One mmprof CSV as a DataFrame with nullable integer and boolean
    columns; raises ValueError for another schema version."""
    df = pd.read_csv(path, dtype={c: "string" for c in _TEXT}, keep_default_na=False,
                     na_values={c: [""] for c in _INT + _BOOL + ["ns_per_byte"]})
    if len(df) == 0:
        raise ValueError(f"{path}: no rows (a run stopped before its first repetition?)")
    versions = set(df["schema_version"].unique())
    if versions != {SCHEMA_VERSION}:
        raise ValueError(f"{path}: schema_version {sorted(versions)}, expected {SCHEMA_VERSION}")
    for c in _INT:
        if c in df:
            df[c] = df[c].astype("Int64")
    for c in _BOOL:
        if c in df:
            df[c] = _boolean(df[c])
    df["started_at"] = pd.to_datetime(df["started_at"], utc=True)
    return df


def runs(df):
    """One row per run: repetitions, median/mean/std/min of elapsed_ns, CV,
    median ns per byte and whether every repetition's result was right."""
    keys = [k for k in RUN_KEYS if k in df]
    g = df.groupby(keys, dropna=False, sort=False)
    out = g["elapsed_ns"].agg(reps="count", median_ns="median", mean_ns="mean",
                              std_ns="std", min_ns="min", max_ns="max").reset_index()
    out["cv"] = out["std_ns"] / out["mean_ns"]
    out["bytes"] = g["bytes"].first().values
    out["ns_per_byte"] = out["median_ns"] / out["bytes"]
    out["all_ok"] = g["result_ok"].all().values
    return out


def job_runs(df):
    """runs(df) of the job points themselves: a run that is its own parent
    (the others are control rungs, and copies of a limit run in another
    comparison set; README "Attribution")."""
    r = runs(df)
    return r[r["run"] == r["parent"]].reset_index(drop=True)


def summary(df):
    """The per-run table of the jobs, in run order, in the units of
    mmprof's own table (median ms, CV %, ns per byte, GB/s); columns that
    are empty for every run (no buffer, no refcount...) are left out."""
    r = job_runs(df)
    cols = [c for c in ["job", "probe", "kernel", "refcount", "tally", "threads", "access",
                        "buffer", "bytes"] if c in r and not _empty(r[c])]
    table = r[cols].copy()
    table["reps"] = r["reps"]
    table["median_ms"] = r["median_ns"] / 1e6
    table["cv_%"] = 100 * r["cv"]
    table["ns_per_byte"] = r["ns_per_byte"]
    table["GB/s"] = r["bytes"] / r["median_ns"]
    table["all_ok"] = r["all_ok"]
    return table


def t975(df):
    """The 97.5% quantile of Student's t, as mmprof computes it."""
    if df <= 30:
        return _T975[df]
    table = [(30, 2.042), (40, 2.021), (60, 2.000), (120, 1.980), (float("inf"), 1.960)]
    for (d0, t0), (d1, t1) in zip(table, table[1:]):
        if df <= d1:
            x, x0, x1 = 1 / df, 1 / d0, 0 if d1 == float("inf") else 1 / d1
            return t1 + (t0 - t1) * (x - x1) / (x0 - x1)
    return 1.960


def paired_ratio(df, run_a, run_b):
    """Run a's time over run b's as mmprof computes it: the two runs' rounds
    paired (they ran in one comparison set), the rounds either was disturbed
    in left out when MIN_CLEAN_ROUNDS others remain, and the geometric mean
    of the paired ratios with its 95% t-interval.  Returns (ratio, low,
    high, rounds); low and high are NaN with fewer than 2 rounds."""
    a = df[df["run"] == run_a].set_index("round")
    b = df[df["run"] == run_b].set_index("round")
    rounds = a.index.intersection(b.index)
    a, b = a.loc[rounds], b.loc[rounds]
    clean = ~(a["disturbed"].fillna(False).values | b["disturbed"].fillna(False).values)
    if clean.sum() >= MIN_CLEAN_ROUNDS or clean.all():
        a, b = a[clean], b[clean]
    logs = np.log(a["elapsed_ns"].astype(float).values / b["elapsed_ns"].astype(float).values)
    n = len(logs)
    if n == 0:
        return (float("nan"),) * 3 + (0,)
    mean = logs.mean()
    if n < 2:
        return math.exp(mean), float("nan"), float("nan"), n
    half = t975(n - 1) * logs.std(ddof=1) / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half), n


def _empty(column):
    """True when every cell of the column is empty or NA."""
    return bool((column.isna() | (column.astype("string") == "")).all())


def load_attribution(path):
    """NAME.attribution.csv (one row per job run and cause) as a DataFrame;
    raises ValueError for another schema version."""
    df = pd.read_csv(path, dtype={c: "string" for c in _ATTRIBUTION_TEXT},
                     keep_default_na=False,
                     na_values={c: [""] for c in _ATTRIBUTION_NUM})
    versions = set(df["schema_version"].unique())
    if len(df) and versions != {SCHEMA_VERSION}:
        raise ValueError(f"{path}: schema_version {sorted(versions)}, expected {SCHEMA_VERSION}")
    for c in ["run", "threads", "access", "buffer", "bytes", "rounds"]:
        if c in df:
            df[c] = df[c].astype("Int64")
    for c in _ATTRIBUTION_BOOL:
        if c in df:
            df[c] = _boolean(df[c])
    return df


def _boolean(column):
    """A true/false column (read as text or as bool) as a nullable boolean."""
    return column.map({"true": True, "false": False, True: True, False: False}).astype("boolean")


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    table = runs(load(argv[1]))
    cols = ["job", "probe", "threads", "access", "control", "reps", "median_ns", "cv",
            "ns_per_byte", "all_ok"]
    with pd.option_context("display.width", 200, "display.max_rows", 1000):
        print(table[cols].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
