# Ctrl-C: the current repetition finishes, rows already measured stay in
# the CSV, exit 130.
source "$(dirname "$0")/tap.bash"

printf '[j]\nprobe = accessor_byte\nsize = 2M\nrepeat = 1000\nwarmup = 0\n' >"$TMP/long.ini"
csv=$TMP/long.csv
"$MMPROF" --config "$TMP/long.ini" --csv "$csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
# Rows go to a temporary beside the CSV until the run ends.
tmp=$TMP/.long.csv.tmp.$pid
for _ in $(seq 200); do
	[ -f "$tmp" ] && [ "$(wc -l <"$tmp")" -ge 3 ] && break
	sleep 0.05
done
check "rows are written to a temporary while the run lasts" test -f "$tmp" -a ! -e "$csv"
kill -INT "$pid"
wait "$pid"
rc=$?
check "exit 130" test "$rc" -eq 130
rows=$(($(wc -l <"$csv") - 1))
check "measured rows kept" test "$rows" -ge 2
check "stopped early" test "$rows" -lt 1000
check "says the rows are kept" grep -q "interrupted: the $rows row(s) measured so far are in $csv" "$TMP/err"
check "table printed for what ran" grep -q "(partial)" "$TMP/out"
check "last row complete" test "$(tail -1 "$csv" | awk -F, '{print NF}')" -eq "$(head -1 "$csv" | awk -F, '{print NF}')"
check "the temporary became the CSV" test ! -e "$tmp"

# A second Ctrl-C abandons the repetition but keeps the rows measured,
# as one run's set: before, the events temporary was left behind and an
# earlier run's companions stayed beside the new CSV with another run_id.
for f in answers.csv attribution.csv json profile.csv events.csv; do
	echo "an earlier run's" >"$TMP/twice.$f"
done
# Repetitions of a few hundred ms: the second Ctrl-C lands inside one.
printf '[j]\nprobe = accessor_byte\nsize = 32M\nrepeat = 1000\nwarmup = 0\n' >"$TMP/slow.ini"
"$MMPROF" --config "$TMP/slow.ini" --csv "$TMP/twice.csv" --per-thread >"$TMP/out2" 2>"$TMP/err2" &
pid=$!
tmp=$TMP/.twice.csv.tmp.$pid
for _ in $(seq 200); do
	[ -f "$tmp" ] && [ "$(wc -l <"$tmp")" -ge 3 ] && break
	sleep 0.05
done
kill -INT "$pid"
sleep 0.05
kill -INT "$pid"
wait "$pid"
rc=$?
check "second Ctrl-C: exit 130" test "$rc" -eq 130
check "second Ctrl-C: the rows are in the CSV" test "$(wc -l <"$TMP/twice.csv" 2>/dev/null || echo 0)" -ge 3
check "second Ctrl-C: no temporary left" test -z "$(ls -A "$TMP" | grep '^\.twice\..*\.tmp\.')"
check "second Ctrl-C: no earlier run's file beside it" \
	test -z "$(grep -l "an earlier run's" "$TMP"/twice.* 2>/dev/null)"
if grep -q "^mmprof: abandoned" "$TMP/err2"; then
	check "second Ctrl-C: says which files are kept and which removed" grep -q \
		"^mmprof: abandoned: the rows measured are in $TMP/twice.csv, .*$TMP/twice.threads.csv; removed an earlier run's .*$TMP/twice.answers.csv" "$TMP/err2"
else
	skip "second Ctrl-C: the repetition ended before it (a busy machine), the run finished as after one"
fi
check "second Ctrl-C: the threads CSV is this run's rows" test "$(wc -l <"$TMP/twice.threads.csv")" -ge 3

# SIGHUP (the terminal went away) is handled like SIGTERM and Ctrl-C.
"$MMPROF" --config "$TMP/long.ini" --csv "$TMP/hup.csv" >/dev/null 2>&1 &
pid=$!
tmp=$TMP/.hup.csv.tmp.$pid
for _ in $(seq 200); do
	[ -f "$tmp" ] && [ "$(wc -l <"$tmp")" -ge 3 ] && break
	sleep 0.05
done
kill -HUP "$pid"
wait "$pid"
rc=$?
check "SIGHUP: exit 130, rows kept" test "$rc" -eq 130 -a "$(wc -l <"$TMP/hup.csv" 2>/dev/null || echo 0)" -ge 3

# Interrupted before any row: nothing is said to be where it is not.
BUILD=${BUILD:-build}
HELPER=$PWD/$BUILD/tests/exec_helper
make -s --no-print-directory "$BUILD/tests/exec_helper" >/dev/null 2>&1
printf '[j]\nprobe = exec\nsize = 64K\nrepeat = 1\nwarmup = 0\ncommand = %s sleep 30 %s\n' \
	"$HELPER" "$TMP/pids" >"$TMP/none.ini"
for earlier in no yes; do
	rm -f "$TMP/none.csv" "$TMP/pids"
	[ "$earlier" = yes ] && echo "the previous run" >"$TMP/none.csv"
	"$MMPROF" --config "$TMP/none.ini" --csv "$TMP/none.csv" >/dev/null 2>"$TMP/err" &
	pid=$!
	for _ in $(seq 200); do
		[ -s "$TMP/pids" ] && break
		sleep 0.05
	done
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	if [ "$earlier" = yes ]; then
		check "no row, an earlier CSV: exit 130, it stays as it was" \
			test "$rc" -eq 130 -a "$(cat "$TMP/none.csv")" = "the previous run"
		check "no row, an earlier CSV: says so, not '0 row(s) are in'" \
			grep -q "interrupted: no row was measured: $TMP/none.csv was not written (an earlier run's file stays there as it was)" "$TMP/err"
	else
		check "no row, no CSV: exit 130, none written" test "$rc" -eq 130 -a ! -e "$TMP/none.csv"
		check "no row, no CSV: says so, not '0 row(s) are in'" \
			grep -q "interrupted: no row was measured: $TMP/none.csv was not written (there is no such file)" "$TMP/err"
	fi
done
done_testing
