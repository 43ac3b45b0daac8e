# Memory binding on this machine (node 0 is real) and on described ones:
# where the pages were found is what the CSV says, and a node that does not
# exist is a config error naming the nodes that do.
source "$(dirname "$0")/tap.bash"

cat >"$TMP/m.ini" <<INI
[global]
size = 8M
probe = mmap_block
threads = 2
repeat = 1
warmup = 0
events = none
data = anon
[node0]
membind = node:0
tally = padded
[inter]
membind = interleave:0
[local]
membind = local
[cache]
data = pagecache
[huge]
hugepages = yes
INI
run_mmprof --config "$TMP/m.ini" --csv "$TMP/m.csv" --per-thread -q
check "membind run exits 0" test "$rc" -eq 0
rows=$(csv_rows "$TMP/m.csv" job membind data data_nodes data_examined data_absent state_node result_ok)
node0=$(grep '^node0|' <<<"$rows")
examined=$(cut -d'|' -f5 <<<"$node0")
check "node:0: every examined data page is on node 0" test "$(cut -d'|' -f4 <<<"$node0")" = "0:$examined"
check "node:0: pages were examined, none absent" test "$examined" -gt 0 -a "$(cut -d'|' -f6 <<<"$node0")" = 0
check "node:0: the shared state is on node 0" test "$(cut -d'|' -f7 <<<"$node0")" = 0
check "node:0: the result is checked and right" test "$(cut -d'|' -f8 <<<"$node0")" = true
check "interleave and local also land on node 0" \
	test "$(grep -E '^(inter|local)\|' <<<"$rows" | cut -d'|' -f4 | sort -u)" = "0:$examined"
check "the page-cache run reports its pages too" grep -q '^cache|firsttouch|pagecache|0:' <<<"$rows"
check "each thread's remote share is 0 with one node" \
	test "$(csv_col "$TMP/m.threads.csv" remote_share | sort -u)" = "0.0000"
check "each thread's node is 0" test "$(csv_col "$TMP/m.threads.csv" pu_node | sort -u)" = 0
huge=$(csv_rows "$TMP/m.csv" job hugepages huge_bytes | grep '^huge|')
if [ "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" = "always madvise [never]" ]; then
	skip "huge pages: transparent huge pages are off here"
else
	check "hugepages = yes reports the huge bytes it got ($huge)" \
		test "$(cut -d'|' -f3 <<<"$huge")" -gt 0
fi

printf '[global]\nsize = 1M\nrepeat = 1\n[a]\nprobe = mmap_block\nmembind = node:1\n' >"$TMP/n1.ini"
run_mmprof --config "$TMP/n1.ini" -n
check "node:1 here: exit 2" test "$rc" -eq 2
check "node:1 here: file, line, and the nodes that exist" \
	grep -q "n1.ini:6: \[a\] membind node:1: node 1 is not a NUMA node here (nodes: 0)" <<<"$err"
run_mmprof --config "$TMP/n1.ini" -n --topology-from xml:tests/topologies/intel-2s-smt.xml
check "node:1 plans on a 2-node description" test "$rc" -eq 0
check "the plan shows the binding" grep -q "membind=node:1" <<<"$out"

printf '[a]\nsize = 1M\nprobe = mmap_block\nmembind = interleave:0,3, node:0\n' >"$TMP/il.ini"
run_mmprof --config "$TMP/il.ini" -n --topology-from xml:tests/topologies/intel-2s-smt.xml
check "interleave's list keeps its comma; node 3 is refused" \
	grep -q "membind interleave:0,3: node 3 is not a NUMA node here (nodes: 0-1)" <<<"$err"

printf '[a]\nsize = 1M\nprobe = mmap_block\nhugepages = yes\n' >"$TMP/h.ini"
run_mmprof --config "$TMP/h.ini" -n
check "hugepages without data = anon is a config error" \
	grep -q "h.ini:4: \[a\] hugepages = yes needs data = anon" <<<"$err"
printf '[a]\nsize = 1M\nprobe = read_buf\ndata = anon\n' >"$TMP/r.ini"
run_mmprof --config "$TMP/r.ini" -n
check "data = anon on a read() probe: does not use" grep -q "probe 'read_buf' does not use 'data'" <<<"$err"
done_testing
