"""Load mmprof CSV files into pandas with their types, and summarise runs.

Run with Debian's interpreter (/usr/bin/python3), which has python3-pandas:

    /usr/bin/python3 analysis/mmprof_csv.py results/byte_8t.csv

prints one line per run: the median, mean, standard deviation and CV of its
repetitions, computed from the rows (so a notebook and mmprof's own table
can be compared).
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
         "advice", "pus_planned", "pus_seen"]

# What identifies one run: rows that share these are its repetitions.
RUN_KEYS = ["run_id", "job", "probe", "kernel", "threads", "access", "buffer", "refcount",
            "tally", "placement", "control", "file", "prefault", "advice"]


def load(path):
    """One mmprof CSV as a DataFrame with nullable integer and boolean
    columns; raises ValueError for another schema version."""
    df = pd.read_csv(path, dtype={c: "string" for c in _TEXT}, keep_default_na=False,
                     na_values={c: [""] for c in _INT + _BOOL + ["ns_per_byte"]})
    versions = set(df["schema_version"].unique())
    if versions != {SCHEMA_VERSION}:
        raise ValueError(f"{path}: schema_version {sorted(versions)}, expected {SCHEMA_VERSION}")
    for c in _INT:
        if c in df:
            df[c] = df[c].astype("Int64")
    for c in _BOOL:
        if c in df:
            df[c] = df[c].map({"true": True, "false": False, True: True, False: False}).astype("boolean")
    df["started_at"] = pd.to_datetime(df["started_at"], utc=True)
    return df


def runs(df):
    """One row per run: repetitions, median/mean/std/min of elapsed_ns, CV,
    median ns per byte and whether every repetition's result was right."""
    keys = [k for k in RUN_KEYS if k in df]
    g = df.groupby(keys, dropna=False, sort=False)
    out = g["elapsed_ns"].agg(reps="count", median_ns="median", mean_ns="mean",
                              std_ns="std", min_ns="min").reset_index()
    out["cv"] = out["std_ns"] / out["mean_ns"]
    out["ns_per_byte"] = out["median_ns"] / g["bytes"].first().values
    out["all_ok"] = g["result_ok"].all().values
    return out


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
