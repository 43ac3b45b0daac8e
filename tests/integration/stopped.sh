# A repetition during which mmprof was stopped (SIGSTOP/SIGCONT: a
# debugger, Ctrl-Z) or frozen (a cgroup freezer) is disturbed: its wall
# time is not its work's.  The stops last 1 s against ~50 ms repetitions,
# so what is judged is never near a threshold; a stop that falls between
# repetitions disturbs none, and is allowed for.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
HELPER=$PWD/$BUILD/tests/exec_helper
bg=
trap '[ -n "$bg" ] && kill -CONT "$bg" 2>/dev/null; rm -rf "$TMP"; [ -n "${cg:-}" ] && rmdir "$cg" 2>/dev/null' EXIT
make -s --no-print-directory "$BUILD/tests/exec_helper" >/dev/null 2>&1

# A program that stops mmprof for 1 s and continues it: the one
# repetition it ran in is disturbed, said so; the others are not judged
# on it.
if [ -x "$HELPER" ]; then
	printf '[global]\nsize = 1M\nrepeat = 3\nwarmup = 0\n[stopper]\nprobe = exec\ncommand = %s stopparent 1000 {file}\nresult = output:Found (\\d+) zero\n' \
		"$HELPER" >"$TMP/exec.ini"
	run_mmprof --config "$TMP/exec.ini" --csv "$TMP/exec.csv" --quiet
	check "exec stopped by its program: runs" test "$rc" -eq 0
	check "exec: every repetition that had mmprof stopped is disturbed, says so" \
		test "$(csv_rows "$TMP/exec.csv" disturbed disturbed_why | sort -u)" = \
		"true|mmprof was stopped and continued 1 time(s) during it (SIGSTOP, Ctrl-Z, a debugger)"
else
	skip "exec: the helper program did not build"
fi

# stop_rounds: run a ~50 ms-per-repetition C probe in the background and
# stop it three times for 1 s; sets $csv.
cat >"$TMP/probe.ini" <<'INI'
[global]
size = 64M
seed = 3
repeat = 60
warmup = 0
prefault = yes
[scan]
probe = mmap_byte
INI
# measuring PID: wait until it runs its probe's threads (the CSV is
# written to a temporary name until the end).
measuring() {
	local i
	for i in $(seq 300); do
		[ "$(ls "/proc/$1/task" 2>/dev/null | wc -l)" -ge 2 ] && break
		sleep 0.1
	done
}
stop_rounds() {
	local i
	csv=$TMP/signal.csv
	"$MMPROF" --config "$TMP/probe.ini" --csv "$csv" --quiet >"$TMP/signal.out" 2>&1 &
	bg=$!
	measuring "$bg"
	for i in 1 2 3; do
		kill -STOP "$bg"; sleep 1; kill -CONT "$bg"
		sleep 0.2
	done
	wait "$bg"
	rc=$?
	bg=
}
# judge_stops KIND WHY: rows that took 0.9 s more than the median are
# the stopped ones: each disturbed with WHY; none at all: every stop fell between
# repetitions, which cannot be judged here.
judge_stops() {
	local kind=$1 why=$2 median long bad
	check "$kind: runs" test "$rc" -eq 0
	median=$(csv_col "$csv" elapsed_ns | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	long=$(csv_rows "$csv" elapsed_ns disturbed disturbed_why | awk -F'|' -v m="$median" '$1 > m + 900000000')
	if [ -z "$long" ]; then
		skip "$kind: every stop fell between repetitions"
		return
	fi
	bad=$(grep -v "^[0-9]*|true|$why" <<<"$long")
	check "$kind: each of the $(wc -l <<<"$long") repetition(s) stopped for 1 s is disturbed: $why" test -z "$bad"
}

stop_rounds
judge_stops "SIGSTOP of mmprof" "mmprof was stopped and continued 1 time(s)"

# The cgroup freezer sends no signal: what tells is the time each thread
# was neither on a CPU nor waiting for one.
cg=/sys/fs/cgroup/freezer/mmprof-test-$$
if [ "$(id -u)" -ne 0 ] || ! mkdir "$cg" 2>/dev/null; then
	cg=
	skip "a cgroup-v1 freezer to freeze mmprof in (needs root and /sys/fs/cgroup/freezer)"
else
	# Started inside the cgroup: mmprof and every thread it makes.
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" --config "$3" --csv "$4" --quiet' _ "$cg" "$MMPROF" "$TMP/probe.ini" "$TMP/freezer.csv" >"$TMP/freezer.out" 2>&1 &
	bg=$!
	csv=$TMP/freezer.csv
	measuring "$bg"
	for i in 1 2 3; do
		echo FROZEN >"$cg/freezer.state"; sleep 1; echo THAWED >"$cg/freezer.state"
		sleep 0.2
	done
	wait "$bg"
	rc=$?
	bg=
	judge_stops "cgroup freezer" "a thread was off-CPU (stopped?) "
fi
done_testing
