# Causes for real programs mmprof cannot change (probe = exec, controls =
# auto): planted programs (tests/helpers/planted.c) -- false sharing with
# plain increments, true sharing on one atomic, page faults, and two with
# nothing shared (plainly parallel, bandwidth bound) -- each either named
# with its fix or inconclusive with why, never another cause as if it were
# sure; run with one CPU kept busy and idle.  Then what cannot take a
# preload library (a static binary, a setuid one of another owner), a
# stripped binary, and the rung a control left unchanged.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
PLANTED=$PWD/$BUILD/tests/planted
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/planted" "$BUILD/libmmprof-preload.so" >/dev/null 2>&1
[ -x "$PLANTED" ] || skip_rest "the planted programs did not build ($PLANTED)"
[ "$(nproc)" -ge 2 ] || skip_rest "needs two PUs for threads to share lines (this machine has $(nproc))"

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
command = $PLANTED plain {file} {threads}
result = output:^Sum: (\\d+)

[atomic]
command = $PLANTED atomic {file} {threads}
result = output:^Sum: (\\d+)

[padded]
command = $PLANTED padded {file} {threads}
result = output:^Sum: (\\d+)

[bandwidth]
command = $PLANTED bandwidth 64 {threads}

[faults]
threads = 1
command = $PLANTED faults 128
INI
SHARING="cross-core sharing"

# top JOB CSV: the largest significant cause shown (the remainder aside),
# what judge (tap.bash) holds the verdict against.
top() {
	csv_rows "$2" job cause significant ns_per_byte not_shown used | awk -F'|' -v job="$1" '
		$1 == job && $3 == "true" && $5 == "" && $6 == "true" && $2 != "limit" &&
		$2 != "remaining" && ($4 + 0 > best || !found) { best = $4 + 0; cause = $2; found = 1 }
		END { print cause }'
}
# not_sharing LABEL JOB CSV: whatever it says, it does not blame sharing.
not_sharing() {
	local line
	line=$(verdict "$2")
	if grep -q "^  fix: give what each thread writes" <<<"$line" ||
		[ "$(top "$2" "$3")" = "$SHARING" ]; then
		fail "$1: $2 (nothing shared) is blamed on sharing" "$line"
	else
		ok "$1: $2 is not blamed on sharing ($(tail -1 <<<"$line"))"
	fi
}
# A planted sharing program is only a test of the diagnosis when its
# threads really contended in this run: onepu's CPU time ratio (2 PUs over
# one; about 3x when they do, here) is the evidence.  Below 1.5 the threads
# hardly ran at once (the VM's host took a vCPU), there was no sharing cost
# to find, and mmprof does not yet mark such an exec run disturbed (see the
# issue's note): skipped, with the ratio, rather than judged.
judge_sharing() { # LABEL JOB CSV
	local r
	r=$(csv_rows "$3" job cause cpu_ratio | awk -F'|' -v j="$2" -v c="$SHARING" '$1 == j && $2 == c { print $3; exit }')
	if [ -n "$r" ] && awk -v r="$r" 'BEGIN { exit !(r < 1.5) }'; then
		skip "$1: $2: the planted sharing did not show this run (CPU time on 2 PUs ${r}x its time on one)"
	else
		judge "$1" "$2" "$SHARING" "$3"
	fi
}
judge_all() { # LABEL CSV
	judge_sharing "$1" plain "$2"
	judge_sharing "$1" atomic "$2"
	judge "$1" faults "page faults" "$2"
	not_sharing "$1" padded "$2"
	not_sharing "$1" bandwidth "$2"
}

# One CPU kept busy by another process for the whole run.
sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$TMP"' EXIT
run_mmprof --config "$TMP/planted.ini" --csv "$TMP/busy.csv" --quiet
kill $hog 2>/dev/null
wait $hog 2>/dev/null
check "busy: runs" test "$rc" -eq 0
judge_all busy "$TMP/busy.attribution.csv"

run_mmprof --config "$TMP/planted.ini" --csv "$TMP/idle.csv" --quiet
check "idle: runs" test "$rc" -eq 0
judge_all idle "$TMP/idle.attribution.csv"
csv=$TMP/idle.csv
check "the onepu rung binds every thread to one PU" \
	test "$(csv_rows "$csv" job control pus_planned | awk -F'|' '$1 == "plain" && $2 ~ /onepu$/ { print $3 }' | sort -u)" = "0 0"
check "prefault: the library reports the 128 MiB it populated" \
	test "$(csv_rows "$csv" job control prefaulted_bytes | awk -F'|' '$1 == "faults" && $2 == "prefault" && $3 >= 134217728' | wc -l)" -eq 5
check "huge: the library reports huge bytes from the kernel (THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled))" \
	test "$(csv_rows "$csv" job control huge_bytes | awk -F'|' '$1 == "faults" && $2 == "prefault+huge" && $3 > 0' | wc -l)" -eq 5
check "huge on a file mapping: the kernel gave none, the rung is not used and said so" \
	grep -q "^  not used: huge (TLB reach) changed nothing: the kernel backed none of the" <<<"$(verdict plain)"
check "the unused rung has its row in the attribution CSV" \
	test "$(csv_rows "$TMP/idle.attribution.csv" job controls used | grep -c '^plain|huge|false$')" -eq 1
# (the table names the cause; its long detail is the CSV's and --explain's)
check "the sharing cause is named as what cannot be told apart" \
	test -n "$(grep -E '^  cross-core sharing |^  not measurable here: (.*, )?cross-core sharing' <<<"$(verdict plain)")" -a \
	"$(csv_rows "$TMP/idle.attribution.csv" job cause detail | grep -c '^plain|cross-core sharing|true or false; a PMU and perf c2c would tell them apart$')" -ge 1

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
command = $2 plain {file} 1
result = output:^Sum: (\\d+)
INI
	run_mmprof --config "$TMP/$1.ini" --csv "$TMP/$1.csv" --quiet
	check "$1: runs and is measured" test "$rc" -eq 0 -a "$(csv_col "$TMP/$1.csv" result_ok | sort -u)" = true
	check "$1: the library was not loaded (preload_loaded 0)" \
		test "$(csv_rows "$TMP/$1.csv" control preload_loaded | grep -c '^prefault|0$')" -eq 3
	check "$1: the rung is not used, and why: $3" \
		grep -q "^  not used: prefault (page faults) changed nothing: the preload library was not loaded into the program (.*$3" <<<"$out"
}
if cc -static -O2 -o "$TMP/planted-static" tests/helpers/planted.c -pthread 2>/dev/null; then
	preload_case static "$TMP/planted-static" "is a static binary"
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
# A stripped binary: nothing to name in it, everything still measured.
cp "$PLANTED" "$TMP/planted-stripped" && strip "$TMP/planted-stripped"
sed -e "s|$PLANTED plain|$TMP/planted-stripped plain|" -e 's/^controls = auto/controls = prefault/' \
	"$TMP/planted.ini" | sed '/^\[atomic\]/,$d' >"$TMP/stripped.ini"
run_mmprof --config "$TMP/stripped.ini" --csv "$TMP/stripped.csv" --quiet
check "stripped: runs, measured, and the library changed its file mapping" \
	test "$rc" -eq 0 -a "$(csv_rows "$TMP/stripped.csv" control preload_mappings | grep -c '^prefault|[1-9]')" -eq 5
done_testing
