# analysis/plots.py, `make plots` and analysis/mmprof.ipynb (Debian's
# python3 with pandas, matplotlib, nbconvert) on CSVs this run produced:
# every plot that applies is a real picture, the others are skipped with a
# note, the slowdown ratios are mmprof's own with their intervals drawn,
# the sizes plot marks mmprof's fastest answers, and the notebook executes
# headless on CSVs shaped like byte_8t, read_mmap_fread and false_sharing,
# and on its committed sample, showing each one's answers (and saying it
# has no matrices: matrices.sh draws them).
source "$(dirname "$0")/tap.bash"

source "$(dirname "$0")/pictures.bash"

same() { [ -n "$1" ] && [ "$1" = "$2" ]; } # same A B: equal and not empty

# One small config with every plot's data: three file sizes (read_buf,
# mmap_block), a reference job and a limit, controls (the attribution CSV)
# and two thread counts.
cat >"$TMP/all.ini" <<'EOF'
[global]
size = 1M
seed = 5
tally = atomic
threads = 1, 2
repeat = 3
warmup = 1

[java_like]
probe = mmap_byte, mmap_block
access = 1, 1K
zip = probe, access
controls = auto

[dotnet_like]
probe = accessor_byte
refcount = shared
baseline = java_like
controls = auto

[limit]
probe = limit

[read]
probe = read_buf
size = 64K, 256K, 1M
buffer = 4K, 64K
threads = 1

[mmap]
probe = mmap_block
size = 64K, 256K, 1M
threads = 1
EOF
run_mmprof --config "$TMP/all.ini" --csv "$TMP/all.csv" --quiet
check "small config with every plot's data ran" test "$rc" -eq 0
check "it wrote an attribution CSV" test -s "$TMP/all.attribution.csv"
baseline_out=$out

written=$("$PY" analysis/plots.py "$TMP/all.csv" 2>"$TMP/plots.err")
check "plots.py exits 0" test $? -eq 0
want=$(printf '%s\n' "$TMP"/all.{sizes,slowdown,attribution,scaling}.png)
check "plots.py prints the four paths written" test "$written" = "$want"
check "no note when every plot applies, but one per kind of matrix (it has none)" \
	test "$(grep -c -v 'skipped .*/all\.\(core\|node\)-to-\(core\|node\)\.\*\.png: no job ran' \
		"$TMP/plots.err")" -eq 0 -a "$(wc -l <"$TMP/plots.err")" -eq 2
pngs_ok all "$TMP"/all.{sizes,slowdown,attribution,scaling}.png

# The slowdown plot's ratios are mmprof's own baseline ratios, with their
# intervals, as mmprof prints them; the plot draws each interval.
plot_ratios=$(py "$TMP/all.csv" <<'PY'
import mmprof_csv, mmprof_plots
t = mmprof_plots.slowdowns(mmprof_csv.load(sys.argv[1]), "java_like")
t = t[t.over.str.startswith("over java_like") & (t.job == "dotnet_like")]
def fmt(v, e):
    return f"{v:.0f}" if e >= 100 else f"{v:.1f}" if e >= 10 else f"{v:.2f}"
for r in t.itertuples():
    print(f"threads={r.threads} access={r.access:.0f} {fmt(r.ratio, r.ratio)}x "
          f"[{fmt(r.ratio_low, r.ratio)}, {fmt(r.ratio_high, r.ratio)}]")
PY
)
mmprof_ratios=$(awk '/^dotnet_like vs java_like/ { on = 1; next } on && NF == 0 { exit }
	on { print $1, $2, $3, $4, $5 }' <<<"$baseline_out")
check "slowdown ratios equal mmprof's ratio lines" same "$plot_ratios" "$mmprof_ratios"
same "$plot_ratios" "$mmprof_ratios" ||
	printf '# plot:   %s\n# mmprof: %s\n' "$plot_ratios" "$mmprof_ratios"
whiskers=$(py "$TMP/all.csv" <<'PY'
import mmprof_csv, mmprof_plots
df = mmprof_csv.load(sys.argv[1])
fig = mmprof_plots.slowdown(df)
t = mmprof_plots.slowdowns(df)
bars = [c for ax in fig.axes for c in ax.containers if hasattr(c, "errorbar")]
drawn = sum(len(c.errorbar.lines[2][0].get_segments()) for c in bars if c.errorbar)
inside = ((t.ratio_low <= t.ratio) & (t.ratio <= t.ratio_high)).all()
lims = {ax.get_xlim() for ax in fig.axes}
print(drawn == len(t) and len(t) > 0, bool(inside), len(lims) == 1)
PY
)
check "slowdown: a 95% whisker per ratio, around it; panels share the ratio axis" \
	test "$whiskers" = "True True True"

# One size, one thread count, one job, no controls: nothing to plot, each
# skipped with a one-line note, and still exit 0.
printf '[global]\nsize = 64K\nrepeat = 2\n[one]\nprobe = mmap_byte\n' >"$TMP/one.ini"
run_mmprof --config "$TMP/one.ini" --csv "$TMP/one.csv" --quiet
check "one-run config ran" test "$rc" -eq 0
written=$("$PY" analysis/plots.py "$TMP/one.csv" 2>"$TMP/one.err")
check "plots.py exits 0 when nothing applies" test $? -eq 0
check "... writes no PNG" test -z "$written$(ls "$TMP"/one.*.png 2>/dev/null)"
notes=$(grep -c '^plots: skipped .*\.png: ' "$TMP/one.err")
check "... with one note per plot skipped (and per kind of matrix)" test "$notes" -eq 6

: >"$TMP/empty.csv"
printf 'not,a\nmmprof,csv\n' >"$TMP/other.csv"
for bad in "$TMP/missing.csv" "$TMP/empty.csv" "$TMP/other.csv"; do
	"$PY" analysis/plots.py "$bad" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	check "unreadable $(basename "$bad"): exit 1 with a message" \
		test "$rc" -eq 1 -a -s "$TMP/bad.err"
done

mkdir -p "$TMP/make"
cp "$TMP"/all.csv "$TMP"/all.attribution.csv "$TMP"/all.answers.csv "$TMP/make/"
make_out=$(make -s plots CSV="$TMP/make/all.csv" 2>&1)
check "make plots CSV=... exits 0" test $? -eq 0
check "... and writes the PNGs" test "$(ls "$TMP"/make/all.*.png | wc -l)" -eq 4
make_out=$(env -u CSV make -s plots 2>&1)
check "make plots without CSV fails" test $? -ne 0
check "... saying how to name it" grep -q 'CSV=' <<<"$make_out"

# The three shapes the notebook must read: the seed's jobs (byte_8t), the
# read/mmap/fread sizes (table = sizes) and the four tallies.
for shape in byte_8t read_mmap_fread false_sharing; do
	run_mmprof --config "tests/configs/shape_$shape.ini" --csv "$TMP/$shape.csv" --quiet
	check "$shape-shaped config ran" test "$rc" -eq 0 -a -s "$TMP/$shape.answers.csv"
	"$PY" analysis/plots.py "$TMP/$shape.csv" >"$TMP/$shape.written" 2>/dev/null
	# shellcheck disable=SC2046
	pngs_ok "$shape" $(cat "$TMP/$shape.written")
done
check "byte_8t shape: slowdown, attribution and scaling drawn" \
	test "$(sed 's/.*\.\([a-z]*\)\.png$/\1/' "$TMP/byte_8t.written" | xargs)" = "slowdown attribution scaling"
check "read_mmap_fread shape: the sizes plot drawn" \
	test "$(sed 's/.*\.\([a-z]*\)\.png$/\1/' "$TMP/read_mmap_fread.written" | xargs)" = "sizes"

# The sizes plot: the panels of the time share their axes, the title names
# mmprof's statistic, and every fastest answer is marked on its method's
# cell (★ yes, = tie, ? inconclusive).
sizes=$(py "$TMP/read_mmap_fread.csv" <<'PY'
import mmprof_csv, mmprof_plots, mmprof_tables
path = sys.argv[1]
df, answers = mmprof_csv.load(path), mmprof_csv.load_answers(path)
fig = mmprof_plots.sizes(df, answers)
*panels, grid = fig.axes
print(len(panels) == 3, len({ax.get_ylim() for ax in panels}) == 1,
      "mean and standard deviation" in fig._suptitle.get_text())
rows = [t.get_text() for t in grid.get_yticklabels()]
cols = [t.get_text().split("\n")[0] for t in grid.get_xticklabels()]
cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text()
         for t in grid.texts}
runs = mmprof_csv.runs(df).set_index("run")
mark = {"yes": "★", "no": "=", "inconclusive": "?"}
fastest = answers[answers.kind == "fastest"]
bad = []
for a in fastest.itertuples():
    cell = (rows.index(mmprof_tables.method_label(runs.loc[a.run])),
            cols.index(mmprof_tables.binary_size(a.bytes)))
    if not cells.get(cell, "").startswith(mark[a.outcome]):
        bad.append(f"{a.question} {a.outcome}: cell {cell} is {cells.get(cell)!r}")
print(len(fastest) > 0 and not bad, "; ".join(bad))
PY
)
check "sizes: family panels share their axes; the title says mean and sd" \
	test "$(head -1 <<<"$sizes")" = "True True True"
check "sizes: every fastest answer marked on its method and size" \
	test "$(tail -1 <<<"$sizes" | cut -d' ' -f1)" = True
[ "$(tail -1 <<<"$sizes" | cut -d' ' -f1)" = True ] || tail -1 <<<"$sizes" | sed 's/^/# /'
# mmprof's labels: a decided winner's verdict is the label the plots use.
labels=$(py "$TMP/read_mmap_fread.csv" "analysis/samples/sample.csv" <<'PY'
import mmprof_csv, mmprof_tables
for path in sys.argv[1:]:
    df, answers = mmprof_csv.load(path), mmprof_csv.load_answers(path)
    runs = mmprof_csv.runs(df).set_index(["run_id", "run"])
    for a in answers[answers.kind == "fastest"].itertuples():
        named = mmprof_tables.methods_in(a.verdict)
        label = mmprof_tables.method_label(runs.loc[(a.run_id, a.run)])
        threads = runs.loc[(a.run_id, a.run), "threads"]
        if threads > 1:
            label += f" t={threads}"
        if label not in named:
            print(f"{a.verdict!r} does not name {label!r}")
PY
)
check "method labels are mmprof's (each fastest verdict names its run)" test -z "$labels"
[ -z "$labels" ] || sed 's/^/# /' <<<"$labels"

# The committed sample and notebook.
check "samples: a CSV and its companions, under 400 KB in all" \
	test -s analysis/samples/sample.csv -a -s analysis/samples/sample.attribution.csv \
	-a -s analysis/samples/sample.answers.csv -a "$(cat analysis/samples/* | wc -c)" -lt 400000
check "the committed notebook has no outputs" "$PY" -c '
import json, sys
nb = json.load(open("analysis/mmprof.ipynb"))
sys.exit(any(c.get("outputs") or c.get("execution_count") for c in nb["cells"]))'

notebook_env
# notebook_shows FILE CSV PLOTS WANT...: no error; the CSV named; every
# section shows something and a section with nothing says so in one line;
# the answers table with an outcome; PLOTS images; and each WANT, one of
# winners, counters, attribution, a table the notebook must show.
notebook_shows() {
	"$PY" - "$@" <<'PY'
import json, re, sys
path, csv, plots, *want = sys.argv[1:]
cells = [c for c in json.load(open(path))["cells"] if c["cell_type"] == "code"]
outs = [o for c in cells for o in c["outputs"]]
errors = [o["ename"] for o in outs if o["output_type"] == "error"]
text = "".join("".join(o.get("text", "")) for o in outs)
html = ["".join(o["data"]["text/html"]) for o in outs if "text/html" in o.get("data", {})]
pngs = sum("image/png" in o.get("data", {}) for o in outs)
heads = {"answers": "figure [95%]", "winners": "closest / fastest",
         "counters": "medians over the rounds", "attribution": "share [95%]"}
problems = []
if errors:
    problems.append(f"errors: {errors}")
if csv not in text:
    problems.append(f"{csv} not named")
if any(not c["outputs"] for c in cells):
    problems.append("a section shows nothing")
for c in cells:
    lines = "".join("".join(o.get("text", "")) for o in c["outputs"]).splitlines()
    if sum("no data" in l or l.startswith("No ") or "only: no" in l for l in lines) > 1:
        problems.append(f"several 'nothing' lines in one section: {lines}")
answers = [h for h in html if heads["answers"] in h]
if not answers or not re.search(r">\s*(yes|no|inconclusive)\s*</td>", answers[0]):
    problems.append("no answers table with a yes/no/inconclusive outcome")
for w in want:
    if not any(heads[w] in h for h in html):
        problems.append(f"no {w} table")
if pngs != int(plots):
    problems.append(f"{pngs} images, not {plots}")
sys.exit("; ".join(problems) or None)
PY
}
# notebook NAME CSV PLOTS WANT...: executes the notebook into $TMP/NAME.ipynb
# (MMPROF_CSV as set by the caller) and checks that it ran and showed CSV.
notebook() {
	local name=$1 csv=$2 plots=$3 rc why
	shift
	run_notebook "$name"
	rc=$?
	check "$name: notebook executes headless" test "$rc" -eq 0
	[ "$rc" -eq 0 ] || tail -5 "$TMP/$name.log" | sed 's/^/# /'
	why=$(notebook_shows "$TMP/$name.ipynb" "$@" 2>&1)
	check "$name: it shows $(basename "$csv")'s answers, ${*:3}, $plots plot(s)" test -z "$why"
	[ -z "$why" ] || echo "# $why"
}
MMPROF_CSV=$TMP/byte_8t.csv notebook nb_byte_8t "$TMP/byte_8t.csv" 3 counters attribution
MMPROF_CSV=$TMP/read_mmap_fread.csv notebook nb_read_mmap_fread "$TMP/read_mmap_fread.csv" 1 \
	winners counters
MMPROF_CSV=$TMP/false_sharing.csv notebook nb_false_sharing "$TMP/false_sharing.csv" 3 \
	counters attribution
unset MMPROF_CSV
notebook nb_sample analysis/samples/sample.csv 4 winners counters attribution
check "nb_sample: its Matrices section says in one line that it has none" \
	"$PY" - "$TMP/nb_sample.ipynb" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
at = next(i for i, c in enumerate(cells) if "".join(c["source"]).startswith("## Matrices"))
text = "".join("".join(o.get("text", "")) for o in cells[at + 1]["outputs"])
sys.exit(not (text.startswith("No matrices: ") and text.count("\n") == 1))
PY
done_testing
