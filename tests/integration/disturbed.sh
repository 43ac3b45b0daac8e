# A machine that is busy elsewhere is detected, not mistaken for a cause.
# The planted two-thread cases (one shared reference count; per-thread
# counters packed into one line) run twice: with another process keeping
# one CPU busy, each either names its planted cause on top or says it
# cannot decide (disturbed, inconclusive) -- never a different cause as if
# it were sure; on the idle machine each names its planted cause.
# Under the busy process every round of a two-thread run is disturbed, and
# what is decided only from disturbed rounds is nothing: a ratio answer
# (refcount against plain, many times slower) is inconclusive and says
# why, and a job without shared state ([block]), whose one-thread control
# looks twice as fast because its other thread shared a PU with the busy
# process, names no cause and no fix ("use fewer threads" was named).
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
baseline = plain

[packed]
probe = mmap_byte
fill = zero
tally = packed

[plain]
probe = mmap_byte
controls = none

[block]
probe = mmap_block
controls = solo
; repetitions long enough for the busy process to take its half of a PU
size = 64M
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
# A thread on the busy process's PU waits about half its time for it, so
# every repetition of a two-thread run is disturbed; were 3 rounds clean,
# the figures would come from them and could be decided.
if csv_rows "$TMP/busy.attribution.csv" job disturbed | grep -q '^block|true$'; then
	check "busy: [block] names no fix from disturbed rounds" \
		eval '! grep -q "^  fix: " <<<"$(verdict block)"'
	check "busy: [block] says its rounds were disturbed and what to do" \
		grep -q '^  largest cause: inconclusive (its rounds were disturbed: measure again with nothing else running on its PUs' <<<"$(verdict block)"
else
	skip "busy: [block] had 3 clean rounds despite the busy process"
fi
if csv_rows "$TMP/busy.answers.csv" job other used_disturbed | grep -q '^refcount|plain|true$'; then
	check "busy: refcount against plain, from disturbed rounds, is inconclusive" \
		test "$(csv_rows "$TMP/busy.answers.csv" job other outcome verdict more_rounds | grep '^refcount|plain|')" = \
		"refcount|plain|inconclusive|inconclusive|"
	check "busy: its line says the rounds were disturbed, why, and what to do" \
		grep -q '^  threads=2 .* inconclusive (its rounds were disturbed (a thread waited [0-9]*% of its time for a CPU): measure again' <<<"$out"
else
	skip "busy: refcount and plain had 3 clean rounds despite the busy process"
fi

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
