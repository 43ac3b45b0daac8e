# The plan's shape where it was wrong: limit beside pairs, a plan too
# large said in a message rather than exit 1 alone, controls named that
# do not apply said rather than dropped, and each point's own PUs counted.
source "$(dirname "$0")/tap.bash"

# placement = pairs with a limit job: each pair's job point is compared
# with the limit of the same pair, and no copies of limit (before: every
# pair's limit served every pair, 4 PUs planned 30 copies and "x limit"
# came from other PUs).
printf '[global]\nsize = 64K\nplacement = pairs\nthreads = 2\n[p]\nprobe = read_buf\n[limit]\nprobe = limit\n' \
	>"$TMP/pairs.ini"
run_mmprof --config "$TMP/pairs.ini" -n --topology-from "synthetic:pack:1 core:4 pu:1"
check "pairs + limit: planned" test "$rc" -eq 0
check "pairs + limit: 12 points, no copies of limit, a set per pair" \
	grep -q "12 job point(s), 0 control rung(s) and 0 copies of limit: 12 run(s) in 6 comparison set(s)" <<<"$out"
check "pairs + limit: each set's limit on its pair's PUs" /usr/bin/python3 -c '
import re, sys
sets = re.split(r"\nset \d+:", sys.stdin.read())[1:]
ok = len(sets) == 6
for s in sets:
    pairs = re.findall(r"placement=(pairs:\d+,\d+)", s)
    ok = ok and len(pairs) == 2 and pairs[0] == pairs[1]
sys.exit(0 if ok else 1)' <<<"$out"

# 84,000 job points, each with a limit rung and each in its own set:
# the copies of limit take the plan past MMP_PLAN_MAX_RUNS.  Before, the
# copies' E2BIG became ENOMEM: exit 1 and nothing said.
{
	printf '[global]\nsize = 1M\nrepeat = 1\nwarmup = 0\n[r]\nprobe = mmap_block\ncontrols = limit\naccess = '
	seq -s ', ' 1 700
	printf 'advice = normal, sequential, random, willneed, hugepage\nprefault = yes, no\n'
	printf 'cache = warm, drop, drop-all\ntally = atomic, packed, padded, local\n[limit]\nprobe = limit\n'
} >"$TMP/big.ini"
run_mmprof --config "$TMP/big.ini" -n
check "plan too large: exit 2" test "$rc" -eq 2
check "plan too large: said at the limit job's line" \
	grep -qF "$TMP/big.ini:13: [limit] the plan grows past 250000 runs" <<<"$err"
# controls = padded, private on a job neither applies to: before, the
# plan said "0 control rung(s)" and nothing else.  Each is a note at the
# controls key's line, with why, when it runs; --dry-run lists it, and a
# control that applies at some points of a sweep only (not a note when it
# runs: one thread sharing nothing is no surprise).
printf '[global]\nsize = 64K\nrepeat = 1\nwarmup = 0\nthreads = 2\n[block]\nprobe = mmap_block\ncontrols = padded, private\n[byte]\nprobe = accessor_byte\nthreads = 1, 2\ncontrols = private\n' \
	>"$TMP/unapplied.ini"
run_mmprof --config "$TMP/unapplied.ini" --csv "$TMP/unapplied.csv"
check "controls that do not apply: it runs" test "$rc" -eq 0
check "controls that do not apply: padded, at its line, with why" grep -qF \
	"mmprof: note: $TMP/unapplied.ini:8: [block] controls: padded does not apply to [block]: mmap_block with tally = local keeps no per-thread counters side by side (padded applies to tally = packed and plain); it gets no rung" <<<"$err"
check "controls that do not apply: private, at its line, with why" grep -qF \
	"mmprof: note: $TMP/unapplied.ini:8: [block] controls: private does not apply to [block]: mmap_block (tally = local) has no shared state to make private; it gets no rung" <<<"$err"
check "controls that do not apply: one applying at some points is no note" \
	test -z "$(grep -F '[byte] controls' <<<"$err")"
run_mmprof --config "$TMP/unapplied.ini" --csv "$TMP/unapplied.csv" --quiet
check "controls that do not apply: --quiet says nothing" test -z "$err"
run_mmprof --config "$TMP/unapplied.ini" --dry-run
check "--dry-run: the job point with no rung names the controls" \
	grep -q '^             no rung for padded, private: it does not apply here' <<<"$out"
check "--dry-run: lists each, where and why" grep -qF \
	"$TMP/unapplied.ini:8: [block] controls: private, at every point of [block]: mmap_block (tally = local) has no shared state to make private" <<<"$out"
check "--dry-run: and one that applies at some points" grep -qF \
	"$TMP/unapplied.ini:12: [byte] controls: private, at 1 of [byte]'s 2 points: one thread shares nothing" <<<"$out"

# Each point of a threads sweep counts its own threads' PUs: before, a
# one-thread point of threads = 1, 2 said "PUs 0 (2 distinct)", the PUs
# the placement offers rather than those it uses.
printf '[global]\nsize = 64K\n[t]\nprobe = mmap_byte\nthreads = 1, 2, 6\n' >"$TMP/pus.ini"
run_mmprof --config "$TMP/pus.ini" -n --topology-from "synthetic:pack:1 core:4 pu:1"
check "threads = 1, 2, 6 on 4 PUs: each point's own PUs" test \
	"$(grep -E '^ +PUs ' <<<"$out" | sed 's/^ *//' | paste -sd'|')" = \
	"PUs 0 (1 distinct)|PUs 0 1 (2 distinct)|PUs 0 1 2 3 0 1 (4 distinct), oversubscribed"
done_testing
