# mmprof compare with three CSVs or more (docs/fleet.md, "Many hosts"):
# three hosts' files (this host under three names, UTS namespaces) read
# as a fleet -- each host against each job point's median host, the
# answers across the hosts, the fleet CSV with a row per job point and
# host and the JSON -- and the refusals: one file twice, --csv naming an input.
# tests/unit/test_fleet.c decides outliers on planted times; here only
# the bookkeeping of real files is checked, never timing.
source "$(dirname "$0")/tap.bash"

if ! unshare -u true 2>/dev/null; then
	skip_rest "unshare -u is refused here: one host cannot take three names"
fi
printf '[global]\nsize = 64K\nseed = 3\nrepeat = 3\nwarmup = 0\n[one]\nprobe = mmap_byte\n[two]\nprobe = accessor_byte\nrefcount = shared\nbaseline = one\n' \
	>"$TMP/f.ini"
for h in fa fb fc; do
	unshare -u sh -c 'hostname "$1" && exec "$2" --config "$3" --csv "$4"/{host}.csv --quiet' \
		_ "$h" "$MMPROF" "$TMP/f.ini" "$TMP/r" >/dev/null 2>&1
done
check "three hosts' files" test -s "$TMP/r/fa.csv" -a -s "$TMP/r/fb.csv" -a -s "$TMP/r/fc.csv"

run_mmprof compare "$TMP/r/fa.csv" "$TMP/r/fb.csv" "$TMP/r/fc.csv" --csv "$TMP/fleet.csv" \
	--json "$TMP/fleet.json"
check "compare of three files: exit 0 ($rc)" test "$rc" -eq 0
check "a fleet of 3 hosts, each named" \
	bash -c 'grep -q "^fleet: 3 hosts" <<<"$1" && for h in fa fb fc; do grep -q "^  $h  *" <<<"$1" || exit 1; done' _ "$out"
points=$(grep -c '^\[' <<<"$out")
check "a block per job point (2), each naming its median host" \
	test "$points" -eq 2 -a "$(grep -cE '^\[[a-z]+\] [a-z_]+ .* +f[abc] +f[abc] +[0-9.]+x ' <<<"$out")" -eq 2
check "every host's outcome or its undecided line" grep -q '^outliers (slower or faster than the median host):' <<<"$out"
check "the answer across the hosts: on all 3, or which differ" \
	grep -qE '^  Is two slower than one, .*\(ratio\): [a-z]+ on (all 3 hosts|[0-9] of 3 hosts; )' <<<"$out"
check "the summary line" grep -qE '^2 job points on 3 hosts: [0-9]+ slower, [0-9]+ faster, [0-9]+ same, [0-9]+ inconclusive' <<<"$out"
rows=$(csv_rows "$TMP/fleet.csv" job host median_host outcome)
check "the fleet CSV: a row per job point and host (6)" test "$(wc -l <<<"$rows")" -eq 6
check "the fleet CSV: each job point's median host is one row's own, outcome median" \
	test "$(awk -F'|' '$2 == $3 && $4 == "median"' <<<"$rows" | wc -l)" -eq 2
check "the fleet CSV: every host at every job point" \
	test "$(cut -d'|' -f1,2 <<<"$rows" | sort -u | wc -l)" -eq 6

# The JSON says what the CSV says: per job point its median host and every
# host's outcome.
same=$(/usr/bin/python3 - "$TMP/fleet.json" "$TMP/fleet.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = {(r["job"], r["host"]): (r["median_host"], r["outcome"]) for r in csv.DictReader(open(sys.argv[2]))}
seen = {(p["key"]["job"], h["host"]): (p["median_host"], h["outcome"])
        for p in d["job_points"] for h in p["hosts"]}
print(int(d["schema_version"] == 1 and len(d["hosts"]) == 3 and seen == rows),
      int(all(sum(h["median"] for h in p["hosts"]) == 1 for p in d["job_points"])),
      int(len(d["answers"]) == 1 and len(d["answers"][0]["hosts"]) == 3))
PY
)
check "--json: the CSV's median hosts and outcomes, one median per job point, the answer per host" \
	test "$same" = "1 1 1"
# The analysis module reads the fleet CSV typed and draws it.
if /usr/bin/python3 -c 'import pandas, matplotlib' 2>/dev/null; then
	drawn=$(/usr/bin/python3 - "$TMP/fleet.csv" "$TMP/fleet.png" <<'PY' 2>&1
import sys
sys.path.insert(0, "analysis")
import mmprof_csv as m, mmprof_plots as p
fl = m.load_fleet(sys.argv[1])
p.fleet(fl, sys.argv[2])
print(len(fl), fl["ratio"].dtype, fl["disturbed"].dtype, int((fl["outcome"] == "median").sum()))
PY
)
	check "load_fleet: 6 rows typed, 2 medians; fleet() drew a PNG ($drawn)" \
		test "$drawn" = "6 float64 boolean 2" -a -s "$TMP/fleet.png"
else
	skip "python3-pandas or matplotlib is not installed for /usr/bin/python3 (make deps)"
fi
run_mmprof compare "$TMP/r/fa.csv" "$TMP/r/fb.csv" --json "$TMP/two.json"
check "--json with two files: exit 2 ($rc), said why" \
	bash -c '[ "$1" -eq 2 ] && grep -q "three files or more" <<<"$2"' _ "$rc" "$err"

run_mmprof compare "$TMP/r/fa.csv" "$TMP/r/fb.csv" "$TMP/r/fa.csv"
check "one file twice: exit 2 ($rc), naming the invocation" \
	bash -c '[ "$1" -eq 2 ] && grep -q "hold the same invocation (run_id" <<<"$2"' _ "$rc" "$err"
run_mmprof compare "$TMP/r/fa.csv" "$TMP/r/fb.csv" "$TMP/r/fc.csv" --csv "$TMP/r/fb.csv"
check "--csv naming an input: exit 2 ($rc), nothing written over it" \
	bash -c '[ "$1" -eq 2 ] && head -1 "$2" | grep -q "^schema_version,job,probe"' _ "$rc" "$TMP/r/fb.csv"
run_mmprof compare --help
check "compare --help: the fleet form and its columns" \
	bash -c 'grep -q "mmprof compare HOST1.csv HOST2.csv HOST3.csv" <<<"$1" && grep -q "^  median_host " <<<"$1"' _ "$out"
done_testing
