# make bench's own parts, which no bench run checks: the reference
# ping-pong builds clean with gcc and clang, refuses bad usage, checks its
# own counter and says where it could not pin; the independent scan the
# ceiling is held against counts a file's zeros right, mapped and copied;
# bench/paired.py's
# arithmetic on pairs of known ratio.  (Its timings are never asserted:
# make bench compares them, side by side.)
source "$(dirname "$0")/tap.bash"
ref=build/gcc/bench/pingpong_ref

if make -s CC=gcc BUILD=build/gcc build/gcc/bench/pingpong_ref >"$TMP/gcc.log" 2>&1; then
	ok "pingpong_ref: gcc build, -Wall -Wextra -Werror"
else
	fail "pingpong_ref: build" "$(tail -5 "$TMP/gcc.log")"
fi
if ! command -v clang >/dev/null; then
	skip "pingpong_ref: clang is not installed (make deps)"
elif make -s BUILD=build/clang CC=clang build/clang/bench/pingpong_ref >"$TMP/clang.log" 2>&1; then
	ok "pingpong_ref: clang build, -Wall -Wextra -Werror"
else
	fail "pingpong_ref: clang build" "$(tail -5 "$TMP/clang.log")"
fi

for args in "-n 3" "-n 0" "-n x" "-w wait" "-n" "0 0" "0" "0 1 2"; do
	# shellcheck disable=SC2086 # the arguments are meant to split
	"$ref" $args >/dev/null 2>"$TMP/usage"
	check "pingpong_ref $args: usage, exit 2" test $? -eq 2 -a -s "$TMP/usage"
done
"$ref" -n 2 0 1023 >/dev/null 2>"$TMP/nopu"
rc=$?
check "a PU it may not use: exit 2" test "$rc" -eq 2
check "a PU it may not use: names the call and the cpuset" \
	grep -q 'pthread_attr_setaffinity_np, cpuset {1023}' "$TMP/nopu"

if /usr/bin/python3 -c 'import os, sys; sys.exit(not {0, 1} <= os.sched_getaffinity(0))'; then
	for w in pause spin; do
		out=$("$ref" -n 2000 -w "$w" 0 1)
		rc=$?
		check "-w $w on PUs 0 and 1: counter checked, exit 0" test "$rc" -eq 0
		check "-w $w: one line of results" grep -Eq \
			"^pus=0,1 wait=$w transfers=2000 elapsed_ns=[1-9][0-9]* ns_per_transfer=[0-9.]+ waited_max=(-1|[0-9.]+)$" \
			<<<"$out"
	done
else
	skip "pingpong_ref runs: PUs 0 and 1 are not both available"
fi

check "paired.py: ratios, shares and bands of known pairs" /usr/bin/python3 -c '
import math, sys
sys.path.insert(0, "bench")
import paired
g, lo, hi, r = paired.ratio([2, 4, 8], [1, 2, 4])
assert abs(g - 2) < 1e-12 and abs(lo - 2) < 1e-12 and abs(hi - 2) < 1e-12 and r == [2, 2, 2]
g, lo, hi, _ = paired.ratio([1.1, 0.9], [1, 1])
half = 12.706 * math.sqrt(((math.log(1.1) - math.log(0.99) / 2) ** 2
                           + (math.log(0.9) - math.log(0.99) / 2) ** 2) / 2)
assert abs(math.log(g) - math.log(0.99) / 2) < 1e-12 and abs(math.log(hi / g) - half) < 1e-9
s, slo, shi = paired.share([10, 10, 10], [8, 8, 8])
assert abs(s - 0.2) < 1e-12 and abs(slo - 0.2) < 1e-12
assert paired.t975(30) == 2.042 and abs(paired.t975(60) - 2.0) < 2e-3
assert paired.band(0.9, 1.1, 0.8, 1.2) == "within"
assert paired.band(0.7, 0.9, 0.8, 1.2) == "undecided"
assert paired.band(1.3, 1.4, 0.8, 1.2) == "outside"
assert paired.spread([1, 2, 3])[:3] == (2, 1, 3)
'
# Every part script is one make bench runs, and parses.
for part in bench/*.sh bench/*.py; do
	name=$(basename "$part")
	[ "$name" = paired.py ] && continue # the parts' arithmetic, not a part
	check "make bench runs $name" grep -q "bench/$name" Makefile
done
check "bench/exec_time.sh parses" bash -n bench/exec_time.sh
if command -v shellcheck >/dev/null; then
	check "bench/exec_time.sh: shellcheck" shellcheck -x bench/exec_time.sh
fi

scan=build/gcc/bench/scan_ref
if make -s CC=gcc BUILD=build/gcc "$scan" >"$TMP/scan.log" 2>&1; then
	ok "scan_ref: gcc build, -Wall -Wextra -Werror"
	"$scan" >/dev/null 2>"$TMP/usage"
	check "scan_ref without arguments: usage, exit 2" test $? -eq 2 -a -s "$TMP/usage"
	/usr/bin/python3 -c 'import random; random.seed(5); open("'"$TMP"'/z.bin", "wb").write(bytes(random.choice([0, 0, 7, 255]) for _ in range(300001)))'
	want=$(/usr/bin/python3 -c 'print(open("'"$TMP"'/z.bin", "rb").read().count(0))')
	for data in pagecache anon; do
		got=$("$scan" "$TMP/z.bin" "$data" 2 | awk '{ print $2 }' | sort -u)
		check "scan_ref $data: the file's $want zeros, every repetition" test "$got" = "$want"
	done
else
	fail "scan_ref: build" "$(tail -5 "$TMP/scan.log")"
fi
done_testing
