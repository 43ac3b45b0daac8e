"""Plots of mmprof CSV files, drawn with matplotlib's Agg renderer.

Each plot function takes the DataFrame of mmprof_csv.load (attribution():
that of mmprof_csv.load_attribution), returns a matplotlib Figure, and
also saves it as a PNG when given `path`.  When the CSV does not hold
what a plot needs (one file size, one thread count, no controls) the
function raises NothingToPlot, whose message says what is missing.

Only the job points themselves are plotted (runs that are their own
parent); the control rungs are summed up by NAME.attribution.csv.  Run with Debian's
interpreter (/usr/bin/python3): analysis/plots.py writes every PNG that
applies to one CSV.
"""

import functools
import math

import numpy as np
import pandas as pd
from matplotlib import colormaps, rc_context
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

import mmprof_csv

# Font sizes in points at the saved size (8-11 inches wide at 100 dpi).
STYLE = {"font.size": 10, "axes.titlesize": 11, "axes.labelsize": 10,
         "xtick.labelsize": 9, "ytick.labelsize": 9, "legend.fontsize": 9,
         "figure.titlesize": 12, "savefig.dpi": 100, "axes.grid": True,
         "grid.alpha": 0.3}
DPI = 100

# Lines come in families (a probe's buffers, a job's runs): each family has
# a hue and a marker, its members darker shades and other line styles.
_HUES = ["Blues", "Oranges", "Greens", "Reds", "Purples", "Greys", "YlOrBr", "PuRd"]
_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
_LINES = ["-", "--", ":", "-."]


class NothingToPlot(Exception):
    """The CSV has no data for this plot; the message says what is missing."""


# --- labels ------------------------------------------------------------------

def method_label(run):
    """How a run reads the file: the probe, and its buffer when it has one
    ("read_buf(4096)").  Change this one function to relabel every plot."""
    if "buffer" in run and not _na(run["buffer"]):
        return f"{run['probe']}({int(run['buffer'])})"
    return str(run["probe"])


def run_label(run):
    """One job run as mmprof's verdict lines name it: "job method t=8 a=1"
    (no a= for whole-slice probes)."""
    label = f"{run['job']} {method_label(run)} t={run['threads']}"
    return label if _na(run["access"]) else f"{label} a={int(run['access'])}"


def binary_size(n):
    """Bytes with binary units: 512 B, 8 KiB, 1.5 MiB."""
    for unit in ["B", "KiB", "MiB", "GiB", "TiB"]:
        if n < 1024 or unit == "TiB":
            return f"{n:g} {unit}"
        n /= 1024
    return f"{n:g} TiB"  # not reached


# Columns that may tell apart runs whose labels are equal, in the order
# they are tried, and how each is written into a label.
_DISTINGUISH = [("job", "{}"), ("threads", "t={}"), ("access", "a={}"), ("kernel", "{}"),
                ("tally", "tally={}"), ("refcount", "refcount={}"),
                ("prefault", "prefault={}"), ("advice", "advice={}"), ("placement", "{}"),
                ("bytes", None), ("run_id", "run {}")]


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
                              binary_size(int(v)) if f is None else f.format(_plain(v)))
        varies = text.groupby(labels).transform("nunique") > 1
        labels[dup & varies] += " " + text[dup & varies]
    dup = labels.duplicated(keep=False)
    labels[dup] += " #" + (labels[dup].groupby(labels[dup]).cumcount() + 1).astype(str)
    return labels


def _na(value):
    """True for an empty cell (None, NaN, pd.NA)."""
    return bool(pd.isna(value))


def _plain(value):
    """A whole float as an integer (1024, not 1024.0): numbers load as floats."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


# --- the plots ---------------------------------------------------------------

def _styled(plot):
    """Run a plot function with this module's STYLE (font sizes, grid)."""
    @functools.wraps(plot)
    def styled(*args, **kwargs):
        with rc_context(STYLE):
            return plot(*args, **kwargs)
    return styled


@_styled
def sizes(df, path=None):
    """Median time and GB/s against file size, one line per method.

    Answers "which way of reading is fastest for a file of this size": the
    left panel is the median time (ms) of each run, the right one the
    bytes over that time (GB/s).  Both axes are logarithmic (sizes in
    binary units); the error bars span the fastest and slowest
    repetitions.  Only methods measured at two sizes or more are drawn.
    """
    r = mmprof_csv.job_runs(df)
    if r["bytes"].nunique() < 2:
        raise NothingToPlot("every run read a file of the same size")
    series = _series_along(r, "bytes", "file")
    if not series:
        raise NothingToPlot("no method was measured at several file sizes")
    firsts = _frame([s.iloc[0] for s in series])
    labels = unique_labels(firsts.apply(method_label, axis=1), firsts)

    fig, (t_ax, bw_ax) = _figure(1, 2, (11, 5))
    styles = _family_styles([s["probe"].iloc[0] for s in series])
    for s, label, style in zip(series, labels, styles):
        x = s["bytes"].astype(float).values
        _errorbar(t_ax, x, _ms(s), label, style)
        _errorbar(bw_ax, x, _gbps(s), label, style)
    for ax in (t_ax, bw_ax):
        ax.set_xscale("log", base=2)
        _size_ticks(ax, sorted(r["bytes"].unique()))
        ax.set_xlabel("file size")
    _value_scale(t_ax.yaxis, [_ms(s)[0] for s in series], log=True)
    _value_scale(bw_ax.yaxis, [_gbps(s)[0] for s in series])
    t_ax.set_ylabel("median time (ms)")
    t_ax.set_title("time to read the file")
    bw_ax.set_ylabel("GB/s (10⁹ bytes per second)")
    bw_ax.set_title("bandwidth")
    bw_ax.legend(title="method", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.suptitle("Time and bandwidth against file size (bars: fastest to slowest repetition)")
    return _done(fig, path)


@_styled
def slowdown(df, reference=None, path=None):
    """Each job run's median time as a multiple of a reference's.

    Shows how many times slower (> 1) or faster (< 1) each job is than the
    job it should be compared with, run by run, as mmprof's ratio blocks
    do: one panel over `reference` (default: the CSV's first job) and one
    over the limit probe when there is one; see slowdowns().  The ratio
    axis is logarithmic when the ratios span more than a decade.
    """
    reference = reference or default_reference(df)
    table = slowdowns(df, reference)
    if len(table) == 0:
        raise NothingToPlot(f"no job run has a matching run of {reference} (same threads and"
                            " bytes per call) or of a limit probe")
    panels = [(title, x) for title, x in table.groupby("over", sort=False)]
    heights = [len(x) for _, x in panels]
    width = max(9, 5 + _text_inches(table["label"]))
    fig, axes = _figure(len(panels), 1, (width, 1.4 + 0.3 * sum(heights) + 0.9 * len(panels)),
                        height_ratios=[h + 2 for h in heights])
    colours = {j: f"C{i % 10}" for i, j in enumerate(df["job"].unique())}
    for ax, (title, x) in zip(np.atleast_1d(axes), panels):
        _ratio_bars(ax, x.reset_index(drop=True), colours)
        ax.set_title(title)
    fig.suptitle("Slowdown: median time as a multiple of the reference run's")
    return _done(fig, path)


def slowdowns(df, reference=None):
    """The ratios slowdown() draws: one row per job run and reference, with
    `over` (which reference, as the panel's title), `label`, the two
    medians and `ratio` = median_ns / median_ns_ref.

    The reference is the job `reference` (default: default_reference(df))
    at the same threads and bytes per call, and the `limit` probe's run at
    the same threads (the README's "x limit"); runs are matched within one
    invocation, file, kernel and placement.  A run with no match is left
    out.
    """
    r = mmprof_csv.job_runs(df)
    r["label"] = unique_labels(r.apply(run_label, axis=1), r)
    reference = reference or default_reference(df)
    # Runs compared were measured in the same comparison set, round by round.
    match = [k for k in ["run_id", "set", "file", "kernel", "placement", "threads"] if k in r]
    parts = []
    if reference is not None:
        x = _ratios(df, r[r["job"] != reference], r[r["job"] == reference], match + ["access"])
        parts.append(x.assign(over=f"over {reference} (same threads and bytes per call)"))
    # The limit runs of every set: the job points and their copies.
    every = mmprof_csv.runs(df)
    limits = every[(every["probe"] == "limit") & every["control"].isna()]
    if len(limits):
        limits = limits.assign(label="limit")
        x = _ratios(df, r[r["probe"] != "limit"], limits, match)
        parts.append(x.assign(over="over limit (same threads)"))
    if not parts:
        return pd.DataFrame(columns=["over", "label", "job", "ratio"])
    return pd.concat(parts, ignore_index=True)


def default_reference(df):
    """The job slowdown() divides by unless told: the CSV's first job that
    runs something other than the limit probe (None if there is none)."""
    jobs = df.loc[(df["run"] == df["parent"]) & (df["probe"] != "limit"), "job"]
    return jobs.iloc[0] if len(jobs) else None


@_styled
def attribution(att, df=None, path=None):
    """Each job run's time split into the causes its controls removed.

    One horizontal bar per job run of NAME.attribution.csv; its segments
    are the causes' costs in ns per byte of the file (left panel), which
    add up to the job's median time per byte, and the same as shares of
    that time (right panel, %), so small runs are readable too.  Negative
    costs (a control that made the run slower, or noise) are drawn left of
    zero; costs within the repetitions' spread (not significant) are
    lighter and hatched.  `limit` is what the last rung, the limit scan,
    still takes (the memory system); `remaining` what a ladder without it
    leaves.
    Given the CSV's DataFrame `df` too, runs that the attribution CSV
    cannot tell apart (same job, probe, threads and access; another
    kernel, tally or refcount) are labelled with what differs.
    """
    if att is None or len(att) == 0:
        raise NothingToPlot("no attribution rows (NAME.attribution.csv comes from runs with"
                            " controls = auto)")
    # Each job point's causes, the remainder (limit, or remaining) last.
    groups = [rows for _, rows in att.groupby("run", sort=False)]
    bars = _frame([rows.iloc[0] for rows in groups])
    if df is not None:
        bars = _job_runs_of(groups, mmprof_csv.job_runs(df))
    labels = unique_labels(bars.apply(run_label, axis=1), bars)
    rest = ["limit", "remaining"]
    causes = [c for c in att["cause"].unique() if c not in rest]
    causes += [c for c in rest if c in set(att["cause"])]
    colours = {c: f"C{i % 10}" for i, c in enumerate(causes) if c not in rest}
    colours.update({"limit": "0.75", "remaining": "0.5"})

    width = max(11, 7.5 + _text_inches(labels))
    fig, (ns_ax, pc_ax) = _figure(1, 2, (width, max(3.6, 1.8 + 0.32 * len(bars))), sharey=True)
    for y, rows in enumerate(groups):
        _stack(ns_ax, y, rows["ns_per_byte"], rows["cause"], rows["significant"], colours)
        _stack(pc_ax, y, 100 * rows["share"], rows["cause"], rows["significant"], colours)
    ns_ax.set_yticks(range(len(bars)), labels)
    ns_ax.set_ylim(len(bars) - 0.5, -0.5)  # first run on top
    ns_ax.set_xlabel("cost (ns per byte of the file)")
    pc_ax.set_xlabel("share of the job's mean time (%)")
    ns_ax.set_title("cost of each cause")
    pc_ax.set_title("as a share of the job's time")
    for ax in (ns_ax, pc_ax):
        ax.axvline(0, color="black", linewidth=0.8)
        ax.grid(axis="y", visible=False)
    pc_ax.axvline(100, color="black", linewidth=0.8, linestyle=":")
    handles = [Patch(facecolor=colours[c], label=c) for c in causes]
    handles.append(Patch(facecolor="white", edgecolor="0.3", hatch="///",
                         label="hatched, lighter:\nnot significant\n(within the spread)"))
    pc_ax.legend(handles=handles, title="cause", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.suptitle("Attribution: where each job run's time goes (controls = auto)")
    return _done(fig, path)


@_styled
def scaling(df, path=None):
    """GB/s against threads, one line per job run that has several thread
    counts (per job, probe, bytes per call and whatever else differs).

    Shows whether adding threads helps: a line rising with the threads
    scales, a flat or falling one is held back (sharing, the memory
    system, or more threads than PUs: that part of the axis is shaded).
    Colour is the job (shades and line styles its runs); with more than
    12 lines, one panel per job instead.  Error bars span the fastest and
    slowest repetitions.  The GB/s axis is logarithmic when the runs span
    more than a decade.
    """
    r = mmprof_csv.job_runs(df)
    series = _series_along(r, "threads", "threads")
    if not series:
        raise NothingToPlot("no job was run at several thread counts")
    firsts = _frame([s.iloc[0] for s in series])
    if len(series) <= 12:
        panels = [(None, list(firsts.index))]
    else:
        panels = [(job, list(idx)) for job, idx in firsts.groupby("job", sort=False).groups.items()]
    heights = [max(3.0, 0.8 + 0.2 * len(idx)) for _, idx in panels]
    fig, axes = _figure(len(panels), 1, (10, max(5.5, sum(heights) + 0.5)),
                        height_ratios=heights)
    threads = sorted(r["threads"].unique())
    for ax, (job, idx) in zip(np.atleast_1d(axes), panels):
        _scaling_panel(ax, [series[i] for i in idx], firsts.loc[idx], job, threads)
        _shade_oversubscribed(ax, df, threads)
        ax.legend(title="job run" if job is None else f"{job}: run", loc="upper left",
                  bbox_to_anchor=(1.02, 1))
    fig.suptitle("Thread scaling: bandwidth against threads (bars: fastest to slowest repetition)")
    return _done(fig, path)


def _scaling_panel(ax, series, firsts, job, threads):
    """GB/s against threads, one line per series (its runs at each thread
    count; `firsts` has the first run of each); `job` when the panel holds
    that job's runs only (its name then leaves the labels)."""
    base = firsts.apply(lambda run: run_label(run).replace(f" t={run['threads']}", ""), axis=1)
    if job is not None:
        base = base.str.replace(f"{job} ", "", n=1, regex=False)
    labels = unique_labels(base, firsts.drop(columns="threads"))
    family = firsts["job"] if job is None else firsts["probe"]
    for s, label, style in zip(series, labels, _family_styles(list(family))):
        _errorbar(ax, s["threads"].astype(float).values, _gbps(s), label, style)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(threads))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    _value_scale(ax.yaxis, [_gbps(s)[0] for s in series])
    ax.set_xlabel("threads")
    ax.set_ylabel("GB/s (10⁹ bytes/s)")


def all_plots(df, att=None, reference=None):
    """Every plot of this module for one CSV: a dict from its name (sizes,
    slowdown, attribution, scaling) to its Figure, or to the reason it
    could not be drawn (a str)."""
    plots = {"sizes": lambda: sizes(df), "slowdown": lambda: slowdown(df, reference),
             "attribution": lambda: attribution(att, df), "scaling": lambda: scaling(df)}
    out = {}
    for name, draw in plots.items():
        try:
            out[name] = draw()
        except NothingToPlot as why:
            out[name] = str(why)
    return out


def save(fig, path):
    """Write the figure as a PNG at 100 dpi."""
    fig.savefig(path, dpi=DPI, format="png")


# --- helpers -----------------------------------------------------------------

def _figure(rows, cols, size, **gridspec):
    """A Figure with constrained layout, not registered with pyplot (so
    nothing is shown twice or kept alive), and its grid of axes."""
    share = {k: gridspec.pop(k) for k in ["sharey", "sharex"] if k in gridspec}
    fig = Figure(figsize=size, dpi=DPI, layout="constrained")
    return fig, fig.subplots(rows, cols, gridspec_kw=gridspec or None, **share)


def _text_inches(labels):
    """About how wide the longest label is at 9 points, in inches."""
    return 0.07 * max((len(str(t)) for t in labels), default=0)


def _done(fig, path):
    """The figure, saved first when a path is given."""
    if path is not None:
        save(fig, path)
    return fig


def _frame(rows):
    """A DataFrame of rows (Series), numbered from 0."""
    return pd.DataFrame(rows).reset_index(drop=True)


def _ms(s):
    """Median, fastest and slowest time of each run of a series, in ms."""
    return [s[c].astype(float).values / 1e6 for c in ["median_ns", "min_ns", "max_ns"]]


def _gbps(s):
    """Median, slowest and fastest bandwidth of each run of a series, in
    GB/s (bytes per ns)."""
    b = s["bytes"].astype(float).values
    return [b / s[c].astype(float).values for c in ["median_ns", "max_ns", "min_ns"]]


def _errorbar(ax, x, mid_lo_hi, label, style):
    """A line through the medians, bars from the lowest to the highest."""
    mid, lo, hi = mid_lo_hi
    ax.errorbar(x, mid, yerr=[mid - lo, hi - mid], capsize=3, label=label, **style)


def _size_ticks(ax, sizes_):
    """Ticks at the file sizes measured, labelled in binary units, turned
    as far as they must be not to overlap (on an axis ~3.5 inches wide)."""
    octaves = np.log2(np.asarray(sizes_, dtype=float))
    span = octaves[-1] - octaves[0]
    gap = 3.5 * np.diff(octaves).min() / span if span > 0 else 3.5
    rotation = 0 if gap >= 0.8 else 45 if gap >= 0.4 else 90
    ax.set_xticks([float(s) for s in sizes_], [binary_size(int(s)) for s in sizes_],
                  rotation=rotation, ha="right" if rotation == 45 else "center",
                  rotation_mode="anchor" if rotation == 45 else "default")
    ax.xaxis.set_minor_locator(NullLocator())


def _series_along(runs, column, varying):
    """The job runs as lines along `column` (file size, threads): runs that
    differ only in the run key `varying` (a file per size; the thread
    count) form one line, sorted by `column`; lines of one point are left
    out."""
    keys = [k for k in mmprof_csv.DESCRIBE_KEYS if k in runs and k != varying]
    return [s.sort_values(column) for _, s in runs.groupby(keys, dropna=False, sort=False)
            if s[column].nunique() >= 2]


def _job_runs_of(groups, runs):
    """The job point (a row of mmprof_csv.job_runs) of each group of
    attribution rows: the same invocation and run number; the group's first
    row when none matches."""
    out = []
    for rows in groups:
        first = rows.iloc[0]
        same = (runs["run_id"] == first["run_id"]) & (runs["run"] == first["run"])
        out.append(runs[same].iloc[0] if same.any() else first)
    return _frame(out)


def _family_styles(families):
    """errorbar() styles for lines whose family (probe, job) is given in
    order: one hue and marker per family, shades and line styles within."""
    names = list(dict.fromkeys(families))
    size = {f: families.count(f) for f in names}
    seen = {}
    styles = []
    for f in families:
        n = seen[f] = seen.get(f, -1) + 1
        k = names.index(f)
        shade = 0.75 if size[f] == 1 else 0.45 + 0.5 * n / (size[f] - 1)
        styles.append(dict(color=colormaps[_HUES[k % len(_HUES)]](shade),
                           marker=_MARKERS[k % len(_MARKERS)],
                           linestyle=_LINES[n % len(_LINES)]))
    return styles


def _ratios(df, runs, refs, keys):
    """`runs` with `ratio` (and `ratio_low`, `ratio_high`: its 95% interval)
    = its time over that of the run of `refs` with the same `keys`, paired
    by round as mmprof pairs them (mmprof_csv.paired_ratio); unmatched runs
    are left out.  Where several runs of `refs` share the keys, what tells
    them apart (buffer, tally...) must match too, so read_buf(4096) is
    compared with fread_buf(4096)."""
    for k in ["buffer", "tally", "refcount", "prefault", "advice"]:
        if k in refs and refs.groupby(keys, dropna=False)[k].nunique(dropna=False).max() > 1:
            keys = keys + [k]
    refs = refs.drop_duplicates(keys)[keys + ["run", "median_ns", "label"]]
    out = runs.reset_index(drop=True).reset_index().merge(refs, on=keys, suffixes=("", "_ref"))
    out = out.sort_values("index").reset_index(drop=True)  # the runs' order
    paired = [mmprof_csv.paired_ratio(df, a, b) for a, b in zip(out["run"], out["run_ref"])]
    out["ratio"] = [p[0] for p in paired]
    out["ratio_low"] = [p[1] for p in paired]
    out["ratio_high"] = [p[2] for p in paired]
    return out


def _ratio_bars(ax, x, colours):
    """Horizontal bars of x.ratio labelled by run, coloured by job, each
    with its value; log scale from 1 when the ratios span a decade."""
    y = np.arange(len(x))
    ratios = x["ratio"].astype(float).values
    log = ratios.max() / ratios.min() > 10
    left = 1 if log else 0
    ax.barh(y, ratios - left, left=left, color=[colours[j] for j in x["job"]], height=0.7)
    for yi, ratio in zip(y, ratios):
        right = ratio >= left
        ax.annotate(f"{ratio:.0f}x" if ratio >= 100 else f"{ratio:.3g}x", (ratio, yi),
                    xytext=(4 if right else -4, 0), textcoords="offset points",
                    va="center", ha="left" if right else "right", fontsize=9)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks(y, x["label"])
    ax.set_ylim(len(x) - 0.5, -0.5)  # first run on top
    ax.grid(axis="y", visible=False)
    if log:
        ax.set_xlim(min(ratios.min(), 1) / 2.5, max(ratios.max(), 1) * 3)
        _value_scale(ax.xaxis, [ratios], log=True)
    else:
        ax.set_xlim(0, max(ratios.max(), 1) * 1.18)
    ax.set_xlabel("median time / reference's median time (x, > 1 = slower)")


def _stack(ax, y, values, causes, significant, colours):
    """One horizontal stacked bar at y: positive values rightwards from 0,
    negative ones leftwards; non-significant segments lighter, hatched."""
    pos = neg = 0.0
    for v, cause, sig in zip(values.astype(float), causes, significant):
        left = pos if v >= 0 else neg
        faint = _na(sig) or not bool(sig)
        colour = colours[cause]
        ax.barh(y, v, left=left, height=0.7, color=to_rgba(colour, 0.35 if faint else 1),
                hatch="///" if faint else None, edgecolor=colour if faint else "white",
                linewidth=0 if faint else 0.5)
        if v >= 0:
            pos += v
        else:
            neg += v


def _value_scale(axis, values, log=None):
    """A logarithmic value axis when `values` (arrays) span more than a
    decade (or log=True), ticked at 1, 2, 5 (or 1, 3, or 1) x 10^n as the
    span allows, written as plain numbers; else a linear one from 0."""
    v = np.concatenate([np.asarray(x, dtype=float) for x in values])
    v = v[v > 0]
    decades = math.log10(v.max() / v.min()) if len(v) else 0
    if log is None:
        log = decades > 1
    ax = axis.axes
    if not log:
        (ax.set_ylim if axis is ax.yaxis else ax.set_xlim)(0, None)
        return
    (ax.set_yscale if axis is ax.yaxis else ax.set_xscale)("log")
    subs = (1, 2, 5) if decades <= 1.5 else (1, 3) if decades <= 3 else (1,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    axis.set_minor_formatter(NullFormatter())


def _shade_oversubscribed(ax, df, threads):
    """Shade the thread counts above the placement's PUs (threads take
    turns there), when the CSV has any."""
    npus = df.loc[df["control"].isna(), "npus"].dropna() if "npus" in df else []
    if len(npus) == 0 or max(threads) <= int(npus.min()):
        return
    n = int(npus.min())
    above = min(t for t in threads if t > n)
    start = math.sqrt(n * above) if n in threads else above / 1.15  # halfway on the log axis
    ax.axvspan(start, max(threads) * 1.5, color="0.9", zorder=0,
               label=f"more threads than the {n} PUs")
    ax.set_xlim(min(threads) / 1.3, max(threads) * 1.3)
