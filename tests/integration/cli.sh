# The command line: help, version, listings, usage errors (exit 2, nothing run).
source "$(dirname "$0")/tap.bash"
source "$(dirname "$0")/machines.bash"

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
check "--dry-run counts runs" grep -q "4 job(s), 14 job point(s), 74 control rung(s) and 2 copies of limit: 90 run(s) in 4 comparison set(s), interleaved, order seed [0-9]*; 180 recorded repetition(s)" <<<"$out"
check "--dry-run echoes every run" test "$(grep -Ec '^  run [0-9]+ ' <<<"$out")" -eq 90
check "--dry-run: rungs and what they change" grep -Eq '^  run [0-9]+ +rung 3 \+tally \(tally in memory\): tally=local$' <<<"$out"
check "--dry-run: each set's rounds" grep -q '^set 1: 19 run(s), 2 rounds, 1 warmup; jobs java_like, dotnet_like, dotnet_fixed, limit$' <<<"$out"
run_mmprof --config configs/byte_8t.ini --dry-run
check "--dry-run: repeat = auto is a floor" grep -q "; at least 450 recorded repetition(s)" <<<"$out"
check "--dry-run creates no data" test ! -e "$MMPROF_DATA"
check "--dry-run writes no CSV" test ! -e "$TMP/dry.csv"

run_mmprof --config configs/byte_8t.ini --topology
check "--topology prints the machine" grep -q "^machine: " <<<"$out"
check "--topology prints placements" grep -q "\[dotnet_like\] accessor_byte threads=8 access=1 placement=compact (oversubscribed)" <<<"$out"
# What the 8 threads should get is computed from this host's own tables
# (its cores, nodes and L3 domains), then on described machines: a
# literal of one host's layout fails on the next one.
check "--topology: each thread's PU, node and L3, as the host's tables say" \
	test "$(threads_line 8)" = "$(model table compact 8 <<<"$out")"
for m in "${MACHINES[@]}"; do
	run_mmprof --config configs/byte_8t.ini --topology --topology-from "${m#*|}"
	check "--topology on ${m%%|*}: each thread's PU, node and L3" \
		test "$(threads_line 8)" = "$(model "${m#*|}" compact 8)"
done

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
# A described machine larger than any Linux runs is refused before hwloc
# builds it (131,072 PUs took over 60 s and 1.3 GB); the largest is planned.
run_mmprof --topology --topology-from "synthetic:pack:64 core:256 pu:8"
check "131072 described PUs: exit 2" test "$rc" -eq 2
check "...saying the limit" grep -q "^mmprof: synthetic:pack:64 core:256 pu:8: more than 8192 PUs" <<<"$err"
out=$(HWLOC_SYNTHETIC="pack:64 core:256 pu:8" "$MMPROF" --topology 2>&1)
check "...from HWLOC_SYNTHETIC too" grep -q "more than 8192 PUs" <<<"$out"
run_mmprof --topology --topology-from "synthetic:pack:8 numa:1(memory=1GiB) core:128 pu:8"
check "8192 described PUs: planned" grep -q "^machine: 8 packages, 8 NUMA nodes, 1024 cores, 8192 PUs" <<<"$out"

# Output that cannot be written is not done: each of these exited 0 on a
# full stdout (>/dev/full), a listing or a plan lost without a word.
for args in --list-keys --list-columns --list-probes --help --version --topology \
	"--config configs/quick.ini --dry-run" "exec --dry-run -- /bin/true"; do
	# shellcheck disable=SC2086 # the words of args are its arguments
	"$MMPROF" $args >/dev/full 2>"$TMP/err"
	rc=$?
	check "$args >/dev/full: exit 1, saying why" \
		bash -c '[ "$1" -eq 1 ] && grep -q "writing to stdout: No space left on device" "$2"' _ "$rc" "$TMP/err"
done
done_testing
