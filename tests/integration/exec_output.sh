# What a program prints under probe = exec (docs/exec.md, "Output" and
# "Logs"): read whole as it streams, so a result line followed by more
# output than any buffer is still read.
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

done_testing
