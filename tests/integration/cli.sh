# The command line: help, version, listings, usage errors (exit 2, nothing run).
source "$(dirname "$0")/tap.bash"

run_mmprof --help
check "--help exits 0" test "$rc" -eq 0
check "--help lists options" grep -q -- "--dry-run" <<<"$out"
keys=$("$MMPROF" --list-keys=markdown | sed -n 's/^| `\([a-z_]*\)` .*/\1/p')
check "--list-keys lists keys" test "$(wc -w <<<"$keys")" -ge 15
missing=""
for k in $keys; do grep -Eq "^ +$k " <<<"$out" || missing="$missing $k"; done
check "--help lists every config key" test -z "$missing"
check "--help states the exit codes" grep -q "130 interrupted" <<<"$out"

run_mmprof --version
check "--version" grep -Eq '^mmprof [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out"

run_mmprof --list-probes
for p in mmap_byte mmap_block accessor_byte accessor_block limit read_buf pread_buf fread_buf mmap_file; do
	check "--list-probes lists $p" grep -q "^$p " <<<"$out"
done

run_mmprof
check "no arguments: exit 2" test "$rc" -eq 2
check "no arguments: says what is missing" grep -q "no config" <<<"$err"
run_mmprof --bogus
check "unknown option: exit 2" test "$rc" -eq 2
run_mmprof --config
check "--config without a file: exit 2" test "$rc" -eq 2
run_mmprof --config configs/quick.ini stray
check "stray argument: exit 2" test "$rc" -eq 2
run_mmprof --config configs/quick.ini --repeat 0
check "--repeat 0: exit 2" test "$rc" -eq 2
run_mmprof --config "$TMP/none.ini"
check "missing config file: exit 2" test "$rc" -eq 2
check "missing config file: says why" grep -q "No such file" <<<"$err"
run_mmprof --list-keys=html
check "--list-keys=html: exit 2" test "$rc" -eq 2

run_mmprof --config configs/byte_8t.ini --dry-run --repeat 2 --csv "$TMP/dry.csv"
check "--dry-run exits 0" test "$rc" -eq 0
check "--dry-run counts runs" grep -q "4 job(s), 14 job point(s), 64 control rung(s) and 2 copies of limit: 80 run(s) in 4 comparison set(s), interleaved, order seed [0-9]*; 160 recorded repetition(s)" <<<"$out"
check "--dry-run echoes every run" test "$(grep -Ec '^  run [0-9]+ ' <<<"$out")" -eq 80
check "--dry-run: rungs and what they change" grep -Eq '^  run [0-9]+ +rung 4 \+tally \(tally in memory\): tally=local$' <<<"$out"
check "--dry-run: each set's rounds" grep -q '^set 1: 17 run(s), 2 rounds, 1 warmup; jobs java_like, dotnet_like, dotnet_fixed, limit$' <<<"$out"
run_mmprof --config configs/byte_8t.ini --dry-run
check "--dry-run: repeat = auto is a floor" grep -q "; at least 400 recorded repetition(s)" <<<"$out"
check "--dry-run creates no data" test ! -e "$MMPROF_DATA"
check "--dry-run writes no CSV" test ! -e "$TMP/dry.csv"

run_mmprof --config configs/byte_8t.ini --topology
check "--topology prints the machine" grep -q "^machine: " <<<"$out"
check "--topology prints placements" grep -q "\[dotnet_like\] accessor_byte threads=8 access=1 placement=compact (oversubscribed)" <<<"$out"
# Which L3 holds PU 1 is the host's (one L3 for both PUs on some hosts of
# this kind, one per core on others): the one --topology's own list says.
l3_pu1=$(awk '/^L3 domains/ { on = 1; next } on && /^  L3 [0-9]+:/ {
	n = split($NF, r, ","); for (i = 1; i <= n; i++) { split(r[i], b, "-");
	if (1 >= b[1] && 1 <= (b[2] == "" ? b[1] : b[2])) { sub(":", "", $2); print $2; exit } } }' <<<"$out")
check "--topology: each thread's PU, node and L3 (PU 1's: L3 ${l3_pu1:-?})" \
	grep -Eq "^    t0 PU 0 \(node 0, L3 0\)  t1 PU 1 \(node 0, L3 ${l3_pu1:-none}\)  t2 PU 0" <<<"$out"

# A synthetic two-socket machine through hwloc's own environment variable.
out=$(HWLOC_SYNTHETIC="pack:2 core:2 pu:2" "$MMPROF" --config configs/byte_8t.ini --topology 2>&1)
check "--topology on a synthetic machine" grep -q "^machine: 2 packages, 1 NUMA node, 4 cores, 8 PUs (2 per core)$" <<<"$out"
check "--topology says the machine is described" grep -q "^source: described by synthetic: pack:2 core:2 pu:2 (from HWLOC_SYNTHETIC); not this system" <<<"$out"
check "8 threads on 8 PUs: not oversubscribed" bash -c '! grep -q "threads=8.*oversubscribed" <<<"$1"' _ "$out"

run_mmprof --topology
check "--topology alone: the machine, exit 0" test "$rc" -eq 0
check "--topology alone: packages, nodes, cores" grep -q '^machine: .* packages\?, .* NUMA nodes\?, .* cores, .* PUs' <<<"$out"
run_mmprof --topology --topology-from xml:tests/topologies/intel-2s-smt.xml
check "--topology of a described machine, without a config" grep -q '^machine: 2 packages, 2 NUMA nodes' <<<"$out"
done_testing
