# A program whose time is the kernel's work for it (issue 27): it fsyncs
# after every small record (tests/helpers/fsync_writer.c), so the file
# system's journal thread, the block layer's workers and their interrupts
# run on its PUs for it.  Idle, that work is named as the kernel's and
# does not make its rounds disturbed (at least 3 of 8 clean); kernel
# threads are never listed as other tasks.  With a hog spinning on one
# of its PUs (taskset -c 1), every round is disturbed, and the reason
# names the hog as the unexplained other task.  sqlite3's autocommit
# inserts, the issue's own case, where it is installed.  1500 records:
# some 240 ms a run here, long enough for /proc/stat's 10 ms ticks to
# count the kernel's work (9 of 10 rounds were disturbed by it before).  Each judged
# "right, or disturbed by a task it names" -- never kernel work blamed.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
FSYNC=$PWD/$BUILD/tests/fsync_writer
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/fsync_writer" >/dev/null 2>&1
[ -x "$FSYNC" ] || skip_rest "the fsync writer did not build ($FSYNC)"
[ "$(nproc)" -ge 2 ] || skip_rest "needs two PUs, one for a hog (this machine has $(nproc))"

# fsync_run LABEL CSV REPEAT CMD...: the program on PUs 0 and 1 (threads
# = 2 plans two PUs; it has one thread), not profiled (the switches are
# recorded all the same).
fsync_run() {
	local csv=$2 n=$3
	shift 3
	run_mmprof exec -r "$n" --warmup 1 --threads 2 --profile off --job fsync --csv "$csv" -- "$@"
	block=$(sed -n '/^on its PUs besides the program/,/^$/p' <<<"$out" | unwrap)
}
# rows CSV: disturbed|why|kernel_busy|kernel_tasks|other_tasks per round.
rows() { csv_rows "$1" disturbed disturbed_why kernel_busy kernel_tasks other_tasks; }
KTHREADS='jbd2|kworker|ksoftirqd|kthreadd|rcu_'
# clean_or_busy LABEL ROWS N: at least 3 of the N rounds clean -- or, on a
# machine that was not idle (other engineers' builds, a busy hypervisor),
# every disturbed round names what took its PUs: the user-space tasks, the
# largest 5% or more of them, or the hypervisor's steal.  Honest, and
# skipped as not this test's question.
named_rounds() {
	awk -F'|' '$1 == "true" && (($2 ~ /unexplained \(/ && $5 ~ /^[^,]* ([5-9]|[1-9][0-9])%/) || $2 ~ /^the hypervisor took/)' <<<"$1"
}
# disturbed_whys ROWS: the disturbed rounds' reasons and other tasks, one
# short line each -- what a failure shows (CI keeps the log's tail).
disturbed_whys() { awk -F'|' '$1 == "true" { print substr($2, 1, 110) " | kernel " $3 " | others: " substr($5, 1, 40) }' <<<"$1"; }
clean_or_busy() {
	local clean named
	clean=$(grep -c '^false|' <<<"$2")
	named=$(named_rounds "$2" | wc -l)
	if [ "$clean" -ge 3 ]; then
		ok "$1: at least 3 of $3 rounds clean ($clean)"
	elif [ "$named" -eq $(($3 - clean)) ]; then
		skip "$1: the machine was not idle: $(($3 - clean)) rounds disturbed by what they name ($(disturbed_whys "$2" | head -1))"
	else
		fail "$1: at least 3 of $3 rounds clean ($clean), or disturbed by what they name" "$(disturbed_whys "$2")"
	fi
}

fsync_run idle "$TMP/idle.csv" 8 "$FSYNC" "$TMP/rec.dat" 1500
check "idle: runs" test "$rc" -eq 0
if grep -q 'not told apart' <<<"$block"; then
	skip_rest "the kernel's work is not told apart here: $(grep -o 'not told apart.*' <<<"$block" | head -1)"
fi
r=$(rows "$TMP/idle.csv")
echo "# idle: $(grep -c '^false|' <<<"$r") of 8 clean; $(grep -o 'kernel work for it.*' <<<"$block")"
clean_or_busy idle "$r" 8
check "idle: the kernel's work for it is said with its share and threads" \
	grep -qE '^  \[fsync\] .*: kernel work for it [0-9]+% \([0-9]+ to [0-9]+%\), threads: ' <<<"$block"
check "idle: a kernel thread ran on its PUs in some round, named in kernel_tasks" \
	grep -qE "^[a-z]+\|[^|]*\|[0-9.]+\|[^|]*($KTHREADS)" <<<"$r"
check "idle: no kernel thread is ever an other task" \
	test -z "$(awk -F'|' '{ print $5 }' <<<"$r" | grep -E "$KTHREADS")"
# (the rounds that do not, shown when it fails: once in five runs here)
# A disturbed round says what disturbed it: other tasks, unexplained, or
# the hypervisor's steal (a paravirtualised host under load) -- never the
# kernel's work for it.
unsaid=$(awk -F'|' '$1 == "true" && $2 !~ /unexplained|^the hypervisor took/' <<<"$r")
if [ -z "$unsaid" ]; then
	ok "idle: a disturbed round says what disturbed it, not the kernel's work"
else
	fail "idle: a disturbed round says what disturbed it, not the kernel's work" "$(disturbed_whys "$unsaid")"
fi

# One PU kept busy by another process for the whole run: the program
# shares PU 1 with it whenever it runs there, and the hog takes the rest.
taskset -c 1 sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$TMP"' EXIT
fsync_run busy "$TMP/busy.csv" 5 "$FSYNC" "$TMP/rec.dat" 1500
kill $hog 2>/dev/null
wait $hog 2>/dev/null
check "busy: runs" test "$rc" -eq 0
r=$(rows "$TMP/busy.csv")
echo "# busy: $(awk -F'|' '{ print $2 }' <<<"$r" | head -1)"
check "busy: every round disturbed, by other tasks named, the hog (sh) among them" \
	test "$(grep -cE '^true\|other tasks took [0-9]+% of its PUs: unexplained \([^)]*\bsh [0-9<]' <<<"$r")" -eq 5
check "busy: the hog is no kernel work" \
	test -z "$(awk -F'|' '{ print $4 }' <<<"$r" | grep -E '(^|, )sh ')"

# As a user, other tasks cannot be seen (CPU-wide events need
# perf_event_paranoid 0): the interrupts alone are taken out, and said.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
user=$(mktemp -d /tmp/mmprof-user.XXXXXX)
trap 'kill $hog 2>/dev/null; rm -rf "$TMP" "$user"' EXIT
chmod 0777 "$user"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null || ! [ "$paranoid" -gt 0 ] 2>/dev/null; then
	skip "as a user: needs root, setpriv and perf_event_paranoid above 0 (it is $paranoid)"
else
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups env MMPROF_DATA="$user/data" \
		"$(realpath "$MMPROF")" exec -r 2 --warmup 0 --threads 2 --profile off --job fsync \
		--csv "$user/u.csv" -- "$FSYNC" "$user/rec.dat" 300 2>/dev/null)
	check "as nobody (perf_event_paranoid $paranoid): interrupts only, and why the tasks are not told apart" \
		grep -qE "^  \[fsync\] .*: kernel work for it [0-9]+% \([0-9]+ to [0-9]+%\), interrupts only; .*not told apart \(perf_event_open of its PUs: Permission denied; perf_event_paranoid $paranoid" \
		<<<"$(unwrap <<<"$out")"
fi

# The issue's case: sqlite3, 300 inserts, each its own transaction (a
# journal file written and fsynced, the database fsynced, per insert).
if ! command -v sqlite3 >/dev/null; then
	skip "sqlite3: not installed (apt-get install sqlite3)"
else
	{
		echo 'CREATE TABLE t (k INTEGER, v TEXT);'
		for i in $(seq 300); do echo "INSERT INTO t VALUES ($i, 'record $i');"; done
	} >"$TMP/inserts.sql"
	fsync_run sqlite "$TMP/sqlite.csv" 6 sh -c 'rm -f "$1" && sqlite3 "$1" <"$2"' sh \
		"$TMP/t.db" "$TMP/inserts.sql"
	r=$(rows "$TMP/sqlite.csv")
	echo "# sqlite3: $(grep -c '^false|' <<<"$r") of 6 clean; $(grep -o 'kernel work for it.*' <<<"$block")"
	check "sqlite3: runs" test "$rc" -eq 0
	clean_or_busy sqlite3 "$r" 6
	check "sqlite3: no kernel thread is ever an other task" \
		test -z "$(awk -F'|' '{ print $5 }' <<<"$r" | grep -E "$KTHREADS")"
fi
# controls = auto on a program none of whose controls reach anything (it
# maps nothing large, reads nothing small): every rung is skipped, and the
# answer says no cause was measured -- not "no cause above the noise",
# which more rounds could change.
run_mmprof exec -r 3 --warmup 1 --profile off --controls auto --job fsync_auto \
	--csv "$TMP/auto.csv" -- "$FSYNC" "$TMP/rec.dat" 300
verdict=$(unwrap <<<"$out")
check "controls = auto: runs" test "$rc" -eq 0
check "controls = auto: every rung skipped, said as skipped" \
	test "$(grep -c "^  not used: .* skipped: nothing in its job's warmup for it to reach" <<<"$verdict")" -ge 3
check "controls = auto: no cause measured, said as such" \
	grep -q 'largest cause: inconclusive (no control changed anything in it, so no cause was measured' <<<"$verdict"

done_testing
