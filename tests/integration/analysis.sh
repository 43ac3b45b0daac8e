# analysis/mmprof_csv.py (Debian's python3 with pandas) loads the CSVs this
# run produced with their types: its per-run medians equal mmprof's own
# table, its column tables equal `mmprof --list-columns`, empty cells are
# NaN or NA (never 0 or ''), and load_many keeps several files apart.
source "$(dirname "$0")/tap.bash"

PY=/usr/bin/python3
if ! "$PY" -c 'import pandas' 2>/dev/null; then
	skip_rest "python3-pandas is not installed for $PY (make deps)"
fi
# py NAME.csv... <<'PY': a Python snippet with mmprof_csv imported as m.
py() {
	"$PY" -c 'import sys; sys.path.insert(0, "analysis"); import mmprof_csv as m
exec(sys.stdin.read())' "$@"
}

run_mmprof --config tests/configs/shape_byte_8t.ini --per-thread --csv "$TMP/seed.csv" --quiet
check "byte_8t-shaped config ran" test "$rc" -eq 0
summary=$("$PY" analysis/mmprof_csv.py "$TMP/seed.csv" 2>"$TMP/py.err")
check "loader runs" test $? -eq 0
runs=$("$MMPROF" --config tests/configs/shape_byte_8t.ini --dry-run | sed -n '1s/.* \([0-9]*\) job point(s).*/\1/p')
jobs=$(py "$TMP/seed.csv" <<'PY'
df = m.load(sys.argv[1])
print(len(m.job_runs(df)), int(m.runs(df).all_ok.all()))
PY
)
check "one summary per job point ($runs), rungs and copies apart" test "${jobs% *}" -eq "$runs"
check "every run all_ok" test "${jobs#* }" = 1
# Medians in ms, in run order, from the table and from the CSV.
# The table is aligned: the median column ends where its header ends.
table_ms=$(awk '/^job / { e = index($0, "median ms") + 8; next }
	e && NF == 0 { exit }
	e && NF > 3 && !/^!/ && !/^[a-z ]+: / { n = split(substr($0, 1, e), f, " "); print f[n] }' <<<"$out")
csv_ms=$(py "$TMP/seed.csv" <<'PY'
r = m.job_runs(m.load(sys.argv[1]))
for ns in r["median_ns"]:
    print(f"{ns / 1e6:.3f}")
PY
)
check "table medians are the CSV's medians, in run order" test "$table_ms" = "$csv_ms"

# The loader's column tables are mmprof's, file by file.
listed=$("$MMPROF" --list-columns | awk '/^NAME\.[a-z]*\.csv:$/ { f = substr($1, 1, length($1) - 1); next }
	NF { print (f ? f : "NAME.csv"), $1 }')
known=$(py <<'PY'
for kind, cols in m.COLUMNS.items():
    for c, _ in cols:
        print(m._WHAT[kind], c)
PY
)
differ=$(diff <(echo "$listed") <(echo "$known"))
check "the loader knows every column of --list-columns, in its order" \
	test -z "$differ" -a "$(wc -l <<<"$known")" -gt 100
[ -z "$differ" ] || sed 's/^/# /' <<<"$differ" | head -10

# Types: numbers float64 (NaN where empty), run numbers int64, booleans
# nullable, empty text NA; a metric column every cell of which is empty
# is still float64, and arithmetic on it gives NaN.
types=$(py "$TMP/seed.csv" <<'PY'
df = m.load(sys.argv[1])
print(df["elapsed_ns"].dtype, df["cycles_per_byte"].dtype, df["access"].dtype,
      df["run"].dtype, df["disturbed"].dtype, df["prefault"].dtype, df["control"].dtype,
      df["started_at"].dtype)
points = df[df["run"] == df["parent"]]
print(int(points["control"].isna().all()), int((df["control"] == "").fillna(False).any()),
      int(df.loc[df["probe"] == "limit", "access"].isna().all()))
PY
)
check "NAME.csv typed: numbers float64, runs int64, booleans, text, UTC time" \
	test "$(head -1 <<<"$types")" = "float64 float64 float64 int64 boolean boolean string datetime64[ns, UTC]"
check "empty text is NA, never ''; an empty number is NaN" test "$(tail -1 <<<"$types")" = "1 0 1"
"$PY" - "$TMP/seed.csv" "$TMP/blank.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
for r in rows:
    r["cycles_per_byte"] = r["faults_per_mib"] = ""
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
PY
blank=$(py "$TMP/blank.csv" <<'PY'
df = m.load(sys.argv[1])
x = df["cycles_per_byte"] / df["bytes"]
print(df["cycles_per_byte"].dtype, df["faults_per_mib"].dtype, x.dtype, int(x.isna().all()))
PY
)
check "a metric column with every cell empty is float64, NaN in arithmetic" \
	test "$blank" = "float64 float64 float64 1"

# The companions: typed, and a missing one is an empty typed frame.
companions=$(py "$TMP/seed.csv" <<'PY'
path = sys.argv[1]
ev, th, att, ans = (m.load_events(path), m.load_threads(path), m.load_attribution(path),
                    m.load_answers(path))
sums = ev[ev["thread"].isna()]
print(len(ev) > 0, ev["thread"].dtype, ev["value"].dtype, len(sums) > 0,
      len(th) > 0, th["thread"].dtype, th["thread_ns"].dtype,
      att["significant"].dtype, att["share"].dtype, ans["outcome"].dtype)
none = m.load_answers(path + ".nowhere.csv")
print(len(none), none["ratio"].dtype, none["run"].dtype, none["used_disturbed"].dtype,
      list(none.columns) == [c for c, _ in m.COLUMNS["answers"]])
PY
)
check "events, threads, attribution, answers load typed" \
	test "$(head -1 <<<"$companions")" = "True float64 float64 True True int64 float64 boolean float64 string"
check "a missing companion is an empty frame with its typed columns" \
	test "$(tail -1 <<<"$companions")" = "0 float64 int64 boolean True"
# Every companion says which host wrote it, as NAME.csv does; one written
# before companions had the column gets its host from NAME.csv beside it.
hosts=$(py "$TMP/seed.csv" <<'PY'
path = sys.argv[1]
want = set(m.load(path)["host"])
for load in (m.load_events, m.load_threads, m.load_attribution, m.load_answers):
    df = load(path)
    print(load.__name__, int(len(df) > 0 and set(df["host"]) == want and
                             df.columns[-1] == "host"))
import pandas as pd, shutil, os
old = os.path.dirname(path) + "/old"
os.makedirs(old, exist_ok=True)
shutil.copy(path, old + "/seed.csv")
pd.read_csv(path[:-4] + ".answers.csv", dtype=str, keep_default_na=False).drop(
    columns="host").to_csv(old + "/seed.answers.csv", index=False)
print("old", int(set(m.load_answers(old + "/seed.csv")["host"]) == want))
PY
)
for k in events threads attribution answers; do
	check "seed.$k.csv as written: a host column, the last (columns are added at the end)" \
		test "$(head -1 "$TMP/seed.$k.csv" | tr , '\n' | tail -1)" = host
done
for f in load_events load_threads load_attribution load_answers; do
	check "$f: every row has NAME.csv's host" grep -qx "$f 1" <<<"$hosts"
done
check "an answers file without a host column: its host from NAME.csv" grep -qx "old 1" <<<"$hosts"
shares=$(py "$TMP/seed.csv" <<'PY'
att = m.load_attribution(sys.argv[1])
sums = att.groupby("run").share.sum()
print(int(len(att) > 0 and ((sums - 1).abs() < 0.01).all()))
PY
)
check "attribution: shares add up to 1 per job run" test "$shares" = 1

# load_many: two CSVs of two configs concatenate, run_ids and runs apart;
# a glob skips the companions it matches; the same file twice, or a file of
# another schema version, is refused naming the file.
printf '[global]\nsize = 64K\nrepeat = 2\n[one]\nprobe = mmap_byte\n[two]\nprobe = read_buf\n' \
	>"$TMP/one.ini"
run_mmprof --config "$TMP/one.ini" --csv "$TMP/one.csv" --quiet
check "a second config ran" test "$rc" -eq 0
mkdir "$TMP/many"
for f in "$TMP"/seed.* "$TMP"/one.*; do # as if from hosts "seed" and "one"
	cp "$f" "$TMP/many/r-$(basename "$f")"
done
many=$(py "$TMP/seed.csv" "$TMP/one.csv" "$TMP/many" <<'PY'
a, b = m.load(sys.argv[1]), m.load(sys.argv[2])
both = m.load_many([sys.argv[1], sys.argv[2]])
ids = set(a["run_id"]) | set(b["run_id"])
print(int(len(both) == len(a) + len(b)), int(set(both["run_id"]) == ids),
      int(len(m.job_runs(both)) == len(m.job_runs(a)) + len(m.job_runs(b))),
      int(both["access"].dtype == "float64" and both["control"].dtype == "string"),
      int(list(m.summary(both).columns[:2]) == ["host", "run_id"]))
globbed = m.load_many(sys.argv[3] + "/r-{host}.csv")  # r-seed.csv, r-one.csv, not companions
print(int(len(globbed) == len(both) and set(globbed["run_id"]) == ids))
att = m.load_many(sys.argv[3] + "/*.csv", m.load_attribution)  # r-one.csv has none
print(int(len(att) == len(m.load_attribution(sys.argv[1]))), att["share"].dtype)
PY
)
check "load_many: two configs concatenated, the union of run_ids, runs apart" \
	test "$(sed -n 1p <<<"$many")" = "1 1 1 1 1"
check "load_many of a glob: the NAME.csv files, not their companions" \
	test "$(sed -n 2p <<<"$many")" = 1
check "load_many of a companion: typed, a missing one adds no rows" \
	test "$(sed -n 3p <<<"$many")" = "1 float64"
dup=$(py "$TMP/seed.csv" "$TMP/blank.csv" <<'PY'
try:
    m.load_many(sys.argv[1:])
except ValueError as e:
    print(e)
PY
)
check "load_many refuses one invocation twice, naming both files" \
	grep -q "blank.csv: run_id .* is also in .*seed.csv" <<<"$dup"
sed '2,$s/^2,/1,/' "$TMP/one.csv" >"$TMP/old.csv"
old=$(py "$TMP/seed.csv" "$TMP/old.csv" <<'PY'
try:
    m.load_many(sys.argv[1:])
except ValueError as e:
    print(e)
PY
)
check "load_many names the file of another schema version" \
	grep -q "old.csv: written with schema_version 1" <<<"$old"
nomatch=$(py "$TMP" <<'PY'
try:
    m.load_many(sys.argv[1] + "/nothing-*.csv")
except FileNotFoundError as e:
    print("not found:", e)
PY
)
check "load_many says when a glob matches nothing" grep -q "^not found: no file matches" <<<"$nomatch"

summary_rows=$(py "$TMP/seed.csv" <<'PY'
print(len(m.summary(m.load(sys.argv[1]))))
PY
)
check "summary: one row per job point ($runs)" test "$summary_rows" -eq "$runs"
printf 'schema_version,job\n1,x\n' >"$TMP/v1.csv"
"$PY" analysis/mmprof_csv.py "$TMP/v1.csv" >/dev/null 2>"$TMP/v1.err"
check "another schema version is refused: exit 1 and why" \
	test $? -eq 1 -a -n "$(grep 'schema_version 1; this analysis/ reads schema_version 2' "$TMP/v1.err")"
"$PY" analysis/mmprof_csv.py "$TMP/seed.events.csv" >/dev/null 2>"$TMP/ev.err"
check "a companion given as NAME.csv is refused, saying what it looks like" \
	grep -q 'not an mmprof NAME.csv (it looks like NAME.events.csv)' "$TMP/ev.err"
done_testing
