# Ctrl-C: the current repetition finishes, rows already measured stay in
# the CSV, exit 130.
source "$(dirname "$0")/tap.bash"

printf '[j]\nprobe = accessor_byte\nsize = 2M\nrepeat = 1000\nwarmup = 0\n' >"$TMP/long.ini"
csv=$TMP/long.csv
"$MMPROF" --config "$TMP/long.ini" --csv "$csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 200); do
	[ -f "$csv" ] && [ "$(wc -l <"$csv")" -ge 3 ] && break
	sleep 0.05
done
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
done_testing
