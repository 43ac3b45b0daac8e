# What a program prints under probe = exec (docs/exec.md, "Output" and
# "Logs"): read whole as it streams, so a result line followed by more
# output than any buffer is still read; its log capped at log_max (head
# and tail kept, what was left out said), and kept with the invocation
# whose rows NAME.csv keeps.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
HELPER=$PWD/$BUILD/tests/exec_helper
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/exec_helper" >/dev/null 2>&1
[ -x "$HELPER" ] || skip_rest "the helper program did not build ($HELPER)"

# run_job NAME CSV JOB-LINES...: a one-job exec config over a 64 KiB file
# (seed 5), run with --csv CSV; sets $out $err $rc.
run_job() {
	local name=$1 csv=$2
	shift 2
	{
		printf '[global]\nsize = 64K\nseed = 5\nrepeat = 1\nwarmup = 0\nevents = none\nprofile = off\n\n[%s]\nprobe = exec\n' "$name"
		printf '%s\n' "$@"
	} >"$TMP/$name.ini"
	run_mmprof --config "$TMP/$name.ini" --csv "$csv"
}

# The result line first, then 12 MiB: the line is read wherever it is.
run_job flood "$TMP/flood.csv" "command = $HELPER flood {file} 12" \
	"result = output:^Found (\\d+) zero"
data=$MMPROF_DATA/mmprof-64KiB-random-5.bin
zeros=$(tr -dc '\0' <"$data" | wc -c)
check "a result line followed by 12 MiB of output is read: exit 0 ($rc), result_ok true" \
	test "$rc" -eq 0 -a "$(csv_col "$TMP/flood.csv" result_ok 2>/dev/null)" = true
check "...the count read is tr's ($zeros)" \
	test "$(csv_col "$TMP/flood.csv" result 2>/dev/null)" = "$zeros"
check "...and no 'no line of its output matches'" bash -c '! grep -q "no line of its output" <<<"$1"' _ "$err"

# The log of 12 MiB of output: log_max (1 MiB by default) of it, head
# and tail.
run_job big "$TMP/big.csv" "command = $HELPER flood {file} 12"
log=$(csv_col "$TMP/big.csv" log 2>/dev/null)
size=$(stat -c %s "$log" 2>/dev/null || echo 0)
check "the log of 12 MiB of output is capped: $size bytes, at most 1 MiB and a few lines" \
	test "$size" -gt 1000000 -a "$size" -le $((1048576 + 1024))
check "...mmprof's line first, then the program's first line" \
	bash -c 'sed -n 1p "$1" | grep -q "^# mmprof: run 1 \[big\]" && sed -n 2p "$1" | grep -q "^Found $2 zero bytes"' _ "$log" "$zeros"
check "...its last line is the program's last" test "$(tail -1 "$log" 2>/dev/null)" = "flood ends"
printed=$((12 * 1048576 + $(printf 'Found %s zero bytes in %s\nflood ends\n' "$zeros" "$data" | wc -c)))
check "...and one line says how much was left out, of the $printed bytes printed" \
	bash -c 'n=$(grep -c "^# mmprof: [0-9]* bytes of its output left out here (log_max = 1MiB: its first 524288 and last [0-9]* bytes are kept; it printed $2 bytes)$" "$1"); [ "$n" -eq 1 ]' _ "$log" "$printed"

# A program that prints without end: read as fast as it writes, stopped
# by the timeout all the same, its log capped.
start=$SECONDS
run_job yes "$TMP/yes.csv" "command = yes a line printed again and again" "timeout = 2s"
log=$(ls "$TMP"/yes.logs/*/run1-yes.0.log 2>/dev/null)
check "yes(1) with timeout = 2s: timed out in $((SECONDS - start)) s, the run failed" \
	test "$rc" -eq 1 -a -n "$(grep 'timed out after 2 s, stopped (log: ' <<<"$err")" -a $((SECONDS - start)) -lt 20
check "...its log capped ($(stat -c %s "$log" 2>/dev/null) bytes), what was left out said" \
	bash -c '[ "$(stat -c %s "$1")" -le $((1048576 + 1024)) ] && grep -q "bytes of its output left out here" "$1"' _ "$log"

# log_max and --log-max.
run_job small "$TMP/small.csv" "command = $HELPER flood {file} 2" "result = output:^Found (\\d+) zero" \
	"log_max = 64K"
log=$(csv_col "$TMP/small.csv" log 2>/dev/null)
check "log_max = 64K: the log is $(stat -c %s "$log" 2>/dev/null) bytes, the result still read" \
	test "$rc" -eq 0 -a "$(stat -c %s "$log" 2>/dev/null || echo 0)" -le $((65536 + 1024)) -a \
	"$(csv_col "$TMP/small.csv" result_ok 2>/dev/null)" = true
run_mmprof exec -r 1 --warmup 0 --log-max 16K --file "$data" --csv "$TMP/x.csv" -- "$HELPER" flood {file} 1
log=$(csv_col "$TMP/x.csv" log 2>/dev/null)
check "mmprof exec --log-max 16K: the log is $(stat -c %s "$log" 2>/dev/null) bytes" \
	test "$rc" -eq 0 -a "$(stat -c %s "$log" 2>/dev/null || echo 0)" -le $((16384 + 1024))
check "...and says so in it" grep -q 'left out here (log_max = 16KiB: ' "$log"
printf '[j]\nprobe = exec\nsize = 64K\ncommand = true\nlog_max = 1K\n' >"$TMP/tiny.ini"
run_mmprof --config "$TMP/tiny.ini" --dry-run
check "log_max = 1K: a config error (exit 2), naming the key" \
	test "$rc" -eq 2 -a -n "$(grep "tiny.ini:5: \[j\] .*log_max" <<<"$err")"
printf '[j]\nprobe = mmap_byte\nsize = 64K\nlog_max = 1M\n' >"$TMP/notexec.ini"
run_mmprof --config "$TMP/notexec.ini" --dry-run
check "log_max on a C probe: exit 2, 'does not use'" \
	test "$rc" -eq 2 -a -n "$(grep "probe 'mmap_byte' does not use 'log_max'" <<<"$err")"

# Logs belong to the invocation whose rows are kept: a rerun that
# measures nothing leaves NAME.csv and the logs its rows name as they
# were; a rerun that replaces NAME.csv replaces them.
run_job keep "$TMP/keep.csv" "command = $HELPER print 'invocation one'"
first=$(csv_col "$TMP/keep.csv" log 2>/dev/null)
check "a first run: its row's log holds its output" grep -qx 'invocation one' "$first"
run_job keep "$TMP/keep.csv" "command = $HELPER exit 3"
check "a rerun that fails: exit 1, NAME.csv still the first run's" \
	test "$rc" -eq 1 -a "$(csv_col "$TMP/keep.csv" log 2>/dev/null)" = "$first"
check "...and the log its row names is still the first run's output" \
	grep -qx 'invocation one' "$first"
failed=$(sed -n 's/.*exited with status 3 (log: \(.*\))$/\1/p' <<<"$err")
check "...the failure names a log of its own, which is there ($failed)" \
	bash -c '[ -n "$1" ] && [ "$1" != "$2" ] && grep -q "exec_helper exit 3" "$1"' _ "$failed" "$first"
check "...and the summary says where this run's logs are" \
	grep -qF "mmprof: this run's program logs are in $(dirname "$failed") (the earlier file's rows name its own, which stay)" <<<"$err"
run_job keep "$TMP/keep.csv" "command = $HELPER print 'invocation three'"
third=$(csv_col "$TMP/keep.csv" log 2>/dev/null)
check "a rerun that measures: its rows' log holds its output" grep -qx 'invocation three' "$third"
check "...and the earlier runs' logs are gone (NAME.logs holds one run's)" \
	test ! -e "$first" -a ! -e "$failed" -a "$(find "$TMP/keep.logs" -type f | wc -l)" -eq 1

done_testing
