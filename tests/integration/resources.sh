# Limits of the process and of the machine are reported as such: too few
# file descriptors ends the run with what to change (never a WRONG row
# with a time), a full stdout is an error, a described machine plans but
# never runs, and the user's CPU affinity is where the threads go.
source "$(dirname "$0")/tap.bash"
source "$(dirname "$0")/machines.bash"

printf '[j]\nprobe = read_buf\nsize = 1M\nthreads = 100\nrepeat = 2\nevents = none\n' >"$TMP/e.ini"
out=$(ulimit -n 64; "$MMPROF" --config "$TMP/e.ini" --csv "$TMP/e.csv" 2>"$TMP/err")
rc=$?
err=$(cat "$TMP/err")
check "EMFILE: exit 1" test "$rc" -eq 1
check "EMFILE: says what to change" grep -q "too many open files for this process (ulimit -n is 64): raise it or use fewer threads" <<<"$err"
check "EMFILE: no WRONG result, no time" bash -c '! grep -q "WRONG\|differs from the reference" <<<"$1$2"' _ "$out" "$err"
check "EMFILE: no CSV of nothing" test ! -e "$TMP/e.csv"

printf '[j]\nprobe = limit\nsize = 64K\nrepeat = 2\nevents = none\n' >"$TMP/f.ini"
"$MMPROF" --config "$TMP/f.ini" --csv "$TMP/f.csv" >/dev/full 2>"$TMP/err"
rc=$?
check "stdout full: exit 1" test "$rc" -eq 1
check "stdout full: says so" grep -q "writing the report to stdout: No space left on device" "$TMP/err"
check "stdout full: the CSV was written before the report" test -s "$TMP/f.csv"

# Started with descriptors closed, as a supervisor may: the next file
# opened got descriptor 2 (or 1) and mmprof's notes and report went into
# the CSV, the events CSV or the lock file. Each closed one is /dev/null.
printf '[j]\nprobe = limit\nsize = 64K\nrepeat = 2\n' >"$TMP/c.ini"
for closed in "0 2" "2" "0 1 2"; do
	d="$TMP/closed${closed// /}"
	mkdir -p "$d"
	# A new data file each time, so that there is a "created" note to misplace.
	case $closed in
	"0 2") MMPROF_DATA=$d/data "$MMPROF" --config "$TMP/c.ini" --csv "$d/r.csv" <&- 2>&- >"$TMP/out" ;;
	"2") MMPROF_DATA=$d/data "$MMPROF" --config "$TMP/c.ini" --csv "$d/r.csv" 2>&- >"$TMP/out" ;;
	*) MMPROF_DATA=$d/data "$MMPROF" --config "$TMP/c.ini" --csv "$d/r.csv" <&- 2>&- >&- ;;
	esac
	rc=$?
	check "descriptors $closed closed: exit 0" test "$rc" -eq 0
	check "descriptors $closed closed: no note or report text in any file written" \
		test -z "$(grep -rlE '^mmprof: |^\[j\] ' "$d" --exclude='*.bin')"
	check "descriptors $closed closed: the CSV reads back, one row per repetition" \
		test "$(csv_col "$d/r.csv" rep | wc -l)" -eq 2
done

run_mmprof --config "$TMP/f.ini" --csv "$TMP/g.csv" --topology-from xml:tests/topologies/intel-2s-smt.xml
check "described machine: exit 2" test "$rc" -eq 2
check "described machine: says why" grep -q "the machine is described (xml: tests/topologies/intel-2s-smt.xml): it plans" <<<"$err"
check "described machine: nothing written" test ! -e "$TMP/g.csv"
out=$(HWLOC_SYNTHETIC="pack:2 numa:1 core:4 pu:2" "$MMPROF" --config "$TMP/f.ini" --csv "$TMP/g.csv" 2>&1)
check "HWLOC_SYNTHETIC: refused too" grep -q "described (synthetic: pack:2 numa:1 core:4 pu:2 (from HWLOC_SYNTHETIC))" <<<"$out"
run_mmprof --config "$TMP/f.ini" --topology-from xml:tests/topologies/intel-2s-smt.xml --dry-run
check "described machine: --dry-run plans for it" grep -q "PUs 0 (1 distinct)" <<<"$out"

if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	printf '[j]\nprobe = mmap_byte\nsize = 64K\nthreads = 2\nrepeat = 1\nwarmup = 0\nevents = none\n' >"$TMP/t.ini"
	out=$(taskset -c 1 "$MMPROF" --config "$TMP/t.ini" --topology)
	# PU 1's node and L3 are this host's: computed from its tables.
	check "taskset -c 1: every planned PU is 1" \
		test "$(threads_line 2 | grep -o 'PU [0-9]*' | paste -sd' ')" = "PU 1 PU 1"
	check "taskset -c 1: with PU 1's node and L3 as the host's tables say" \
		test "$(threads_line 2)" = "$(model table compact 2 <<<"$out")"
	taskset -c 1 "$MMPROF" --config "$TMP/t.ini" --csv "$TMP/t.csv" --quiet >/dev/null
	check "taskset -c 1: the threads ran on PU 1" test "$(csv_col "$TMP/t.csv" pus_seen)" = "1 1"
else
	skip "needs two PUs and taskset"
	skip "needs two PUs and taskset"
	skip "needs two PUs and taskset"
fi

# The user's CPU set on described machines (one has an allowed cpuset
# with gaps): the plan uses the allowed PUs only, in hwloc's order.
for m in "${MACHINES[@]}"; do
	run_mmprof --config "$TMP/t.ini" --topology --topology-from "${m#*|}"
	allowed=$(model "${m#*|}" pus | awk '$6 == 1 { print $1 }' | sort -n | paste -sd' ')
	planned=$(threads_line 2 | grep -o 'PU [0-9]*' | cut -d' ' -f2 | sort -n | paste -sd' ')
	check "${m%%|*}: two threads on allowed PUs ($planned), each with its node and L3" \
		bash -c 'for p in $1; do [[ " $2 " == *" $p "* ]] || exit 1; done; [ "$3" = "$4" ]' _ \
		"$planned" "$allowed" "$(threads_line 2)" "$(model "${m#*|}" compact 2)"
done
done_testing
