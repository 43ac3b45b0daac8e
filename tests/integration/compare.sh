# mmprof compare on real CSVs: a planted 20% slowdown on chosen runs is
# named slower and nothing else is, runs are matched by parameters when
# the run numbers move, --fail-on-regression exits 3, and files that are
# not this schema's mmprof CSVs are explained with exit 2.
#
# The planted copy is made from A itself: A and its copy differ by exactly
# 1.2 on the chosen runs and by nothing elsewhere, so the check cannot be
# upset by the machine drifting between two invocations (two real runs are
# compared too, for the matching, without asserting their outcomes).
source "$(dirname "$0")/tap.bash"

cat >"$TMP/cmp.ini" <<'INI'
[global]
size = 4M
seed = 11
repeat = 5
warmup = 1
threads = 1

[scan]
probe = mmap_byte, mmap_block
access = 1, 1K
zip = probe, access
prefault = yes

[files]
probe = read_buf
kernel = histogram
buffer = 4K, 16K

[ctl]
probe = mmap_byte
tally = packed, padded
threads = 2
controls = prefault, tally

[limit]
probe = limit
INI
# The same config with a job first: every run number moves.
{ printf '[global]\n'; sed -n '/^\[global\]/,/^$/p' "$TMP/cmp.ini" | tail -n +2
  printf '[first]\nprobe = mmap_block\naccess = 4K\n\n'; sed -n '/^\[scan\]/,$p' "$TMP/cmp.ini"; } >"$TMP/moved.ini"

run_mmprof --config "$TMP/cmp.ini" --csv "$TMP/a.csv" --quiet
check "A runs" test "$rc" -eq 0
run_mmprof --config "$TMP/moved.ini" --csv "$TMP/b.csv" --quiet
check "B (a job added first) runs" test "$rc" -eq 0
# Runs compare pairs: all but copies of limit runs (no control, another parent).
nruns=$(csv_rows "$TMP/a.csv" run parent control | awk -F'|' '$3 != "" || $1 == $2 { print $1 }' | sort -u | wc -l)

# plant SRC DST N: DST is SRC with the N quietest runs' elapsed_ns x 1.2
# (quietest: their clean repetitions' log spread, so 5 repetitions can
# show 20%); prints those runs' numbers.
plant() {
	/usr/bin/python3 - "$@" <<'PY'
import csv, math, statistics, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.DictReader(open(src, newline="")))
runs = {}
for r in rows:
    copy = r["control"] == "" and r["parent"] != r["run"]
    if not copy:
        runs.setdefault(r["run"], []).append(r)
def spread(rs):
    clean = [r for r in rs if r["disturbed"] == "false"]
    use = clean if len(clean) >= 3 else rs
    return statistics.stdev(math.log(float(r["elapsed_ns"])) for r in use)
chosen = sorted(runs, key=lambda k: spread(runs[k]))[:n]
for k in chosen:
    if spread(runs[k]) > 0.05:
        sys.exit("run %s: spread %.3f too wide to show 20%% in 5 repetitions" % (k, spread(runs[k])))
with open(dst, "w", newline="") as f:  # csv's default \r\n: CRLF must read too
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    for r in rows:
        if r["run"] in chosen:
            r["elapsed_ns"] = str(round(int(r["elapsed_ns"]) * 1.2))
        w.writerow(r)
print(" ".join(sorted(chosen, key=int)))
PY
}
planted=$(plant "$TMP/a.csv" "$TMP/a_slow.csv" 3 2>"$TMP/plant.err")
if [ -z "$planted" ]; then
	skip "planted slowdown: the machine is too noisy here ($(cat "$TMP/plant.err"))"
else
	run_mmprof compare "$TMP/a.csv" "$TMP/a_slow.csv" --csv "$TMP/cmp.csv"
	check "compare A A' exits 0" test "$rc" -eq 0
	slower=$(csv_rows "$TMP/cmp.csv" a_run outcome | awk -F'|' '$2 == "slower" { print $1 }' | sort -n | paste -sd' ')
	check "exactly the planted runs ($planted) are slower (got: $slower)" test "$slower" = "$planted"
	others=$(csv_rows "$TMP/cmp.csv" outcome | sort | uniq -c | awk '{ print $2 "=" $1 }' | paste -sd' ')
	check "the others are same or inconclusive ($others)" \
		test -z "$(csv_rows "$TMP/cmp.csv" outcome | grep -vx 'slower\|same\|inconclusive')"
	check "every run paired ($nruns)" test "$(csv_col "$TMP/cmp.csv" a_run | wc -l)" -eq "$nruns"
	check "the planted ratio is 1.2" test -z "$(csv_rows "$TMP/cmp.csv" outcome ratio |
		awk -F'|' '$1 == "slower" && ($2 < 1.199 || $2 > 1.201)')"
	check "summary line" grep -qx "3 slower, 0 faster, [0-9]* same, [0-9]* inconclusive; only in A: 0; only in B: 0" <<<"$out"
	check "the method is said" grep -q "Welch's t-interval on the difference of mean log times (A and B were not measured side by side" <<<"$out"
	check "the table names the outcome per run" grep -Eq '^scan +mmap_byte .* 1\.[0-9]+x \[[0-9.]+, [0-9.]+\] +(slower|same|inconclusive)' <<<"$out"
	check "same host: no note" test -z "$(grep '^note:' <<<"$out")"

	run_mmprof compare "$TMP/a.csv" "$TMP/a_slow.csv" --fail-on-regression
	check "--fail-on-regression exits 3" test "$rc" -eq 3
	check "... and says why" grep -q "3 run(s) slower in B (--fail-on-regression): exit 3" <<<"$err"
	run_mmprof compare "$TMP/a_slow.csv" "$TMP/a.csv" --fail-on-regression
	check "the other way round: faster, exit 0" test "$rc" -eq 0
	check "... 3 faster" grep -q "^0 slower, 3 faster," <<<"$out"
	run_mmprof compare "$TMP/a.csv" "$TMP/a_slow.csv" --fail-on-regression --tolerance 30%
	check "--tolerance 30%: 20% is not slower (exit $rc)" test "$rc" -eq 0
fi

# Two real invocations with the run numbers moved: matched by parameters.
run_mmprof compare "$TMP/a.csv" "$TMP/b.csv" --csv "$TMP/ab.csv"
check "compare A B exits 0" test "$rc" -eq 0
check "B's added job is only in B, nothing only in A" grep -Eq "; only in A: 0; only in B: 1$" <<<"$out"
check "... listed with its parameters" grep -q "^  \[first\] mmap_block .*access=4096.* (run 1)$" <<<"$out"
check "every run of A paired across moved numbers" test -z "$(csv_rows "$TMP/ab.csv" a_run b_run | awk -F'|' '$2 != $1 + 1')"
check "rungs paired with their control" test "$(csv_rows "$TMP/ab.csv" job control | grep -c '^ctl|prefault')" -eq 4

# Machines differ: said above the table.
sed '2,$s/,vm,/,othermachine,/' "$TMP/a.csv" >"$TMP/other_host.csv"
if grep -q ',othermachine,' "$TMP/other_host.csv"; then
	run_mmprof compare "$TMP/a.csv" "$TMP/other_host.csv"
	check "another host is said" grep -q "^note: A ran on host vm, B on othermachine" <<<"$out"
else
	skip "host note: this host is not called vm"
fi

# Files that cannot be compared: exit 2, the file and the reason.
/usr/bin/python3 - "$TMP/a.csv" "$TMP/v1.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys(), lineterminator="\n")
    w.writeheader()
    for r in rows:
        r["schema_version"] = "1"
        w.writerow(r)
PY
run_mmprof compare "$TMP/a.csv" "$TMP/v1.csv"
check "schema mismatch exits 2" test "$rc" -eq 2
check "... naming the file and both versions" grep -q "v1.csv has CSV schema version 1; this mmprof (.*) reads version 2.*a.csv has version 2" <<<"$err"
check "... and prints no table" test -z "$out"
printf 'name,value\nx,"1,5"\n' >"$TMP/other.csv"
run_mmprof compare "$TMP/other.csv" "$TMP/a.csv"
check "a CSV that is not mmprof's exits 2" test "$rc" -eq 2
check "... saying so" grep -q "other.csv is not an mmprof CSV: its header has no schema_version column (it starts: name,value)" <<<"$err"
sed '2,$s/,padded,/,packed,/' "$TMP/a.csv" >"$TMP/dup.csv"
run_mmprof compare "$TMP/a.csv" "$TMP/dup.csv"
check "two runs with one key exit 2" test "$rc" -eq 2
check "... naming both runs" grep -Eq "dup.csv: runs [0-9]+ \(line [0-9]+\) and [0-9]+ \(line [0-9]+\) have the same parameters \(\[ctl\] mmap_byte .*tally=packed" <<<"$err"
run_mmprof compare "$TMP/a.csv"
check "one file: usage, exit 2" test "$rc" -eq 2
run_mmprof compare "$TMP/a.csv" "$TMP/b.csv" --csv "$TMP/b.csv"
check "--csv over an input: exit 2" test "$rc" -eq 2
check "... B untouched" test "$(csv_col "$TMP/b.csv" run | sort -u | wc -l)" -gt 1
run_mmprof compare --help
check "compare --help" grep -q "^usage: mmprof compare A.csv B.csv" <<<"$out"
undocumented=$(head -1 "$TMP/ab.csv" | tr -d '\r' | tr ',' '\n' | while read -r c; do
	grep -q "^| \`$c\` |" docs/compare.md || echo "$c"; done)
check "every --csv column is in docs/compare.md ($undocumented)" test -z "$undocumented"
run_mmprof --help
check "mmprof --help names compare and --json" grep -q "mmprof compare A.csv B.csv" <<<"$out"

done_testing
