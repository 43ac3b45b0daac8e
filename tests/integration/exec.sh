# probe = exec and mmprof exec, with a helper program that reads a file and
# prints a count and a time, or misbehaves on request
# (tests/helpers/exec_helper.c): placeholders, binding, wall and printed
# times, results right and wrong, exit codes, signals, timeouts, the logs,
# inherited counters, and Ctrl-C stopping the program's whole group.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
HELPER=$PWD/$BUILD/tests/exec_helper
trap 'rm -rf "$TMP"' EXIT
PLANTED=$PWD/$BUILD/tests/planted
make -s --no-print-directory "$BUILD/tests/exec_helper" "$BUILD/tests/planted" \
	"$BUILD/libmmprof-preload.so" >/dev/null 2>&1
[ -x "$HELPER" ] || skip_rest "the helper program did not build ($HELPER)"

# run_config NAME JOB-LINES...: a one-job config over a 1 MiB file, run;
# sets $out $err $rc and $csv (its CSV).
run_config() {
	local name=$1; shift
	{
		printf '[global]\nsize = 1M\nseed = 5\nrepeat = 2\nwarmup = 0\nevents = task-clock, page-faults\n\n[%s]\nprobe = exec\n' "$name"
		printf '%s\n' "$@"
	} >"$TMP/$name.ini"
	csv=$TMP/$name.csv
	run_mmprof --config "$TMP/$name.ini" --csv "$csv"
}
col() { csv_col "$csv" "$1"; }
# gone PID...: none of them runs, or is a zombie (nobody's to reap).
gone() {
	local p s
	for p in "$@"; do
		s=$(ps -o stat= -p "$p" 2>/dev/null | tr -d ' ')
		[ -z "$s" ] || return 1
	done
}

# The reference: mmprof's own data file, counted by tr.
run_config right "command = $HELPER count {file}" "result = output:Found (\\d+) zero"
data=$(col file | head -1)
zeros=$(tr -dc '\0' <"$data" | wc -c)
check "right result: exit 0" test "$rc" -eq 0
check "right result: result_ok true, result = tr's count ($zeros)" \
	test "$(col result_ok | sort -u)" = true -a "$(col result | sort -u)" = "$zeros"
check "right result: table says ok" grep -Eq '^right +exec .* ok$' <<<"$out"
check "time = wall: elapsed_ns is wall_ns" \
	test "$(csv_rows "$csv" elapsed_ns wall_ns | awk -F'|' '$1 != $2' | wc -l)" -eq 0 -a \
	"$(col wall_ns | head -1)" -gt 0
log=$(col log | head -1)
check "the log is named in the CSV, beside it in the invocation's directory" \
	test -f "$log" -a "$(dirname "$log")" = "$TMP/right.logs/$(col run_id | head -1)"
check "the log: mmprof's line, then the program's output" \
	bash -c 'head -1 "$1" | grep -q "^# mmprof: run 1 \[right\] process 0 on PUs 0: .*exec_helper count " &&
		grep -q "^Found $2 zero bytes in " "$1"' _ "$log" "$zeros"
check "one log per process (2 repetitions)" test "$(ls "$(dirname "$log")" | wc -l)" -eq 2
check "counters: task-clock counted in the program" \
	test "$(counts "$csv" task-clock | awk '$1 > 0' | wc -l)" -eq 2
check "others_busy recorded" test -n "$(col others_busy | head -1)"

# Placeholders and binding.
run_config ph "command = $HELPER argv {file} {size} {threads} {access} {pus} {npus} {kernel} {job} {run} 'a b' {{x}}" \
	"access = 4K"
log=$(col log | head -1)
want="arg[0]=$data
arg[1]=1048576
arg[2]=1
arg[3]=4096
arg[4]=0
arg[5]=1
arg[6]=zeros
arg[7]=ph
arg[8]=1
arg[9]=a b
arg[10]={x}
pus=0
pgid=own"
check "placeholders filled in, one word each; bound to the planned PU; own process group" \
	test "$(grep -v '^#' "$log")" = "$want"
check "no result: result and result_ok empty, the table says unchecked" \
	test -z "$(col result | sort -u)" -a -z "$(col result_ok | sort -u)" -a \
	"$(grep -c ' unchecked$' <<<"$out")" -eq 1
if [ "$(nproc)" -ge 2 ]; then
	run_config bind "command = $HELPER argv {pus} {threads}" "threads = 2" "placement = pus:1,0"
	check "2 threads on pus:1,0: the child is bound to both" \
		test "$(grep '^pus=' "$(col log | head -1)")" = "pus=0,1" -a \
		"$(grep '^arg\[0\]' "$(col log | head -1)")" = "arg[0]=1,0"
	# Inherited counters: task-clock covers every thread of the program,
	# held against the program's own clocks in the same repetition (the
	# process's CPU time, and each spinning thread's).  Not two runs'
	# task-clocks against each other: on a shared VM, CPU time per unit
	# of work moves with the load (steal, a sibling hyperthread), so one
	# thread's run could count as much as two threads' did.  Counted in
	# the main thread only, task-clock would be a few ms of the ~0.2 s.
	run_config two "command = $HELPER threads 2 {file}" "threads = 2"
	inherit=$(paste -d' ' <(counts "$csv" task-clock) <(for l in $(col log); do grep '^cpu: ' "$l"; done) |
		awk '{ tc = $1; proc = $4; t = $6 + $7
			printf "%s%.3f/%.3f", (NR > 1 ? " " : ""), tc / proc, tc / t
			if (!(NF == 7 && $6 > 0 && $7 > 0 && tc >= 0.95 * t && tc >= 0.9 * proc && tc <= 1.1 * proc)) bad = 1 }
			END { exit bad || NR != 2 }')
	inherit_rc=$?
	check "counters follow every thread: task-clock over the program's CPU / its 2 threads' = $inherit (0.9-1.1 / >= 0.95)" \
		test "$inherit_rc" -eq 0
else
	skip "binding and inherited counters on 2 PUs: this machine allows $(nproc)"
fi

# The program's own time, in each format it prints.
for t in 'Elapsed time: (.*)' 'java: (.*)' 'took (.*)'; do
	run_config own "command = $HELPER count {file} 30" "time = output:^$t\$"
	printed=$(sed -n "s/^${t%%(*}//p" "$(col log | head -1)")
	case $t in
	Elapsed*) want=$(awk -F'[:.]' '{ printf "%d", ($1 * 3600 + $2 * 60 + $3) * 1e9 + $4 * 100 }' <<<"$printed") ;;
	java*) want=$(awk -F'[:.]' '{ printf "%d", ($1 * 3600 + $2 * 60 + $3) * 1e9 + $4 * 1e6 }' <<<"$printed") ;;
	took*) want=$(awk '{ printf "%d", $1 * 1e6 + 0.5 }' <<<"$printed") ;;
	esac
	first=$(col elapsed_ns | head -1)
	check "time = output:$t reads '$printed' as $want ns (got $first), below wall_ns" \
		test "$first" = "$want" -a "$first" -ge 30000000 -a "$first" -lt "$(col wall_ns | head -1)"
done
run_config late "command = $HELPER late {file}" "time = output:took (.*)"
check "a printed time longer than the process lived: the run fails, says so" \
	test "$rc" -eq 1 -a -n "$(grep 'read 100.000000 s, longer than the' <<<"$err")"

# Wrong results are WRONG rows, like a wrong probe.
run_config wrong "command = $HELPER wrong {file}" "result = output:Found ([0-9]+) zero"
check "wrong result: result_ok false, exit 1" test "$rc" -eq 1 -a "$(col result_ok | sort -u)" = false
check "wrong result: the table says WRONG" grep -Eq '^wrong +exec .* WRONG$' <<<"$out"
check "wrong result: stderr names the count and the log" \
	grep -q "the program printed $((zeros + 1)), which differs from the reference (zeros of $data) (log: $TMP/wrong.logs/$(col run_id | head -1)/run1-wrong.0.log)" <<<"$err"
# Only a whole decimal token is a count: the right digits inside
# something else are WRONG, shown as printed, never read as right.
for printed in "-$zeros" "${zeros}e3" "$zeros.7" "${zeros}abc" "1,$zeros" "0x$zeros"; do
	run_config notcount "command = $HELPER print 'Found $printed zero bytes'" \
		"result = output:Found (.*) zero"
	check "'Found $printed zero' is WRONG, not ok: result_ok false, result empty, exit 1" \
		test "$rc" -eq 1 -a "$(col result_ok | sort -u)" = false -a -z "$(col result | sort -u)"
	check "...and stderr shows what it printed" \
		grep -qF "the program printed '$printed', which " <<<"$err"
done
run_config nomatch "command = $HELPER count {file}" "result = output:Found ([0-9]+) ones"
check "no line matches result: the run fails with the log" \
	grep -q "no line of its output matches result = output:Found (\[0-9\]+) ones (log: $TMP/nomatch.logs/[0-9a-f]*/run1-nomatch.0.log)" <<<"$err"
check "...and exit 1, FAILED in the table" test "$rc" -eq 1 -a -n "$(grep FAILED <<<"$out")"

# A daemon the program starts in a session of its own (setsid) escapes
# its group's SIGKILL; it was the run's, and ends with it, said so.
rm -f "$TMP/daemon.pid"
run_config daemon "command = $HELPER daemon $TMP/daemon.pid" "repeat = 1"
d=$(cat "$TMP/daemon.pid" 2>/dev/null)
check "a setsid daemon: the run is fine (exit $rc), the daemon $d is gone" \
	bash -c '[ "$1" -eq 0 ] && [ -n "$2" ] && ! ps -o stat= -p "$2" >/dev/null' _ "$rc" "$d"
[ -n "$d" ] && kill "$d" 2>/dev/null
check "...and mmprof says it ended it, with its pid" \
	grep -q "note: .*exec_helper left 1 process(es) running outside its process group (a daemon: setsid): $d ([a-z_]*); mmprof ended them" <<<"$err"

# Failures: exit status, signal, missing program, timeout.
run_config ex "command = $HELPER exit 3"
check "exit 3: the run fails: 'exited with status 3' and the log" \
	grep -q "exec_helper exited with status 3 (log: $TMP/ex.logs/[0-9a-f]*/run1-ex.0.log)" <<<"$err"
check "exit 3: mmprof exits 1" test "$rc" -eq 1
run_config sig "command = $HELPER signal 11"
check "a signal: 'killed by SIGSEGV'" grep -q "killed by SIGSEGV" <<<"$err"
run_config missing "command = no-such-program-here {file}"
check "a missing program: not found on PATH" grep -q "cannot run no-such-program-here: not found on PATH" <<<"$err"
start=$SECONDS
run_config slow "command = $HELPER sleep 60 $TMP/slow.pids" "timeout = 1s"
read -r p gp <"$TMP/slow.pids"
check "timeout: 'timed out after 1 s' with the log, in $((SECONDS - start)) s" \
	test "$rc" -eq 1 -a -n "$(grep "timed out after 1 s, stopped (log: " <<<"$err")" -a $((SECONDS - start)) -lt 15
check "timeout: the program and its child are gone, reaped" gone "$p" "$gp"
run_config stubborn "command = $HELPER stubborn 60 $TMP/stubborn.pids" "timeout = 1s"
read -r p gp <"$TMP/stubborn.pids"
check "a program that ignores SIGTERM is killed after the grace" gone "$p" "$gp"
check "...and its run failed as timed out" grep -q "timed out after 1 s" <<<"$err"

# Config mistakes are diagnostics, nothing run.
printf '[j]\nprobe = exec\nsize = 1M\n' >"$TMP/nocmd.ini"
run_mmprof --config "$TMP/nocmd.ini" --dry-run
check "exec without command: exit 2, says what to set" \
	test "$rc" -eq 2 -a -n "$(grep 'probe = exec runs a program: set command = PROGRAM ARGS' <<<"$err")"
printf '[j]\nprobe = exec\nsize = 1M\ncommand = prog {access}\n' >"$TMP/noacc.ini"
run_mmprof --config "$TMP/noacc.ini" --dry-run
check "{access} without access: exit 2" test "$rc" -eq 2 -a -n "$(grep 'command passes {access}' <<<"$err")"
printf '[j]\nprobe = mmap_byte\nsize = 1M\ncommand = prog\n' >"$TMP/notexec.ini"
run_mmprof --config "$TMP/notexec.ini" --dry-run
check "command on a C probe: exit 2, 'does not use'" \
	test "$rc" -eq 2 -a -n "$(grep "probe 'mmap_byte' does not use 'command'" <<<"$err")"
printf '[j]\nprobe = exec\nsize = 1M\ncommand = prog | wc\n' >"$TMP/pipe.ini"
run_mmprof --config "$TMP/pipe.ini" --dry-run
check "a pipe in the command: exit 2, no shell" test "$rc" -eq 2 -a -n "$(grep "there is no shell" <<<"$err")"

# Ctrl-C stops the program's whole process group; nothing is left.
cat >"$TMP/long.ini" <<EOF2
[j]
probe = exec
size = 1M
repeat = 3
warmup = 0
command = $HELPER sleep 60 $TMP/long.pids
EOF2
"$MMPROF" --config "$TMP/long.ini" --csv "$TMP/long.csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 200); do [ -s "$TMP/long.pids" ] && break; sleep 0.05; done
read -r p gp <"$TMP/long.pids"
check "the program runs in a group of its own" test "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$p"
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C: exit 130" test "$rc" -eq 130
check "Ctrl-C: the program and its child are gone (no orphan, no zombie)" gone "$p" "$gp"
check "Ctrl-C: said so" grep -q "interrupted" "$TMP/err"
# A second Ctrl-C leaves at once: the group is killed first.
rm -f "$TMP/long.pids"
"$MMPROF" --config "$TMP/long.ini" --csv "$TMP/long2.csv" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 200); do [ -s "$TMP/long.pids" ] && break; sleep 0.05; done
read -r p gp <"$TMP/long.pids"
kill -TERM "$pid"
kill -INT "$pid"
wait "$pid"
rc=$?
sleep 0.2
check "a second signal: exit 130, the program and its child killed" \
	bash -c '[ "$1" -eq 130 ] && ! ps -o stat= -p "$2" | grep -qv Z && ! ps -o stat= -p "$3" | grep -qv Z' _ "$rc" "$p" "$gp"

# mmprof exec: the same, without a config.
run_mmprof exec -r 3 --placement compact --result 'Found (\d+) zero' --file "$data" \
	--csv "$TMP/x.csv" -- "$HELPER" count {file}
check "mmprof exec: exit 0, one row ok" test "$rc" -eq 0 -a -n "$(grep -E '^exec_helper +exec .* ok$' <<<"$out")"
check "mmprof exec: 3 rows, results right" \
	test "$(csv_col "$TMP/x.csv" result_ok | grep -c true)" -eq 3
check "mmprof exec: logs beside its CSV" test "$(find "$TMP/x.logs" -name '*.log' | wc -l)" -eq 4
# A path with a comma is one file when it exists (not a list of two).
mkdir -p "$TMP/a,b"
cp "$data" "$TMP/a,b/d.bin"
run_mmprof exec -r 1 --warmup 0 --result 'Found (\d+) zero' --file "$TMP/a,b/d.bin" \
	--csv "$TMP/comma.csv" -- "$HELPER" count {file}
check "mmprof exec --file 'a,b/d.bin': one run over that file, result right" \
	test "$rc" -eq 0 -a "$(csv_rows "$TMP/comma.csv" file result_ok | sort -u)" = "$TMP/a,b/d.bin|true"
run_mmprof exec --placement sideways --file "$data" -- "$HELPER" count {file}
check "mmprof exec: a bad option value is a config diagnostic, exit 2" \
	test "$rc" -eq 2 -a -n "$(grep "^mmprof exec:3: \[exec_helper\] 'sideways' is not a placement" <<<"$err")"
# A job name that is not one: said of --job, not as errors about the
# lines of the config it would have made ("mmprof exec:1: 'probe' is
# outside any section").
for j in '' 'a b' "$(printf 'j%.0s' {1..64})"; do
	run_mmprof exec --job "$j" --dry-run -- "$HELPER" print one
	check "mmprof exec --job '${j:0:8}': exit 2, names --job and what a name is" test "$rc" -eq 2 -a \
		"$err" = "mmprof exec: --job '$j': a job name is 1 to 63 letters, digits, '_', '-' or '.'"
done
# A program that does not exist writes no log: no message points at an
# empty logs directory, and none is left.
run_mmprof exec -r 1 --warmup 0 --csv "$TMP/none.csv" -- "$TMP/no such program"
check "a program that does not exist: exit 1, cannot run it" \
	test "$rc" -eq 1 -a -n "$(grep "cannot run $TMP/no such program: No such file or directory" <<<"$err")"
check "...no pointer to a logs directory, none left" \
	bash -c '! grep -q "program logs are in" <<<"$1" && test ! -e "$2"' _ "$err" "$TMP/none.logs"
# A program that stops itself is said to, and ended: it was left stopped
# until the timeout (600 s by default) and reported "timed out". (The
# timeout here only bounds the old behaviour's wait.)
run_mmprof exec -r 1 --warmup 0 --timeout 20s --csv "$TMP/stopped.csv" -- sh -c 'echo hi; kill -STOP $$'
check "a program that stops itself: exit 1, the stop said, not a timeout" test "$rc" -eq 1 -a -n \
	"$(grep 'sh stopped itself (SIGSTOP) and nothing would continue it: mmprof ended it' <<<"$err")" -a \
	-z "$(grep 'timed out' <<<"$err")"
# Without --file: a program that reads no data file, measured per run,
# its result not checked -- said once, not per row.
run_mmprof exec -r 3 --threads 2 --csv "$TMP/nofile.csv" -- "$HELPER" print one two
check "mmprof exec without --file: runs, 3 rows of 0 bytes, result and result_ok empty" \
	test "$rc" -eq 0 -a "$(csv_rows "$TMP/nofile.csv" bytes ns_per_byte result result_ok | sort -u)" = "0|||"
check "...its table row says unchecked, with no per-byte figures" \
	grep -Eq '^exec_helper +exec +2 +3 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% .*unchecked$' <<<"$out"
check "...and says once why nothing was checked" test "$(grep -c \
	'^mmprof: note: \[exec_helper\] reads no data file (neither file nor size): its result is not checked, and its figures are per run, not per byte$' <<<"$err")" -eq 1
run_mmprof exec -r 2 --profile 10 --csv "$TMP/nosample.csv" -- "$HELPER" print one
check "a profile without a sample (10 Hz, a program of a millisecond) says why, not an empty block" \
	grep -q "^  no sample: its rounds took less CPU time than a sample stands for (100 ms)" <<<"$out"
run_mmprof exec -r 3 --threads 2 --controls auto --csv "$TMP/nofile_why.csv" -- "$HELPER" print one two
check "...its causes per run, in a unit a person reads (ms, not 3502214.333 ns)" \
	grep -Eq '^\[exec_helper\] exec threads=2 access=-: [0-9.]+ (us|ms|s) per run$' <<<"$out"
# Every option exec's output recommends ("--explain JOB shows ...",
# "--list-events and NAME.events.csv say why") is one mmprof exec takes:
# it was "unknown option", exit 2.
help=$("$MMPROF" exec --help)
for o in $(grep -oE -- '(^|[ (])--[a-z][a-z-]+' <<<"$out"$'\n'"$err" | sed 's/^[ (]//' | sort -u); do
	check "mmprof exec's output recommends $o: mmprof exec --help lists it" \
		grep -Eq -- "^  (-[a-zA-Z], )?$o( |\[|$)" <<<"$help"
done
check "...--explain among them" grep -q -- '--explain JOB' <<<"$out"
check "no line of it over 160 characters (the longest: $(longest))" test "$(longest)" -le 160
run_mmprof exec -r 3 --threads 2 --controls auto --explain exec_helper --csv "$TMP/nofile_why.csv" \
	-- "$HELPER" print one two
check "mmprof exec --explain JOB: exit 0 ($rc), the job's steps and no table of times" \
	test "$rc" -eq 0 -a -n "$(grep '^  steps: the job, then one control more at each' <<<"$out")" -a \
	-z "$(grep -E '^exec_helper +exec ' <<<"$out")"
run_mmprof exec --explain other --dry-run -- "$HELPER" print one
check "mmprof exec --explain another job: exit 2, names the job it has" test "$rc" -eq 2 -a \
	"$err" = "mmprof exec: --explain other: the job is [exec_helper] (the program's name, or --job's)"
run_mmprof exec -r 3 --threads 2 --controls auto --brief --csv "$TMP/nofile_why.csv" -- "$HELPER" print one two
check "mmprof exec --brief: exit 0 ($rc), one line for its job point" test "$rc" -eq 0 -a \
	"$(grep -c '^\[exec_helper\] exec threads=2 access=-: ' <<<"$out")" -eq 1
run_mmprof exec --list-events
check "mmprof exec --list-events: exit 0, the presets" test "$rc" -eq 0 -a -n "$(grep '^presets' <<<"$out")"
# Without --file the counts are per run, not absent: a program's page
# faults and system calls were counted (NAME.events.csv) while the table
# had no column for them and the causes said "not counted here".
run_mmprof exec -r 3 --warmup 0 --profile off --events task-clock,page-faults,syscalls \
	--csv "$TMP/nofile_faults.csv" -- "$PLANTED" faults 16
faults=$(counts "$TMP/nofile_faults.csv" page-faults | sort -n | sed -n 2p)
check "without --file: the counters table has faults/run, the median of NAME.events.csv's ($faults)" \
	bash -c 'grep -Eq "^job +probe +threads +CPU ms +faults/run " <<<"$1" &&
		grep -Eq "^planted +exec +1 +[0-9.]+ +$2 " <<<"$1"' _ "$out" "$faults"
check "...and syscalls/run" grep -Eq '^job .* syscalls/run' <<<"$out"
run_mmprof exec -r 3 --warmup 0 --profile off --events task-clock,page-faults --controls prefault \
	--explain planted --csv "$TMP/nofile_faults.csv" -- "$PLANTED" faults 16
check "without --file: --explain's page faults row has its counts per run" \
	grep -Eq '^  page faults +.* faults/run [0-9]+ -> [0-9]+$' <<<"$out"
check "...and nothing counted is called not counted" \
	bash -c '! grep -Eq "not counted here|page faults: no counter here" <<<"$1"' _ "$out"
run_mmprof exec -- "$HELPER" count {file}
check "mmprof exec without --file, passing {file}: exit 2, says what to set" test "$rc" -eq 2 -a -n \
	"$(grep 'command passes {file}, but the job has no data file: set file = the file it reads, or size' <<<"$err")"
run_mmprof exec --result 'Found (\d+)' -- "$HELPER" print 'Found 3'
check "mmprof exec without --file, with --result: exit 2, nothing to check it against" \
	test "$rc" -eq 2 -a -n "$(grep "result = is checked against the data file's reference, and the job has none" <<<"$err")"
# The default output: named from the program, so one program's results do
# not replace another's, and a rerun keeps the previous set as
# NAME.old.csv (results/exec.csv was replaced, silently, by every run).
mkdir -p "$TMP/cwd"
mm=$(realpath "$MMPROF")
default_run() { # PROGRAM ARGS...: mmprof exec without --csv, in $TMP/cwd
	out=$(cd "$TMP/cwd" && "$mm" exec -r 1 --warmup 0 --profile off -- "$@" 2>"$TMP/stderr")
	rc=$?
	err=$(cat "$TMP/stderr")
}
default_run "$HELPER" print one
default_run "$PLANTED" faults 1
check "mmprof exec's default CSV is named from the program: results/exec-exec_helper.csv, results/exec-planted.csv" \
	test "$rc" -eq 0 -a -f "$TMP/cwd/results/exec-exec_helper.csv" -a -f "$TMP/cwd/results/exec-planted.csv"
first=$(csv_col "$TMP/cwd/results/exec-planted.csv" run_id)
default_run "$PLANTED" faults 1
check "a rerun keeps the previous set: NAME.old.csv holds the first run's rows, NAME.old.events.csv beside it" \
	test "$(csv_col "$TMP/cwd/results/exec-planted.old.csv" run_id 2>/dev/null)" = "$first" -a \
	-f "$TMP/cwd/results/exec-planted.old.events.csv" -a \
	"$(csv_col "$TMP/cwd/results/exec-planted.csv" run_id)" != "$first"
check "...and says where it went" grep -q \
	"^mmprof: note: the previous run's results/exec-planted.csv is now results/exec-planted.old.csv, its companions renamed alike" <<<"$err"
log=$(csv_col "$TMP/cwd/results/exec-planted.old.csv" log)
check "...the logs its rows name stay ($log)" test -f "$TMP/cwd/$log"
default_run "$PLANTED" faults 1
check "a third run: the first run's set and logs are gone, the second's kept" \
	test "$(csv_col "$TMP/cwd/results/exec-planted.old.csv" run_id 2>/dev/null)" != "$first" -a \
	! -e "$TMP/cwd/$log" -a -f "$TMP/cwd/$(csv_col "$TMP/cwd/results/exec-planted.old.csv" log)"
check "the other program's results are untouched" \
	test -f "$TMP/cwd/results/exec-exec_helper.csv" -a ! -e "$TMP/cwd/results/exec-exec_helper.old.csv"
# membind: the program runs under that memory policy (set_mempolicy in the
# child, kept across the exec); /proc/self/numa_maps of the program says it.
for mb in node:0 interleave firsttouch; do
	printf '[p]\nprobe = exec\nsize = 1M\nrepeat = 1\nwarmup = 0\nevents = none\nmembind = %s\ncommand = sh -c %s\n' \
		"$mb" "'grep -m1 -oE \"(bind|interleave|local|prefer)[:0-9-]*\" /proc/self/numa_maps'" >"$TMP/mb.ini"
	run_mmprof --config "$TMP/mb.ini" --csv "$TMP/mb.csv" --quiet
	policy=$(tail -1 "$TMP"/mb.logs/*/*.log 2>/dev/null)
	case $mb in node:0) want=bind:0 ;; interleave) want=interleave:0 ;; *) want=local ;; esac
	check "membind = $mb: the program's memory policy is $want ($policy)" test "$policy" = "$want"
	rm -rf "$TMP/mb.logs"
done

# env = and jitnames: what the program's environment holds, what the CSV
# and the log say, and a job's own word against jitnames'.
show='printf "%s|%s|%s|%s|%s\n" "$A" "$B" "$DOTNET_PerfMapEnabled" "$DOTNET_EnableWriteXorExecute" "$JAVA_TOOL_OPTIONS"'
run_config env "command = sh -c '$show'" 'env = A=1, B=x\,y' "profile = 200"
envline=$(grep -hv '^#' "$TMP"/env.logs/*/*.log | sort -u)
check "env = A=1, B=x\\,y: the program has A=1 and B=x,y" test "${envline%%|1||*}" = "1|x,y"
check "jitnames (auto, profiled): DOTNET_PerfMapEnabled=1, W^X left alone, Java's perf map" \
	bash -c '[[ $1 == *"|1||"*"DumpPerfMapAtExit"* || $1 == *"|1||-agentpath:"* ]]' _ "$envline"
check "...the CSV says jitnames yes and the env as written" \
	test "$(csv_rows "$csv" jitnames env | sort -u)" = 'yes|A=1, B=x\,y'
check "...and the log's second line says what was set" \
	bash -c 'sed -n 2p "$1" | grep -q "^# mmprof: with A=1 B=x,y DOTNET_PerfMapEnabled=1 "' _ "$(col log | head -1)"
run_config envoff "command = sh -c '$show'" "profile = off"
check "profile = off: jitnames no, nothing set, no env column" \
	test "$(grep -hv '^#' "$TMP"/envoff.logs/*/*.log | sort -u)" = "||||" -a \
	"$(csv_rows "$csv" jitnames env | sort -u)" = "no|"
run_config envown "command = sh -c '$show'" "profile = 200" "env = DOTNET_PerfMapEnabled=0, DOTNET_EnableWriteXorExecute=0"
check "a job's own DOTNET_PerfMapEnabled=0 stands over jitnames'; its other variables pass" \
	test "$(grep -hv '^#' "$TMP"/envown.logs/*/*.log | sort -u | cut -d'|' -f3,4)" = "0|0"
run_config envno "command = sh -c '$show'" "profile = 200" "jitnames = no"
check "jitnames = no: nothing set although profiled" \
	test "$(grep -hv '^#' "$TMP"/envno.logs/*/*.log | sort -u)" = "||||"
run_config envbad "command = sh -c '$show'" "env = A=1, 2B=3"
check "env = A=1, 2B=3: exit 2, the item and the line named" \
	test "$rc" -eq 2 -a -n "$(grep -E "envbad.ini:[0-9]+: \[envbad\] '2B' is not a variable name" <<<"$err")"
run_config envbad2 "command = sh -c '$show'" "env = A"
check "env = A: exit 2, 'is not VAR=VALUE'" test "$rc" -eq 2 -a -n "$(grep "'A' is not VAR=VALUE" <<<"$err")"
printf '[global]\nsize = 1M\n\n[envprobe]\nprobe = mmap_byte\nenv = A=1\n' >"$TMP/envprobe.ini"
run_mmprof --config "$TMP/envprobe.ini" --dry-run
check "env on a C probe: exit 2, 'does not use'" test "$rc" -eq 2 -a -n "$(grep "does not use 'env'" <<<"$err")"
# Two jobs that differ in env only are two runs, told apart in the table
# (the env column) and by mmprof compare.
check "--list-keys=roles: env and jitnames identify a run" \
	test "$("$MMPROF" --list-keys=roles | grep -E '^(env|jitnames)	' | cut -f2 | sort -u)" = "run,compare,label"
run_mmprof exec -r 1 --warmup 0 --env 'A=1' --env 'B=x,y' --jitnames no --file "$data" \
	--csv "$TMP/xe.csv" -- sh -c "$show"
check "mmprof exec --env A=1 --env B=x,y --jitnames no: the program has both, nothing else" \
	test "$rc" -eq 0 -a "$(grep -hv '^#' "$TMP"/xe.logs/*/*.log)" = "1|x,y|||" -a \
	"$(csv_rows "$TMP/xe.csv" env jitnames)" = 'A=1, B=x\,y|no'
done_testing
