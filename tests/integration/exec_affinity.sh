# A program that widens its own CPU affinity under probe = exec
# (src/run/pu_watch.h, docs/exec.md "Disturbance"): `taskset -p -c
# 0,1 $$` in its shell.  (numactl cannot: libnuma refuses a CPU outside
# the affinity it inherits, "cpu argument 1 is out of range".)  It ran on
# PUs its row does not name, so the row says so (escaped, pus_ran) and is disturbed
# with its own reason, and the output warns once; a program that stays
# on its PUs is not blamed.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
HELPER=$PWD/$BUILD/tests/exec_helper
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/exec_helper" >/dev/null 2>&1
[ -x "$HELPER" ] || skip_rest "the helper program did not build ($HELPER)"
# Two PUs this process may use, the first the plan's.
pus=$(/usr/bin/python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')
[ "${pus#*,}" != "$pus" ] || skip_rest "one PU allowed here ($pus): nothing to widen to"
first=${pus%,*} second=${pus#*,}
command -v taskset >/dev/null || skip_rest "taskset (util-linux) is not installed"

# run_job NAME COMMAND: 2 repetitions on pus:FIRST; sets $out $err $rc $csv.
run_job() {
	csv=$TMP/$1.csv
	printf '[global]\nsize = 64K\nrepeat = 2\nwarmup = 0\nevents = task-clock\nprofile = off\n\n[%s]\nprobe = exec\nplacement = pus:%s\ncommand = %s\n' \
		"$1" "$first" "$2" >"$TMP/$1.ini"
	run_mmprof --config "$TMP/$1.ini" --csv "$csv"
}
rows() { csv_rows "$csv" escaped disturbed pus_ran disturbed_why 2>/dev/null; }
# within LIST LIST2: LIST (like 0-1,4) is not empty and all in LIST2.
within() {
	/usr/bin/python3 -c 'import sys
def pus(text):
    out = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out
sys.exit(not pus(sys.argv[1]) or not pus(sys.argv[1]) <= pus(sys.argv[2]))' "$1" "$2"
}
export -f within

# Two spinning threads, after the shell widened its own mask to both PUs.
run_job widened "sh -c 'taskset -p -c $pus \$\$ >/dev/null && exec $HELPER threads 2 \"\$1\"' sh {file}"
check "taskset -p -c $pus \$\$ in the command: exit 0, 2 rows" test "$rc" -eq 0 -a "$(rows | wc -l)" -eq 2
check "...every row escaped and disturbed" test "$(rows | cut -d'|' -f1,2 | sort -u)" = "true|true"
# Where its threads were found depends on the scheduler (PU $second busy,
# they may all sit on $first): what is sure is the list is of those two.
ran=$(rows | cut -d'|' -f3 | sort -u)
check "...pus_ran lists where its threads were found, within $pus ($(echo $ran))" \
	bash -c 'for l in $1; do within "$l" "$2" || exit 1; done; [ -n "$1" ]' _ "$ran" "$pus"
check "...disturbed_why says it left its PUs" \
	test "$(rows | cut -d'|' -f4 | grep -c "^its threads left its PUs $first (seen on .*; outside them, seen or allowed: $second): it widened its own CPU affinity")" -eq 2
check "...and one warning says so, once" \
	test "$(grep -c "^mmprof: warning: \[widened\] exec .*: its threads left its PUs $first .* (the CSV's escaped, pus_ran and disturbed_why; said once per run)$" <<<"$err")" -eq 1

# The same program left on its PU: not escaped, found where planned.
run_job stayed "$HELPER threads 2 {file}"
check "a program that stays on pus:$first: exit 0, no row escaped" \
	test "$rc" -eq 0 -a "$(rows | cut -d'|' -f1 | sort -u)" = false
check "...its threads found on PU $first only" test "$(rows | cut -d'|' -f3 | sort -u)" = "$first"
check "...no 'left its PUs', no warning" \
	bash -c '! grep -q "left its PUs" "$1" && ! grep -q "left its PUs" <<<"$2"' _ "$csv" "$err"
done_testing
