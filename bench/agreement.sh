#!/usr/bin/env bash
# make bench: do byte_8t's answers come out the same run after run?
#
# Runs configs/byte_8t.ini N times in a row (default 5, BENCH_RUNS=N), each
# with repeat = auto, and compares every answer's outcome (yes, no,
# inconclusive) across the runs.  An answer agrees when every run gave it
# the same outcome; the target, on an idle machine, is every answer in
# every run (exit 1 otherwise).  The runs' ratios are shown beside, so a
# disagreement can be read: which answer, which intervals.
set -u
cd "$(dirname "$0")/.."
MMPROF=${MMPROF:-./mmprof}
runs=${BENCH_RUNS:-5}
dir=$(mktemp -d /tmp/mmprof-agreement.XXXXXX)
trap 'rm -rf "$dir"' EXIT

start=$SECONDS
for i in $(seq "$runs"); do
	"$MMPROF" --config configs/byte_8t.ini --csv "$dir/run$i.csv" --quiet >"$dir/run$i.out" || {
		echo "agreement: run $i failed" >&2
		exit 2
	}
	echo "agreement: run $i of $runs done ($((SECONDS - start)) s)" >&2
done

/usr/bin/python3 - "$dir" "$runs" <<'PY'
import csv, sys
d, n = sys.argv[1], int(sys.argv[2])
runs = [list(csv.DictReader(open(f"{d}/run{i}.answers.csv"))) for i in range(1, n + 1)]
questions = [r["question"] for r in runs[0]]
agree = 0
print(f"byte_8t, {n} runs in a row: each answer's outcome, then its ratio [95% interval] per run")
for q in questions:
    rows = [next((r for r in run if r["question"] == q), None) for run in runs]
    outs = [r["outcome"] if r else "missing" for r in rows]
    same = len(set(outs)) == 1
    agree += same
    ratios = "  ".join(
        f"{float(r['ratio']):.3g} [{r['ci_low'] and float(r['ci_low']):.3g}, {r['ci_high'] and float(r['ci_high']):.3g}]"
        if r and r["ratio"] and r["ci_low"] else "-" for r in rows)
    print(f"  {'same' if same else 'DIFFER'}  {'/'.join(outs) if not same else outs[0]:<13} {q}")
    print(f"        {ratios}")
print(f"answers with the same outcome in all {n} runs: {agree} of {len(questions)} "
      f"(target: all): {'met' if agree == len(questions) else 'MISSED'}")
sys.exit(0 if agree == len(questions) else 1)
PY
