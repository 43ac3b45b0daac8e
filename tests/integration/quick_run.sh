# configs/quick.ini end to end: every probe's result equals the reference,
# the CSV has the documented header and one row per recorded repetition,
# the table and the baseline ratios are printed.
source "$(dirname "$0")/tap.bash"

csv=$TMP/quick.csv
run_mmprof --config configs/quick.ini --csv "$csv"
check "exit 0" test "$rc" -eq 0
[ "$rc" -eq 0 ] || echo "# $err"

header=$(head -1 "$csv")
# The documented list, the same whatever a config counts.
want=$("$MMPROF" --list-columns | awk 'NF == 0 { exit } { print $1 }' | paste -sd,)
check "CSV header is the documented column list" test "$header" = "$want"
check "the derived metrics follow result_ok" grep -q ',result_ok,cpu_ns,cycles_per_byte,' <<<"$header"
check "NAME.events.csv: the default events" test "$(csv_rows "${csv%.csv}.events.csv" event | grep -cx 'task-clock\|page-faults\|cycles\|context-switches')" -gt 0
check "NAME.events.csv: one row per repetition and event" test "$(($(wc -l <"${csv%.csv}.events.csv") - 1))" -eq "$(( ($(wc -l <"$csv") - 1) * $(csv_rows "${csv%.csv}.events.csv" event | sort -u | wc -l) ))"
check "CSV header starts as the contract" grep -q '^schema_version,job,probe,kernel,threads,access,buffer,refcount,tally,placement,control,run,parent,set,rep,round,position,bytes,elapsed_ns,ns_per_byte,result,result_ok,' <<<"$header"
check "CSV disturbance columns" grep -q ',oversubscribed,disturbed,disturbed_why,overlap,wait_max,busy,cpu_pressure,nivcsw,' <<<"$header"
check "CSV metadata columns" grep -q ',run_id,host,cpu_model,kernel_release,mmprof_version,started_at,order_seed,' <<<"$header"

plan=$("$MMPROF" --config configs/quick.ini --dry-run | head -1)
reps=$(sed -n 's/.*; \([0-9]*\) recorded.*/\1/p' <<<"$plan")
points=$(sed -n 's/.* \([0-9]*\) job point(s).*/\1/p' <<<"$plan")
runs=$(sed -n 's/.*: \([0-9]*\) run(s) in .*/\1/p' <<<"$plan")
rows=$(($(wc -l <"$csv") - 1))
check "one CSV row per recorded repetition ($reps)" test "$rows" -eq "$reps"
check "every result_ok is true" test "$(csv_col "$csv" result_ok | sort -u)" = "true"
for p in $("$MMPROF" --list-probes | awk '{print $1}'); do
	check "probe $p ran" grep -q ",$p," "$csv"
done
for t in atomic packed padded local; do
	check "tally $t ran" grep -q ",$t," "$csv"
done
check "histogram kernel ran" grep -q ",histogram," "$csv"
check "one run_id for the whole run" test "$(csv_col "$csv" run_id | sort -u | wc -l)" -eq 1
check "started_at is ISO 8601 UTC" grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$' <<<"$(csv_col "$csv" started_at | head -1)"
check "elapsed_ns are positive integers" test -z "$(csv_col "$csv" elapsed_ns | grep -Ev '^[1-9][0-9]*$')"
check "zero counts agree across probes" test "$(csv_rows "$csv" kernel result | awk -F'|' '$1 == "zeros" { print $2 }' | sort -u | wc -l)" -eq 1
check "every round has each run of its set once" test -z "$(csv_rows "$csv" run round | sort | uniq -d)"

# Pinning as the threads saw it: every thread on its planned PU (a
# program's threads are its own: pus_seen empty, tests/integration/exec.sh).
check "pus_seen equals pus_planned" test -z "$(csv_rows "$csv" probe pus_seen pus_planned | awk -F'|' '$1 != "exec" && $2 != $3')"
check "a program's pus_seen is empty" test -z "$(csv_rows "$csv" probe pus_seen | awk -F'|' '$1 == "exec" && $2 != ""')"

# quick.ini has a limit job, so x limit is there; disturbed is a column only
# when some round was (a column with nothing in it is left out).
check "table header" grep -Eq '^job +probe .*rounds +median ms +mean ms +min ms +cv +(per op +)?ns/byte +GB/s +x limit \[95% CI\]( +disturbed)? +result' <<<"$out"
check "table rows all ok: one per job point ($points)" test "$(grep -c ' ok *$' <<<"$out")" -eq "$points"
check "x limit with its interval" grep -Eq ' [0-9.]+x \[[0-9.]+, [0-9.]+\] ' <<<"$out"
check "ratio block" grep -q '^dotnet_like vs java_like (time ratio: geometric mean of rounds measured side by side, 95% interval; >1 = slower; the same = within 5%):' <<<"$out"
check "ratio rows for 1-byte reads" test "$(grep -Ec '^  threads=[12] +access=1 +[0-9.]+x' <<<"$out")" -eq 4
check "summary on stderr" grep -q "run(s), $reps row(s) in $csv" <<<"$err"
check "no progress line when stderr is not a TTY" bash -c '! grep -q "rep 1/" <<<"$1"' _ "$err"

# --quiet: data on stdout, nothing but errors on stderr.
run_mmprof --config configs/quick.ini --csv "$TMP/q2.csv" --quiet --repeat 1
check "--quiet: exit 0" test "$rc" -eq 0
check "--quiet: empty stderr" test -z "$err"
check "--repeat 1: one row per run ($runs)" test "$(($(wc -l <"$TMP/q2.csv") - 1))" -eq "$runs"

# --brief: its answers are every answer of the run, ratio answers too
# (quick.ini has no controls: --brief printed nothing at all).
run_mmprof --config configs/quick.ini --csv "$TMP/q3.csv" --quiet --repeat 1 --brief
answers=$(($(wc -l <"$TMP/q3.answers.csv") - 1))
check "--brief: exit 0" test "$rc" -eq 0
check "--brief: the run has answers ($answers)" test "$answers" -gt 0
check "--brief: prints each of the $answers answers" \
	test "$(grep -Ec '^  \[(yes|no|inconclusive)\] ' <<<"$out")" -eq "$answers"

printf '[j]\nprobe = limit\nsize = 64K\nrepeat = 1\nwarmup = 0\nevents = none\n' >"$TMP/none.ini"
run_mmprof --config "$TMP/none.ini" --csv "$TMP/none.csv" --quiet --brief
check "--brief with nothing to say says so" grep -q '^no answers and no job point split into causes' <<<"$out"

done_testing
