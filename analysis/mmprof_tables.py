"""The notebook's tables and the labels every table and plot uses.

Each table function takes the frames of mmprof_csv's loaders and returns a
DataFrame of numbers and short text, in mmprof's own words and units:

    overview(df)                   what was run, one column per invocation
    answers_table(answers, df)     NAME.answers.csv: each answer, its interval
    winners(answers, df)           per file size: the fastest method, or tie
    counter_table(df)              the derived metrics of each job point
    attribution_table(att, df)     the causes of each job point's time
    styled(table)                  a table as the notebook shows it

An empty frame means the CSV has nothing for that table; the notebook then
says so in one line.  Only pandas is needed (no matplotlib).
"""

import re

import pandas as pd

import mmprof_csv

# How mmprof names a method (probes/*.c: a probe's .label, and which probes
# read in blocks of `access` bytes): "read(4096)", "mmap", "mmap_block(1024)".
PROBE_LABELS = {"read_buf": "read", "pread_buf": "pread", "fread_buf": "fread",
                "mmap_file": "mmap"}
BLOCK_PROBES = {"mmap_block", "accessor_block", "fread_buf"}


# --- labels ------------------------------------------------------------------

def number(v):
    """A cell as mmprof writes it: 1024 (not 1024.0), '-' when empty."""
    if _na(v):
        return "-"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def binary_size(n):
    """Bytes with binary units: 512 B, 8 KiB, 1.5 MiB."""
    n = float(n)
    for unit in ["B", "KiB", "MiB", "GiB", "TiB"]:
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}"
        n /= 1024
    return f"{n:g} TiB"  # not reached


def method_label(run):
    """How mmprof's sizes table and fastest answers name a run's method:
    the probe's label, with its buffer ("read(4096)") or, for a block
    probe, its bytes per call ("mmap_block(1024)").  Change this one
    function to relabel every plot."""
    name = PROBE_LABELS.get(run["probe"], run["probe"])
    if "buffer" in run and not _na(run["buffer"]):
        return f"{name}({number(run['buffer'])})"
    if run["probe"] in BLOCK_PROBES and "access" in run and not _na(run["access"]):
        return f"{name}({number(run['access'])})"
    return str(name)


def run_label(run):
    """One job run as mmprof's verdict lines name it: "job probe t=8 a=1"
    (the buffer in parentheses when the probe has one; the probe once when
    the job is named after it, "limit t=1"; no a= for whole-slice
    probes)."""
    what = _probe_threads(run)
    return what if run["job"] == run["probe"] else f"{run['job']} {what}"


def _probe_threads(run):
    """"probe(buffer) t=8 a=1": a run without its job."""
    probe = run["probe"]
    if "buffer" in run and not _na(run["buffer"]):
        probe = f"{probe}({number(run['buffer'])})"
    label = f"{probe} t={number(run['threads'])}"
    return label if _na(run["access"]) else f"{label} a={number(run['access'])}"


# Columns that may tell apart runs whose labels are equal, in the order
# they are tried, and how each is written into a label.
_DISTINGUISH = [("job", "{}"), ("threads", "t={}"), ("access", "a={}"), ("kernel", "{}"),
                ("tally", "tally={}"), ("refcount", "refcount={}"),
                ("prefault", "prefault={}"), ("touch", "touch={}"), ("advice", "advice={}"),
                ("placement", "{}"),
                ("membind", "membind={}"), ("data", "data={}"), ("hugepages", "huge={}"),
                ("transfer", "{}"), ("ops", "ops={}"), ("pus_planned", "PUs {}"),
                ("bytes", None), ("run_id", "run {}"), ("host", "on {}")]


def unique_labels(labels, frame):
    """`labels` (a Series aligned with `frame`) made unique: within each
    group of equal labels, the columns of `frame` that differ inside it are
    appended (" tally=packed", " 4 MiB"), until no two are equal."""
    labels = labels.astype(str).copy()
    for col, fmt in _DISTINGUISH:
        dup = labels.duplicated(keep=False)
        if not dup.any():
            break
        if col not in frame:
            continue
        text = frame[col].map(lambda v, f=fmt: "-" if _na(v) else
                              binary_size(v) if f is None else f.format(number(v)))
        varies = text.groupby(labels).transform("nunique") > 1
        labels[dup & varies] += " " + text[dup & varies]
    dup = labels.duplicated(keep=False)
    labels[dup] += " #" + (labels[dup].groupby(labels[dup]).cumcount() + 1).astype(str)
    return labels


def interval(value, low, high, unit="x"):
    """"37.5x [35.9, 39.2]" with mmprof's digits (3 significant, none
    after the point from 100 up; each bound its own); "96% [64, 127]"
    for unit "%"."""
    if _na(value):
        return "-"
    if unit == "%":
        text = f"{100 * value:.0f}%"
        return text if _na(low) else f"{text} [{100 * low:.0f}, {100 * high:.0f}]"
    text = _digits(value) + unit
    return text if _na(low) else f"{text} [{_digits(low)}, {_digits(high)}]"


def _digits(v):
    """3 significant digits, none after the point from 100 up: 1.05, 37.5, 208."""
    e = abs(v)
    return f"{v:.{0 if e >= 100 else 1 if e >= 10 else 2}f}"


def _na(value):
    """True for an empty cell (None, NaN, pd.NA)."""
    return bool(pd.isna(value))


# --- tables ------------------------------------------------------------------

def overview(df):
    """What was run: one column per invocation (run_id), rows for the
    host, CPU, kernel, mmprof version and start, and the config's shape
    (jobs and their probes, threads, file sizes, controls, rounds)."""
    cols = {}
    for run_id, rows in df.groupby("run_id", sort=False):
        first = rows.iloc[0]
        points = rows[rows["run"] == rows["parent"]].sort_values("run", kind="stable")
        reps = points.groupby("run")["rep"].nunique()
        jobs = [f"{job} ({', '.join(dict.fromkeys(p['probe']))})"
                for job, p in points.groupby("job", sort=False)]
        rungs = rows.loc[rows["control"].notna(), "run"].nunique()
        controls = sorted({c for v in rows["control"].dropna() for c in v.split("+")})
        disturbed = int(rows["disturbed"].fillna(False).sum())
        cols[run_id] = {
            "host": first["host"], "CPU": first["cpu_model"],
            "kernel": first["kernel_release"], "mmprof": first["mmprof_version"],
            "started (UTC)": f"{first['started_at']:%Y-%m-%d %H:%M}",
            "jobs (probes)": "; ".join(jobs),
            "threads": ", ".join(number(t) for t in sorted(points["threads"].unique())),
            "file sizes": ", ".join(binary_size(b) for b in sorted(
                points.loc[points["file"].notna(), "bytes"].unique())) or "none (no data file)",
            "job points": str(points["run"].nunique()),
            "control rungs": f"{rungs} ({', '.join(controls)})" if rungs else "none",
            "rounds per job point": _span(reps.min(), reps.max()),
            "disturbed repetitions": f"{disturbed} of {len(rows)}",
        }
    return pd.DataFrame(cols, index=list(next(iter(cols.values()))))


def answers_table(answers, df=None):
    """NAME.answers.csv as mmprof's answers block reads: the question, the
    figure with its 95% interval (a ratio, or for a cause its share of the
    time), the outcome and what it means, the rounds it comes from, the
    disturbed repetitions among the runs compared and, when inconclusive,
    about how many more rounds would decide.  A host column when the
    answers come from several invocations (load_many)."""
    if answers is None or len(answers) == 0:
        return pd.DataFrame()
    a = answers.reset_index(drop=True)
    out = pd.DataFrame({
        "kind": a["kind"], "question": a["question"],
        "figure [95%]": [interval(r.ratio, r.ci_low, r.ci_high,
                                  "%" if r.kind == "cause" else "x") for r in a.itertuples()],
        "outcome": a["outcome"], "verdict": a["verdict"],
        "rounds": a["rounds"].map(number), "disturbed reps": a["disturbed_reps"].map(number),
        "more rounds": a["more_rounds"].map(lambda v: "" if _na(v) else number(v)),
    })
    if df is not None and a["run_id"].nunique() > 1:
        hosts = df.drop_duplicates("run_id").set_index("run_id")["host"]
        out.insert(0, "host", a["run_id"].map(hosts))
    return out


def winners(answers, df):
    """The per-size winners (table = sizes or both): one row per `fastest`
    answer, smallest file first: the outcome (yes: one method is fastest,
    no: a tie within the tolerance, inconclusive), mmprof's verdict, the
    fastest method's mean and standard deviation in ms (the statistic of
    mmprof's sizes table), the closest other method and its time over the
    fastest's with the 95% interval."""
    if answers is None or len(answers) == 0:
        return pd.DataFrame()
    a = answers[answers["kind"] == "fastest"]
    if len(a) == 0:
        return pd.DataFrame()
    r = mmprof_csv.runs(df).set_index(["run_id", "run"])
    a = a.sort_values(["bytes", "threads"], kind="stable").reset_index(drop=True)

    def run(run_id, n):
        return None if _na(n) or (run_id, int(n)) not in r.index else r.loc[(run_id, int(n))]

    rows = []
    for x in a.itertuples():
        best, other = run(x.run_id, x.run), run(x.run_id, x.other_run)
        rows.append({
            "file size": binary_size(x.bytes), "threads": number(x.threads),
            "outcome": x.outcome, "fastest": x.verdict,
            "its mean ± sd (ms)": "-" if best is None else
            f"{best['mean_ns'] / 1e6:.4f} ± {best['std_ns'] / 1e6:.4f}",
            "closest": "-" if other is None else method_label(other),
            "closest / fastest [95%]": interval(x.ratio, x.ci_low, x.ci_high),
            "rounds": number(x.rounds),
            "more rounds": "" if _na(x.more_rounds) else number(x.more_rounds)})
    out = pd.DataFrame(rows)
    if a["threads"].nunique() == 1:
        out = out.drop(columns="threads")
    if df["run_id"].nunique() > 1:
        hosts = df.drop_duplicates("run_id").set_index("run_id")["host"]
        out.insert(0, "host", a["run_id"].map(hosts).values)
    return out


# The derived metrics as mmprof's counters table heads them, and the factor
# from the CSV's unit.
_METRIC_HEADS = {"cpu_ns": ("CPU ms", 1e-6), "cycles_per_byte": ("cycles/B", 1),
                 "instructions_per_byte": ("instr/B", 1), "ipc": ("IPC", 1),
                 "faults_per_mib": ("faults/MiB", 1), "major_faults": ("major faults", 1),
                 "syscalls_per_mib": ("syscalls/MiB", 1), "reads_per_mib": ("reads/MiB", 1),
                 "context_switches": ("ctx-sw", 1), "migrations": ("migrations", 1),
                 "contention_per_kib": ("contention/KiB", 1)}


def counter_table(df):
    """The counter evidence: one row per job point (what tells them apart,
    then each derived metric's median over its rounds, as mmprof's counters
    table), only the metrics that were counted; an empty frame when none
    was."""
    c = mmprof_csv.counters(df)
    metrics = [m for m in mmprof_csv.METRICS if m in c]
    if not metrics:
        return pd.DataFrame()
    out = _describe(c)
    for m in metrics:
        head, factor = _METRIC_HEADS.get(m, (m, 1))
        out[head] = c[m].astype(float) * factor
    return out


def attribution_table(att, df=None):
    """NAME.attribution.csv as mmprof's attribution lines read: for each
    job point (its label), each cause's share of the job's mean time with
    its 95% interval, largest first and the remainder (limit, remaining)
    last; its cost in ns per byte; whether the interval excludes 0; and
    the counter evidence before and with the control."""
    if att is None or len(att) == 0:
        return pd.DataFrame()
    a = att.copy()
    points = a.drop_duplicates(["run_id", "run"]).reset_index(drop=True)
    names = unique_labels(points.apply(_attribution_label, axis=1), points)
    name = dict(zip(zip(points["run_id"], points["run"]), names))
    a["label"] = [name[k] for k in zip(a["run_id"], a["run"])]
    if df is not None and df["run_id"].nunique() > 1:
        hosts = df.drop_duplicates("run_id").set_index("run_id")["host"]
        a["label"] = a["label"] + " on " + a["run_id"].map(hosts).astype(str)
    a["_rest"] = a["cause"].isin(["limit", "remaining"])
    a["_order"] = range(len(a))
    first = a.groupby(["run_id", "run"], sort=False)["_order"].transform("min")
    a = a.assign(_first=first).sort_values(["_first", "_rest", "share"],
                                           ascending=[True, True, False])
    out = pd.DataFrame({
        "job point": a["label"],
        "cause": a["cause"] + a["interacting"].map(lambda v: " [interacting]" if v is True
                                                   else ""),
        "share [95%]": [interval(r.share, r.share_low, r.share_high, "%")
                        for r in a.itertuples()],
        "ns/B [95%]": [f"{r.ns_per_byte:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"
                       if not _na(r.ci_low) else f"{r.ns_per_byte:.3f}" for r in a.itertuples()],
        "significant": a["significant"].map(lambda v: "yes" if v is True else "n.s."),
        "evidence": [_evidence(r) for r in a.itertuples()],
        "rounds": a["rounds"].map(number),
    })
    return out.set_index(["job point", "cause"])


def _attribution_label(row):
    """A job point of the attribution CSV as mmprof heads its line:
    "[job] probe t=8 a=1 tally=atomic"."""
    label = f"[{row['job']}] {_probe_threads(row)}"
    for col in ["refcount", "tally"]:
        if not _na(row[col]):
            label += f" {col}={row[col]}"
    return label


def _evidence(r):
    """"faults/MiB 1.15 -> 0", or what would have told when not counted."""
    if _na(r.evidence):
        return ""
    if not _na(r.evidence_before) or not _na(r.evidence_after):
        return f"{r.evidence} {number(r.evidence_before)} -> {number(r.evidence_after)}"
    if not _na(r.evidence_missing):
        return f"not counted ({r.evidence_missing})"
    return ""


def _describe(points):
    """What tells job points apart, as columns: the job, its method, then
    threads, bytes per call, file size and the other keys that vary."""
    out = pd.DataFrame({"job": points["job"].values,
                        "method": points.apply(method_label, axis=1).values})
    if points["run_id"].nunique() > 1:
        hosts = points["host"] if "host" in points else points["run_id"]
        out.insert(0, "run", hosts.values)
    for col, head in [("threads", "threads"), ("access", "access"), ("bytes", "file size"),
                      ("kernel", "kernel"), ("tally", "tally"), ("refcount", "refcount"),
                      ("placement", "placement"), ("prefault", "prefault"), ("touch", "touch"),
                      ("advice", "advice"), ("cache", "cache")]:
        if col in points and points[col].nunique(dropna=False) > 1:
            fmt = binary_size if col == "bytes" else number
            out[head] = points[col].map(lambda v, f=fmt: "-" if _na(v) else f(v)).values
    return out


def _span(low, high):
    """"5" or "5-17"."""
    return number(low) if low == high else f"{number(low)}-{number(high)}"


def styled(table, caption=None, index=False):
    """A table as the notebook shows it: text left-aligned, numbers with 3
    significant digits (whole from 100 up), outcomes coloured; no row
    numbers unless `index` (or the index is a MultiIndex: its groups)."""
    colours = {"yes": "background-color: #d8f0d8", "no": "background-color: #f6dcdc",
               "inconclusive": "background-color: #f3ecc8"}
    s = table.style.format(_cell)
    if not index and not isinstance(table.index, pd.MultiIndex):
        s = s.hide(axis="index")
    if "outcome" in table:
        s = s.map(lambda v: colours.get(v, ""), subset=["outcome"]) if hasattr(s, "map") \
            else s.applymap(lambda v: colours.get(v, ""), subset=["outcome"])
    s = s.set_properties(**{"text-align": "left"}).set_table_styles(
        [{"selector": "th", "props": "text-align: left"}])
    return s.set_caption(caption) if caption else s


def _cell(v):
    """A cell of a styled table: '-' when empty, numbers shortened."""
    if _na(v):
        return "-"
    if isinstance(v, float):
        return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"
    return v


def methods_in(verdict):
    """The methods a fastest answer's verdict names ("tie: read(16384),
    fread(16384)" -> ["read(16384)", "fread(16384)"])."""
    text = re.sub(r"^(tie: |inconclusive between )", "", str(verdict))
    return [m.strip() for m in re.split(r",\s*(?![^()]*\))", text) if m.strip()]
