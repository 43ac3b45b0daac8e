# Causes for real programs mmprof cannot change (probe = exec, controls =
# auto): planted programs (tests/helpers/planted.c) -- false sharing with
# plain increments, true sharing on one atomic, a contended mutex, page
# faults, and three with nothing shared (plainly parallel, slow for its own
# arithmetic, bandwidth bound) -- each either named with its fix or
# inconclusive with why, never another cause as if it were sure; run with
# one CPU kept busy and idle, every program judged every time.  Then the
# same program as a user (perf_event_paranoid as it is) and with sampling
# refused, what cannot take a preload library (a static binary, a setuid
# one of another owner), a stripped binary, and the rung a control left
# unchanged.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
PLANTED=$PWD/$BUILD/tests/planted
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/planted" "$BUILD/tests/no_perf" "$BUILD/libmmprof-preload.so" >/dev/null 2>&1
[ -x "$PLANTED" ] || skip_rest "the planted programs did not build ($PLANTED)"
[ "$(nproc)" -ge 2 ] || skip_rest "needs two PUs for threads to share lines (this machine has $(nproc))"

# 16 MiB, the byte loops 4 passes over it: some 60 ms of CPU on one PU
# each, so the process's own start and the mapping of the file are a small
# part of what onepu compares (the threads' time takes it from ~1.5x to
# ~3.5x on 2 PUs when they run together; measured with the program at
# real-time priority, which gives it both PUs).
cat >"$TMP/planted.ini" <<INI
[global]
size = 16M
repeat = 5
warmup = 1
controls = auto
events = task-clock, page-faults
probe = exec
kernel = histogram
threads = 2
time = output:^Elapsed time: (.*)\$

[plain]
command = $PLANTED plain {file} {threads} 4
result = output:^Sum: (\\d+)

[atomic]
command = $PLANTED atomic {file} {threads}
result = output:^Sum: (\\d+)

[lock]
command = $PLANTED lock {file} {threads} 4
result = output:^Sum: (\\d+)

[padded]
command = $PLANTED padded {file} {threads} 4
result = output:^Sum: (\\d+)

[compute]
command = $PLANTED compute {file} {threads}
result = output:^Sum: (\\d+)

[bandwidth]
command = $PLANTED bandwidth 64 {threads}

[faults]
threads = 1
command = $PLANTED faults 128
INI
SHARING="cross-core sharing"
APART="^  $SHARING: its threads did not run at the same time \(in [0-9]+ of the [0-9]+ rounds used; in those, two that were ready ran at once [0-9]+% of the time, the median\): cannot tell$"

# top JOB CSV: the largest significant cause shown (the remainder aside),
# what judge (tap.bash) holds the verdict against.
top() { shown_top "$@"; }
# not_sharing LABEL JOB CSV: whatever it says, it does not blame sharing.
not_sharing() {
	local line
	line=$(verdict "$2")
	if grep -q "^  fix: give what each thread writes" <<<"$line" ||
		[ "$(top "$2" "$3")" = "$SHARING" ]; then
		fail "$1: $2 (nothing shared) is blamed on sharing" "$line"
	else
		ok "$1: $2 is not blamed on sharing ($(grep -E '^  (fix|largest cause):' <<<"$line" | sed 's/^  //'))"
	fi
}
# apart_said LABEL JOB CSV: a verdict that says the threads did not run at
# the same time has the rounds that show it -- the used rung below onepu
# (the job, or its rungs with prefault, touch, huge and bulk that reached
# something) disturbed, its threads overlapping < 80%.
apart_said() {
	local line n
	line=$(verdict "$2")
	grep -Eq "$APART" <<<"$line" || return 0
	n=$(csv_rows "${3%.attribution.csv}.csv" job control disturbed overlap | awk -F'|' -v j="$2" '
		$1 == j && $2 !~ /onepu|limit/ && $3 == "true" && $4 != "" && $4 < 0.8' | wc -l)
	check "$1: $2 says its threads did not run at the same time, and $n of its rounds show it" \
		test "$n" -ge 1
}
judge_all() { # LABEL CSV
	local job
	for job in plain atomic lock; do
		judge "$1" $job "$SHARING" "$2"
		apart_said "$1" $job "$2"
	done
	# (huge pages' share, without a dTLB counter, is fewer and larger
	# page set-ups or TLB reach: both are the planted cause's)
	judge "$1" faults 'page faults|page setup \((faults or TLB|in the kernel)\)' "$2"
	for job in padded compute bandwidth; do
		not_sharing "$1" $job "$2"
		apart_said "$1" $job "$2"
	done
	# Measured, not guessed: every repetition of a program on 2 PUs has
	# its overlap (the kernel's switch records), the one-PU rung's is 1.
	# (Rounds stop once decided and idle rungs after their first, so the
	# count is what ran: at least 3 rounds of each of the 6 jobs.)
	local rows
	rows=$(csv_rows "${2%.attribution.csv}.csv" job control overlap | awk -F'|' '$1 != "faults" && $2 !~ /onepu/')
	check "$1: the overlap of every 2-PU repetition is measured ($(wc -l <<<"$rows") of them)" \
		test "$(wc -l <<<"$rows")" -ge 18 -a -z "$(awk -F'|' '$3 == ""' <<<"$rows")"
}

# One CPU kept busy by another process for the whole run.
sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$TMP"' EXIT
run_mmprof --config "$TMP/planted.ini" --csv "$TMP/busy.csv" --quiet
kill $hog 2>/dev/null
wait $hog 2>/dev/null
check "busy: runs" test "$rc" -eq 0
lines_fit busy
judge_all busy "$TMP/busy.attribution.csv"

run_mmprof --config "$TMP/planted.ini" --csv "$TMP/idle.csv" --quiet
check "idle: runs" test "$rc" -eq 0
lines_fit idle
judge_all idle "$TMP/idle.attribution.csv"
csv=$TMP/idle.csv
check "the profile's growth of a 2-thread program is from its one-PU rung (where sharing shows), not its first rung" \
	test "$(csv_rows "${csv%.csv}.profile.csv" job kind from | awk -F'|' '$1 == "plain" && $2 ~ /^growth/ { print $3 }' | sort -u)" = "prefault+touch+huge+bulk+onepu"
check "the onepu rung binds every thread to one PU" \
	test "$(csv_rows "$csv" job control pus_planned | awk -F'|' '$1 == "plain" && $2 ~ /onepu$/ { print $3 }' | sort -u)" = "0 0"
# every_row CONTROL COLUMN TEST: faults' rows of that rung (at least 3
# rounds ran) all pass the awk test on the column.
every_row() {
	local all good
	all=$(csv_rows "$csv" job control | awk -F'|' -v c="$1" '$1 == "faults" && $2 == c' | wc -l)
	good=$(csv_rows "$csv" job control "$2" | awk -F'|' -v c="$1" '$1 == "faults" && $2 == c && ('"$3"')' | wc -l)
	test "$all" -ge 3 -a "$good" -eq "$all"
}
check "prefault: the library reports the 128 MiB it populated, every round" \
	every_row prefault prefaulted_bytes '$3 >= 134217728'
check "huge: the library reports huge bytes from the kernel, every round (THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled))" \
	every_row prefault+touch+huge huge_bytes '$3 > 0'
check "huge on a file mapping: its job's surveyed warmup had no anonymous memory for it, the rung is skipped and said so" \
	grep -q "^  not used: huge (TLB reach) skipped: nothing in its job's warmup for it to reach (no private anonymous mapping" <<<"$(verdict plain)"
check "huge on a file mapping: skipped from its job's warmup (controls = auto), no recorded round" \
	test "$(csv_rows "$csv" job control | grep -c '^plain|prefault+touch+huge$')" -eq 0
check "the skipped rung's attribution row has its reason and no share" \
	test "$(csv_rows "$TMP/idle.attribution.csv" job controls used share not_shown |
		grep -c "^plain|huge|false||skipped: nothing in its job's warmup for it to reach (no private anonymous mapping")" -eq 1
# Rounds stop once every ladder of the set decided (3 clean rounds in):
# when fewer than the 5 asked for ran, the verdict says it; else not.
plain_rounds=$(csv_rows "$csv" job control | grep -c '^plain|$')
if [ "$plain_rounds" -lt 5 ]; then
	check "stopped early ($plain_rounds of 5 rounds): said in the verdict" \
		grep -q "^  stopped after $plain_rounds of 5 rounds: every cause decided (controls = auto)$" <<<"$(verdict plain)"
else
	check "every round ran: no early stop is said" \
		test -z "$(verdict plain | grep 'stopped after')"
fi
check "the unused rung has its row in the attribution CSV" \
	test "$(csv_rows "$TMP/idle.attribution.csv" job controls used | grep -c '^plain|huge|false$')" -eq 1
# (the table names the cause; its long detail is the CSV's and --explain's)
check "the sharing cause is named as what cannot be told apart" \
	test "$(csv_rows "$TMP/idle.attribution.csv" job cause detail | grep -c '^plain|cross-core sharing|true or false; a PMU and perf c2c would tell them apart$')" -ge 1

# The same program run by a user: at perf_event_paranoid 2 and below the
# kernel lets a user sample the user space of its own programs and record
# their switches, so the run is measured, profiled in user space, and its
# threads' overlap seen.  (Above 2 sampling is refused, as below.)
cat >"$TMP/one.ini" <<INI
[global]
size = 4M
repeat = 3
warmup = 0
probe = exec
kernel = histogram
threads = 2
controls = onepu
events = task-clock, page-faults

[plain]
command = $PLANTED plain {file} {threads}
result = output:^Sum: (\\d+)
INI
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
mmprof=$(realpath "$MMPROF")
user=$(mktemp -d /tmp/mmprof-user.XXXXXX)
trap 'kill $hog 2>/dev/null; rm -rf "$TMP" "$user"' EXIT
chmod 0777 "$user"
cp "$TMP/one.ini" "$user/one.ini" && chmod 0644 "$user/one.ini"
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "as a user: needs root and setpriv to become one"
elif ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$mmprof" -a -x "$PLANTED"; then
	skip "as a user: nobody cannot reach $mmprof or $PLANTED"
else
	out=$(cd "$user" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env MMPROF_DATA="$user/data" "$mmprof" --config one.ini --csv "$user/one.csv" 2>"$TMP/stderr")
	rc=$?
	err=$(cat "$TMP/stderr")
	check "as nobody (perf_event_paranoid $paranoid): measured, every result right" \
		test "$rc" -eq 0 -a "$(csv_col "$user/one.csv" result_ok | sort -u)" = true
	if [ "$paranoid" -le 2 ] 2>/dev/null; then
		check "as nobody: the profile is of user space only, and says so" \
			grep -q '^profile of \[plain\] .*user space only' <<<"$out"
		check "as nobody: its threads' overlap is measured in all 3 2-PU repetitions" \
			test "$(csv_rows "$user/one.csv" control overlap | awk -F'|' '$1 == "" && $2 != ""' | wc -l)" -eq 3
	else
		check "as nobody above paranoid 2: sampling refused, said with the level" \
			grep -q "perf_event_paranoid is $paranoid" <<<"$out"
	fi
fi

# Sampling refused outright (a seccomp filter, as above paranoid 2): the
# program is measured, its overlap is not seen, and sharing is named only
# if its CPU time shows it -- else "cannot tell", never another cause.
if [ -x "$BUILD/tests/no_perf" ]; then
	out=$("$BUILD/tests/no_perf" "$MMPROF" --config "$TMP/one.ini" --csv "$TMP/refused.csv" 2>"$TMP/stderr")
	rc=$?
	check "refused: measured, every result right" \
		test "$rc" -eq 0 -a "$(csv_col "$TMP/refused.csv" result_ok | sort -u)" = true
	check "refused: no overlap measured (6 rows, every cell empty)" \
		test "$(csv_col "$TMP/refused.csv" overlap | wc -l)" -eq 6 -a -z "$(csv_col "$TMP/refused.csv" overlap | sort -u)"
	line=$(verdict plain)
	if grep -q '^  fix: give what each thread writes' <<<"$line"; then
		ok "refused: plain is named cross-core sharing (its CPU time shows it)"
	elif grep -q '^  cross-core sharing .*CPU time on 2 PUs' <<<"$line" &&
		grep -q '^  largest cause: inconclusive (its rounds were disturbed' <<<"$line"; then
		# (its CPU time showed sharing, and the machine took its rounds)
		ok "refused: plain's sharing shown by its CPU time, undecided from disturbed rounds"
	else
		check "refused: plain cannot tell, and says its threads were not seen" grep -q \
			"^  largest cause: inconclusive (cross-core sharing: whether its threads ran at the same time was not seen: cannot tell)" <<<"$line"
	fi
else
	skip "refused: no_perf did not build"
fi

# What a preload library cannot reach: the run is still measured, the
# rung says why it changed nothing.
preload_case() { # LABEL PROGRAM WHY
	cat >"$TMP/$1.ini" <<INI
[global]
size = 4M
repeat = 3
warmup = 0
probe = exec
kernel = histogram
controls = prefault
events = task-clock, page-faults

[$1]
command = $2 plain {file} 1 8
result = output:^Sum: (\\d+)
INI
	run_mmprof --config "$TMP/$1.ini" --csv "$TMP/$1.csv" --quiet
	check "$1: runs and is measured" test "$rc" -eq 0 -a "$(csv_col "$TMP/$1.csv" result_ok | sort -u)" = true
	check "$1: the library was not loaded (preload_loaded 0)" \
		test "$(csv_rows "$TMP/$1.csv" control preload_loaded | grep -c '^prefault|0$')" -eq 3
	check "$1: the rung is not used, and why: $3" \
		grep -q "^  not used: prefault (page faults) changed nothing: the preload library was not loaded into the program (.*$3" <<<"$(verdict "$1")"
}
if cc -static -O2 -o "$TMP/planted-static" tests/helpers/planted.c -pthread 2>/dev/null; then
	preload_case static "$TMP/planted-static" "is a static binary"
	# Its symbols are its own: the profile names its loop all the same.
	check "static: the profile names its loop" \
		grep -qE '^    (work|one_pass)\(\) +[0-9.]+%' <<<"$out"
else
	skip "static: no static C library to link a static program with"
fi
# The setuid program runs as its owner, nobody: it and its data sit where
# nobody can reach them.
pub=$(mktemp -d /tmp/mmprof-setuid.XXXXXX)
trap 'kill $hog 2>/dev/null; rm -rf "$TMP" "$pub"' EXIT
chmod 0755 "$pub"
cp "$PLANTED" "$pub/planted-setuid"
if [ "$(id -u)" = 0 ] && chown 65534 "$pub/planted-setuid" && chmod 4755 "$pub/planted-setuid"; then
	MMPROF_DATA=$pub/data preload_case setuid "$pub/planted-setuid" "is setuid"
else
	skip "setuid: needs root to give a program another owner"
fi
# The library itself missing (MMPROF_PRELOAD names where it is).
MMPROF_PRELOAD=$TMP/none.so preload_case missing "$PLANTED" "MMPROF_PRELOAD=$TMP/none.so: no such readable file"
# A stripped binary: nothing to name in it, everything still measured.
cp "$PLANTED" "$TMP/planted-stripped" && strip "$TMP/planted-stripped"
sed -e "s|$PLANTED plain|$TMP/planted-stripped plain|" -e 's/^controls = auto/controls = prefault/' \
	"$TMP/planted.ini" | sed '/^\[atomic\]/,$d' >"$TMP/stripped.ini"
run_mmprof --config "$TMP/stripped.ini" --csv "$TMP/stripped.csv" --quiet
check "stripped: runs, measured, and the library changed its file mapping" \
	test "$rc" -eq 0 -a "$(csv_rows "$TMP/stripped.csv" control preload_mappings | grep -c '^prefault|[1-9]')" -eq 5
done_testing
