# The core-to-core and node-to-node heatmaps of analysis/ (mmprof_matrix,
# plots.py, the notebook's Matrices section): on a CSV this machine
# produces (pingpong over its PU pairs, chase and limit on numa:0 x
# node:0) the cells equal mmprof's own matrices and the PNGs are real
# pictures; on CSVs written here shaped like a two-socket machine (8 PUs
# on 2 nodes, 28 pairs; a sample of 64) every cell is where it
# belongs, the matrix is symmetric with a blank diagonal, small matrices
# have their values written in, and what was not measured, or was wrong,
# is blank and said so.
source "$(dirname "$0")/tap.bash"
source "$(dirname "$0")/pictures.bash"

# --- a real run --------------------------------------------------------------

cat >"$TMP/m.ini" <<'EOF'
[global]
repeat = 3
warmup = 1

[c2c]
probe = pingpong
threads = 2
placement = pairs
transfer = cas, store
ops = 20000

[lat]
probe = chase
placement = numa:0
membind = node:0
size = 16K, 1M
ops = 100000

[bw]
probe = limit
data = anon
placement = numa:0
membind = node:0
size = 1M
EOF
run_mmprof --config "$TMP/m.ini" --csv "$TMP/m.csv"
check "pingpong pairs, chase and limit on numa:0 x node:0 ran" test "$rc" -eq 0
[ "$rc" -eq 0 ] || echo "$err" | tail -3 | sed 's/^/# /'

# The matrices as mmprof printed them and as analysis/ computes them, in
# mmprof's cells: "[job] core to core | PU 0: . 27.5 | PU 1: 27.5 .".
printf '%s\n' "$out" >"$TMP/m.out"
terminal=$(py "$TMP/m.out" <<'PY'
import re
out, block = [], None
for line in open(sys.argv[1]):
    head = re.match(r"^\[(\S+)\](?: \S+=\S+)* (core to core|node to node): .*median of (\d+) rounds", line)
    row = re.match(r"^\s+(node\s+)?(\d+)\s+([\d. ]+)$", line)
    if head:
        block = [f"[{head[1]}] {head[2]} ({head[3]} rounds)"]
        out.append(block)
    elif block is not None and row:
        what = "node" if row[1] else "PU"
        block.append(f"{what} {row[2]}: {' '.join(row[3].split())}")
    elif block is not None and not line.strip().startswith(("PU", "ns per", "GB/s")):
        block = None
print("\n".join(sorted(" | ".join(b) for b in out)))
PY
)
computed=$(py "$TMP/m.csv" <<'PY'
import math
import mmprof_csv, mmprof_matrix
def cell(v):
    return "." if math.isnan(v) else f"{v:.0f}" if v >= 100 else f"{v:.1f}"
out = []
for m in mmprof_matrix.matrices(mmprof_csv.load(sys.argv[1])):
    kind, what = m.kind.replace("-", " "), "PU" if m.kind == "core-to-core" else "node"
    rounds = m.rounds[0] if m.rounds[0] == m.rounds[1] else m.rounds
    out.append(" | ".join([f"[{m.job}] {kind} ({rounds} rounds)"] +
                          [f"{what} {r}: " + " ".join(cell(v) for v in m.values[i])
                           for i, r in enumerate(m.rows)]))
print("\n".join(sorted(out)))
PY
)
check "5 matrices, each cell as mmprof's terminal matrix has it" \
	test -n "$terminal" -a "$terminal" = "$computed" -a "$(wc -l <<<"$computed")" -eq 5
[ "$terminal" = "$computed" ] || printf '# mmprof:   %s\n# analysis: %s\n' "$terminal" "$computed"

"$PY" analysis/plots.py "$TMP/m.csv" >"$TMP/m.written" 2>"$TMP/m.err"
check "plots.py exits 0" test $? -eq 0
matrices=$(grep -e '-to-' "$TMP/m.written" | sed 's|.*/m\.||; s|\.png$||' | xargs)
want='core-to-core\.c2c\.transfer-cas core-to-core\.c2c\.transfer-store'
want+=' node-to-node\.lat\.16KiB node-to-node\.lat\.1MiB node-to-node\.bw'
check "it writes a core-to-core PNG per transfer, a node-to-node one per chase size and limit" \
	grep -Eqx "$want" <<<"$matrices"
[ -n "$matrices" ] || sed 's/^/# /' "$TMP/m.err"
# shellcheck disable=SC2046
pngs_ok real $(grep -e '-to-' "$TMP/m.written")

# --- a two-socket machine, written here ----------------------------------------

# synthetic OUT NPUS [sample] [wrong]: a CSV of NPUS PUs, the first half on
# node 0: pingpong over every pair (sample: about a third of them, 12 of 8
# PUs' 28; wrong: pair 0 1's result wrong) with cas and store, chase at 64 MiB
# and 1 GiB and limit on 2 nodes x 2 nodes.  Each cell's value is known
# (matrix_value) and its 3 rounds are 0.97, 1 and 1.05 times it.
synthetic() {
	"$PY" - "$@" <<'PY'
import csv, sys
sys.path.insert(0, "analysis")
import mmprof_csv
out, npus, flags = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cols = [c for c, _ in mmprof_csv.COLUMNS["csv"]]
rows = []
def point(job, probe, ns, ops="", unit="", **keys):
    run = len(rows) // 3 + 1
    for k, f in enumerate([0.97, 1.0, 1.05]):
        r = dict.fromkeys(cols, "")
        r.update(schema_version=2, job=job, probe=probe, threads=1, run=run, parent=run,
                 set=run, rep=k, round=k + 1, position=0, bytes=0, elapsed_ns=f"{ns * f:.3f}",
                 result_ok="true", disturbed="false", run_id="5a0c1e75a0c1e75a",
                 host="twosocket", started_at="2026-01-01T00:00:00Z", bind="strict",
                 ops=ops, unit=unit)
        r.update({c: v for c, v in keys.items() if c in cols})
        rows.append(r)
half = npus // 2
for transfer in ["cas", "store"]:
    for a in range(npus):
        for b in range(a + 1, npus):
            if "sample" in flags and (a + 2 * b + 1) % 3:
                continue
            ns = (30 if a // half == b // half else 120) + a + b / 100 + (transfer == "store") * 50
            wrong = "wrong" in flags and (a, b) == (0, 1) and transfer == "cas"
            point("c2c", "pingpong", ns * 20000, 20000, "transfer", threads=2, placement="pairs",
                  membind="firsttouch", pus_planned=f"{a} {b}", transfer=transfer,
                  result_ok="false" if wrong else "true")
for size in [64 << 20, 1 << 30]:
    for m in range(2):
        for n in range(2):
            ns = (90 if m == n else 140 + 10 * m + n) + (size > 64 << 20) * 20
            point("lat", "chase", ns * 1048576, 1048576, "load", bytes=size,
                  placement=f"numa:{m}", membind=f"node:{n}")
for m in range(2):
    for n in range(2):
        point("bw", "limit", (1 << 30) / (20 if m == n else 12.5 + m), bytes=1 << 30,
              kernel="zeros", data="anon", placement=f"numa:{m}", membind=f"node:{n}")
with open(out, "w", newline="") as f:
    w = csv.DictWriter(f, cols)
    w.writeheader()
    w.writerows(rows)
PY
}
synthetic "$TMP/s8.csv" 8
synthetic "$TMP/s8-holes.csv" 8 sample wrong
synthetic "$TMP/s64.csv" 64 sample

layout=$(py "$TMP" <<'PY'
import numpy as np
import mmprof_csv, mmprof_matrix
tmp = sys.argv[1]
def pair(a, b, transfer):
    a, b = min(a, b), max(a, b)
    return (30 if a // 4 == b // 4 else 120) + a + b / 100 + (transfer == "store") * 50
def problems():
    df = mmprof_csv.load(f"{tmp}/s8.csv")
    p, n = mmprof_csv.pairs(df), mmprof_csv.node_cells(df)
    yield len(p) == 56 and len(n) == 12, f"{len(p)} pairs, {len(n)} node cells"
    types = {c: str(t) for c, t in pd_types(p, n).items()}
    yield types == {"pu_a": "int64", "pu_b": "int64", "rounds": "int64", "ns_per_op": "float64",
                    "all_ok": "boolean", "cpu_node": "int64", "mem_node": "int64",
                    "gb_per_s": "float64"}, f"types {types}"
    ms = {m.name: m for m in mmprof_matrix.matrices(df)}
    want = ["core-to-core.c2c.transfer-cas", "core-to-core.c2c.transfer-store",
            "node-to-node.lat.64MiB", "node-to-node.lat.1GiB", "node-to-node.bw"]
    yield list(ms) == want, f"matrices {list(ms)}"
    for t in ["cas", "store"]:
        m = ms[f"core-to-core.c2c.transfer-{t}"]
        known = np.array([[np.nan if a == b else pair(a, b, t) for b in range(8)]
                          for a in range(8)])
        yield m.rows == m.cols == list(range(8)), f"{t}: PUs {m.rows} x {m.cols}"
        yield np.allclose(m.values, known, equal_nan=True), f"{t}: cells\n{m.values}"
        yield np.array_equal(m.values, m.values.T, equal_nan=True), f"{t}: not symmetric"
        yield m.rounds == (3, 3) and m.quantity == "ns per one-way transfer", f"{t}: {m}"
    lat = [[90, 140 + 1], [150, 90]]
    for name, known in [("lat.64MiB", lat), ("lat.1GiB", np.add(lat, 20)),
                        ("bw", [[20, 12.5], [13.5, 20]])]:
        m = ms[f"node-to-node.{name}"]
        yield m.rows == m.cols == [0, 1] and np.allclose(m.values, known), f"{name}: {m.values}"
    yield ms["node-to-node.bw"].quantity == "GB/s", "limit is not in GB/s"
    # A sample of the pairs and a wrong result: blank cells, said so.
    m = mmprof_matrix.matrices(mmprof_csv.load(f"{tmp}/s8-holes.csv"))[0]
    measured = int(np.isfinite(m.values).sum()) // 2
    yield np.isnan(m.values[0, 1]) and measured == 11, f"holes: {measured} pairs measured"
    notes = " ".join(m.notes)
    yield "no value (11 of the 28 pairs have one" in notes and "1 job point left out" in notes, notes
def pd_types(p, n):
    return {**p.dtypes[["pu_a", "pu_b", "rounds", "ns_per_op", "all_ok"]].to_dict(),
            **n.dtypes[["cpu_node", "mem_node", "gb_per_s"]].to_dict()}
bad = [why for ok, why in problems() if not ok]
print("\n".join(bad) or "ok")
PY
)
check "two sockets, 8 PUs: 28 pairs and the node cells where they belong, typed" \
	test "$layout" = ok
[ "$layout" = ok ] || sed 's/^/# /' <<<"$layout"

drawn=$(py "$TMP" 2>"$TMP/drawn" <<'PY'
import numpy as np
import mmprof_csv, mmprof_matrix
tmp = sys.argv[1]
def problems():
    for f, annotated in [("s8", True), ("s64", False)]:
        for m in mmprof_matrix.matrices(mmprof_csv.load(f"{tmp}/{f}.csv"))[:5 if annotated else 1]:
            fig = mmprof_matrix.heatmap(m, f"{tmp}/{f}.{m.name}.png")
            ax, bar = fig.axes
            texts = [t.get_text() for t in ax.texts]
            cells = [mmprof_matrix._cell(v) for v in m.values[np.isfinite(m.values)]]
            if m.kind == "node-to-node":
                yield sorted(texts) == sorted(cells), f"{f} {m.name}: written {texts}"
            else:
                yield (sorted(texts) == sorted(cells)) if annotated else not texts, \
                    f"{f} {m.name}: {len(texts)} values written"
            ticks = [t.get_text() for t in ax.get_xticklabels()]
            yield 0 < len(ticks) <= mmprof_matrix.TICKS_MAX, f"{f} {m.name}: {len(ticks)} ticks"
            label = bar.get_ylabel()
            yield m.quantity in label and "better" in label, f"{f} {m.name}: colour bar {label!r}"
            title = fig._suptitle.get_text()
            yield m.quantity in title and "median of 3 rounds" in title, f"{f}: title {title!r}"
            print(f"{tmp}/{f}.{m.name}.png", file=sys.stderr)
bad = [why for ok, why in problems() if not ok]
print("\n".join(bad) or "ok")
PY
)
check "heatmaps: values written up to 16 PUs, ticks readable, units on the bar, rounds in the title" \
	test "$drawn" = ok
[ "$drawn" = ok ] || sed 's/^/# /' <<<"$drawn"
# shellcheck disable=SC2046
pngs_ok synthetic $(grep -e '/s8\.' -e '/s64\.core' "$TMP/drawn")

written=$("$PY" analysis/plots.py "$TMP/s8.csv" 2>/dev/null | grep -c -e '-to-')
check "plots.py on the two-socket CSV: 2 core-to-core and 3 node-to-node PNGs" test "$written" -eq 5

# --- the notebook ------------------------------------------------------------

notebook_env
MMPROF_CSV=$TMP/m.csv run_notebook nb_matrices
rc=$?
check "the notebook executes headless on the real run's CSV" test "$rc" -eq 0
[ "$rc" -eq 0 ] || tail -5 "$TMP/nb_matrices.log" | sed 's/^/# /'
check "its Matrices section shows the 5 heatmaps, each under its name" "$PY" - "$TMP/nb_matrices.ipynb" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
at = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Matrices"))
outs = cells[at + 1]["outputs"]
heads = ["".join(o["data"].get("text/markdown", "")) for o in outs if "data" in o]
images = sum("image/png" in o.get("data", {}) for o in outs)
errors = [o for c in cells for o in c.get("outputs", []) if o["output_type"] == "error"]
sys.exit(errors or images != 5 or sum(h.startswith("### ") for h in heads) != 5)
PY
done_testing
