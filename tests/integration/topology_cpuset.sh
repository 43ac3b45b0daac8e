# The machine inside a cpuset (docs/numa.md): under a cgroup cpuset made
# here (Slurm's task/cgroup, a container) and under taskset, --topology
# describes the machine as the unrestricted run does -- its L3 domains and
# per-core caches -- and only the allowed PUs as allowed. hwloc 2.9 drops
# the caches of PUs outside a cpuset; mmprof must not.
source "$(dirname "$0")/tap.bash"

# What describes the machine (the allowed annotations stripped): the
# counts, the cache sizes and sharing, and each L3 domain's PUs.
machine() {
	grep -E '^(machine:|caches:|  L3 [0-9]+:|  package [0-9]+:)' <<<"$1" |
		sed 's/, allowed [^ ]* of PUs /, PUs /'
}

run_mmprof --topology
check "unrestricted --topology: exit 0 ($rc)" test "$rc" -eq 0
whole=$out
pus=$(nproc --all)
last=$((pus - 1))
if [ "$pus" -lt 2 ]; then
	skip_rest "one PU: nothing to restrict"
fi
check "unrestricted: no PU restricted" bash -c '! grep -q "^allowed PUs:" <<<"$1"' _ "$whole"

# taskset: the affinity alone.
out=$(env -u SLURM_JOB_ID taskset -c "$last" "$MMPROF" --topology 2>&1)
check "taskset -c $last: the same machine" test "$(machine "$out")" = "$(machine "$whole")"
check "taskset -c $last: PU $last allowed, said why" \
	grep -q "^allowed PUs: $last of 0-$last, restricted by the CPU affinity mmprof was started with, e.g. by taskset" <<<"$out"

# Under a batch scheduler the restriction is its doing: the message says
# whose job it is, and what gives a task more CPUs.
out=$(SLURM_JOB_ID=4242 taskset -c "$last" "$MMPROF" --topology 2>&1)
check "taskset in a Slurm job: the message names Slurm, the job and --cpus-per-task" \
	grep -q "^allowed PUs: $last of 0-$last, restricted by the CPU affinity mmprof was started with (set by Slurm for job 4242: srun --exclusive --cpus-per-task=N" <<<"$out"
out=$(SLURM_JOB_ID=4242 "$MMPROF" --topology 2>&1)
check "nothing restricted in a Slurm job: nothing said" bash -c '! grep -q "Slurm\|^allowed PUs:" <<<"$1"' _ "$out"

# A cgroup cpuset of one PU, v1 or v2, whichever this machine mounts.
cg="" enabled=""
cleanup() {
	[ -n "$cg" ] && rmdir "$cg" 2>/dev/null
	# The controller this test enabled in the root's subtree, given back.
	[ -n "$enabled" ] && echo -cpuset >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
if [ -d /sys/fs/cgroup/cpuset ] && [ -w /sys/fs/cgroup/cpuset ]; then
	base=/sys/fs/cgroup/cpuset
	cg=$base/mmprof-test.$$
	mkdir "$cg" 2>/dev/null && echo "$last" >"$cg/cpuset.cpus" 2>/dev/null &&
		cat "$base/cpuset.mems" >"$cg/cpuset.mems" 2>/dev/null || cg_failed=1
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup ] &&
	grep -qw cpuset /sys/fs/cgroup/cgroup.controllers; then
	# v2: a process may only sit in a leaf; the controller must be
	# enabled in the root's subtree for the new group to have cpuset.cpus.
	grep -qw cpuset /sys/fs/cgroup/cgroup.subtree_control ||
		{ echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null && enabled=1; }
	cg=/sys/fs/cgroup/mmprof-test.$$
	mkdir "$cg" 2>/dev/null && echo "$last" >"$cg/cpuset.cpus" 2>/dev/null || cg_failed=1
else
	cg_failed=1
fi
if [ "${cg_failed:-0}" = 1 ]; then
	skip_rest "no cgroup cpuset could be made here (not root, or no cpuset controller)"
fi
tasks=$cg/cgroup.procs
out=$(sh -c 'echo $$ >"$1" && exec "$2" --topology' _ "$tasks" "$MMPROF" 2>&1)
check "cpuset $last: the run was restricted by the cpuset" \
	grep -q "^allowed PUs: $last of 0-$last, restricted by the cgroup cpuset" <<<"$out"
check "cpuset $last: the same machine as unrestricted" \
	test "$(machine "$out")" = "$(machine "$whole")"
if [ "$(machine "$out")" != "$(machine "$whole")" ]; then
	diff <(machine "$whole") <(machine "$out") | sed 's/^/# /'
fi
# The allowed part as allowed: an L3 domain without PU $last says none of
# it is allowed, the one with it does not.
l3s=$(grep -c '^  L3 [0-9]*:' <<<"$whole")
if [ "$l3s" -gt 1 ]; then
	check "cpuset $last: the L3 domains it may not use say so" \
		grep -q '^  L3 [0-9]*: .*, allowed none of PUs [0-9,-]*$' <<<"$out"
else
	skip "one L3 domain here: no domain is out of the cpuset"
fi
# Plans inside the cpuset use the allowed PU only.
printf '[j]\nprobe = limit\nsize = 4K\nthreads = 2\nplacement = spread\n' >"$TMP/c.ini"
out=$(sh -c 'echo $$ >"$1" && exec "$2" --config "$3" --dry-run' _ "$tasks" "$MMPROF" \
	"$TMP/c.ini" 2>&1)
check "cpuset $last: a 2-thread spread plan uses PU $last only, oversubscribed" \
	grep -qx " *PUs $last $last (1 distinct), oversubscribed" <<<"$out"
done_testing
