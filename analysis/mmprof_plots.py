"""Plots of mmprof CSV files, drawn with matplotlib's Agg renderer.

Each plot function takes the frames of mmprof_csv's loaders (load, and
load_answers or load_attribution), returns a matplotlib Figure, and also
saves it as a PNG when given `path`.  When the CSV does not hold what a
plot needs (one file size, one thread count, no controls) the function
raises NothingToPlot, whose message says what is missing.

    sizes(df, answers)       mean time per method against file size, and each
                             method's time over the fastest's, winners marked
    slowdown(df)             each job run's time ratio to a reference's, 95% CI
    attribution(att, df)     the causes of each job run's time, with intervals
    scaling(df)              GB/s against threads
    heatmap(matrix)          a core-to-core or node-to-node matrix (mmprof_matrix)
    fleet(fl)                each host against each job point's median host
                             (mmprof_csv.load_fleet), outliers coloured

Only the job points themselves are plotted (runs that are their own
parent); the control rungs are summed up by NAME.attribution.csv.  Run with
Debian's interpreter (/usr/bin/python3): analysis/plots.py writes every PNG
that applies to one CSV.
"""

import math

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import to_rgba
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

import mmprof_csv
from mmprof_figure import (NothingToPlot, done, family_styles, figure, frame, series_along,
                           styled, text_inches, value_scale)
from mmprof_matrix import heatmap, heatmaps, matrices  # noqa: F401
from mmprof_sizes import sizes
from mmprof_tables import interval, run_label, unique_labels
# The rest of this module's interface, from where it is defined.
from mmprof_figure import DPI, STYLE, save  # noqa: F401,E402
from mmprof_tables import binary_size, method_label  # noqa: F401,E402


# --- slowdown ----------------------------------------------------------------


@styled


def slowdown(df, reference=None, path=None):
    """Each job run's time as a multiple of a reference's, with its 95%
    interval.

    Shows how many times slower (> 1) or faster (< 1) each job is than the
    job it should be compared with, run by run, as mmprof's ratio blocks
    do: the geometric mean of the rounds measured side by side, whiskers
    its 95% interval.  One panel over `reference` (default: the plan's
    first job) and one over the limit probe when there is one; see
    slowdowns().  The panels share the ratio axis, logarithmic when the
    ratios span more than a decade.
    """
    reference = reference or default_reference(df)
    table = slowdowns(df, reference)
    if len(table) == 0:
        raise NothingToPlot(f"no job run has a matching run of {reference} (same threads and"
                            " bytes per call) or of a limit probe")
    panels = [(title, x) for title, x in table.groupby("over", sort=False)]
    heights = [len(x) for _, x in panels]
    width = min(12, max(9, 6.5 + text_inches(table["label"])))
    fig, axes = figure(len(panels), 1, (width, 1.5 + 0.3 * sum(heights) + 0.9 * len(panels)),
                       height_ratios=[h + 2 for h in heights], sharex=True)
    jobs = df.sort_values("run", kind="stable")["job"]
    colours = {j: f"C{i % 10}" for i, j in enumerate(dict.fromkeys(jobs))}
    lows = table["ratio_low"].fillna(table["ratio"])
    highs = table["ratio_high"].fillna(table["ratio"])
    log = highs.max() / lows.min() > 10
    for ax, (title, x) in zip(np.atleast_1d(axes), panels):
        _ratio_bars(ax, x.reset_index(drop=True), colours, log)
        ax.set_title(title)
        ax.tick_params(axis="x", labelbottom=True)
    last = np.atleast_1d(axes)[-1]
    if log:
        last.set_xlim(min(lows.min(), 1) / 1.6, max(highs.max(), 1) * 1.6)
        value_scale(last.xaxis, [lows, highs], log=True)
    else:
        last.set_xlim(0, max(highs.max(), 1) * 1.05)
    last.set_xlabel("time ratio: geometric mean of the paired rounds (x, > 1 = slower);"
                    " whiskers: 95% interval")
    fig.suptitle("Slowdown: each job run's time over the reference run's, measured side by side")
    return done(fig, path)


def slowdowns(df, reference=None):
    """The ratios slowdown() draws: one row per job run and reference, with
    `over` (which reference, as the panel's title), `label`, the two
    medians and `ratio` (with `ratio_low`, `ratio_high`: its 95% interval),
    paired by round as mmprof pairs them.

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
    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=["over", "label", "job", "ratio", "ratio_low",
                                     "ratio_high"])
    return pd.concat(parts, ignore_index=True)


def default_reference(df):
    """The job slowdown() divides by unless told: the plan's first job
    (lowest run number) that runs something other than the limit probe
    (None if there is none)."""
    points = df[(df["run"] == df["parent"]) & (df["probe"] != "limit")]
    return points.sort_values("run")["job"].iloc[0] if len(points) else None


def _ratios(df, runs, refs, keys):
    """`runs` with `ratio` (and `ratio_low`, `ratio_high`: its 95% interval)
    = its time over that of the run of `refs` with the same `keys`, paired
    by round as mmprof pairs them (mmprof_csv.paired_ratio); unmatched runs
    are left out.  Where several runs of `refs` share the keys, what tells
    them apart (buffer, tally...) must match too, so read_buf(4096) is
    compared with fread_buf(4096)."""
    for k in ["buffer", "tally", "refcount", "prefault", "touch", "advice"]:
        if k in refs and refs.groupby(keys, dropna=False)[k].nunique(dropna=False).max() > 1:
            keys = keys + [k]
    refs = refs.drop_duplicates(keys)[keys + ["run", "median_ns", "label"]]
    out = runs.reset_index(drop=True).reset_index().merge(refs, on=keys, suffixes=("", "_ref"))
    out = out.sort_values("index").reset_index(drop=True)  # the runs' order
    paired = [mmprof_csv.paired_ratio(df, a, b, run_id)
              for a, b, run_id in zip(out["run"], out["run_ref"], out["run_id"])]
    out["ratio"] = [p[0] for p in paired]
    out["ratio_low"] = [p[1] for p in paired]
    out["ratio_high"] = [p[2] for p in paired]
    return out


def _ratio_bars(ax, x, colours, log):
    """Horizontal bars of x.ratio labelled by run, coloured by job, with
    their 95% intervals as whiskers, and each ratio and interval written
    in a column right of the panel; from 1 on a log axis, else from 0."""
    y = np.arange(len(x))
    ratios = x["ratio"].astype(float).values
    low = x["ratio_low"].astype(float).fillna(x["ratio"]).values
    high = x["ratio_high"].astype(float).fillna(x["ratio"]).values
    left = 1 if log else 0
    ax.barh(y, ratios - left, left=left, color=[colours[j] for j in x["job"]], height=0.7,
            xerr=[ratios - low, high - ratios],
            error_kw=dict(ecolor="black", elinewidth=1, capsize=3))
    for yi, r in enumerate(x.itertuples()):
        ax.annotate(interval(r.ratio, r.ratio_low, r.ratio_high), (1.01, yi),
                    xycoords=("axes fraction", "data"), va="center", ha="left", fontsize=9)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks(y, x["label"])
    ax.set_ylim(len(x) - 0.5, -0.5)  # first run on top
    ax.grid(axis="y", visible=False)


# --- attribution -------------------------------------------------------------


@styled


def attribution(att, df=None, path=None):
    """Each job run's time split into the causes its controls removed.

    One row per job run of NAME.attribution.csv.  Left: its causes' costs
    in ns per byte of the file, stacked, which add up to the job's mean
    time per byte; negative costs (a control that made the run slower, or
    noise) are drawn left of zero; costs whose interval holds 0 (not
    significant) are lighter and hatched.  Right: each cause's share of
    the job's time with its 95% interval (whiskers), one dot per cause,
    hollow when not significant, so small runs are readable too.  `limit`
    is what the last rung, the limit scan, still takes (the memory
    system); `remaining` what a ladder without it leaves.
    Given the CSV's DataFrame `df` too, runs that the attribution CSV
    cannot tell apart (same job, probe, threads and access; another
    kernel, tally or refcount) are labelled with what differs.
    """
    if att is None or len(att) == 0:
        raise NothingToPlot("no attribution rows (NAME.attribution.csv comes from runs with"
                            " controls = auto)")
    # Each job point's causes, the remainder (limit, or remaining) last.
    groups = [rows for _, rows in att.groupby(["run_id", "run"], sort=False)]
    bars = frame([rows.iloc[0] for rows in groups])
    if df is not None:
        bars = _job_runs_of(groups, mmprof_csv.job_runs(df))
    labels = unique_labels(bars.apply(run_label, axis=1), bars)
    rest = ["limit", "remaining"]
    causes = [c for c in att["cause"].unique() if c not in rest]
    causes += [c for c in rest if c in set(att["cause"])]
    colours = dict(zip([c for c in causes if c not in rest], _cause_colours()))
    colours.update({"limit": "0.75", "remaining": "0.5"})

    width = min(12, max(11, 7.5 + text_inches(labels)))
    per_row = 0.36 if max(len(rows) for rows in groups) <= 5 else 0.5
    height = max(3.6, 1.8 + per_row * len(bars))
    fig, (ns_ax, pc_ax) = figure(1, 2, (width, height), sharey=True)
    # Shares from -100% to 200% at most: a wider interval is cut at the
    # edge (an arrow), so one noisy cause does not squeeze all the others.
    lows = 100 * att["share_low"].fillna(att["share"])
    highs = 100 * att["share_high"].fillna(att["share"])
    span = (max(-100, min(-10, lows.min())) - 10, min(200, max(110, highs.max())) + 10)
    for y, rows in enumerate(groups):
        _stack(ns_ax, y, rows["ns_per_byte"], rows["cause"], rows["significant"], colours)
        _shares(pc_ax, y, rows, colours, span)
    pc_ax.set_xlim(*span)
    ns_ax.set_yticks(range(len(bars)), labels)
    ns_ax.set_ylim(len(bars) - 0.5, -0.5)  # first run on top
    ns_ax.set_xlabel("cost (ns per byte of the file)")
    pc_ax.set_xlabel("share of the job's mean time (%)\nwhiskers: 95% interval"
                     + (", cut at the arrows" if lows.min() < span[0] or highs.max() > span[1]
                        else ""))
    ns_ax.set_title("cost of each cause, stacked")
    pc_ax.set_title("each cause's share")
    for ax in (ns_ax, pc_ax):
        ax.axvline(0, color="black", linewidth=0.8)
        ax.grid(axis="y", visible=False)
        for y in range(len(bars) - 1):
            ax.axhline(y + 0.5, color="0.85", linewidth=0.6)
    pc_ax.axvline(100, color="black", linewidth=0.8, linestyle=":")
    handles = [Patch(facecolor=colours[c], label=c) for c in causes]
    handles.append(Patch(facecolor="white", edgecolor="0.3", hatch="///",
                         label="hatched, hollow:\nnot significant\n(interval holds 0)"))
    pc_ax.legend(handles=handles, title="cause", loc="upper left", bbox_to_anchor=(1.02, 1))
    fig.suptitle("Attribution: where each job run's time goes (controls = auto)")
    return done(fig, path)


def _cause_colours():
    """Colours for causes, endless: tab10 without its grey (limit and
    remaining are grey), then tab20's lighter shades."""
    tab10 = [f"C{i}" for i in range(10) if i != 7]
    light = [colormaps["tab20"](i) for i in range(1, 20, 2) if i != 15]
    while True:
        yield from tab10 + light


def _shares(ax, y, rows, colours, span):
    """The causes of one job run as dots with 95% whiskers, spread over
    the row's height in the order of the stacked bar; whiskers beyond
    `span` end at its edge in an arrow head."""
    n = len(rows)
    offsets = np.linspace(-0.3, 0.3, n) if n > 1 else [0.0]
    for dy, r in zip(offsets, rows.itertuples()):
        share = min(max(100 * r.share, span[0]), span[1])
        low = 100 * (r.share if pd.isna(r.share_low) else r.share_low)
        high = 100 * (r.share if pd.isna(r.share_high) else r.share_high)
        faint = pd.isna(r.significant) or not bool(r.significant)
        colour = colours[r.cause]
        cut_low, cut_high = low < span[0], high > span[1]
        low, high = max(low, span[0]), min(high, span[1])
        ax.errorbar([share], [y + dy], xerr=[[share - low], [high - share]], fmt="o",
                    markersize=5, color=colour, elinewidth=1.2, capsize=0 if
                    cut_low or cut_high else 2, markerfacecolor="white" if faint else colour)
        for cut, x, head in [(cut_low, low, "<"), (cut_high, high, ">")]:
            if cut:
                ax.plot([x], [y + dy], marker=head, color=colour, markersize=5,
                        clip_on=False)


def _stack(ax, y, values, causes, significant, colours):
    """One horizontal stacked bar at y: positive values rightwards from 0,
    negative ones leftwards; non-significant segments lighter, hatched."""
    pos = neg = 0.0
    for v, cause, sig in zip(values.astype(float), causes, significant):
        left = pos if v >= 0 else neg
        faint = pd.isna(sig) or not bool(sig)
        colour = colours[cause]
        ax.barh(y, v, left=left, height=0.7, color=to_rgba(colour, 0.35 if faint else 1),
                hatch="///" if faint else None, edgecolor=colour if faint else "white",
                linewidth=0 if faint else 0.5)
        if v >= 0:
            pos += v
        else:
            neg += v


def _job_runs_of(groups, runs):
    """The job point (a row of mmprof_csv.job_runs) of each group of
    attribution rows: the same invocation and run number; the group's first
    row when none matches."""
    out = []
    for rows in groups:
        first = rows.iloc[0]
        same = (runs["run_id"] == first["run_id"]) & (runs["run"] == first["run"])
        out.append(runs[same].iloc[0] if same.any() else first)
    return frame(out)


# --- thread scaling ----------------------------------------------------------


@styled


def scaling(df, path=None):
    """GB/s against threads, one line per job run that has several thread
    counts (per job, probe, bytes per call and whatever else differs).

    Shows whether adding threads helps: a line rising with the threads
    scales, a flat or falling one is held back (sharing, the memory
    system, or more threads than PUs: that part of the axis is shaded).
    Colour is the job (shades and line styles its runs); with more than
    12 lines, one panel per job instead, sharing the GB/s axis.  Points
    are the median, bars span the fastest and slowest repetitions.  The
    GB/s axis is logarithmic when the runs span more than a decade.
    """
    r = mmprof_csv.job_runs(df)
    series = series_along(r, "threads", "threads")
    if not series:
        raise NothingToPlot("no job was run at several thread counts")
    firsts = frame([s.iloc[0] for s in series])
    if len(series) <= 12:
        panels = [(None, list(firsts.index))]
    else:
        panels = [(job, list(idx)) for job, idx in firsts.groupby("job", sort=False).groups.items()]
    heights = [max(3.0, 0.8 + 0.2 * len(idx)) for _, idx in panels]
    fig, axes = figure(len(panels), 1, (10, max(5.5, sum(heights) + 0.5)),
                       height_ratios=heights, sharex=True, sharey=True)
    threads = sorted(r["threads"].unique())
    for ax, (job, idx) in zip(np.atleast_1d(axes), panels):
        _scaling_panel(ax, [series[i] for i in idx], firsts.loc[idx], job, threads)
        _shade_oversubscribed(ax, df, threads)
        ax.legend(title="job run" if job is None else f"{job}: run", loc="upper left",
                  bbox_to_anchor=(1.02, 1))
    value_scale(np.atleast_1d(axes)[0].yaxis, [_gbps(s)[0] for s in series])
    for ax in np.atleast_1d(axes):
        ax.tick_params(axis="x", labelbottom=True)
    fig.suptitle("Thread scaling: bandwidth against threads (median; bars: fastest to slowest"
                 " repetition)")
    return done(fig, path)


def _scaling_panel(ax, series, firsts, job, threads):
    """GB/s against threads, one line per series (its runs at each thread
    count; `firsts` has the first run of each); `job` when the panel holds
    that job's runs only (its name then leaves the labels)."""
    base = firsts.apply(lambda run: run_label(run).replace(f" t={run['threads']}", ""), axis=1)
    if job is not None:
        base = base.str.replace(f"{job} ", "", n=1, regex=False)
    labels = unique_labels(base, firsts.drop(columns="threads"))
    family = firsts["job"] if job is None else firsts["probe"]
    for s, label, style in zip(series, labels, family_styles(list(family))):
        mid, lo, hi = _gbps(s)
        ax.errorbar(s["threads"].astype(float).values, mid, yerr=[mid - lo, hi - mid],
                    capsize=3, label=label, **style)
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(threads))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.set_xlabel("threads")
    ax.set_ylabel("GB/s (10⁹ bytes/s)")


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


# --- every plot --------------------------------------------------------------

PLOTS = ["sizes", "slowdown", "attribution", "scaling"]


def all_plots(df, att=None, reference=None, answers=None, matrices=True):
    """Every plot of this module for one CSV: a dict from its name (PLOTS,
    then each matrix's: core-to-core.JOB...) to its Figure, or to the
    reason it could not be drawn (a str; "core-to-core.*" or
    "node-to-node.*" when the CSV has no matrix of that kind).  Without
    the matrices when `matrices` is false (the notebook shows them in a
    section of their own)."""
    plots = {"sizes": lambda: sizes(df, answers), "slowdown": lambda: slowdown(df, reference),
             "attribution": lambda: attribution(att, df), "scaling": lambda: scaling(df)}
    out = {}
    for name in PLOTS:
        try:
            out[name] = plots[name]()
        except NothingToPlot as why:
            out[name] = str(why)
    if matrices:
        out.update(heatmaps(df))
    return out


# --- fleet -------------------------------------------------------------------

# An outcome's colour: outliers stand out, the undecided are pale.
_OUTCOME_COLOURS = {"slower": "tab:red", "faster": "tab:green", "same": "tab:gray",
                    "inconclusive": "#d9d9d9"}


@styled


def fleet(fl, path=None):
    """Each host at each job point as a multiple of the job point's median
    host, from `mmprof compare H1 H2 H3 ... --csv` (mmprof_csv.load_fleet).

    One bar per job point and host (the median host is the 1 line),
    whiskers its 95% interval, coloured by its outcome: red slower, green
    faster (the outliers), grey the same, pale inconclusive (hatched when
    disturbed repetitions had to be used).  Where both runs carry a
    ceiling the bar is the ratio over it, which the outcome is judged on.
    """
    x = fl[fl["outcome"] != "median"].copy() if fl is not None else None
    if x is None or len(x) == 0:
        raise NothingToPlot("no job point was run by two hosts (the fleet CSV of mmprof"
                            " compare with three files or more)")
    over = x["ceiling_ratio"].notna()
    x["ratio_shown"] = x["ceiling_ratio"].where(over, x["ratio"])
    x["low"] = x["ceiling_ci_low"].where(over, x["ci_low"]).fillna(x["ratio_shown"])
    x["high"] = x["ceiling_ci_high"].where(over, x["ci_high"]).fillna(x["ratio_shown"])
    point = x["job"].astype(str) + " " + x["probe"].astype(str) + " t=" + x["threads"].astype(str)
    x["label"] = point + "  " + x["host"].astype(str) + " / " + x["median_host"].astype(str)
    x = x.reset_index(drop=True)
    log = x["high"].max() / x["low"].min() > 10
    fig, ax = figure(1, 1, (min(12, max(9, 6.5 + text_inches(x["label"]))),
                            1.8 + 0.3 * len(x)))
    y = np.arange(len(x))
    r = x["ratio_shown"].values
    left = 1 if log else 0
    bars = ax.barh(y, r - left, left=left, height=0.7,
                   color=[_OUTCOME_COLOURS.get(o, "white") for o in x["outcome"]],
                   xerr=[r - x["low"].values, x["high"].values - r],
                   error_kw=dict(ecolor="black", elinewidth=1, capsize=3))
    for bar, disturbed in zip(bars, x["disturbed"].fillna(False)):
        if disturbed:
            bar.set_hatch("//")
    for yi, row in enumerate(x.itertuples()):
        ax.annotate(f"{interval(row.ratio_shown, row.low, row.high)} {row.outcome}",
                    (1.01, yi), xycoords=("axes fraction", "data"), va="center", ha="left",
                    fontsize=9)
    ax.axvline(1, color="black", linewidth=0.8)
    ax.set_yticks(y, x["label"])
    ax.set_ylim(len(x) - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    if log:
        ax.set_xlim(min(x["low"].min(), 1) / 1.6, max(x["high"].max(), 1) * 1.6)
        value_scale(ax.xaxis, [x["low"], x["high"]], log=True)
    else:
        ax.set_xlim(0, max(x["high"].max(), 1) * 1.05)
    ax.legend(handles=[Patch(color=c, label=o) for o, c in _OUTCOME_COLOURS.items()],
              loc="lower right")
    ax.set_xlabel("host / the job point's median host (x; over the ceiling where both runs"
                  " carry one); whiskers: 95% interval")
    fig.suptitle("Fleet: each host against each job point's median host")
    return done(fig, path)


# --- helpers -----------------------------------------------------------------


def _gbps(s):
    """Median, slowest and fastest bandwidth of each run of a series, in
    GB/s (bytes per ns)."""
    b = s["bytes"].astype(float).values
    return [b / s[c].astype(float).values for c in ["median_ns", "max_ns", "min_ns"]]
