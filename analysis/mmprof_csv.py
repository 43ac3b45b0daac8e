"""Load mmprof CSV files into pandas with their types, and summarise runs.

Run with Debian's interpreter (/usr/bin/python3), which has python3-pandas:

    /usr/bin/python3 analysis/mmprof_csv.py results/byte_8t.csv

prints one line per run: the median, mean, standard deviation and CV of its
repetitions, computed from the rows (so a notebook and mmprof's own table
can be compared), then the answers of NAME.answers.csv when there are any.

As a module (docs/analysis.md):

    load(path)              NAME.csv, one row per run and repetition
    load_events(path)       NAME.events.csv   (path: NAME.csv or the file)
    load_threads(path)      NAME.threads.csv
    load_attribution(path)  NAME.attribution.csv
    load_answers(path)      NAME.answers.csv
    load_many(paths or glob, loader=load)   several files or hosts, one frame
    load_fleet(path)        `mmprof compare H1 H2 H3 ... --csv PATH`: each
                            host at each job point against its median host

Every file is typed the same way: numbers are float64 with NaN where the
cell is empty (not counted, does not apply: never 0), except the numbers
every row has (run, parent, set, rep, round, position, threads...), which
are int64; true/false and yes/no are nullable booleans; empty text is
pd.NA; started_at is a UTC timestamp.  A missing companion file loads as
an empty frame with its typed columns.  Another schema_version is refused.

runs(df) summarises every run, job_runs(df) only the job points, summary(df)
is the job points' table in mmprof's units, counters(df) the derived
metrics as mmprof's counters table has them, paired_ratio() one ratio as
mmprof computes it, pairs(df) and node_cells(df) the cells of the
core-to-core and node-to-node matrices.  mmprof_plots.py draws them.
"""

import glob
import math
import os
import sys

import numpy as np
import pandas as pd

SCHEMA_VERSION = 2

# Every column of every file and how it is typed, in the order of
# `mmprof --list-columns` (tests/integration/analysis.sh keeps the two
# equal).  name:id is int64 (every row has it), name:num float64 (NaN where
# empty), name:bool a nullable boolean, name:time a UTC timestamp, a bare
# name text (pd.NA where empty).
_COLUMNS = {
    "csv": """schema_version:id job probe kernel threads:id access:num buffer:num refcount
        tally placement control run:id parent:id set:id rep:id round:id position:id
        bytes:num elapsed_ns:num ns_per_byte:num result:num result_ok:bool cpu_ns:num
        cycles_per_byte:num instructions_per_byte:num ipc:num faults_per_mib:num
        major_faults:num syscalls_per_mib:num reads_per_mib:num context_switches:num
        migrations:num contention_per_kib:num remote_hitm_per_kib:num
        remote_fwd_per_kib:num remote_dram_share:num cross_ccx_per_kib:num
        dtlb_misses_per_kib:num oversubscribed:bool disturbed:bool
        disturbed_why overlap:num wait_max:num busy:num cpu_pressure:num nivcsw:num
        others_busy:num escaped:bool unexplained_busy:num kernel_busy:num kernel_tasks other_tasks
        mmprof_busy:num run_id host cpu_model kernel_release mmprof_version started_at:time
        order_seed file log wall_ns:num fill seed prefault:bool advice cache membind bind data hugepages:bool huge_bytes:num
        preload_loaded:num preload_mappings:num prefaulted_bytes:num
        data_nodes data_pages:num data_examined:num data_absent:num state_node:num
        npus:num pus_planned pus_seen pus_ran thread_ns_min:num thread_ns_max:num unit ops:num
        ns_per_op:num transfer limit_run:num jitnames:bool env touch:bool platform
        first_touch_ns:num first_touch_low_ns:num first_touch_high_ns:num scan_gbs:num
        touched_bytes:num preload_blocks:num bulk_calls:num bulk_served:num bulk_syscalls:num
        bulk_aside""",
    # thread is empty on the rows that sum the run's threads: NaN there.
    "events": """schema_version:id run_id run:id rep:id thread:num event value:num raw:num
        enabled_ns:num running_ns:num state host""",
    "threads": """schema_version:id run_id job probe threads:id control run:id rep:id
        thread:id pu_planned:num pu_seen:num allowed pu_node:num remote_share:num
        thread_ns:num host""",
    "attribution": """schema_version:id run_id run:id job probe kernel threads:id access:num
        buffer:num refcount tally placement cache bytes:num cause detail controls
        interacting:bool ns_per_byte:num ci_low:num ci_high:num share:num share_low:num
        share_high:num significant:bool understated:bool rounds:num disturbed:bool order
        evidence evidence_before:num evidence_after:num evidence_missing unit
        ns_per_op:num used:bool not_shown cpu_ratio:num page_ns:num page_ns_low:num
        page_ns_high:num below_kernel:bool host""",
    "answers": """schema_version:id run_id set:id kind question job other run:id
        other_run:num threads:id access:num bytes:num ratio:num ci_low:num ci_high:num
        tolerance:num outcome verdict rounds:num disturbed_reps:num used_disturbed:bool
        more_rounds:num evidence host""",
    "profile": """schema_version:id run_id run:id job threads:id control kind name module
        function file line:num offset kernel:bool why samples:num rounds:num share:num
        share_low:num share_high:num from_run:num from growth:num growth_low:num
        growth_high:num total_growth:num total_growth_low:num total_growth_high:num unit
        sample_ns:num fault_period:num host""",
}
COLUMNS = {kind: [tuple((c + ":text").split(":")[:2]) for c in spec.split()]
           for kind, spec in _COLUMNS.items()}
_WHAT = {"csv": "NAME.csv", "events": "NAME.events.csv", "threads": "NAME.threads.csv",
         "attribution": "NAME.attribution.csv", "answers": "NAME.answers.csv", "profile": "NAME.profile.csv"}
COMPANIONS = ["events", "threads", "attribution", "answers", "profile"]

# The derived metrics of NAME.csv, as mmprof's counters table shows them.
METRICS = ["cpu_ns", "cycles_per_byte", "instructions_per_byte", "ipc", "faults_per_mib",
           "major_faults", "syscalls_per_mib", "reads_per_mib", "context_switches",
           "migrations", "contention_per_kib"]

# What each config key means for a run's identity, as mmprof's key table
# says it: analysis/keys.tsv is `mmprof --list-keys=roles`, written by
# scripts/update-docs.sh and checked against the binary by
# tests/integration/docs.sh.  A file beside this module rather than a call
# of the binary: a notebook reads CSVs copied from a test machine where no
# mmprof is built.
KEYS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keys.tsv")


def _key_roles(path=KEYS_FILE):
    """{key: set of roles} from keys.tsv (key TAB role,role or -)."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise RuntimeError(f"{path}: cannot read mmprof's key roles ({e.strerror}); "
                           "regenerate it with scripts/update-docs.sh") from None
    if not lines or lines[0] != "key\troles":
        raise RuntimeError(f"{path}: not `mmprof --list-keys=roles` output "
                           "(regenerate it with scripts/update-docs.sh)")
    roles = {}
    for line in lines[1:]:
        key, _, have = line.partition("\t")
        roles[key] = set() if have == "-" else set(have.split(","))
    return roles


KEY_ROLES = _key_roles()
# What identifies one run: its invocation and its number in the plan; the
# rest describes it (the keys that identify a run, as their CSV columns:
# size is the CSV's bytes, so it is left out; probe first, control last).
ID_KEYS = ["run", "parent", "set"]
RUN_KEYS = (["run_id"] + ID_KEYS + ["job", "probe"] +
            [k for k, r in KEY_ROLES.items() if "run" in r and k not in ("probe", "size")] +
            ["control"])
# What a run is, whatever its number: runs that differ only in these are
# the same measurement at another point (plots draw them as one line).
DESCRIBE_KEYS = [k for k in RUN_KEYS if k not in ID_KEYS]

# Student's t, 97.5% quantile (as mmprof's src/result/intervals.c): the two-sided
# 95% interval's multiplier for df degrees of freedom.
_T975 = [float("inf"), 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074,
         2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]
MIN_CLEAN_ROUNDS = 3


# --- loading -----------------------------------------------------------------

def load(path):
    """NAME.csv as a DataFrame, typed (see the module's docstring); raises
    ValueError for a file with no rows, another schema version or missing
    columns, naming the file."""
    df = _read(path, "csv", missing_ok=False)
    if len(df) == 0:
        raise ValueError(f"{path}: no rows (a run stopped before its first repetition?)")
    return df


def load_events(path):
    """NAME.events.csv beside NAME.csv (`path` is either): one row per run,
    repetition, thread (NaN: the sum over the run's threads) and event."""
    return _read(companion(path, "events"), "events")


def load_threads(path):
    """NAME.threads.csv (written with --per-thread): one row per thread of
    every repetition."""
    return _read(companion(path, "threads"), "threads")


def load_attribution(path):
    """NAME.attribution.csv (runs with controls): one row per job point and
    cause; the shares of one job point add up to 1."""
    return _read(companion(path, "attribution"), "attribution")


def load_answers(path):
    """NAME.answers.csv: one row per answer (kind ratio, gap, cause, fix,
    match, regression or fastest) with its 95% interval and outcome."""
    return _read(companion(path, "answers"), "answers")


def load_profile(path):
    """NAME.profile.csv (exec jobs sampled with profile): one row per hot
    function, source line or faulting mapping of each profiled run, and
    the growth rows from a control to the job."""
    return _read(companion(path, "profile"), "profile")


FLEET_SCHEMA_VERSION = 1
# The fleet CSV's columns after compare's key columns (all text), typed as
# _COLUMNS types them.
_FLEET = """host run:id run_id median_host hosts:id used:num median_ns:num ratio:num
    ci_low:num ci_high:num ceiling_ratio:num ceiling_ci_low:num ceiling_ci_high:num
    tolerance:num outcome disturbed:bool"""


def load_fleet(path):
    """The CSV of `mmprof compare H1.csv H2.csv H3.csv ... --csv PATH`
    (docs/compare.md, "Many hosts"): one row per job point and host, its
    ratio to the job point's median host with the 95% interval, and over
    the ceiling (ceiling_ratio) where both runs carry one, which the
    outcome is judged on; the median host's own row has outcome "median".
    Compare's key columns (job, probe, control, threads...) are text."""
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False)
    if "median_host" not in raw or "schema_version" not in raw:
        raise ValueError(f"{path}: not the CSV of mmprof compare with three files or more"
                         " (no median_host column)")
    versions = sorted(set(raw["schema_version"]))
    if versions != [str(FLEET_SCHEMA_VERSION)]:
        raise ValueError(f"{path}: fleet schema_version {', '.join(versions)}; this analysis/"
                         f" reads {FLEET_SCHEMA_VERSION}")
    types = dict(tuple((c + ":text").split(":")[:2]) for c in _FLEET.split())
    types["schema_version"] = "id"
    df = pd.DataFrame(index=raw.index)
    for c in raw.columns:
        t, cells = types.get(c, "text"), raw[c]
        if t == "text":
            df[c] = cells.astype("string").mask(cells == "")
        elif t == "bool":
            df[c] = _boolean(cells, path, c)
        else:
            df[c] = pd.to_numeric(cells.mask(cells == ""), errors="raise").astype(
                "int64" if t == "id" else "float64")
    return df


def companion(path, kind):
    """The path of NAME.<kind>.csv beside NAME.csv; a path that already
    names that companion is returned as it is."""
    path = os.fspath(path)
    if path.endswith(f".{kind}.csv"):
        return path
    return (path[:-4] if path.endswith(".csv") else path) + f".{kind}.csv"


def load_many(paths, loader=None):
    """Several CSVs (of several configs or hosts) as one frame: `paths` is
    a glob ("results/byte_8t-{host}.csv": {host} stands for any name, as *
    does), a path, or a list of either; globs are expanded in sorted order
    and skip the companions (NAME.answers.csv...) they match, so
    "results/*.csv" means the NAME.csv files.  `loader` is load (the
    default) or a companion's loader, which is given each NAME.csv.

    Rows keep their run_id and host, so runs of several files stay apart
    (run numbers repeat from file to file; group by run_id too).  Raises
    FileNotFoundError when nothing matches, ValueError naming the file whose
    schema version or columns differ, or when two files hold the same
    invocation (the same run_id: a file loaded twice)."""
    loader = loader or load
    files = _expand(paths)
    if not files:
        raise FileNotFoundError(f"no file matches {paths!r}")
    frames, owner = [], {}
    for f in files:
        df = loader(f)
        if frames and list(df.columns) != list(frames[0].columns):
            extra = [c for c in df.columns if c not in frames[0].columns]
            lacks = [c for c in frames[0].columns if c not in df.columns]
            raise ValueError(f"{f}: its columns differ from {files[0]}'s"
                             f" (extra: {extra or 'none'}; missing: {lacks or 'none'})")
        for run_id in df["run_id"].dropna().unique():
            if run_id in owner:
                raise ValueError(f"{f}: run_id {run_id} is also in {owner[run_id]}:"
                                 " the same invocation twice")
            owner[run_id] = f
        frames.append(df)
    if len(frames) == 1:
        return frames[0]
    nonempty = [df for df in frames if len(df)] or frames[:1]
    return pd.concat(nonempty, ignore_index=True)


def _expand(paths):
    """The files `paths` names: a glob or path, or a list of them."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files = []
    for p in paths:
        p = os.fspath(p).replace("{host}", "*")
        if glob.has_magic(p):
            files += [f for f in sorted(glob.glob(p))
                      if not any(f.endswith(f".{k}.csv") for k in COMPANIONS)]
        else:
            files.append(p)
    return files


def _read(path, kind, missing_ok=True):
    """One file of `kind` read as text, checked and typed; a missing (or
    empty) companion is an empty frame with the typed columns."""
    what = _WHAT[kind]
    if missing_ok and (not os.path.exists(path) or os.path.getsize(path) == 0):
        return _typed(pd.DataFrame({c: pd.Series([], dtype=str) for c, _ in COLUMNS[kind]}),
                      kind, path)
    if os.path.exists(path) and os.path.getsize(path) == 0:
        raise ValueError(f"{path}: empty file, not an mmprof {what}")
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: not an mmprof {what}: {e}") from None
    if "schema_version" not in raw:
        raise ValueError(f"{path}: not an mmprof {what} (no schema_version column;"
                         f" it has {', '.join(raw.columns[:4])}...)")
    versions = sorted(set(raw["schema_version"]))
    if versions != [str(SCHEMA_VERSION)]:
        wrote = sorted(set(raw.get("mmprof_version", [])) - {""})
        by = f" (by mmprof {', '.join(wrote)})" if wrote else ""
        raise ValueError(f"{path}: written with schema_version {', '.join(versions)}{by};"
                         f" this analysis/ reads schema_version {SCHEMA_VERSION}: use the"
                         " analysis/ of the mmprof that wrote it")
    if kind != "csv" and "host" not in raw and "run_id" in raw:
        _add_host(raw, path, kind)
    lacks = [c for c, _ in COLUMNS[kind] if c not in raw]
    if lacks:
        guess = [_WHAT[k] for k in _WHAT if all(c in raw for c, _ in COLUMNS[k])]
        hint = f" (it looks like {guess[0]})" if guess else ""
        raise ValueError(f"{path}: not an mmprof {what}{hint}: no column {', '.join(lacks[:5])}")
    return _typed(raw, kind, path)


def _add_host(raw, path, kind):
    """A companion written before companions had a host column: its host
    from NAME.csv beside it (the same run_id), left empty where NAME.csv
    is not there to tell."""
    hosts = {}
    main = path[:-len(f".{kind}.csv")] + ".csv" if path.endswith(f".{kind}.csv") else None
    if main and os.path.exists(main):
        try:
            ids = pd.read_csv(main, dtype=str, keep_default_na=False, na_filter=False,
                              usecols=["run_id", "host"])
            hosts = dict(zip(ids["run_id"], ids["host"]))
        except (ValueError, pd.errors.ParserError, UnicodeDecodeError):
            pass
    raw["host"] = raw["run_id"].map(lambda r: hosts.get(r, ""))


def _typed(raw, kind, path):
    """The text frame `raw` with each column converted to its type;
    columns this analysis/ does not know are numbers when every cell is
    one, else text."""
    types = dict(COLUMNS[kind])
    df = pd.DataFrame(index=raw.index)
    for c in raw.columns:
        cells = raw[c]
        t = types.get(c) or ("num" if _numeric(cells) else "text")
        empty = cells == ""
        if t == "text":
            df[c] = cells.astype("string").mask(empty)
        elif t == "bool":
            df[c] = _boolean(cells, path, c)
        elif t == "time":
            df[c] = pd.to_datetime(cells.mask(empty), utc=True)
        else:
            num = pd.to_numeric(cells.mask(empty), errors="coerce").astype("float64")
            bad = num.isna() & ~empty
            if bad.any():
                i = bad.idxmax()
                raise ValueError(f"{path}: line {i + 2}: {c} is {cells[i]!r}, not a number")
            if t == "id":
                if empty.any():
                    raise ValueError(f"{path}: line {empty.idxmax() + 2}: {c} is empty")
                num = num.astype("int64")
            df[c] = num
    return df


def _numeric(cells):
    """True when every non-empty cell of a text column is a number."""
    cells = cells[cells != ""]
    return bool(len(cells)) and bool(pd.to_numeric(cells, errors="coerce").notna().all())


_TRUTH = {"true": True, "false": False, "yes": True, "no": False}


def _boolean(cells, path, column):
    """true/false or yes/no cells as a nullable boolean (empty: NA)."""
    bad = ~cells.isin(list(_TRUTH) + [""])
    if bad.any():
        i = bad.idxmax()
        raise ValueError(f"{path}: line {i + 2}: {column} is {cells[i]!r}, not true or false")
    return cells.map(lambda v: _TRUTH.get(v, pd.NA)).astype("boolean")


# --- summaries ---------------------------------------------------------------

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
    return in_plan_order(out)


def in_plan_order(frame):
    """`frame` sorted as the plan runs: invocation by invocation (in the
    order they first appear), then by run number; a CSV's rows are in the
    shuffled order the rounds measured them."""
    first = {run_id: i for i, run_id in enumerate(dict.fromkeys(frame["run_id"]))}
    return (frame.assign(_invocation=frame["run_id"].map(first))
            .sort_values(["_invocation", "run"], kind="stable")
            .drop(columns="_invocation").reset_index(drop=True))


def job_runs(df):
    """runs(df) of the job points themselves: a run that is its own parent
    (the others are control rungs, and copies of a limit run in another
    comparison set; README "Attribution")."""
    r = runs(df)
    return r[r["run"] == r["parent"]].reset_index(drop=True)


def summary(df):
    """The per-run table of the jobs, in run order, in the units of
    mmprof's own table (median ms, CV %, ns per byte, GB/s); columns that
    are empty for every run (no buffer, no refcount...) are left out.  A
    frame of several invocations (load_many) starts with their host and
    run_id."""
    r = job_runs(df)
    cols = [c for c in ["job", "probe", "kernel", "refcount", "tally", "threads", "access",
                        "buffer", "bytes"] if c in r and not _empty(r[c])]
    if r["run_id"].nunique() > 1:
        r["host"] = r["run_id"].map(df.drop_duplicates("run_id").set_index("run_id")["host"])
        cols = ["host", "run_id"] + cols
    table = r[cols].copy()
    table["reps"] = r["reps"]
    table["median_ms"] = r["median_ns"] / 1e6
    table["cv_%"] = 100 * r["cv"]
    table["ns_per_byte"] = r["ns_per_byte"]
    table["GB/s"] = r["bytes"] / r["median_ns"]
    table["all_ok"] = r["all_ok"]
    return table


def counters(df):
    """The derived metrics of each job point as mmprof's counters table
    has them: the median over its recorded repetitions, NaN unless every
    repetition has a value.  One row per job point (the RUN_KEYS and bytes
    first); only the metrics some job point has a value for."""
    points = df[df["run"] == df["parent"]]
    keys = [k for k in RUN_KEYS if k in points]
    g = points.groupby(keys, dropna=False, sort=False)
    metrics = [m for m in METRICS if m in points]
    out = g[metrics].median().reset_index()
    complete = g[metrics].count().values == g.size().values[:, None]
    out[metrics] = out[metrics].where(complete)
    out["bytes"] = g["bytes"].first().values
    return in_plan_order(out[keys + ["bytes"] + [m for m in metrics if out[m].notna().any()]])



# What a matrix's cells share (src/report/report_matrix.c): every key of the job
# point but where it ran (placement: the PU pair, the CPU node) and, for
# the node matrix, where its memory was (membind).  transfer is used when
# the CSV has it.
MATRIX_KEYS = ["probe", "kernel", "threads", "access", "buffer", "refcount", "tally", "file",
               "fill", "seed", "bytes", "ops", "transfer", "prefault", "touch", "advice", "cache",
               "membind", "bind", "data", "hugepages"]


def pairs(df):
    """The core-to-core cells (placement = pairs, pingpong): one row per
    job point of a probe that counts operations run on a PU pair, in plan
    order: run_id, host, run, job, the MATRIX_KEYS the frame has, pu_a and pu_b
    (int64: pus_planned, "A B"), ns_per_op (the median over its recorded
    rounds of elapsed_ns, over ops: mmprof's matrix cell), unit, rounds
    (int64), cv and all_ok (every round's result right; mmprof leaves the
    others out of its matrix).  No rows, the same columns, when no job
    point ran on pairs."""
    p = _points(df)
    p = p[(p["placement"] == "pairs").fillna(False) & p["unit"].notna()]
    pus = p["pus_planned"].astype("string").str.extract(r"^\s*(\d+)\s+(\d+)\s*$")
    if pus.isna().any().any():
        bad = p["pus_planned"][pus.isna().any(axis=1)].iloc[0]
        raise ValueError(f"run {p['run'][pus.isna().any(axis=1)].iloc[0]}: pus_planned is"
                         f" {bad!r}, not two PUs")
    p = p.assign(pu_a=pus[0].astype("int64"), pu_b=pus[1].astype("int64"),
                 ns_per_op=p["median_ns"] / p["ops"])
    keys = [k for k in MATRIX_KEYS if k in p]
    return p[["run_id", "host", "run", "job"] + keys + [
        "pu_a", "pu_b", "ns_per_op", "unit", "rounds", "cv", "all_ok"]].reset_index(drop=True)


def node_cells(df):
    """The node-to-node cells: one row per job point run with placement =
    numa:M (one node) and membind = node:N, of a probe that counts
    operations (chase, pingpong) or of limit (the bandwidth side), in plan
    order: run_id, host, run, job, the MATRIX_KEYS the frame has but membind,
    cpu_node and mem_node (int64: M and N), ns_per_op (the median over its
    rounds of elapsed_ns, over ops; NaN for limit), gb_per_s (bytes over
    the median elapsed_ns; NaN for the probes that count operations),
    unit, rounds (int64), cv and all_ok, as pairs()."""
    p = _points(df)
    cpu = p["placement"].astype("string").str.extract(r"^numa:(\d+)$")[0]
    mem = p["membind"].astype("string").str.extract(r"^node:(\d+)$")[0]
    p = p[cpu.notna() & mem.notna() & (p["unit"].notna() | (p["probe"] == "limit"))]
    counted = p["unit"].notna()
    p = p.assign(cpu_node=cpu[p.index].astype("int64"), mem_node=mem[p.index].astype("int64"),
                 ns_per_op=(p["median_ns"] / p["ops"]).where(counted),
                 gb_per_s=(p["bytes"] / p["median_ns"]).where(~counted))
    keys = [k for k in MATRIX_KEYS if k in p and k != "membind"]
    return p[["run_id", "host", "run", "job"] + keys + [
        "cpu_node", "mem_node", "ns_per_op", "gb_per_s", "unit", "rounds", "cv",
        "all_ok"]].reset_index(drop=True)


def _points(df):
    """One row per job point, in plan order: its first row's columns, and
    rounds (int64), median_ns, cv and all_ok over its recorded rounds."""
    points = df[df["run"] == df["parent"]]
    g = points.groupby(["run_id", "run"], sort=False)
    out = points.drop_duplicates(["run_id", "run"]).set_index(["run_id", "run"])
    out["rounds"] = g.size().astype("int64")
    out["median_ns"] = g["elapsed_ns"].median()
    out["cv"] = g["elapsed_ns"].std() / g["elapsed_ns"].mean()
    out["all_ok"] = g["result_ok"].agg(lambda v: bool(v.fillna(False).all())).astype("boolean")
    return in_plan_order(out.reset_index())


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


def paired_ratio(df, run_a, run_b, run_id=None):
    """Run a's time over run b's as mmprof computes it: the two runs' rounds
    paired (they ran in one comparison set), the rounds either was disturbed
    in left out when MIN_CLEAN_ROUNDS others remain, and the geometric mean
    of the paired ratios with its 95% t-interval.  Returns (ratio, low,
    high, rounds); low and high are NaN with fewer than 2 rounds.  `run_id`
    picks the invocation when df holds several (load_many)."""
    if run_id is not None:
        df = df[df["run_id"] == run_id]
    elif df["run_id"].nunique() > 1:
        raise ValueError("paired_ratio: the frame holds several invocations; name the"
                         " run_id the runs belong to")
    a = df[df["run"] == run_a].set_index("round")
    b = df[df["run"] == run_b].set_index("round")
    rounds = a.index.intersection(b.index)
    a, b = a.loc[rounds], b.loc[rounds]
    clean = ~(a["disturbed"].fillna(False).values | b["disturbed"].fillna(False).values)
    if clean.sum() >= MIN_CLEAN_ROUNDS or clean.all():
        a, b = a[clean], b[clean]
    logs = np.log(a["elapsed_ns"].values / b["elapsed_ns"].values)
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


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        df = load(argv[1])
        answers = load_answers(argv[1])
    except (OSError, ValueError) as e:
        print(f"mmprof_csv: {e}", file=sys.stderr)
        return 1
    table = runs(df)
    cols = ["job", "probe", "threads", "access", "control", "reps", "median_ns", "cv",
            "ns_per_byte", "all_ok"]
    with pd.option_context("display.width", 200, "display.max_rows", 1000,
                           "display.max_colwidth", 100):
        print(table[cols].to_string(index=False))
        if len(answers):
            print()
            print(answers[["kind", "question", "ratio", "ci_low", "ci_high", "outcome",
                           "verdict"]].to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
