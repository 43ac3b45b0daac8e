# Runs inside the x86 guest (busybox sh; tests/vm/vm.sh x86): mmprof's
# placements, bindings and refusals on a real 4-node kernel.  It checks
# nothing itself: it sends the kernel's view and mmprof's outputs back as
# "@@file NAME" blocks, and tests/integration/vm_numa.sh judges them.
. /vm/guest_lib.sh
# Each job below sets what it changes; the rest is small and quick.
global='[global]
repeat = 1
warmup = 0
events = none'
job() { # job NAME: a section header and the small defaults
	printf '[%s]\nsize = 2M\nprobe = mmap_block\n' "$1"
}

# The kernel's view.
for n in /sys/devices/system/node/node[0-9]*; do
	echo "${n##*node} $(cat "$n/cpulist") $(cat "$n/distance")"
done >nodes.txt
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	echo "${c##*cpu} $(cat "$c/topology/physical_package_id")"
done >packages.txt
send nodes.txt; send packages.txt
run topology mmprof --topology

# Placements: where each thread was planned and where it found itself.
cat >place.ini <<INI
$global
$(job n2)
placement = numa:2
$(job each)
placement = numa:*
$(job spread)
threads = 4
placement = spread
$(job pkg)
threads = 2
placement = package:1
[pp]
probe = pingpong
ops = 200
placement = pairs
INI
run place mmprof --config place.ini --csv place.csv --per-thread -q

# Bindings: the page census, and the kernel's numa_maps of the same
# process taken while its runs hold the data (snapshots, newest last).
cat >bind.ini <<INI
$global
[node2]
size = 8M
repeat = 40
data = anon
threads = 2
placement = spread
probe = mmap_byte
membind = node:2
INI
mapped() { # mapped NAME CONFIG: a run and its numa_maps while it runs
	mmprof --config "$2" --csv "$1.csv" --per-thread -q >"$1.out" 2>"$1.err" &
	pid=$!
	: >"$1.maps"
	while kill -0 $pid 2>/dev/null; do
		m=$(cat /proc/$pid/numa_maps 2>/dev/null) &&
			{ echo "@@snapshot"; echo "$m"; } >>"$1.maps"
	done
	wait $pid; echo $? >"$1.rc"
	for f in "$1".*; do send "$f"; done
}
mapped node2 bind.ini
sed 's/^membind = node:2/membind = interleave/; s/^\[node2\]/[inter]/' bind.ini >inter.ini
mapped inter inter.ini
sed 's/^membind = node:2/membind = local/; s/^\[node2\]/[local]/' bind.ini >local.ini
mapped local local.ini

# Remote placement: threads on node 0, memory on node 2 (other package)
# and node 1 (same package), with the remote control beside each.
cat >remote.ini <<INI
$global
controls = remote
[far]
data = anon
probe = accessor_byte
size = 256K
placement = numa:0
membind = node:2
[near]
data = anon
probe = accessor_byte
size = 256K
placement = numa:0
membind = node:1
INI
run remote mmprof --config remote.ini --csv remote.csv --per-thread

# Inside taskset.
run taskset_topology taskset -c 2,3 mmprof --topology
printf '%s\n%s\nthreads = 2\nplacement = spread\n' "$global" "$(job ts)" >ts.ini
run ts taskset -c 2,3 mmprof --config ts.ini --csv ts.csv --per-thread -q
printf '%s\n%s\nplacement = numa:0\n' "$global" "$(job bad)" >tsbad.ini
run tsbad taskset -c 2,3 mmprof --config tsbad.ini -n

# After the others, as its data file fills node 3 (61 MiB): a strict binding
# of more than the node holds.
printf '%s\n[full]\nsize = 72M\nprobe = mmap_block\ndata = anon\nmembind = node:3\n' "$global" >full.ini
run full mmprof --config full.ini --csv full.csv -q

# Inside a cgroup cpuset of PUs 1-2 and nodes 1-2 (this shell moves in).
mount -t cgroup2 none /sys/fs/cgroup
echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/vm
echo 1-2 >/sys/fs/cgroup/vm/cpuset.cpus
echo 1-2 >/sys/fs/cgroup/vm/cpuset.mems
echo $$ >/sys/fs/cgroup/vm/cgroup.procs
printf '%s\n%s\ndata = anon\nthreads = 2\nplacement = spread\nmembind = interleave\n' \
	"$global" "$(job cg)" >cg.ini
printf '%s\n%s\nmembind = node:3\n' "$global" "$(job bad)" >cgbad.ini
run cg_topology mmprof --topology
run cg mmprof --config cg.ini --csv cg.csv --per-thread -q
run cgbad mmprof --config cgbad.ini -n

