"""The core-to-core and node-to-node matrices, as heatmaps.

matrices(df) groups the cells of mmprof_csv.pairs(df) and node_cells(df)
as mmprof's terminal report does (src/report/report_matrix.c): the job points of
one invocation and job whose other keys are all equal make one matrix.
heatmap(m) draws one; heatmaps(df) draws them all, named as plots.py
writes them:

    core-to-core.JOB[.WHAT]   pingpong with placement = pairs: ns per one-way
                              transfer between two PUs, PU x PU, symmetric
    node-to-node.JOB[.WHAT]   chase (ns per load) or limit (GB/s) with
                              placement = numa:M and membind = node:N: threads
                              on node M (rows) x memory on node N (columns)

WHAT tells a job's matrices apart (transfer-cas, 16KiB, ops-20000); it
is left out when the job has one.  Every figure is computed from the CSV
as mmprof computes its matrices: a cell is the median over the job
point's recorded rounds, of ns per operation (elapsed_ns / ops) or of GB/s
(bytes / elapsed_ns); a job point whose result was wrong is left out.
"""

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from matplotlib import colormaps
from matplotlib.colors import ListedColormap, Normalize
from matplotlib.patches import Rectangle

import mmprof_csv
from mmprof_figure import NothingToPlot, done, figure, styled
from mmprof_tables import binary_size, number

# Annotate each cell with its value up to this many rows or columns.
ANNOTATE_MAX = 16
# Label every PU up to this many; beyond, every k-th.
TICKS_MAX = 32

_NONE = {"core-to-core": "no job ran a probe that counts operations (pingpong) with"
                         " placement = pairs",
         "node-to-node": "no job ran chase, pingpong or limit with placement = numa:M and"
                         " membind = node:N"}


@dataclass
class Matrix:
    """One matrix: values[i, j] is the cell of rows[i] and cols[j], NaN
    where nothing was measured (and, core to core, on the diagonal)."""
    kind: str            # "core-to-core" or "node-to-node"
    name: str            # core-to-core.JOB[.WHAT]: plots.py's NAME.<name>.png
    job: str
    probe: str
    what: str            # what tells it from the job's other matrices, or ""
    quantity: str        # "ns per one-way transfer", "ns per load", "GB/s"
    rows: list
    cols: list
    values: np.ndarray
    rounds: tuple        # fewest and most rounds of its cells
    cv_max: float        # the largest coefficient of variation of its cells
    cells: pd.DataFrame  # the rows of pairs() or node_cells() it holds
    varies: list = field(default_factory=list)  # the keys `what` names
    notes: list = field(default_factory=list)   # what the figure says below it

    @property
    def higher_is_better(self):
        return self.quantity == "GB/s"


def matrices(df):
    """Every matrix of the CSV's frame, core to core first, each in the
    plan order of its first job point."""
    return _core_to_core(mmprof_csv.pairs(df)) + _node_to_node(mmprof_csv.node_cells(df))


def _core_to_core(cells):
    out = []
    pair = cells.assign(_lo=cells[["pu_a", "pu_b"]].min(axis=1),
                        _hi=cells[["pu_a", "pu_b"]].max(axis=1))
    for group, notes in _groups(pair, ["_lo", "_hi"]):
        ok = group[group["all_ok"].fillna(False).astype(bool)]
        pus = sorted(set(group["pu_a"]) | set(group["pu_b"]))
        at = {pu: i for i, pu in enumerate(pus)}
        values = np.full((len(pus), len(pus)), np.nan)
        for r in ok.itertuples():
            values[at[r.pu_a], at[r.pu_b]] = values[at[r.pu_b], at[r.pu_a]] = r.ns_per_op
        n = len(pus) * (len(pus) - 1) // 2
        if len(ok) < n:
            notes.append(f"hatched: no value ({len(ok)} of the {n} pairs have one"
                         + ("; placement = pairs measures a sample of them on a machine with"
                            " many PUs" if len(group) < n else "") + ")")
        out.append(_matrix("core-to-core", group, ok, notes, pus, pus, values,
                           f"ns per one-way {group['unit'].iloc[0]}"))
    return out


def _node_to_node(cells):
    out = []
    for group, notes in _groups(cells, ["cpu_node", "mem_node"]):
        ok = group[group["all_ok"].fillna(False).astype(bool)]
        rows, cols = sorted(set(group["cpu_node"])), sorted(set(group["mem_node"]))
        values = np.full((len(rows), len(cols)), np.nan)
        counted = group["unit"].notna().iloc[0]
        for r in ok.itertuples():
            values[rows.index(r.cpu_node), cols.index(r.mem_node)] = \
                r.ns_per_op if counted else r.gb_per_s
        if len(ok) < len(rows) * len(cols):
            notes.append("hatched: no value (not measured, or a wrong result)")
        quantity = f"ns per {group['unit'].iloc[0]}" if counted else "GB/s"
        out.append(_matrix("node-to-node", group, ok, notes, rows, cols, values, quantity))
    return out


def _groups(cells, cell_keys):
    """The cells of each matrix, with notes: one group per invocation, job
    and every other key.  Where a cell comes twice in a group, a key the
    CSV does not have (transfer, in a CSV without that column) differs:
    the k-th time a cell comes belongs to the k-th matrix, as the plan
    sweeps its keys in the config's order."""
    keys = ["run_id", "job"] + [k for k in mmprof_csv.MATRIX_KEYS if k in cells]
    cells = cells.assign(_order=range(len(cells)))
    differs = ("a key the CSV does not have" if "transfer" in cells
               else "transfer (the CSV has no column for it)")
    out = []
    for _, group in cells.groupby(keys, dropna=False, sort=False):
        nth = group.groupby(cell_keys).cumcount()
        sweeps = int(nth.max()) + 1
        for k in range(sweeps):
            notes = [] if sweeps == 1 else [
                f"sweep {k + 1} of {sweeps}: these matrices differ in {differs};"
                " they come in the config's order"]
            out.append((group[nth == k].assign(_sweep=k + 1 if sweeps > 1 else 0), notes))
    out.sort(key=lambda g: g[0]["_order"].iloc[0])
    return _name(out, cells)


def _name(groups, cells):
    """The groups ((cells, notes) pairs), each told what tells it from
    its job's other matrices: the keys that differ (attrs["varies"]) and
    their values (attrs["what"])."""
    # Several invocations: each matrix says which, by its host when each
    # invocation ran on another.
    hosts = cells.drop_duplicates("run_id")["host"]
    by = "host" if hosts.notna().all() and hosts.is_unique else "run_id"
    several = len(hosts) > 1
    firsts = pd.DataFrame([g.iloc[0] for g, _ in groups])
    for (group, _), (_, first) in zip(groups, firsts.iterrows()):
        same = firsts[(firsts["run_id"] == first["run_id"]) & (firsts["job"] == first["job"])]
        varies = [k for k in [k for k in mmprof_csv.MATRIX_KEYS if k in firsts] + ["_sweep"]
                  if same[k].astype("string").nunique(dropna=False) > 1]
        parts = [_describe(k, first[k]) for k in varies]
        if several:
            on = "".join(c for c in str(first[by]) if c.isalnum() or c in "-_")
            parts.append((f"on {first[by]}", f"on-{on}"))
        group.attrs.update(what=parts, varies=varies)
    return groups


def _describe(key, value):
    """A key's value in a matrix's title and in its name: ("16 KiB",
    "16KiB"), ("transfer cas", "transfer-cas"), ("sweep 2", "sweep-2")."""
    if key == "bytes":
        return binary_size(value), binary_size(value).replace(" ", "")
    text = "-" if pd.isna(value) else number(value)
    key = "sweep" if key == "_sweep" else key
    return f"{key} {text}", f"{key}-" + "".join(c for c in text if c.isalnum() or c in "-_")


def _matrix(kind, group, ok, notes, rows, cols, values, quantity):
    first = group.iloc[0]
    parts = group.attrs.get("what", [])
    slug = ".".join(name for _, name in parts)
    job = "".join(c if c.isalnum() or c in "-_" else "_" for c in str(first["job"]))
    wrong = len(group) - len(ok)
    if wrong:
        notes.append(f"{wrong} job point{'s' if wrong > 1 else ''} left out: a wrong result")
    rounds = (int(ok["rounds"].min()), int(ok["rounds"].max())) if len(ok) else (0, 0)
    cv = ok["cv"].max() if len(ok) else float("nan")
    return Matrix(kind=kind, name=f"{kind}.{job}" + (f".{slug}" if slug else ""),
                  job=str(first["job"]), probe=str(first["probe"]),
                  what=", ".join(text for text, _ in parts),
                  quantity=quantity, rows=rows, cols=cols, values=values, rounds=rounds,
                  cv_max=float(cv) if not pd.isna(cv) else 0.0,
                  cells=group.drop(columns=[c for c in group if c.startswith("_")]),
                  varies=group.attrs.get("varies", []), notes=notes)


@styled
def heatmap(m, path=None):
    """One matrix as a heatmap with a colour bar in its unit.

    Core to core: the PUs on both axes, each cell the ns one transfer of
    the line between the two takes (symmetric; the diagonal is blank).
    Node to node: the node the threads ran on (rows) against the node
    their memory was bound to (columns).  Red is slow whichever the unit:
    more ns, fewer GB/s.  Up to ANNOTATE_MAX rows and columns, each cell
    has its value written in; cells not measured are hatched.
    """
    nr, nc = m.values.shape
    finite = m.values[np.isfinite(m.values)]
    if not len(finite):
        raise NothingToPlot(f"{m.name}: no cell has a right result")
    # Cells of about half an inch (room for "123.4"), the whole at most 8.
    side = min(8.0, max(2.6, 1.0 + 0.42 * max(nr, nc)))
    # Wide enough for the title and the notes (about 0.08 and 0.065 inch
    # a character at 11 and 8.5 points).
    title = f"{_title(m)}\n{_subtitle(m)}"
    text = max([0.08 * len(t) for t in title.split("\n")] + [0.065 * len(n) for n in m.notes])
    width = min(11.5, max(7.0, side * nc / max(nr, nc) + 3.6, text + 0.6))
    fig, ax = figure(1, 1, (width, side + 1.6 + 0.18 * len(m.notes)))
    # "compressed": the colour bar beside the square axes, not at the
    # far edge of a figure widened for the title.
    fig.set_layout_engine("compressed")
    fig.get_layout_engine().set(w_pad=0.12, h_pad=0.06)
    lo, hi = float(finite.min()), float(finite.max())
    if hi <= lo * 1.02:  # one value, or nearly: a scale around it
        lo, hi = lo * 0.9, hi * 1.1
    # YlOrRd without its palest eighth, which a blank diagonal cell (white)
    # could be taken for.
    shades = colormaps["YlOrRd"](np.linspace(0.15, 1, 256))
    cmap = ListedColormap(shades[::-1] if m.higher_is_better else shades)
    cmap.set_bad((0, 0, 0, 0))  # see through to the hatching: not measured
    norm = Normalize(lo, hi)
    # One hatched rectangle under the image, whatever the number of cells
    # (a sample of pairs leaves most of a large machine's cells empty).
    ax.add_patch(Rectangle((-0.5, -0.5), nc, nr, facecolor="0.93", edgecolor="0.6",
                           hatch="///", linewidth=0, zorder=0))
    image = ax.imshow(np.ma.masked_invalid(m.values), cmap=cmap, norm=norm,
                      interpolation="nearest", aspect="equal", zorder=1)
    core = m.kind == "core-to-core"
    if core:  # a PU with itself: blank
        diagonal = np.where(np.equal.outer(m.rows, m.cols), 1.0, np.nan)
        ax.imshow(np.ma.masked_invalid(diagonal), cmap=ListedColormap(["white"]),
                  interpolation="nearest", aspect="equal", zorder=1)
    if max(nr, nc) <= ANNOTATE_MAX:
        size = 10 if max(nr, nc) <= 6 else 9 if max(nr, nc) <= 10 else 7
        for i, j in zip(*np.nonzero(np.isfinite(m.values))):
            v = m.values[i, j]
            r, g, b, _ = cmap(norm(v))
            ink = "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"
            ax.text(j, i, _cell(v), ha="center", va="center", color=ink, fontsize=size)
    _ticks(ax.xaxis, m.cols, "PU" if core else "node")
    _ticks(ax.yaxis, m.rows, "PU" if core else "node")
    ax.grid(False)
    ax.tick_params(length=0)
    if core:
        ax.set_xlabel("PU")
        ax.set_ylabel("PU")
    else:
        ax.set_xlabel("memory on node (membind = node:N)")
        ax.set_ylabel("threads on node (placement = numa:M)")
    bar = fig.colorbar(image, ax=ax, shrink=0.9 if nr >= 4 else 1, pad=0.03, aspect=15)
    unit = "GB/s (10⁹ bytes/s)" if m.quantity == "GB/s" else m.quantity
    bar.set_label(f"{unit}\n({'higher' if m.higher_is_better else 'lower'} is better)")
    fig.suptitle(title, fontsize=11)  # both lines centred on the figure
    if m.notes:
        fig.supxlabel("\n".join(m.notes), fontsize=8.5, color="0.3")
    return done(fig, path)


def _title(m):
    if m.kind == "core-to-core":
        return f"Core to core: {m.quantity} between two PUs"
    return f"Node to node: {m.quantity}" + (" (bandwidth)" if m.higher_is_better
                                            else " (latency)")


def _subtitle(m):
    """"[c2c] pingpong, transfer cas: median of 3 rounds; every pair's CV <= 8%"
    (the size too for a node matrix: what the chase or the scan went through)."""
    lo, hi = m.rounds
    rounds = f"{lo} round{'s' if lo > 1 else ''}" if lo == hi else f"{lo} to {hi} rounds"
    what = [m.probe] + ([m.what] if m.what else [])
    size = m.cells["bytes"].iloc[0]
    if m.kind == "node-to-node" and "bytes" not in m.varies and size > 0:
        what.insert(1, binary_size(size) + (" read" if m.higher_is_better else ""))
    cells = "pair" if m.kind == "core-to-core" else "cell"
    cv = 100 * m.cv_max
    return (f"[{m.job}] {', '.join(what)}: median of {rounds};"
            f" every {cells}'s CV ≤ {cv:.{1 if cv < 10 else 0}f}%")


def _ticks(axis, labels, what):
    """A tick per row or column, every k-th one's label beyond TICKS_MAX."""
    step = max(1, math.ceil(len(labels) / TICKS_MAX))
    where = list(range(0, len(labels), step))
    axis.set_ticks(where, [str(labels[i]) if what == "PU" else f"node {labels[i]}"
                           for i in where])


def _cell(v):
    """A cell as mmprof prints it: no decimals from 100 up, else one."""
    return f"{v:.0f}" if v >= 100 else f"{v:.1f}"


def heatmaps(df):
    """Every matrix's heatmap: a dict from its name (core-to-core.JOB...)
    to its Figure; a kind the CSV has none of maps from "core-to-core.*"
    or "node-to-node.*" to why."""
    out = {}
    found = matrices(df)
    for kind in ["core-to-core", "node-to-node"]:
        ms = [m for m in found if m.kind == kind]
        if not ms:
            out[f"{kind}.*"] = _NONE[kind]
        for m in ms:
            try:
                out[m.name] = heatmap(m)
            except NothingToPlot as why:
                out[m.name] = str(why)
    return out
