# The sampling profile of a real program (docs/profile.md): the hot
# function and source line of tests/helpers/hot.c named on the terminal,
# in NAME.profile.csv and in the JSON; a stripped copy shown as
# module+offset with the reason; page faults by mapping; the growth from
# one thread to two; callers (a function anywhere in the call chain);
# NAME.profile.folded (folded stacks for flame graphs) parses, adds up
# to the samples and has the hot function under main(), one root per run;
# JIT code (tests/helpers/jit.c, a loop compiled at run time as .NET
# does): named from its perf map with jitnames, and said why and what to
# set without it; profile = off; and sampling refused (a seccomp filter,
# as perf_event_paranoid would) with the run still measured.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
HOT=$PWD/$BUILD/tests/hot
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/hot" "$BUILD/tests/hot-stripped" \
	"$BUILD/tests/no_perf" "$BUILD/tests/jit" >/dev/null 2>&1
[ -x "$HOT" ] || skip_rest "the helper program did not build ($HOT)"
# 64 MiB: its mapping takes some 500 faults (31 pages each), enough for
# one in 64 to be sampled in each repetition.
head -c 67108864 /dev/urandom >"$TMP/data.bin"
hot_line=$(grep -n '/\* HOT \*/' tests/helpers/hot.c | cut -d: -f1)
touch_line=$(grep -n '/\* TOUCH \*/' tests/helpers/hot.c | cut -d: -f1)

run_mmprof exec -r 2 --warmup 0 --profile 2000 --file "$TMP/data.bin" --csv "$TMP/spin.csv" \
	-- "$HOT" spin 150
check "spin: exit 0" test "$rc" -eq 0
if grep -q 'not taken: sampling' <<<"$out"; then
	skip_rest "sampling is refused here: $(grep 'not taken' <<<"$out")"
fi
check "spin: the top function is hot_loop()" \
	grep -qE '^    hot_loop\(\) +[0-9.]+% \[' <<<"$(sed -n '/CPU time by function/{n;p}' <<<"$out")"
check "spin: the top line is hot.c:$hot_line in hot_loop()" \
	grep -q "hot.c:$hot_line in hot_loop()" <<<"$(sed -n '/by source line/{n;p}' <<<"$out")"
check "spin: NAME.profile.csv names it too" \
	grep -q "^line|tests/helpers/hot.c|$hot_line|hot_loop" \
	<<<"$(csv_rows "$TMP/spin.profile.csv" kind file line function)"
check "spin: the summary lists the profile CSV" grep -q "spin.profile.csv" <<<"$err"
check "spin: NAME.profile.csv's rows carry NAME.csv's host" \
	test "$(csv_col "$TMP/spin.profile.csv" host | sort -u)" = "$(csv_col "$TMP/spin.csv" host | sort -u)"

# folded FILE: "RUN SAMPLES STACKS" per root frame ("run N ..."), after
# checking every line is "frames count" with frames root first, ";"
# between them and none empty; exit 1 when one is not.
folded() {
	/usr/bin/python3 - "$1" <<'PY'
import re, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.fullmatch(r"(.+) ([0-9]+)\n", line)
    frames = m.group(1).split(";") if m else []
    if not m or len(frames) < 2 or "" in frames or not frames[0].startswith("run "):
        sys.exit("not a folded line: %r" % line)
    n = frames[0].split(" ")[1]
    s = runs.setdefault(n, [0, 0])
    s[0] += int(m.group(2))
    s[1] += 1
for n, (samples, stacks) in sorted(runs.items()):
    print(n, samples, stacks)
PY
}
# cpu_samples NAME.csv: "RUN SAMPLES" from NAME.profile.csv's function rows.
cpu_samples() {
	csv_rows "${1%.csv}.profile.csv" run kind samples |
		awk -F'|' '$2 == "function" { s[$1] += $3 } END { for (r in s) print r, s[r] }' | sort
}
check "spin: NAME.profile.folded parses, and its counts add up to the profile's samples" \
	test "$(folded "$TMP/spin.profile.folded" | cut -d' ' -f1,2)" = "$(cpu_samples "$TMP/spin.csv")"
check "spin: the hot function is in its stacks, called from main" \
	grep -qE '^run 1 \[hot\] exec [^;]*(;[^;]+)*;main;hot_loop [0-9]+$' "$TMP/spin.profile.folded"
check "spin: the summary lists the folded file" grep -q "spin.profile.folded" <<<"$err"

run_mmprof exec -r 1 --warmup 0 --profile 2000 --file "$TMP/data.bin" --csv "$TMP/strip.csv" \
	-- "$PWD/$BUILD/tests/hot-stripped" spin 100
top=$(sed -n '/CPU time by function/{n;p}' <<<"$out")
check "stripped: shown as module+offset, and why" \
	grep -qE 'hot-stripped\+0x[0-9a-f]+ \(stripped' <<<"$top"
check "stripped: the samples not named are counted" grep -q '^  not named: .*stripped' <<<"$out"

run_mmprof exec -r 2 --warmup 0 --file "$TMP/data.bin" --csv "$TMP/fault.csv" \
	--result 'Found (\d+) zero' -- "$HOT" fault {file} 32
check "faults not sampled by default (their hook costs a fault-bound program): said, and how to" \
	grep -q "^  page faults: not sampled (profile_faults = yes, or --profile-faults yes" <<<"$out"
run_mmprof exec -r 2 --warmup 0 --profile-faults yes --file "$TMP/data.bin" --csv "$TMP/fault.csv" \
	--result 'Found (\d+) zero' -- "$HOT" fault {file} 32
faults=$(sed -n '/page faults by mapping/{n;p}' <<<"$out")
check "faults: most in anonymous memory" grep -qE '^    anonymous +[0-9.]+%' <<<"$faults"
check "faults: the data file's mapping has some" grep -q "    $TMP/data.bin " <<<"$out"
check "faults: the time in the kernel is on the line that touched ($touch_line)" \
	grep -q "hot.c:$touch_line in touch() in the kernel" <<<"$out"

printf '[global]\nfile = %s\nrepeat = 3\nwarmup = 0\nprofile = 2000\n[grow]\nprobe = exec\ncommand = %s spin {threads}00\nthreads = 1, 2\n' \
	"$TMP/data.bin" "$HOT" >"$TMP/grow.ini"
run_mmprof --config "$TMP/grow.ini" --csv "$TMP/grow.csv" --json "$TMP/grow.json"
# spin 100 then 200 ms of CPU: the growth is where the time goes.
check "growth: from threads=1 to threads=2, on the HOT line" \
	grep -qE "^    hot.c:$hot_line in hot_loop\(\) +[0-9.]+% \[.*of the growth" \
	<<<"$(sed -n '/growth from threads=1 to threads=2/,$p' <<<"$out")"
check "growth: rows in the profile CSV" \
	grep -q "^growth_line|threads=1|hot_loop" <<<"$(csv_rows "$TMP/grow.profile.csv" kind from function)"

check "growth: the JSON has the profile and its growth" test "$(/usr/bin/python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["runs"][1]["profile"]
print(p["top"][0]["function"], p["rounds"], p["growth"]["from"], p["growth"]["grew"],
      p["growth"]["lines"][0]["line"])' "$TMP/grow.json")" = "hot_loop 3 threads=1 True $hot_line"

check "growth: one root per run in the folded file, each adding up to its samples" \
	test "$(folded "$TMP/grow.profile.folded" | cut -d' ' -f1,2)" = "$(cpu_samples "$TMP/grow.csv")"
# docs/profile.md's differential: two runs' stacks without their root.
grep '^run 1 ' "$TMP/grow.profile.folded" | cut -d';' -f2- >"$TMP/before.folded"
grep '^run 2 ' "$TMP/grow.profile.folded" | cut -d';' -f2- >"$TMP/after.folded"
check "growth: each run's stacks cut out as docs/profile.md says are folded stacks with hot_loop" \
	bash -c 'for f in "$@"; do grep -qE "(^|;)hot_loop [0-9]+$" "$f" &&
		! grep -qvE "^[^;]+(;[^;]+)* [0-9]+$" "$f" || exit 1; done' _ "$TMP/before.folded" "$TMP/after.folded"

# Callers: hot deep 8 spends half its time under outer(), which no
# sample lands in, eight frames deep.
run_mmprof exec -r 2 --warmup 0 --profile 2000 --file "$TMP/data.bin" --csv "$TMP/deep.csv" \
	-- "$HOT" deep 8 300000000
callers=$(sed -n '/^  with what it calls (callers)/,/^  by source line/p' <<<"$out")
check "callers: outer() shown, as in the call chain of some half of the samples" \
	grep -qE '^    outer\(\) +(3|4|5|6)[0-9]\.[0-9]%' <<<"$callers"
check "...main() (every sample) and via() (passes all to outer()) left out" \
	test -z "$(grep -E '^    (main|via)\(\)' <<<"$callers")"
check "...and NAME.profile.csv has every inclusive row, main() too" \
	test "$(csv_rows "$TMP/deep.profile.csv" kind function | grep -cE '^inclusive\|(main|via|outer|deep_a|deep_b)$')" -eq 5

# JIT code: the helper compiles a loop and, as .NET, writes a perf map
# only with DOTNET_PerfMapEnabled=1 and runs it from a memfd:doublemapper
# view unless DOTNET_EnableWriteXorExecute=0.  Its maps are not a runtime
# mmprof knows, so they stay: removed here, by the pids it printed.
JIT=$PWD/$BUILD/tests/jit
jit_run() { # jit_run NAME OPTIONS...: the helper under mmprof exec
	local name=$1; shift
	run_mmprof exec -r 2 --warmup 0 "$@" --file "$TMP/data.bin" --csv "$TMP/$name.csv" -- "$JIT" 1000000000
	jit_pids=$(sed -n 's/^pid //p' "$TMP/$name".logs/*/*.log)
	block=$(sed -n '/^profile of/,/^$/p' <<<"$out" | unwrap)
}
forget() { for p in $jit_pids; do rm -f "/tmp/perf-$p.map"; done; }
"$JIT" 1 >/dev/null 2>&1
if [ $? -eq 77 ]; then
	skip "JIT code: the helper is x86-64 machine code"
else
	jit_run jitnames
	check "jitnames (auto, profiled): the JIT'd loop is named from its perf map, in its W^X view" \
		grep -qE '^    jitted_loop\[Helper\]\(\) +([5-9][0-9]|100)\.[0-9]%' <<<"$block"
	left=0
	for p in $jit_pids; do [ -f "/tmp/perf-$p.map" ] && left=$((left + 1)); done
	check "...and its maps stay: another runtime's, not one jitnames asked .NET or Java for" \
		test "$left" -eq 2
	forget
	jit_run nonames --jitnames no
	check "jitnames = no: the loop in its W^X view, not named, and said why" \
		grep -q "memfd:doublemapper (deleted)+0x.*(code outside any file (JIT?) and no /tmp/perf-PID.map)" <<<"$block"
	check "...and what to set" grep -q "^    JIT code: jitnames = yes (mmprof exec --jitnames yes)" <<<"$block"
	forget
	jit_run wx --env DOTNET_EnableWriteXorExecute=0
	check "W^X off (env =): one anonymous mapping, named the same" \
		grep -qE '^    jitted_loop\[Helper\]\(\) +([5-9][0-9]|100)\.[0-9]%' <<<"$block"
	forget
	jit_run nomap --env JIT_HELPER_NO_MAP=1 --env DOTNET_EnableWriteXorExecute=0
	check "a runtime that writes no map: anonymous code, no perf map, and what other JITs need" \
		bash -c 'grep -q "anon+0x.*(code outside any file (JIT?) and no /tmp/perf-PID.map)" <<<"$1" &&
			grep -q "^    JIT code: no runtime wrote a perf map; .*PYTHONPERFSUPPORT=1" <<<"$1"' _ "$block"
	forget
fi

run_mmprof exec -r 1 --warmup 0 --profile off --file "$TMP/data.bin" --csv "$TMP/off.csv" \
	-- "$HOT" spin 20
check "off: no profile block" test "$rc" -eq 0 -a -z "$(grep '^profile of' <<<"$out")"
check "off: no profile CSV" test ! -e "$TMP/off.profile.csv"
check "off: no folded stacks" test ! -e "$TMP/off.profile.folded"
run_mmprof exec --profile 5 --file "$TMP/data.bin" -- "$HOT" spin 20
check "a rate out of range is refused" grep -q "profile = 5 is out of range" <<<"$err"

if [ -x "$BUILD/tests/no_perf" ]; then
	out=$("$BUILD/tests/no_perf" "$MMPROF" exec -r 2 --warmup 0 --file "$TMP/data.bin" \
		--csv "$TMP/refused.csv" -- "$HOT" spin 20 2>/dev/null)
	rc=$?
	check "refused: the run is still measured" \
		test "$rc" -eq 0 -a "$(csv_col "$TMP/refused.csv" rep | wc -l)" -eq 2
	check "refused: the block says why, with the paranoid level" \
		grep -qE '^profile of .*: not taken: sampling refused \(perf_event_open: Permission denied\): perf_event_paranoid is -?[0-9]' <<<"$out"
else
	skip "no_perf did not build"
fi
done_testing
