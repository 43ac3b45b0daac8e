# Per-call overhead in programs mmprof cannot change (probe = exec, the
# bulk control through the preload library): a planted program reading a
# byte a call (tests/helpers/percall.c) names per-call overhead with its
# fix, or says why it cannot decide; dd bs=1 has per-call overhead shown
# (its 1-byte writes to /dev/null stay, so what the rung reaches is its
# reads); the same program reading 1 MiB a call is never blamed on
# per-call overhead -- its rung is not used, and says why.  The programs'
# results are the same on every rung (their printed sum against the
# file's reference; dd's count of bytes copied).  Idle and with one CPU
# kept busy, every program judged every time.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
PERCALL=$PWD/$BUILD/tests/percall
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/percall" "$BUILD/libmmprof-preload.so" >/dev/null 2>&1
[ -x "$PERCALL" ] || skip_rest "the planted program did not build ($PERCALL)"
command -v dd >/dev/null || skip_rest "no dd on PATH"

# 128 KiB: a read a byte is some 0.2-0.4 s a repetition here (a system
# call is 1.5-2.5 us on this paravirtualised host), dd's read and write
# a byte twice that; the whole file is one refill of the library's buffer.
SIZE=131072
cat >"$TMP/percall.ini" <<INI
[global]
size = 128K
repeat = 5
warmup = 1
controls = bulk, limit
events = task-clock, page-faults, raw_syscalls:sys_enter
probe = exec
kernel = histogram

[bytes]
command = $PERCALL bytes {file}
result = output:^Sum: (\\d+)

[blocks]
command = $PERCALL blocks {file}
result = output:^Sum: (\\d+)

[dd]
command = dd if={file} of=/dev/null bs=1
INI

# top JOB CSV: the largest significant cause shown (the remainder aside),
# what judge (tap.bash) holds the verdict against.
top() { shown_top "$@"; }
# cause_row JOB CAUSE CSV: "share|significant|evidence_before|evidence_after"
cause_row() {
	csv_rows "$3" job cause share significant evidence_before evidence_after |
		awk -F'|' -v j="$1" -v c="$2" '$1 == j && $2 == c { print $3 "|" $4 "|" $5 "|" $6 }'
}

judge_all() { # LABEL CSV
	local label=$1 attr=${2%.csv}.attribution.csv line row
	judge "$label" bytes 'per-call' "$attr"
	# The evidence: a system call a byte without the rung, a few for the
	# whole file with it.
	row=$(cause_row bytes per-call "$attr")
	check "$label: bytes' system calls per MiB fall from ~1M to a thousandth ($row: the rest are its start's)" \
		awk -F'|' -v r="$row" 'BEGIN { split(r, f, "|"); exit !(f[3] > 500000 && f[4] < f[3] / 1000) }'
	# dd: its reads are the rung's, its 1-byte writes stay: per-call is
	# shown with some half of its time, beside the loop its writes are in.
	line=$(verdict dd)
	row=$(cause_row dd per-call "$attr")
	if [ "$(cut -d'|' -f2 <<<"$row")" = true ]; then
		ok "$label: dd has per-call shown ($(cut -d'|' -f1 <<<"$row") of its time; syscalls/MiB $(cut -d'|' -f3-4 <<<"$row" | tr '|' ' ' | awk '{ printf "%.0f -> %.0f", $1, $2 }'))"
	elif grep -q '^  largest cause: inconclusive (' <<<"$line"; then
		ok "$label: dd's per-call not shown, and the verdict is inconclusive"
	else
		fail "$label: dd's per-call not shown, and a cause is decided" "$line"
	fi
	check "$label: dd's system calls per MiB halve: its reads served, its writes left ($row)" \
		awk -F'|' -v r="$row" 'BEGIN { split(r, f, "|"); exit !(f[3] > 1500000 && f[4] > 900000 && f[4] < 1200000) }'
	# blocks: nothing small to serve: the rung is not used, and no
	# per-call overhead is named.
	line=$(verdict blocks)
	check "$label: blocks' bulk rung is not used, and says why" grep -q \
		"^  not used: bulk (per-call) changed nothing: no read() under 16 KiB of a regular file opened read-only" <<<"$line"
	check "$label: blocks is not blamed on per-call overhead (top: $(top blocks "$attr"))" \
		test "$(top blocks "$attr")" != per-call
	# The same results on every rung, and what the library served.
	check "$label: every printed sum is the file's (bytes, blocks: the job, bulk and limit, 30 rows)" \
		test "$(csv_rows "$2" job result_ok | grep -cE '^(bytes|blocks)\|true$')" -eq 30
	local logs bad=0 n=0
	logs=$(csv_rows "$2" job log | awk -F'|' '$1 == "dd" { print $2 }')
	for l in $logs; do
		n=$((n + 1))
		grep -q "^$SIZE bytes .* copied" "$l" || bad=$((bad + 1))
	done
	check "$label: dd copied $SIZE bytes in all $n repetitions, with the rung or without" \
		test "$n" -eq 10 -a "$bad" -eq 0
	check "$label: on the bulk rung the library served all but the refills, a handful of system calls" \
		test "$(csv_rows "$2" job control bulk_served bulk_syscalls | awk -F'|' -v s=$SIZE '
			($1 == "bytes" || $1 == "dd") && $2 == "bulk" && $3 >= s - 2 && $4 <= 8' | wc -l)" -eq 10
	check "$label: blocks' 1 MiB reads reached no buffer (bulk_calls 0)" \
		test "$(csv_rows "$2" job control bulk_calls | grep -c '^blocks|bulk|0$')" -eq 5
}

# One CPU kept busy by another process for the whole run.
sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$TMP"' EXIT
run_mmprof --config "$TMP/percall.ini" --csv "$TMP/busy.csv" --quiet
kill $hog 2>/dev/null
wait $hog 2>/dev/null
check "busy: runs" test "$rc" -eq 0
lines_fit busy
judge_all busy "$TMP/busy.csv"

run_mmprof --config "$TMP/percall.ini" --csv "$TMP/idle.csv" --quiet
check "idle: runs" test "$rc" -eq 0
lines_fit idle
judge_all idle "$TMP/idle.csv"
# The plan says what the rung changes, before anything runs.
run_mmprof --config "$TMP/percall.ini" --dry-run
check "the plan says what the bulk rung changes" \
	grep -q "rung 1 +bulk (per-call): small read()s served from a 128 KiB buffer (preload library)" <<<"$out"
done_testing
