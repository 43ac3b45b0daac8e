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

import sys

import pandas as pd

SCHEMA_VERSION = 1

# Columns whose cell may be empty: empty means "does not apply" (or, for
# counters, "not counted"), never 0.
_INT = ["threads", "access", "buffer", "rep", "bytes", "elapsed_ns", "result", "seed",
        "npus", "thread_ns_min", "thread_ns_max"]
_BOOL = ["result_ok", "oversubscribed", "prefault"]
_TEXT = ["job", "probe", "kernel", "refcount", "tally", "placement", "control", "run_id",
         "host", "cpu_model", "kernel_release", "mmprof_version", "file", "fill",
         "advice", "cache", "pus_planned", "pus_seen"]

# NAME.attribution.csv: text columns, and numbers whose cell may be empty.
_ATTRIBUTION_TEXT = ["run_id", "job", "probe", "kernel", "refcount", "tally", "placement",
                     "cache", "cause", "detail", "control", "evidence", "evidence_missing"]
_ATTRIBUTION_NUM = ["threads", "access", "buffer", "bytes", "ns_per_byte", "share",
                    "significant",
                    "noise_ns_per_byte", "cv_before", "cv_after", "evidence_before",
                    "evidence_after"]

# What identifies one run: rows that share these are its repetitions.
RUN_KEYS = ["run_id", "job", "probe", "kernel", "threads", "access", "buffer", "refcount",
            "tally", "placement", "control", "file", "prefault", "advice", "cache"]


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
    """runs(df) of the jobs themselves: rows with an empty `control`
    (the others are control variants and twins, README "Attribution")."""
    r = runs(df)
    return r[r["control"] == ""].reset_index(drop=True)


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
    for c in ["threads", "access", "buffer", "bytes"]:
        if c in df:
            df[c] = df[c].astype("Int64")
    df["significant"] = _boolean(df["significant"])
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
