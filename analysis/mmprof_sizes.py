"""The sizes plot: which way of reading is fastest for a file of a size.

sizes(df, answers) draws, from mmprof_csv's load and load_answers, each
method's mean time against file size (one panel per method family) and a
grid of every method's time over the fastest one's at each size, with
mmprof's fastest answers marked.  mmprof_plots.all_plots draws it with the
others.
"""

import math

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import LogNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter

import mmprof_csv
from mmprof_figure import (DPI, NothingToPlot, done, family_styles, frame, series_along,
                           size_ticks, styled)
from mmprof_tables import binary_size, method_label, methods_in, unique_labels

# How a fastest answer marks a method at its file size.
_MARKS = {"yes": ("★", "fastest (yes)"),
          "no": ("=", "tied, within the tolerance (no)"),
          "inconclusive": ("?", "may be the fastest (inconclusive)")}


@styled


def sizes(df, answers=None, path=None):
    """Which way of reading is fastest for a file of this size.

    Top: one panel per method family (the probe: read, fread, mmap...),
    each method's mean time in ms against the file size, bars +- one
    standard deviation of the repetitions: the statistic of mmprof's sizes
    table (table = sizes).  The panels share both axes (log-log).
    Bottom: every method's mean time over the fastest method's at each
    size, as a grid of cells, so eleven methods stay readable; the marks
    are mmprof's fastest answers (`answers`, NAME.answers.csv): a star on
    the fastest, = on methods tied for fastest, ? on those still undecided.
    A method whose result was wrong is shown but never the fastest.  Only
    methods measured at two sizes or more are drawn.
    """
    # pingpong and chase read no file: their bytes are not a file size.
    r = mmprof_csv.job_runs(df[df["unit"].isna()] if "unit" in df else df)
    if r["bytes"].nunique() < 2:
        raise NothingToPlot("every run read a file of the same size")
    series = series_along(r, "bytes", "file")
    if not series:
        raise NothingToPlot("no method was measured at several file sizes")
    firsts = frame([s.iloc[0] for s in series])
    labels = unique_labels(firsts.apply(method_label, axis=1), firsts)
    family = firsts["probe"].map(lambda p: method_label({"probe": p}))
    families = list(dict.fromkeys(family))
    sizes_ = sorted({b for s in series for b in s["bytes"]})
    marks = _fastest_marks(series, labels, answers)

    cols = min(len(families), 4)
    rows = math.ceil(len(families) / cols)
    width = min(12, max(8.5, 1.6 + 3.3 * cols))
    grid_h = 0.8 + 0.28 * len(series)
    fig = Figure(figsize=(width, 3.6 * rows + grid_h + 1.2), dpi=DPI, layout="constrained")
    fig.get_layout_engine().set(w_pad=0.12, h_pad=0.06)
    gs = fig.add_gridspec(rows + 1, cols, height_ratios=[3.6] * rows + [grid_h])
    first = None
    styles = family_styles(list(family))
    for k, fam in enumerate(families):
        ax = fig.add_subplot(gs[k // cols, k % cols], sharex=first, sharey=first)
        first = first or ax
        for i in [i for i in range(len(series)) if family[i] == fam]:
            s = series[i]
            x = s["bytes"].values
            mean, sd = s["mean_ns"].values / 1e6, s["std_ns"].fillna(0).values / 1e6
            ax.errorbar(x, mean, yerr=[np.minimum(sd, mean * 0.9), sd], capsize=2,
                        label=labels[i], markersize=4, linewidth=1.2, **styles[i])
            won = [j for j, b in enumerate(x) if marks.get((i, b), ("",))[0] == "★"]
            ax.plot(x[won], mean[won], linestyle="none", marker="*", markersize=13,
                    markerfacecolor="gold", markeredgecolor="black", zorder=5)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(fam)
        ax.legend(loc="upper left", fontsize=8, handlelength=2.5)
        if k % cols == 0:
            ax.set_ylabel("mean time (ms), ± 1 sd")
    for ax in fig.axes:
        size_ticks(ax, sizes_, (width - 1.2) / cols)
    first.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))

    grid_ax = fig.add_subplot(gs[rows, :])
    answered = set() if answers is None else \
        set(answers.loc[answers["kind"] == "fastest", "bytes"])
    _relative_grid(grid_ax, series, labels, sizes_, marks, answered)
    fig.suptitle("Time against file size: mean and standard deviation of the repetitions"
                 " (as mmprof's sizes table)")
    return done(fig, path)


def _relative_grid(ax, series, labels, sizes_, marks, answered):
    """One row per method, one column per file size: the method's mean
    time over the fastest right method's at that size, coloured on a log
    scale; the fastest answers' marks before the figure.  A size whose
    fastest answer names a run not drawn (`answered`: the sizes that have
    an answer) says so under its tick."""
    best = {}
    for s in series:
        for _, run in s[s["all_ok"].fillna(False).astype(bool)].iterrows():
            b = run["bytes"]
            best[b] = min(best.get(b, math.inf), run["mean_ns"])
    cells = np.full((len(series), len(sizes_)), np.nan)
    wrong = np.zeros_like(cells, dtype=bool)
    for i, s in enumerate(series):
        for _, run in s.iterrows():
            j = sizes_.index(run["bytes"])
            cells[i, j] = run["mean_ns"] / best.get(run["bytes"], math.nan)
            wrong[i, j] = not bool(run["all_ok"])
    top = max(2.0, np.nanmax(cells[~wrong]) if (~wrong & ~np.isnan(cells)).any() else 2.0)
    ax.imshow(np.where(wrong, np.nan, cells), cmap=colormaps["YlOrRd"],
              norm=LogNorm(1, top), aspect="auto")
    for i in range(len(series)):
        for j, b in enumerate(sizes_):
            v = cells[i, j]
            if np.isnan(v):
                continue
            mark = marks.get((i, b), ("",))[0]
            text = "wrong" if wrong[i, j] else f"{mark} {v:.3g}" if v >= 10 else f"{mark} {v:.2f}"
            text = text.strip()
            dark = not wrong[i, j] and math.log(max(v, 1)) > 0.6 * math.log(top)
            ax.text(j, i, text, ha="center", va="center", fontsize=8,
                    color="white" if dark else "black",
                    fontweight="bold" if mark == "★" else "normal")
            if mark:
                ax.add_patch(Rectangle((j - 0.47, i - 0.44), 0.94, 0.88, fill=False, linewidth=1.4,
                                       edgecolor="black",
                                       linestyle="-" if mark == "★" else "--"))
    marked = {b for (_, b) in marks}
    ax.set_xticks(range(len(sizes_)),
                  [binary_size(b) + ("" if b in marked or b not in answered else
                                     "\n(fastest: not drawn)") for b in sizes_])
    ax.set_yticks(range(len(series)), labels)
    ax.grid(False)
    ax.set_title("mean time over the fastest method's at each size (1 = fastest)")
    used = {m[0] for m in marks.values()}
    if used:
        key = "    ".join(f"{m} {desc}" for m, desc in _MARKS.values() if m in used)
        ax.set_xlabel(f"file size\nmmprof's fastest answers:    {key}")
    else:
        ax.set_xlabel("file size (no fastest answers to mark: they come with table = sizes)")


def _fastest_marks(series, labels, answers):
    """{(series index, bytes): (mark, outcome)} from the `fastest` answers:
    the answer's run gets the outcome's mark; a tie's or an inconclusive
    answer's other methods (named in its verdict) the same mark."""
    if answers is None or len(answers) == 0:
        return {}
    fastest = answers[answers["kind"] == "fastest"]
    at = {}  # (run_id, run) -> (series index, bytes, its name in a verdict)
    for i, s in enumerate(series):
        for _, run in s.iterrows():
            name = method_label(run)
            if run["threads"] > 1:
                name += f" t={run['threads']}"
            at[(run["run_id"], run["run"])] = (i, run["bytes"], name, run["set"])
    marks = {}
    for a in fastest.itertuples():
        mark = _MARKS.get(a.outcome, ("",))[0]
        if (a.run_id, a.run) not in at or not mark:
            continue
        i, b, _, set_ = at[(a.run_id, a.run)]
        marks[(i, b)] = (mark, a.outcome)
        if a.outcome != "yes":
            named = set(methods_in(a.verdict))
            for (run_id, _), (k, kb, name, kset) in at.items():
                if run_id == a.run_id and kset == set_ and name in named:
                    marks[(k, kb)] = (mark, a.outcome)
    return marks
