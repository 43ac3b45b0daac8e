# The NUMA probes and controls: pingpong over PU pairs fills the core to
# core matrix, chase gives a latency per load and the node to node matrix,
# and the remote, near and huge controls are planned where they apply (on
# described two-socket machines) and run where they can (huge, here).
source "$(dirname "$0")/tap.bash"

intel=xml:tests/topologies/intel-2s-smt.xml
amd=xml:tests/topologies/amd-2s-nps2.xml

cat >"$TMP/ops.ini" <<'INI'
[global]
repeat = 3
warmup = 1
events = faults, sched
[c2c]
probe = pingpong
placement = pairs
ops = 20000
transfer = cas, store
[lat]
probe = chase
size = 16K, 4M
ops = 100000
placement = numa:0
membind = node:0
INI
run_mmprof --config "$TMP/ops.ini" --csv "$TMP/ops.csv"
check "runs" test "$rc" -eq 0
[ "$rc" -eq 0 ] || echo "# $err"
rows=$(csv_rows "$TMP/ops.csv" job unit ops ns_per_op ns_per_byte result result_ok bytes)
check "pingpong rows: ns per transfer, no ns per byte, right" \
	test -z "$(grep '^c2c|' <<<"$rows" | grep -v '^c2c|transfer|20000|[0-9.e+]*||20000|true|0$')"
check "chase rows: ns per load, its memory as bytes, right" \
	test -z "$(grep '^lat|' <<<"$rows" | grep -Ev '^lat\|load\|100000\|[0-9.e+]*\|\|100000\|true\|(16384|4194304)$')"
check "every row has its time per operation" test -z "$(cut -d'|' -f4 <<<"$rows" | grep -v '^[0-9]')"
check "the table has a per-op column" grep -Eq '^c2c +pingpong .* ns/transfer ' <<<"$out"
pus=$(nproc)
if [ "$pus" -ge 2 ]; then
	check "core to core matrix printed" grep -q '^\[c2c\] transfer=cas core to core: ns per transfer, PU x PU' <<<"$out"
	check "the matrix has PU 0 and PU 1 both ways" \
		test "$(grep -A3 '^\[c2c\] transfer=cas core to core' <<<"$out" | grep -Ec '^ +[01] +([0-9.]+|\.) +([0-9.]+|\.)')" -ge 2
	check "pair relations summarised" grep -Eq '^  (SMT siblings|same L3|same node|same package|other package) +[0-9]+ pairs?: median' <<<"$out"
else
	skip "core to core: one PU here"
fi
check "node to node matrix from chase numa:0 x node:0" \
	grep -q '^\[lat\] node to node: chase, 16KiB, threads on node (rows) x memory on node (columns)' <<<"$out"
check "its cell is node 0's latency" grep -Eq '^  node 0 +[0-9.]+$' <<<"$out"
check "chase: the memory was found on node 0" \
	test "$(csv_rows "$TMP/ops.csv" job data_nodes | grep '^lat|' | cut -d'|' -f2 | cut -d: -f1 | sort -u)" = 0

# Plans for two-socket machines.
run_mmprof --config "$TMP/ops.ini" --dry-run --topology-from "$intel"
check "pairs on 32 PUs: every pair, each variant (2 x 496 pingpong points)" \
	test "$(grep -c '^  run .*\[c2c\].*placement=pairs:' <<<"$out")" -eq 992
check "pairs are named in the plan" grep -q 'placement=pairs:8,24 ' <<<"$out"

printf '[m]\nprobe = chase\nsize = 1M\nplacement = numa:*\nmembind = node:*\n' >"$TMP/each.ini"
run_mmprof --config "$TMP/each.ini" --dry-run --topology-from "$amd"
check "numa:* x node:* on four nodes: 16 job points" grep -q ' 16 job point(s)' <<<"$out"
check "... numa:2 reading node:3 among them" grep -q 'placement=numa:2 membind=node:3 ' <<<"$out"
run_mmprof --config "$TMP/each.ini" --dry-run
check "numa:* x node:* here: one point, node 0 on node 0" \
	test "$(grep -c 'placement=numa:0 membind=node:0 ' <<<"$out")" -eq 1

cat >"$TMP/ctl.ini" <<'INI'
[global]
controls = auto
repeat = 3
[chase]
probe = chase
size = 64M
[shared]
probe = accessor_byte
size = 4M
threads = 4
placement = spread
data = anon
membind = node:1
[pp]
probe = pingpong
placement = scatter
INI
run_mmprof --config "$TMP/ctl.ini" --dry-run --topology-from "$amd"
check "chase: the huge control" grep -q '^  run 2      rung 1 +huge (TLB reach): hugepages=yes' <<<"$out"
check "shared on node 1 from two sockets: remote binds local" grep -q 'rung [0-9] +remote (remote memory): membind=local' <<<"$out"
check "shared threads across L3 domains: near packs them into one" grep -q 'rung [0-9] +near (cross-domain sharing): placement=l3:0' <<<"$out"
check "pingpong across sockets: near, but no remote (first touch is local)" \
	test "$(sed -n '/jobs pp$/,$p' <<<"$out" | grep -c 'rung')" -eq 1
run_mmprof --config "$TMP/ctl.ini" --dry-run --topology-from synthetic:"pack:1 l3:1 core:4 pu:1"
check "one node, one L3: neither remote nor near" test -z "$(grep -E '\+(remote|near)' <<<"$out")"

printf '[pp]\nprobe = pingpong\nthreads = 4\n[ch]\nprobe = chase\n' >"$TMP/bad.ini"
run_mmprof --config "$TMP/bad.ini" --dry-run
check "pingpong with threads = 4: an error at its line" grep -q 'bad.ini:3: \[pp\] probe .pingpong. runs 2 threads, not 4' <<<"$err"
check "chase without size: an error" grep -q 'bad.ini:4: \[ch\] no size: set size' <<<"$err"
printf '[pp]\nprobe = pingpong\nfile = /etc/passwd\n' >"$TMP/file.ini"
run_mmprof --config "$TMP/file.ini" --dry-run
check "pingpong reads no file: file is refused" grep -q "probe 'pingpong' does not use 'file'" <<<"$err"
# Pairs and numa:* multiply the sweep after its own cap: the plan has one
# too (the fuzzer found a config that made it allocate 2 GB).
/usr/bin/python3 -c "print('[j]\nprobe = pingpong\nplacement = pairs\ntransfer = cas, store\nops = ' + ', '.join(str(i) for i in range(2, 302)))" >"$TMP/big.ini"
run_mmprof --config "$TMP/big.ini" --dry-run --topology-from synthetic:"pack:2 core:8 pu:2"
check "600 points x 496 pairs: refused, exit 2" test "$rc" -eq 2
check "... naming the plan's limit at the job" grep -q 'big.ini:1: \[j\] the plan grows past 250000 runs (MMP_PLAN_MAX_RUNS' <<<"$err"
done_testing
