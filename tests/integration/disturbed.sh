# A machine that is busy elsewhere is detected, not mistaken for a cause.
# The planted two-thread cases (one shared reference count; per-thread
# counters packed into one line) run twice: with another process keeping
# one CPU busy, each either names its planted cause on top or says it
# cannot decide (disturbed, inconclusive) -- never a different cause as if
# it were sure; on the idle machine each names its planted cause.
source "$(dirname "$0")/tap.bash"

if [ "$(nproc)" -lt 2 ]; then
	skip_rest "needs two PUs for two threads to share anything (this machine has $(nproc))"
fi
cat >"$TMP/planted.ini" <<'INI'
[global]
size = 16M
repeat = 5
warmup = 1
controls = auto
events = faults, sched
threads = 2
prefault = yes

[refcount]
probe = accessor_byte
refcount = shared

[packed]
probe = mmap_byte
fill = zero
tally = packed
INI

# top JOB CSV: its largest significant cause in NAME.attribution.csv, the
# remainder aside (judge, in tap.bash, holds the verdict against it).
top() {
	csv_rows "$2" job cause significant ns_per_byte | awk -F'|' -v job="$1" '$1 == job && $3 == "true" &&
		$2 != "limit" && $2 != "remaining" && ($4 + 0 > best || !found) { best = $4 + 0; cause = $2; found = 1 }
		END { print cause }'
}

# Another process keeps PU 1 busy for the whole run.
taskset -c 1 sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null' EXIT
run_mmprof --config "$TMP/planted.ini" --csv "$TMP/busy.csv" --quiet
kill $hog 2>/dev/null
wait $hog 2>/dev/null
check "busy: runs" test "$rc" -eq 0
check "busy: rounds are marked disturbed in the CSV" grep -q ',true,a thread waited' "$TMP/busy.csv"
check "busy: the verdicts say so" grep -q '^  disturbed: a thread waited [0-9]*% of its time for a CPU' <<<"$out"
judge busy refcount "true sharing" "$TMP/busy.attribution.csv"
judge busy packed "false sharing" "$TMP/busy.attribution.csv"

run_mmprof --config "$TMP/planted.ini" --csv "$TMP/idle.csv" --quiet
check "idle: runs" test "$rc" -eq 0
# "Idle" is this script's: a shared machine (CI neighbours, other jobs)
# may still disturb it, and then inconclusive is the right answer.
idle_case() { # JOB CAUSE FIX
	local job=$1 cause=$2 fix=$3
	if csv_rows "$TMP/idle.attribution.csv" job disturbed | grep -q "^$job|true$"; then
		judge "idle (but disturbed by something else)" "$job" "$cause" "$TMP/idle.attribution.csv"
		skip "idle: $job's fix: the machine was busy with something else"
		return
	fi
	check "idle: $job names $cause ($(top "$job" "$TMP/idle.attribution.csv"))" \
		test "$(top "$job" "$TMP/idle.attribution.csv")" = "$cause"
	check "idle: $job's fix" grep -q "^  fix: $fix" <<<"$(verdict "$job")"
}
idle_case refcount "true sharing" "take the reference once per thread"
idle_case packed "false sharing" "pad per-thread counters"
done_testing
