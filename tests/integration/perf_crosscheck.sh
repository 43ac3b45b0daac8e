# Software-event counts agree with perf stat (Debian linux-perf).
#
# perf stat counts the whole process: start-up, the reference scan, every
# mapping and CSV write, not only the timed regions.  So the same config is
# run twice, with repeat = 1 and repeat = 6: everything outside the
# repetitions is the same in both, and perf's difference is what five
# repetitions cost.  mmprof's own counts for repetitions 1 to 5 of the
# second run must agree with it.
source "$(dirname "$0")/tap.bash"

if ! command -v perf >/dev/null || ! perf stat -e page-faults true >/dev/null 2>&1; then
	skip_rest "perf is not installed or cannot count here (make deps installs linux-perf)"
fi
events=page-faults,minor-faults,syscalls:sys_enter_read
for r in 1 6; do
	cat >"$TMP/x$r.ini" <<INI
[global]
repeat = $r
warmup = 0
events = faults, syscalls
[faults]
probe = mmap_byte
size = 64M
[reads]
probe = read_buf
size = 4M
buffer = 4K
INI
done
"$MMPROF" --config "$TMP/x1.ini" --csv "$TMP/warm.csv" --quiet >/dev/null # create the data
for r in 1 6; do
	perf stat -x, -e "$events" -o "$TMP/perf$r.txt" \
		"$MMPROF" --config "$TMP/x$r.ini" --csv "$TMP/x$r.csv" --quiet >/dev/null
done
perf_count() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }
# mmprof's sum over repetitions 1..5 of both jobs
mine() { csv_rows "$TMP/x6.events.csv" rep thread event value | awk -F'|' -v e="$1" '$1 >= 1 && $2 == "" && $3 == e { s += $4 } END { print s + 0 }'; }
close_enough() { # close_enough A B: within 2% or 4 counts
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = (a > b ? a : b) * 0.02;
		exit !(d <= m || d <= 4) }'
}
for e in page-faults minor-faults syscalls:sys_enter_read; do
	p=$(($(perf_count "$TMP/perf6.txt" "$e") - $(perf_count "$TMP/perf1.txt" "$e")))
	m=$(mine "$e")
	check "$e: perf stat difference $p vs mmprof $m" close_enough "$p" "$m"
done
check "the reads are really there (5 x 1024)" test "$(mine syscalls:sys_enter_read)" -ge 5120
done_testing
