#!/usr/bin/env bash
# make bench: is mmprof's ceiling the memory system?
#
# limit, the scan every "x limit" is held against, is measured by mmprof
# and by an independent scan of the same bytes (bench/scan_ref.c: plain
# C, no mmprof code: mapped, every page touched once, one vectorised
# pass), side by side: BENCH_ROUNDS rounds (default 5), each running
# scan_ref then mmprof, on the page cache (a fresh mapping each
# repetition) and on a copy in anonymous memory (data = anon).  The
# target: mmprof's limit reads at least 0.9x the independent scan's speed
# on both (the median of each side's repetitions).  Before limit touched
# its pages, a paravirtualised host read 0.1x here: the first touch of a
# fresh mapping, ~2 us a page, was in the ceiling.
set -u
cd "$(dirname "$0")/.."
MMPROF=${MMPROF:-./mmprof}
REF=${SCAN_REF:-build/bench/scan_ref}
rounds=${BENCH_ROUNDS:-5}
dir=$(mktemp -d /tmp/mmprof-ceiling.XXXXXX)
trap 'rm -rf "$dir"' EXIT

for data in pagecache anon; do
	cat >"$dir/$data.ini" <<INI
[global]
file = $dir/scan.bin
size = 100M
threads = 1
repeat = 5
warmup = 1
events = none
controls = none
data = $data

[limit]
probe = limit
INI
done
for r in $(seq "$rounds"); do
	for data in pagecache anon; do
		"$MMPROF" --config "$dir/$data.ini" --csv "$dir/$data-$r.csv" --quiet >/dev/null || {
			echo "ceiling: mmprof failed on $data" >&2
			exit 2
		}
		"$REF" "$dir/scan.bin" "$data" 6 | tail -n +2 >>"$dir/$data-ref.txt" || {
			echo "ceiling: scan_ref failed on $data" >&2
			exit 2
		}
	done
done

/usr/bin/python3 - "$dir" "$rounds" <<'PY'
import csv, glob, statistics, sys
d, rounds = sys.argv[1], int(sys.argv[2])
ok = True
print(f"ceiling: mmprof's limit against an independent scan of the same 100 MiB, {rounds} rounds side by side")
for data in ("pagecache", "anon"):
    ours = [float(r["ns_per_byte"]) for f in sorted(glob.glob(f"{d}/{data}-[0-9]*.csv"))
            for r in csv.DictReader(open(f)) if r["job"] == "limit" and r["ns_per_byte"]]
    ref = [float(line.split()[0]) for line in open(f"{d}/{data}-ref.txt")]
    o, x = statistics.median(ours), statistics.median(ref)
    ratio = x / o  # speed of ours over speed of the reference
    met = ratio >= 0.9
    ok &= met
    print(f"  {data:<9}  limit {1 / o:6.1f} GB/s ({min(1 / v for v in ours):.1f}-{max(1 / v for v in ours):.1f}, "
          f"{len(ours)} reps)  scan_ref {1 / x:6.1f} GB/s ({min(1 / v for v in ref):.1f}-{max(1 / v for v in ref):.1f}, "
          f"{len(ref)} reps)  limit/scan_ref {ratio:.2f}x  (target >= 0.9x): {'met' if met else 'MISSED'}")
sys.exit(0 if ok else 1)
PY
