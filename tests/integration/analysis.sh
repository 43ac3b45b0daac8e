# analysis/mmprof_csv.py (Debian's python3 with pandas) loads a CSV this
# run produced, and its per-run medians equal mmprof's own table.
source "$(dirname "$0")/tap.bash"

PY=/usr/bin/python3
if ! "$PY" -c 'import pandas' 2>/dev/null; then
	skip_rest "python3-pandas is not installed for $PY (make deps)"
fi
run_mmprof --config tests/configs/tiny.ini --csv "$TMP/tiny.csv" --quiet
check "tiny config ran" test "$rc" -eq 0
summary=$("$PY" analysis/mmprof_csv.py "$TMP/tiny.csv" 2>"$TMP/py.err")
check "loader runs" test $? -eq 0
runs=$("$MMPROF" --config tests/configs/tiny.ini --dry-run | sed -n '1s/.* \([0-9]*\) job point(s).*/\1/p')
jobs=$("$PY" - "$TMP/tiny.csv" <<'PY'
import sys
sys.path.insert(0, "analysis")
import mmprof_csv
df = mmprof_csv.load(sys.argv[1])
print(len(mmprof_csv.job_runs(df)), int(mmprof_csv.runs(df).all_ok.all()))
PY
)
check "one summary per job point ($runs), rungs and copies apart" test "${jobs% *}" -eq "$runs"
check "every run all_ok" test "${jobs#* }" = 1
# Medians in ms, in run order, from the table and from the CSV.
# The table is aligned: the median column ends where its header ends.
table_ms=$(awk '/^job / { e = index($0, "median ms") + 8; next }
	e && NF == 0 { exit }
	e && NF > 3 && !/^!/ && !/^disturbed:/ { n = split(substr($0, 1, e), f, " "); print f[n] }' <<<"$out")
csv_ms=$("$PY" - "$TMP/tiny.csv" <<'PY'
import sys
sys.path.insert(0, "analysis")
import mmprof_csv
r = mmprof_csv.job_runs(mmprof_csv.load(sys.argv[1])).sort_values("run")
for ns in r["median_ns"]:
    print(f"{ns / 1e6:.3f}")
PY
)
check "table medians are the CSV's medians" test "$table_ms" = "$csv_ms"
# NAME.attribution.csv loads with its types, and each job point's causes
# have shares that add up to the job's time.
if [ -s "$TMP/tiny.attribution.csv" ]; then
	shares=$("$PY" - "$TMP/tiny.attribution.csv" <<'PY'
import sys
sys.path.insert(0, "analysis")
import mmprof_csv
att = mmprof_csv.load_attribution(sys.argv[1])
sums = att.groupby("run").share.sum()
print(str(att.significant.dtype), str(att.ns_per_byte.dtype), int(((sums - 1).abs() < 0.01).all()))
PY
)
	check "attribution CSV: typed columns, shares add up to 1 per job run" \
		test "$shares" = "boolean float64 1"
else
	skip "tests/configs/tiny.ini wrote no attribution CSV (no controls)"
fi
summary_rows=$("$PY" - "$TMP/tiny.csv" <<'PY'
import sys
sys.path.insert(0, "analysis")
import mmprof_csv
df = mmprof_csv.load(sys.argv[1])
print(len(mmprof_csv.summary(df)))
PY
)
check "summary: one row per job point ($runs)" test "$summary_rows" -eq "$runs"
printf 'schema_version,job\n1,x\n' >"$TMP/v2.csv"
check "another schema version is refused" bash -c '! "$1" analysis/mmprof_csv.py "$2" 2>/dev/null' _ "$PY" "$TMP/v2.csv"
done_testing
