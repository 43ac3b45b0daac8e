# A data file that shrinks while it is mapped: the run stops with what
# changed, exit 1, and every row measured before is kept -- no SIGBUS.
source "$(dirname "$0")/tap.bash"

head -c $((64 << 20)) /dev/urandom >"$TMP/user.bin"
printf '[j]\nprobe = mmap_block\nfile = %s\nthreads = 2\nrepeat = 1000\nwarmup = 0\nevents = none\n' \
	"$TMP/user.bin" >"$TMP/s.ini"
"$MMPROF" --config "$TMP/s.ini" --csv "$TMP/s.csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
tmp=$TMP/.s.csv.tmp.$pid
for _ in $(seq 400); do
	[ -f "$tmp" ] && [ "$(wc -l <"$tmp")" -ge 4 ] && break
	sleep 0.05
done
truncate -s 8M "$TMP/user.bin"
wait "$pid"
rc=$?
check "exit 1, not a signal (135 was SIGBUS)" test "$rc" -eq 1
check "says which file changed and how" grep -q "the data file $TMP/user.bin changed during the run (size 64MiB -> 8MiB)" "$TMP/err"
check "says the rows are kept" grep -q "stopped: a data file changed; the [0-9]* row(s) measured before are in $TMP/s.csv" "$TMP/err"
check "the rows measured are in the CSV" test "$(wc -l <"$TMP/s.csv")" -ge 4
check "every kept row is whole and right" test "$(csv_col "$TMP/s.csv" result_ok | sort -u)" = true
check "the table was printed, marked partial" grep -q "(partial)" "$TMP/out"
done_testing
