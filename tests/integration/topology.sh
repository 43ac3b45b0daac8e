# --topology and placements on the host and on described machines: the
# expected text is computed from each machine's structure
# (tests/helpers/topology_model.py), so the test passes on any host and
# fails when a thread's PU, node or L3 is printed wrong.
source "$(dirname "$0")/tap.bash"
source "$(dirname "$0")/machines.bash"

# The host: its L3 domains as hwloc's table says, against the kernel's
# own view (sysfs) where it reports caches, or hwloc-calc's.
run_mmprof --topology
host=$out
table_l3=$(model table l3 <<<"$host" | sed 's/^L3 [0-9]*: PUs //' | sort)
sysfs_l3=$(model sysfs l3 | sort)
if [ -n "$sysfs_l3" ]; then
	check "host: the L3 domains are the kernel's (sysfs shared_cpu_list)" test "$table_l3" = "$sysfs_l3"
elif command -v hwloc-calc >/dev/null; then
	check "host: the L3 domains are hwloc-calc's" test "$table_l3" = "$(model hwloc-calc l3 | sort)"
else
	skip "host: no second view of the L3 domains (no sysfs caches, no hwloc-calc)"
fi

# The host's placements agree with its own table, whatever its layout.
n=$(model table pus <<<"$host" | awk '$6 == 1' | wc -l)
printf '[c]\nprobe = mmap_byte\nsize = 64K\nthreads = 1, 2, %d\n' $((n + 1)) >"$TMP/host.ini"
run_mmprof --config "$TMP/host.ini" --topology
check "host: $((n + 1)) threads compact, each PU's node and L3 as its table says" \
	test "$(threads_line $((n + 1)))" = "$(model table compact $((n + 1)) <<<"$host")"

# Each described machine: the machine line, the L3 domains, compact and
# cores placements of 1, 2, all and one more than all allowed PUs.
for m in "${MACHINES[@]}"; do
	name=${m%%|*} src=${m#*|}
	n=$(model "$src" pus | awk '$6 == 1' | wc -l)
	printf '[c]\nprobe = mmap_byte\nsize = 64K\nthreads = 1, 2, %d, %d\n[k]\nprobe = mmap_byte\nsize = 64K\nthreads = 2, %d\nplacement = cores\n' \
		"$n" $((n + 1)) "$n" >"$TMP/m.ini"
	run_mmprof --config "$TMP/m.ini" --topology --topology-from "$src"
	check "$name: exit 0" test "$rc" -eq 0
	check "$name: the machine line" test "$(head -1 <<<"$out")" = "$(model "$src" machine)"
	check "$name: each L3 domain's PUs" test \
		"$(sed -n 's/^  \(L3 [0-9]*\): [^,]*, nodes\? [0-9,-]*, \(allowed [0-9a-z,-]* of \)\?\(PUs .*\)/\1: \3/p' <<<"$out")" = \
		"$(model "$src" l3)"
	bad=""
	for t in 1 2 "$n" $((n + 1)); do
		[ "$(threads_line "$t" c)" = "$(model "$src" compact "$t")" ] || bad="$bad $t"
	done
	check "$name: compact, 1, 2, $n and $((n + 1)) threads: each PU, node and L3" test -z "$bad"
	check "$name: cores, one PU per core first" \
		test "$(threads_line "$n" k)" = "$(model "$src" cores "$n")"
	# The same machine through hwloc's own environment variable.
	out=$(env "$(hwloc_env "$src")" "$MMPROF" --config "$TMP/m.ini" --topology 2>&1)
	check "$name, from $(hwloc_env "$src" | cut -d= -f1): the same placements" \
		test "$(threads_line $((n + 1)) c)" = "$(model "$src" compact $((n + 1)))"
done
done_testing
