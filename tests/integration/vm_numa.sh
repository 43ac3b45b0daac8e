# mmprof on a real 4-node kernel: an emulated x86-64 machine (tests/vm/vm.sh
# x86: 2 packages, one core per node, SLIT 10/16/22, node 3 small) runs
# tests/vm/guest_numa.sh, and what it sends back is checked here against
# the guest kernel's own view (/sys/devices/system/node, /proc/PID/numa_maps).
# Placement and bookkeeping only: times under emulation mean nothing.
source "$(dirname "$0")/tap.bash"

source tests/vm/host.bash
boot_guest "the 4-node x86 guest" x86 "$MMPROF" tests/vm/guest_numa.sh

node_pus() { awk -v n="$1" '$1 == n { print $2 }' "$G/nodes.txt"; }
# in_list PU LIST: PU is in a kernel cpulist such as 0-1,3
in_list() {
	local r
	for r in ${2//,/ }; do
		[ "$1" -ge "${r%-*}" ] && [ "$1" -le "${r#*-}" ] && return 0
	done
	return 1
}

# --topology against /sys/devices/system/node and the CPUs' package ids.
topo=$G/topology.out
check "--topology: 4 NUMA nodes, as the kernel has" \
	test "$(grep -c '' "$G/nodes.txt")" = 4 -a -n "$(grep '^machine: 2 packages, 4 NUMA nodes' "$topo")"
bad=""
while read -r n pus d0 d1 d2 d3; do
	grep -Eq "^  node $n: .* local memory, PUs? $pus\$" "$topo" || bad="$bad node $n PUs $pus;"
	row=$(grep -E "^  node $n( +[0-9]+){4}\$" "$topo" | awk '{ print $3, $4, $5, $6 }')
	[ "$row" = "$d0 $d1 $d2 $d3" ] || bad="$bad distances of node $n: '$row' vs kernel '$d0 $d1 $d2 $d3';"
done <"$G/nodes.txt"
check "--topology: each node's PUs and SLIT row are the kernel's" test -z "$bad"
[ -z "$bad" ] || echo "#$bad"
for p in 0 1; do
	pus=$(awk -v p=$p '$2 == p { printf "%s%s", s, $1; s = "," }' "$G/packages.txt")
	check "--topology: package $p holds the kernel's CPUs $pus" \
		grep -Eq "^  package $p: .*PUs ${pus/,/-}\$" "$topo"
done
check "the distances are asymmetric: 16 inside a package, 22 across" \
	test "$(awk '{ print $4 $5 $6 }' "$G/nodes.txt" | tr '\n' ' ')" = "162222 102222 221016 221610 "

# Placements: every thread ran on the PU planned, and that PU is where
# the placement says by the kernel's view.
th=$G/place.threads.csv
check "placement runs exit 0" test "$(rc_of place)" = 0
check "every thread found itself on its planned PU" \
	test -z "$(csv_rows "$th" pu_planned pu_seen | awk -F'|' '$1 != $2')"
t=$(csv_rows "$th" job pu_seen pu_node | grep '^n2|')
check "numa:2: on node 2's PU ($t)" in_list "$(cut -d'|' -f2 <<<"$t")" "$(node_pus 2)"
each=$(csv_rows "$G/place.csv" job placement pus_seen | grep '^each|')
bad=""
for n in 0 1 2 3; do
	pu=$(grep "^each|numa:$n|" <<<"$each" | cut -d'|' -f3)
	[ -n "$pu" ] && in_list "$pu" "$(node_pus $n)" || bad="$bad numa:$n on '$pu';"
done
check "numa:*: a job point per node, each on its node's PU" test -z "$bad" -a "$(grep -c '' <<<"$each")" = 4
spread=$(csv_rows "$th" job pu_node | grep '^spread|' | cut -d'|' -f2 | sort -u | tr '\n' ' ')
check "spread, 4 threads: one on each node ($spread)" test "$spread" = "0 1 2 3 "
pkg1=$(awk '$2 == 1 { print $1 }' "$G/packages.txt" | tr '\n' ' ')
pkg=$(csv_rows "$th" job pu_seen | grep '^pkg|' | cut -d'|' -f2 | sort -u | tr '\n' ' ')
check "package:1, 2 threads: on package 1's two CPUs ($pkg)" test "$pkg" = "$pkg1"
pairs=$(csv_rows "$G/place.csv" job pus_seen | grep '^pp|' | cut -d'|' -f2 | sort | tr '\n' ',')
check "pairs: every pair of the 4 PUs once ($pairs)" test "$pairs" = "0 1,0 2,0 3,1 2,1 3,2 3,"

# Bindings: the census mmprof records against the kernel's numa_maps of
# the same process, taken while it ran (the fullest snapshot; the data is
# the bound mappings of more than 64 pages, the shared state is smaller).
numa_maps() { # numa_maps NAME: "policy node:pages ..." of the data mappings
	/usr/bin/python3 - "$G/$1.maps" <<'PY'
import re, sys
best = []
for snap in open(sys.argv[1]).read().split("@@snapshot\n"):
    lines = []
    for line in snap.splitlines():
        f = line.split()
        anon = [int(x[5:]) for x in f if x.startswith("anon=")]
        if len(f) > 1 and f[1] != "default" and anon and anon[0] > 64:
            lines.append((f[1], {int(m[1]): int(m[2]) for m in re.finditer(r"\bN(\d+)=(\d+)", line)}))
    if sum(sum(n.values()) for _, n in lines) > sum(sum(n.values()) for _, n in best):
        best = lines
total = {}
for _, nodes in best:
    for n, p in nodes.items():
        total[n] = total.get(n, 0) + p
print(" ".join(sorted({p for p, _ in best})), " ".join(f"{n}:{p}" for n, p in sorted(total.items())))
PY
}
census() { csv_rows "$G/$1.csv" rep data_nodes | awk -F'|' '$1 == 0 { print $2 }' | tr ',' ' '; }
for b in "node2|bind:2|2:2048" "local|bind:0 bind:2|0:1024 2:1024"; do
	IFS='|' read -r name policy pages <<<"$b"
	check "$name: exits 0" test "$(rc_of "$name")" = 0
	check "$name: census $pages ($(census "$name"))" test "$(census "$name")" = "$pages"
	check "$name: numa_maps says $policy $pages ($(numa_maps "$name"))" \
		test "$(numa_maps "$name")" = "$policy $pages"
done
# Interleave is even page by page only where the kernel gave small pages:
# a transparent huge page (2 MiB, 512 pages) goes to one node whole.
pages=$(census inter)
check "inter: exits 0" test "$(rc_of inter)" = 0
check "inter: census has pages on all 4 nodes, 2048 in all ($pages)" \
	test "$(tr ' ' '\n' <<<"$pages" | awk -F: '{ n++; s += $2 } END { print n, s }')" = "4 2048"
check "inter: numa_maps says interleave:0-3 and the census' counts ($(numa_maps inter))" \
	test "$(numa_maps inter)" = "interleave:0-3 $pages"
check "node:2: the shared state is on node 2" \
	test "$(csv_rows "$G/node2.csv" rep state_node | grep '^0|' | cut -d'|' -f2)" = 2
check "local: its threads were on nodes 0 and 2" \
	test "$(csv_rows "$G/local.threads.csv" pu_node | sort -u | tr '\n' ' ')" = "0 2 "

# Remote placement: threads on node 0, data on node 2 (far) or node 1
# (same package): remote_share 1, and the remote control binds it local.
rt=$G/remote.threads.csv
check "remote runs exit 0" test "$(rc_of remote)" = 0
for j in "far|2" "near|1"; do
	IFS='|' read -r name node <<<"$j"
	check "$name: the job's thread on node 0 sees all its pages remote" \
		test "$(csv_rows "$rt" job control pu_node remote_share | grep "^$name||")" = "$name||0|1.0000"
	check "$name: its data on node $node" \
		test "$(csv_rows "$G/remote.csv" job control data_nodes | grep "^$name||")" = "$name||$node:64"
	check "$name: the remote control binds it local: node 0, remote_share 0" \
		test "$(csv_rows "$rt" job control remote_share | grep "^$name|remote|")" = "$name|remote|0.0000" \
		-a "$(csv_rows "$G/remote.csv" job control membind data_nodes | grep "^$name|remote|")" = "$name|remote|local|0:64"
	# Bookkeeping, not speed (remote memory costs nothing in emulation): the
	# attribution has the remote control's cause for this job, whatever share
	# the noise gave it.
	check "$name: the attribution has a remote memory row (membind node:$node)" \
		grep -q "^$name|remote memory|membind node:$node\$" \
		<<<"$(csv_rows "$G/remote.attribution.csv" job cause detail)"
done

# A strict binding of more than node 3 holds: said, not an OOM kill.
check "strict on an exhausted node: exit 1, not killed ($(rc_of full))" test "$(rc_of full)" = 1
check "... saying it does not fit on node 3" \
	grep -q "membind node:3 strict: 72MiB do not fit on node(s) 3, which have .* free or reclaimable" "$G/full.err"
check "... and the run is FAILED in the table" grep -Eq '^full +mmap_block .* FAILED$' "$G/full.out"

# taskset -c 2,3 and a cgroup cpuset of PUs 1-2, nodes 1-2.
check "taskset: --topology says PUs 2-3 are allowed, by the affinity" \
	grep -q '^allowed PUs: 2-3 of 0-3, restricted by the CPU affinity' "$G/taskset_topology.out"
check "taskset: spread's threads on PUs 2 and 3" \
	test "$(csv_rows "$G/ts.threads.csv" pu_seen | sort | tr '\n' ' ')" = "2 3 "
check "taskset: numa:0 is refused, naming the affinity" \
	grep -q 'placement numa:0: none of the PUs of NUMA node 0 (0) is allowed .*taskset' "$G/tsbad.err"
check "cpuset: --topology says PUs 1-2 are allowed, by the cgroup" \
	grep -q '^allowed PUs: 1-2 of 0-3, restricted by the cgroup cpuset' "$G/cg_topology.out"
check "cpuset: spread's threads on PUs 1 and 2" \
	test "$(csv_rows "$G/cg.threads.csv" pu_seen | sort | tr '\n' ' ')" = "1 2 "
check "cpuset: interleave lands on the allowed nodes 1 and 2 only ($(census cg))" \
	test "$(census cg)" = "1:256 2:256"
check "cpuset: membind node:3 is refused, naming cpuset.mems" \
	grep -q "membind node:3: node 3 is not allowed for this process (allowed nodes: 1-2, the cgroup's cpuset.mems)" "$G/cgbad.err"
done_testing
