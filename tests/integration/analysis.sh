# analysis/mmprof_csv.py (Debian's python3 with pandas) loads a CSV this
# run produced, and its per-run medians equal mmprof's own table.
source "$(dirname "$0")/tap.bash"

PY=/usr/bin/python3
if ! "$PY" -c 'import pandas' 2>/dev/null; then
	skip "python3-pandas is not installed for $PY (make deps)"
	done_testing
	exit 0
fi
run_mmprof --config tests/configs/tiny.ini --csv "$TMP/tiny.csv" --quiet
check "tiny config ran" test "$rc" -eq 0
summary=$("$PY" analysis/mmprof_csv.py "$TMP/tiny.csv" 2>"$TMP/py.err")
check "loader runs" test $? -eq 0
runs=$("$MMPROF" --config tests/configs/tiny.ini --dry-run | grep -c '^run ')
jobs=$("$PY" - "$TMP/tiny.csv" <<'PY'
import sys
sys.path.insert(0, "analysis")
import mmprof_csv
r = mmprof_csv.runs(mmprof_csv.load(sys.argv[1]))
print(len(r[r.control == ""]), int(r.all_ok.all()))
PY
)
check "one summary per job run ($runs), controls apart" test "${jobs% *}" -eq "$runs"
check "every run all_ok" test "${jobs#* }" = 1
# Medians in ms, in run order, from the table and from the CSV.
# The table is aligned: the median column ends where its header ends.
table_ms=$(awk '/^job / { e = index($0, "median ms") + 8; next }
	e && NF == 0 { exit }
	e && NF > 3 && !/^!/ { n = split(substr($0, 1, e), f, " "); print f[n] }' <<<"$out")
csv_ms=$("$PY" - "$TMP/tiny.csv" <<'PY'
import sys
sys.path.insert(0, "analysis")
import mmprof_csv
r = mmprof_csv.runs(mmprof_csv.load(sys.argv[1]))
for ns in r[r.control == ""]["median_ns"]:
    print(f"{ns / 1e6:.3f}")
PY
)
check "table medians are the CSV's medians" test "$table_ms" = "$csv_ms"
printf 'schema_version,job\n2,x\n' >"$TMP/v2.csv"
check "another schema version is refused" bash -c '! "$1" analysis/mmprof_csv.py "$2" 2>/dev/null' _ "$PY" "$TMP/v2.csv"
done_testing
