# The sampling profile of a real program (docs/profile.md): the hot
# function and source line of tests/helpers/hot.c named on the terminal,
# in NAME.profile.csv and in the JSON; a stripped copy shown as
# module+offset with the reason; page faults by mapping; the growth from
# one thread to two; profile = off; and sampling refused (a seccomp
# filter, as perf_event_paranoid would) with the run still measured.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
HOT=$PWD/$BUILD/tests/hot
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/hot" "$BUILD/tests/hot-stripped" \
	"$BUILD/tests/no_perf" >/dev/null 2>&1
[ -x "$HOT" ] || skip_rest "the helper program did not build ($HOT)"
# 64 MiB: its mapping takes some 500 faults (31 pages each), enough for
# one in 64 to be sampled in each repetition.
head -c 67108864 /dev/urandom >"$TMP/data.bin"
hot_line=$(grep -n '/\* HOT \*/' tests/helpers/hot.c | cut -d: -f1)
touch_line=$(grep -n '/\* TOUCH \*/' tests/helpers/hot.c | cut -d: -f1)

run_mmprof exec -r 2 --warmup 0 --profile 2000 --file "$TMP/data.bin" --csv "$TMP/spin.csv" \
	-- "$HOT" spin 150
check "spin: exit 0" test "$rc" -eq 0
if grep -q 'not taken: sampling' <<<"$out"; then
	skip_rest "sampling is refused here: $(grep 'not taken' <<<"$out")"
fi
check "spin: the top function is hot_loop()" \
	grep -qE '^    hot_loop\(\) +[0-9.]+% \[' <<<"$(sed -n '/CPU time by function/{n;p}' <<<"$out")"
check "spin: the top line is hot.c:$hot_line in hot_loop()" \
	grep -q "hot.c:$hot_line in hot_loop()" <<<"$(sed -n '/by source line/{n;p}' <<<"$out")"
check "spin: NAME.profile.csv names it too" \
	grep -q "^line|tests/helpers/hot.c|$hot_line|hot_loop" \
	<<<"$(csv_rows "$TMP/spin.profile.csv" kind file line function)"
check "spin: the summary lists the profile CSV" grep -q "spin.profile.csv" <<<"$err"

run_mmprof exec -r 1 --warmup 0 --profile 2000 --file "$TMP/data.bin" --csv "$TMP/strip.csv" \
	-- "$PWD/$BUILD/tests/hot-stripped" spin 100
top=$(sed -n '/CPU time by function/{n;p}' <<<"$out")
check "stripped: shown as module+offset, and why" \
	grep -qE 'hot-stripped\+0x[0-9a-f]+ \(stripped' <<<"$top"
check "stripped: the samples not named are counted" grep -q '^  not named: .*stripped' <<<"$out"

run_mmprof exec -r 2 --warmup 0 --file "$TMP/data.bin" --csv "$TMP/fault.csv" \
	--result 'Found (\d+) zero' -- "$HOT" fault {file} 32
faults=$(sed -n '/page faults by mapping/{n;p}' <<<"$out")
check "faults: most in anonymous memory" grep -qE '^    anonymous +[0-9.]+%' <<<"$faults"
check "faults: the data file's mapping has some" grep -q "    $TMP/data.bin " <<<"$out"
check "faults: the time in the kernel is on the line that touched ($touch_line)" \
	grep -q "hot.c:$touch_line in touch() in the kernel" <<<"$out"

printf '[global]\nfile = %s\nrepeat = 3\nwarmup = 0\nprofile = 2000\n[grow]\nprobe = exec\ncommand = %s spin {threads}00\nthreads = 1, 2\n' \
	"$TMP/data.bin" "$HOT" >"$TMP/grow.ini"
run_mmprof --config "$TMP/grow.ini" --csv "$TMP/grow.csv" --json "$TMP/grow.json"
# spin 100 then 200 ms of CPU: the growth is where the time goes.
check "growth: from threads=1 to threads=2, on the HOT line" \
	grep -qE "^    hot.c:$hot_line in hot_loop\(\) +[0-9.]+% \[.*of the growth" \
	<<<"$(sed -n '/growth from threads=1 to threads=2/,$p' <<<"$out")"
check "growth: rows in the profile CSV" \
	grep -q "^growth_line|threads=1|hot_loop" <<<"$(csv_rows "$TMP/grow.profile.csv" kind from function)"

check "growth: the JSON has the profile and its growth" test "$(/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["runs"][1]["profile"]
print(p["top"][0]["function"], p["rounds"], p["growth"]["from"], p["growth"]["grew"],
      p["growth"]["lines"][0]["line"])' "$TMP/grow.json")" = "hot_loop 3 threads=1 True $hot_line"

run_mmprof exec -r 1 --warmup 0 --profile off --file "$TMP/data.bin" --csv "$TMP/off.csv" \
	-- "$HOT" spin 20
check "off: no profile block" test "$rc" -eq 0 -a -z "$(grep '^profile of' <<<"$out")"
check "off: no profile CSV" test ! -e "$TMP/off.profile.csv"
run_mmprof exec --profile 5 --file "$TMP/data.bin" -- "$HOT" spin 20
check "a rate out of range is refused" grep -q "profile = 5 is out of range" <<<"$err"

if [ -x "$BUILD/tests/no_perf" ]; then
	out=$("$BUILD/tests/no_perf" "$MMPROF" exec -r 2 --warmup 0 --file "$TMP/data.bin" \
		--csv "$TMP/refused.csv" -- "$HOT" spin 20 2>/dev/null)
	rc=$?
	check "refused: the run is still measured" \
		test "$rc" -eq 0 -a "$(csv_col "$TMP/refused.csv" rep | wc -l)" -eq 2
	check "refused: the block says why, with the paranoid level" \
		grep -qE '^profile of .*: not taken: sampling refused \(perf_event_open: Permission denied\): perf_event_paranoid is -?[0-9]' <<<"$out"
else
	skip "no_perf did not build"
fi
done_testing
