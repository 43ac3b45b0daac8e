#!/usr/bin/env bash
# Regenerates the described machines in this directory with hwloc's own
# tools (Debian package "hwloc": lstopo-no-graphics, hwloc-annotate), so
# the XML is what hwloc 2.9 writes and reads, not hand-typed markup.
#
# Synthetic descriptions give the tree, cache and memory sizes; PU OS
# numbers follow Linux on x86 (all first hardware threads of every core,
# then all second threads: core 0 is PUs 0 and N), which is what
# `indexes=2*N:1*2` asks for. The NUMA latency matrix (the ACPI SLIT that
# Linux reports in /sys/devices/system/node/node*/distance) is added with
# hwloc-annotate, as hwloc's synthetic format has no distances.
#
#   tests/topologies/generate.sh      rewrites the .xml files beside it
set -eu
cd "$(dirname "$0")"
command -v lstopo-no-graphics >/dev/null || {
	echo "generate.sh: needs lstopo-no-graphics (apt-get install hwloc)" >&2; exit 2; }

# name, synthetic description, node count, distance matrix (row major)
make_one() {
	local name=$1 synth=$2 nodes=$3 matrix=$4 tmp
	tmp=$(mktemp)
	rm -f "$name.xml"
	lstopo-no-graphics --no-io --input "$synth" --of xml "$name.xml"
	if [ "$nodes" -gt 1 ]; then
		{
			echo "name=NUMALatency"
			echo 5 # HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_MEANS_LATENCY
			echo "$nodes"
			for ((i = 0; i < nodes; i++)); do echo "NUMANode:$i"; done
			for v in $matrix; do echo "$v"; done
		} >"$tmp"
		hwloc-annotate "$name.xml" "$name.xml" -- none -- distances "$tmp"
	fi
	rm -f "$tmp"
	# lstopo records its own process name; keep the files reproducible.
	sed -i '/name="ProcessName"/d' "$name.xml"
	lstopo-no-graphics --input "$name.xml" >/dev/null
}

# (a) Two-socket Intel Xeon-like server: 8 cores x 2 threads per socket,
# one NUMA node and one 22 MiB L3 per socket, 96 GiB per node (6 channels
# of 16 GiB), SLIT 10 local / 21 remote (one UPI hop).
make_one intel-2s-smt \
	"pack:2 numa:1(memory=96GiB) l3:1(size=22MiB) l2:8(size=1MiB) l1d:1(size=32KiB) core:1 pu:2(indexes=2*16:1*2)" \
	2 "10 21  21 10"

# (b) Two-socket AMD EPYC-like (Milan 16-core parts, NPS2): per socket two
# NUMA nodes (NPS2 splits the memory controllers in halves), each node two
# CCX with a private 32 MiB L3 of 4 cores, 2 threads per core, 64 GiB per
# node. SLIT as AMD firmware reports it: 10 local, 12 other node of the
# same socket, 32 other socket.
make_one amd-2s-nps2 \
	"pack:2 numa:2(memory=64GiB) l3:2(size=32MiB) l2:4(size=512KiB) l1d:1(size=32KiB) core:1 pu:2(indexes=2*32:1*2)" \
	4 "10 12 32 32  12 10 32 32  32 32 10 12  32 32 12 10"

# (c) A one-node desktop: 4 cores x 2 threads, 8 MiB L3, 16 GiB; no
# distance matrix (Linux reports none worth having for one node).
make_one desktop-1node \
	"pack:1 numa:1(memory=16GiB) l3:1(size=8MiB) l2:4(size=512KiB) l1d:1(size=48KiB) core:1 pu:2(indexes=2*4:1*2)" \
	1 ""

# (d) PU numbers that are not dense and not in logical order, as on a
# machine with CPUs offline or a firmware that numbers the second threads
# of all cores after the first ones with a stride: core 0 is PUs 0 and 16,
# core 1 is PUs 2 and 18, ... Odd numbers do not exist. A test that
# assumes "thread i on PU i" fails here.
make_one sparse-pus \
	"pack:2 numa:1(memory=8GiB) l3:1(size=16MiB) l2:2(size=1MiB) l1d:1(size=32KiB) core:1 pu:2(indexes=0,16,2,18,4,20,6,22)" \
	2 "10 20  20 10"

# (e) A cpuset that leaves gaps: a cgroup (or a container runtime) allows
# PUs 1, 2, 4 and 7 of 8. hwloc's synthetic format has no allowed set and
# hwloc-annotate cannot change it, so the Machine's allowed_cpuset is
# rewritten in the XML; plans must use these PUs only.
make_one gaps-cpuset \
	"pack:1 numa:1(memory=16GiB) l3:2(size=16MiB) l2:2(size=1MiB) l1d:1(size=32KiB) core:1 pu:2(indexes=2*4:1*2)" \
	1 ""
sed -i '/type="Machine"/s/allowed_cpuset="0x000000ff"/allowed_cpuset="0x00000096"/' gaps-cpuset.xml
grep -q 'allowed_cpuset="0x00000096"' gaps-cpuset.xml
lstopo-no-graphics --input gaps-cpuset.xml >/dev/null
