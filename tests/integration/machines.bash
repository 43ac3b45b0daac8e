# The described machines that every topology-sensitive test (cli,
# resources, topology) also runs on, whatever the host is: the host shows
# one layout, these show the ones a literal of one host gets wrong. The
# expected text is computed from each machine's structure by
# tests/helpers/topology_model.py, never copied from an output.
#
# "NAME|SOURCE", SOURCE as --topology-from takes it.
MACHINES=(
	"one L3 per core|synthetic:pack:1 numa:1 l3:4 core:1 pu:1"
	"one L3 for all|synthetic:pack:1 numa:1 l3:1 core:4 pu:1"
	"SMT pairs|synthetic:pack:1 numa:1 l3:1 core:4 pu:2"
	"2 packages of 2 nodes|synthetic:pack:2 numa:2 l3:1 core:2 pu:2"
	"2 packages of 2 nodes, PUs N and N+32 on a core|xml:tests/topologies/amd-2s-nps2.xml"
	"PU numbers not dense|xml:tests/topologies/sparse-pus.xml"
	"a cpuset that leaves gaps|xml:tests/topologies/gaps-cpuset.xml"
)

# model SOURCE WHAT [N]: what mmprof should print about the machine
# (machine, l3, compact N, cores N, pus); SOURCE "table" reads
# --topology's output on stdin (the real host).
model() { /usr/bin/python3 tests/helpers/topology_model.py "$@"; }

# hwloc_env SOURCE: the environment variable hwloc reads for SOURCE
# ("HWLOC_SYNTHETIC=..." or "HWLOC_XMLFILE=..."), for `env`.
hwloc_env() {
	case $1 in
	synthetic:*) echo "HWLOC_SYNTHETIC=${1#synthetic:}" ;;
	xml:*) echo "HWLOC_XMLFILE=${1#xml:}" ;;
	esac
}

# threads_line N [JOB]: the placement line of the first run (of JOB) with
# N threads in $out (--topology's placements), without its indent.
threads_line() {
	awk -v n="$1" -v job="${2:-}" 'index($0, "[" job) && $0 ~ "^run [0-9]+ .* threads=" n " " { on = 1; next }
		on { sub(/^ +/, ""); print; exit }' <<<"$out"
}
