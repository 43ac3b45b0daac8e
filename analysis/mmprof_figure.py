"""What mmprof's plots share: their style, figures and axes.

mmprof_plots.py and mmprof_sizes.py draw with these: a Figure not
registered with pyplot, drawn at 100 dpi with STYLE's font sizes; lines
along file size or threads from the runs of mmprof_csv; families of lines
in one hue; value axes that turn logarithmic when the values span more
than a decade; file-size ticks in binary units.
"""

import functools
import math

import numpy as np
import pandas as pd
from matplotlib import colormaps, rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

import mmprof_csv
from mmprof_tables import binary_size

# Font sizes in points at the saved size (8-12 inches wide at 100 dpi).
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


def styled(plot):
    """Run a plot function with this module's STYLE (font sizes, grid)."""
    @functools.wraps(plot)
    def run(*args, **kwargs):
        with rc_context(STYLE):
            return plot(*args, **kwargs)
    return run


def save(fig, path):
    """Write the figure as a PNG at 100 dpi."""
    fig.savefig(path, dpi=DPI, format="png")


def figure(rows, cols, size, **gridspec):
    """A Figure with constrained layout, not registered with pyplot (so
    nothing is shown twice or kept alive), and its grid of axes."""
    share = {k: gridspec.pop(k) for k in ["sharey", "sharex"] if k in gridspec}
    fig = Figure(figsize=size, dpi=DPI, layout="constrained")
    # Room at the edges: text placed beside an axes (the slowdown plot's
    # intervals) is measured a few pixels short.
    fig.get_layout_engine().set(w_pad=0.12, h_pad=0.06)
    return fig, fig.subplots(rows, cols, gridspec_kw=gridspec or None, squeeze=True, **share)


def text_inches(labels):
    """About how wide the longest label is at 9 points, in inches."""
    return 0.07 * max((len(str(t)) for t in labels), default=0)


def done(fig, path):
    """The figure, saved first when a path is given."""
    if path is not None:
        save(fig, path)
    return fig


def frame(rows):
    """A DataFrame of rows (Series), numbered from 0."""
    return pd.DataFrame(rows).reset_index(drop=True)


def size_ticks(ax, sizes_, inches=3.5):
    """Ticks at the file sizes measured, labelled in binary units, turned
    as far as they must be not to overlap on an axis `inches` wide."""
    octaves = np.log2(np.asarray(sizes_, dtype=float))
    span = octaves[-1] - octaves[0]
    gap = inches * np.diff(octaves).min() / span if span > 0 else inches
    rotation = 0 if gap >= 0.7 else 45 if gap >= 0.3 else 90
    ax.set_xticks([float(s) for s in sizes_], [binary_size(s) for s in sizes_],
                  rotation=rotation, ha="right" if rotation == 45 else "center",
                  rotation_mode="anchor" if rotation == 45 else "default")
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_xlabel("file size")


def series_along(runs, column, varying):
    """The job runs as lines along `column` (file size, threads): runs that
    differ only in the run key `varying` (a file per size; the thread
    count) form one line, sorted by `column`; lines of one point are left
    out."""
    keys = [k for k in mmprof_csv.DESCRIBE_KEYS if k in runs and k != varying]
    return [s.sort_values(column) for _, s in runs.groupby(keys, dropna=False, sort=False)
            if s[column].nunique() >= 2]


def family_styles(families):
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


def value_scale(axis, values, log=None):
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
