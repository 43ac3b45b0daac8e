# A fleet through a real scheduler (docs/fleet.md): Debian's Slurm and
# munge, a two-node cluster made on this machine -- a controller and two
# slurmd, each in a network namespace (and UTS namespace: its own host
# name) made here, joined by a bridge inside the controller's namespace,
# so no address is added outside them -- and on it the batch script
# docs/fleet.md shows, word for word, then srun -c1 (one CPU: the
# restriction said, naming Slurm), srun --exclusive --cpus-per-task (the
# whole node: no oversubscription), `mmprof exec` under srun, and the
# hosts' files read together (host columns, compare of two and of four
# files, load_many).
#
# The nodes share this machine's CPUs, /tmp and page cache: the checks are
# bookkeeping, never timing.  Every daemon is stopped and every namespace,
# directory and cgroup made here removed at the end, also on failure.
# Where it cannot run (not root, no namespaces, the packages cannot be
# installed) it skips with the reason; under MMPROF_VM_REQUIRE=1 (CI) a
# skip is a failure, as for the emulated machines.
source "$(dirname "$0")/tap.bash"

MMPROF=$(realpath "$MMPROF")
unavailable() { # unavailable WHY: skip the rest, or fail it in CI
	[ "${MMPROF_VM_REQUIRE:-0}" = 1 ] || skip_rest "a Slurm cluster here: $1"
	fail "a Slurm cluster can be made here (MMPROF_VM_REQUIRE=1)" "$1"
	done_testing
	exit 0
}

[ "$(id -u)" = 0 ] || unavailable "needs root (network namespaces, daemons)"
for c in ip nsenter unshare setpriv flock timeout; do
	command -v "$c" >/dev/null || unavailable "no $c"
done
PACKAGES="slurm-wlm slurmctld slurmd slurm-client munge"
have_slurm() {
	command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged
} >/dev/null
if ! have_slurm; then
	# The package lists may be stale on a fresh machine: update once.
	export DEBIAN_FRONTEND=noninteractive
	# No timeout around dpkg (a package half installed would break the
	# machine's apt); another apt-get holding the lock is waited for.
	apt=(apt-get -y -qq -o DPkg::Lock::Timeout=120)
	{ "${apt[@]}" install --no-install-recommends $PACKAGES ||
		{ "${apt[@]}" update && "${apt[@]}" install --no-install-recommends $PACKAGES; }; } \
		>"$TMP/apt.log" 2>&1
	have_slurm || unavailable "apt-get install $PACKAGES failed: $(tail -1 "$TMP/apt.log")"
fi

# One cluster at a time on this machine: Slurm's cgroups are named by
# job id, not by cluster.
mkdir -p /run/lock && exec 9>/run/lock/mmprof-fleet-slurm.lock
flock -w 300 9 || unavailable "another fleet_slurm.sh held the lock for 5 minutes"

id=$$
CTL=mmprof-ctl-$id N1=mmprof-n1-$id N2=mmprof-n2-$id
S=$TMP/slurm          # configs, state, spools, logs
MD=/run/mmprof-munge-$id # munged's socket directory (its user must own it)
W=$TMP/work           # the jobs' working directory
pids=() made_ns=() cgroups_before="" data_dir=""

# Slurm's cgroup v1 directories that were not there before the cluster.
slurm_cgroups() { ls -d /sys/fs/cgroup/*/slurm* 2>/dev/null; }
cleanup() {
	local ns p n
	# The jobs' processes first (slurmstepd and its tasks live in the
	# nodes' namespaces), then the daemons, each by its id.
	for ns in "${made_ns[@]}"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$p" 2>/dev/null; done
	done
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for n in $(seq 50); do
		local alive=""
		for ns in "${made_ns[@]}"; do alive+=$(ip netns pids "$ns" 2>/dev/null); done
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive+=" $p"; done
		[ -z "$alive" ] && break
		sleep 0.2
	done
	for ns in "${made_ns[@]}"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
	done
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	wait "${pids[@]}" 2>/dev/null
	for ns in "${made_ns[@]}"; do ip netns del "$ns" 2>/dev/null; done
	for d in $(slurm_cgroups); do
		grep -qxF "$d" <<<"$cgroups_before" ||
			find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	[ -n "$data_dir" ] && rm -rf "$data_dir"
	rm -rf "$MD" "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
cgroups_before=$(slurm_cgroups)
# The doc's script keeps its data in /tmp/USER-mmprof-data: removed after
# unless it was there before.
data_dir=/tmp/$(id -un)-mmprof-data
[ -e "$data_dir" ] && data_dir=""
userless_before=$([ -e /tmp/-mmprof-data ] && echo yes)

# The network: the controller's namespace holds the bridge and 10.200.0.1;
# node i's holds 10.200.0.1i on a veth into the bridge.
netns() { ip netns add "$1" && made_ns+=("$1"); }
make_net() {
	local i ns
	netns "$CTL" && netns "$N1" && netns "$N2" &&
		ip -n "$CTL" link set lo up &&
		ip -n "$CTL" link add br0 type bridge &&
		ip -n "$CTL" addr add 10.200.0.1/24 dev br0 &&
		ip -n "$CTL" link set br0 up || return 1
	for i in 1 2; do
		ns=$N1
		[ "$i" = 2 ] && ns=$N2
		ip -n "$CTL" link add "v$i" type veth peer name eth0 netns "$ns" &&
			ip -n "$CTL" link set "v$i" master br0 up &&
			ip -n "$ns" link set lo up &&
			ip -n "$ns" addr add "10.200.0.1$i/24" dev eth0 &&
			ip -n "$ns" link set eth0 up || return 1
	done
}
net_ok=1
make_net >"$TMP/net.log" 2>&1 || net_ok=0
[ "$net_ok" = 1 ] || unavailable "network namespaces: $(tail -1 "$TMP/net.log")"
# on NS CMD...: CMD in namespace NS's network (not `ip netns exec`, which
# remounts /sys, where slurmd then finds no cgroup file system).
on() { local ns=$1; shift; nsenter --net="/run/netns/$ns" "$@"; }

# munge, with its own key and socket: a munged already running here, and
# the machine's key, are left alone.  setpriv execs munged itself (runuser
# would stay its parent), so the id kept is munged's.
mkdir -p "$MD" "$S/state" "$S/spool" "$S/log" "$W" &&
	head -c 1024 /dev/urandom >"$MD/key" && chown -R munge: "$MD" && chmod 0755 "$MD" &&
	chmod 0600 "$MD/key" || unavailable "cannot make munge's directory $MD"
setpriv --reuid=munge --regid=munge --clear-groups /usr/sbin/munged --foreground \
	--key-file="$MD/key" --socket="$MD/socket" --pid-file="$MD/pid" --seed-file="$MD/seed" \
	--log-file="$MD/log" 2>"$TMP/munged.err" &
pids+=($!)
for t in $(seq 50); do
	[ -S "$MD/socket" ] && break
	sleep 0.2
done
if [ ! -S "$MD/socket" ]; then
	fail "munged started" "$(cat "$TMP/munged.err" "$MD/log" 2>/dev/null | tail -3)"
	done_testing
	exit 0
fi

# This machine as slurmd sees it, less memory: two nodes share it.
hw=$(slurmd -C | head -1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
ncpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$hw")
[ -n "$ncpus" ] || unavailable "slurmd -C said nothing of this machine"
# task/cgroup confines each task to its CPUs with a cpuset (cgroup v1 on
# this hybrid layout); where there is no v1 cpuset, Slurm 22.05's cgroup/v2
# wants systemd, so task/affinity alone binds the tasks.
if [ -d /sys/fs/cgroup/cpuset ] && [ -w /sys/fs/cgroup/cpuset/cgroup.procs ]; then
	plugins="ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup,task/affinity"
	printf 'CgroupPlugin=cgroup/v1\nConstrainCores=yes\n' >"$S/cgroup.conf"
else
	plugins="ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity"
fi
cat >"$S/slurm.conf" <<EOF
ClusterName=mmprof
SlurmctldHost=ctl(10.200.0.1)
SlurmUser=root
AuthType=auth/munge
AuthInfo=socket=$MD/socket
CredType=cred/munge
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool/%n
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd-%n.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd-%n.log
$plugins
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
NodeName=n1 NodeAddr=10.200.0.11 $hw RealMemory=1000
NodeName=n2 NodeAddr=10.200.0.12 $hw RealMemory=1000
PartitionName=two Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$S/slurm.conf

# Each daemon in the foreground (-D); nsenter, unshare and sh exec it, so
# the id kept is the daemon's.
nsenter --net="/run/netns/$CTL" unshare --uts sh -c 'hostname ctl && exec slurmctld -D -i' \
	>"$S/log/ctl.out" 2>&1 &
pids+=($!)
for n in 1 2; do
	ns=$N1
	[ "$n" = 2 ] && ns=$N2
	nsenter --net="/run/netns/$ns" unshare --uts sh -c "hostname n$n && exec slurmd -D" \
		>"$S/log/n$n.out" 2>&1 &
	pids+=($!)
done
# sinfo: both nodes idle, within a minute.
for t in $(seq 120); do
	idle=$(on "$CTL" sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' idle$')
	[ "$idle" = 2 ] && break
	sleep 0.5
done
if [ "$idle" != 2 ]; then
	fail "two nodes idle in a minute" "$(on "$CTL" sinfo -N 2>&1 | head -5)" \
		"$(tail -3 "$S/log/slurmctld.log" "$S"/log/slurmd-n*.log "$S"/log/*.out "$MD/log" 2>&1)"
	done_testing
	exit 0
fi
ok "a two-node Slurm on this machine: n1, n2 idle"

# The config every node finds by name (docs/install.md): small, so the
# script runs in seconds; 2 threads, so one CPU is oversubscribed.
mkdir -p "$S/configs"
printf '[global]\nsize = 256K\nseed = 5\nrepeat = 3\nwarmup = 0\nthreads = 2\n[one]\nprobe = mmap_byte\n[two]\nprobe = accessor_byte\nrefcount = shared\nbaseline = one\n' \
	>"$S/configs/byte_8t.ini"
export MMPROF_CONFIG_PATH=$S/configs PATH=$(dirname "$MMPROF"):$PATH
# srun inherits this environment; the jobs' data in the test's directory.
export MMPROF_DATA=$TMP/data

# The batch script of docs/fleet.md, as it is written there.
awk '/^```/ { if (on) exit; fence = 1; next }
	fence && $0 == "#!/bin/bash" { on = 1 }
	{ fence = 0 } on' docs/fleet.md >"$W/fleet.sbatch"
check "docs/fleet.md has a batch script" grep -q '^#SBATCH' "$W/fleet.sbatch"
# Two nodes here: an sbatch option overrides the script's #SBATCH line.
# Without USER, as a batch job's environment may be: the script must not
# need it.
job=$(cd "$W" && on "$CTL" env -u USER timeout 120 sbatch --parsable --wait -N2 -o "$W/batch.out" fleet.sbatch 2>"$TMP/sbatch.err")
check "sbatch of the doc's script: done ($(tail -1 "$TMP/sbatch.err"))" test -n "$job" -a -s "$W/results/n1.csv"
[ -s "$W/results/n1.csv" ] || tail -5 "$W/batch.out" "$W"/results/*.out 2>&1 | sed 's/^/# /'

for n in n1 n2; do
	check "$n wrote results/$n.csv" test -s "$W/results/$n.csv"
	check "$n: its host column says $n" test "$(csv_col "$W/results/$n.csv" host | sort -u)" = "$n"
	for k in events answers; do
		check "$n: results/$n.$k.csv's host column says $n" \
			test "$(csv_col "$W/results/$n.$k.csv" host 2>/dev/null | sort -u)" = "$n"
	done
	check "$n: its report in results/$n.out" grep -q '^job ' "$W/results/$n.out"
	check "$n: the whole node, no run oversubscribed" \
		test "$(csv_col "$W/results/$n.csv" oversubscribed | sort -u)" = false
	check "$n: no restriction said" bash -c '! grep -q "restricted by\|oversubscribed" "$1"' _ "$W/results/$n.out"
done
check "the data in /tmp/\$(id -un)-mmprof-data, not /tmp/-mmprof-data (USER unset)" \
	test -d "/tmp/$(id -un)-mmprof-data" -a \( -n "$userless_before" -o ! -e /tmp/-mmprof-data \)

# srun -c1: one CPU per task; mmprof plans on it and says who restricted it.
(cd "$W" && on "$CTL" timeout 60 srun -N2 --ntasks-per-node=1 -c1 --output=c1-%N.out \
	mmprof --config byte_8t --csv c1/{host}.csv) 2>"$TMP/c1.err"
check "srun -c1: both nodes ran ($(tail -1 "$TMP/c1.err"))" test -s "$W/c1/n1.csv" -a -s "$W/c1/n2.csv"
for n in n1 n2; do
	check "$n, one CPU: the 2-thread runs are oversubscribed" \
		test "$(csv_col "$W/c1/$n.csv" oversubscribed | sort -u)" = true
	check "$n, one CPU: the warning names Slurm and the job" \
		grep -q "oversubscribed: .*the PUs were restricted by .*(set by Slurm for job [0-9]*: srun --exclusive --cpus-per-task=N" "$W/c1-$n.out"
done
topo=$(on "$CTL" timeout 60 srun -N1 -w n1 -c1 mmprof --topology 2>&1)
check "srun -c1 --topology: one PU allowed, restricted by Slurm" \
	grep -q "^allowed PUs: [0-9]* of .*(set by Slurm for job [0-9]*" <<<"$topo"
whole=$("$MMPROF" --topology | grep -E '^(machine|caches):')
check "srun -c1 --topology: the machine whole, as outside Slurm" \
	test "$(grep -E '^(machine|caches):' <<<"$topo")" = "$whole"

# --exclusive with every CPU for the one task: the whole node.
(cd "$W" && on "$CTL" timeout 60 srun -N2 --ntasks-per-node=1 --exclusive --cpus-per-task="$ncpus" \
	--output=ex-%N.out mmprof --config byte_8t --csv ex/{host}.csv) 2>"$TMP/ex.err"
check "srun --exclusive --cpus-per-task=$ncpus: both nodes ran ($(tail -1 "$TMP/ex.err"))" \
	test -s "$W/ex/n1.csv" -a -s "$W/ex/n2.csv"
for n in n1 n2; do
	check "$n, the whole node: nothing oversubscribed" \
		test "$(csv_col "$W/ex/$n.csv" oversubscribed | sort -u)" = false
done
topo=$(on "$CTL" timeout 60 srun -N1 -w n2 --exclusive --cpus-per-task="$ncpus" mmprof --topology 2>&1)
check "srun --exclusive --cpus-per-task=$ncpus --topology: every PU allowed" \
	bash -c '! grep -q "^allowed PUs:" <<<"$1" && grep -q "^machine:" <<<"$1"' _ "$topo"

# mmprof exec under srun: a program measured on each node, its own files.
(cd "$W" && on "$CTL" timeout 60 srun -N2 --ntasks-per-node=1 --output=exec-%N.out \
	mmprof exec -r 2 --csv exec/{host}.csv -- /bin/sh -c 'echo hello from $(hostname)') \
	2>"$TMP/exec.err"
for n in n1 n2; do
	check "mmprof exec under srun on $n: its CSV, host $n" \
		test "$(csv_col "$W/exec/$n.csv" host 2>/dev/null | sort -u)" = "$n"
done

# The hosts' files together: compare, and load_many.
"$MMPROF" compare "$W/results/n1.csv" "$W/results/n2.csv" >"$TMP/compare.out" 2>&1
rc=$?
check "compare n1.csv n2.csv: exit 0 ($rc)" test "$rc" -eq 0
# The cross-host report: four files, the two nodes' from the batch and
# from --exclusive (one host's two files are named by their paths).
"$MMPROF" compare "$W"/results/n1.csv "$W"/results/n2.csv "$W"/ex/n1.csv "$W"/ex/n2.csv \
	--csv "$W/fleet.csv" >"$TMP/fleet.out" 2>&1
rc=$?
check "compare of the four files: a fleet report, exit 0 ($rc)" \
	bash -c '[ "$1" -eq 0 ] && grep -q "^fleet: 4 hosts" "$2" && grep -qE "^  Is two slower than one, .*: [a-z]+ on (all 4 hosts|[0-9] of 4 hosts)" "$2"' \
	_ "$rc" "$TMP/fleet.out"
check "the fleet CSV: both nodes at both job points, twice" \
	test "$(csv_col "$W/fleet.csv" host 2>/dev/null | sort | uniq -c | awk '{ print $1 $2 }' | tr '\n' ' ')" = "4n1 4n2 "
if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
	hosts=$(/usr/bin/python3 -c 'import sys; sys.path.insert(0, "analysis"); import mmprof_csv as m
df = m.load_many(sys.argv[1] + "/{host}.csv"); a = m.load_many(sys.argv[1] + "/*.csv", m.load_answers)
print(",".join(sorted(set(df["host"]))), ",".join(sorted(set(a["host"]))))' "$W/results" 2>&1)
	check "load_many: NAME.csv and answers, each row with its host" test "$hosts" = "n1,n2 n1,n2"
else
	skip "python3-pandas is not installed for /usr/bin/python3 (make deps)"
fi
done_testing
