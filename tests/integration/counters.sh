# Counters on this machine, through the binary: faults inside the timed
# region (lazy mapping) and outside it (prefault), read() system calls, the
# no-PMU state, --list-events, --per-thread, config errors, and agreement
# with perf stat.
source "$(dirname "$0")/tap.bash"

col() { csv_col "$@"; }
min_of() { sort -n | head -1; }
max_of() { sort -n | tail -1; }

# 64 MiB mapped lazily: every repetition maps afresh and faults inside the
# timed region.  A fault maps at most one large folio or fault-around
# window (at most 2 MiB), so >= size/2MiB faults; with prefault = yes,
# MAP_POPULATE takes them before timing.
cat >"$TMP/faults.ini" <<'INI'
[global]
size = 64M
probe = mmap_byte
repeat = 3
events = faults
[lazy]
[prefault]
prefault = yes
INI
run_mmprof --config "$TMP/faults.ini" --csv "$TMP/faults.csv" --quiet
check "faults config runs" test "$rc" -eq 0
# The rounds interleave the two jobs: take each job's runs by run number.
lazy_run=$(csv_rows "$TMP/faults.csv" job run | awk -F'|' '$1 == "lazy" { print $2; exit }')
by_job() { csv_rows "${1%.csv}.events.csv" run thread event value | awk -F'|' -v r="$2" -v e="$3" '$1 == r && $2 == "" && $3 == e { print $4 }'; }
lazy=$(by_job "$TMP/faults.csv" "$lazy_run" minor-faults | min_of)
pre=$(by_job "$TMP/faults.csv" "$((lazy_run + 1))" minor-faults | max_of)
check "lazy mapping: minor faults >= 64MiB/2MiB in every repetition (min $lazy)" test "$lazy" -ge 32
check "prefault: ~0 faults in the timed region (max $pre)" test "$pre" -le 2
check "faults run ratio is 1" test "$(counts "$TMP/faults.csv" minor-faults run_ratio | sort -u)" = 1.0000
check "NAME.csv has the derived metric (faults per MiB)" test "$(csv_rows "$TMP/faults.csv" job faults_per_mib | awk -F'|' '$1 == "prefault" { print $2 }' | sort -u)" = 0

# read() with a 512-byte buffer over 1 MiB: >= 2048 reads per repetition.
if "$MMPROF" --list-events | sed -n '/^can count/,/^cannot/p' | grep -q 'syscalls:sys_enter_read'; then
	printf '[j]\nprobe = read_buf\nsize = 1M\nbuffer = 512\nrepeat = 3\nevents = syscalls\n' >"$TMP/read.ini"
	run_mmprof --config "$TMP/read.ini" --csv "$TMP/read.csv" --quiet
	check "read_buf runs" test "$rc" -eq 0
	reads=$(counts "$TMP/read.csv" syscalls:sys_enter_read | min_of)
	check "buffer 512: >= 2048 read() calls per MiB (min $reads)" test "$reads" -ge 2048
	check "buffer 512: no stray reads (min $reads)" test "$reads" -le 2050
else
	skip "tracepoints cannot be counted here (see --list-events)"
fi

# Hardware events: empty cells and one explanation when there is no PMU.
printf '[global]\nsize = 256K\nprobe = mmap_byte\nrepeat = 2\nevents = basic\nthreads = 1, 2\n[j]\n' >"$TMP/hw.ini"
run_mmprof --config "$TMP/hw.ini" --csv "$TMP/hw.csv"
check "basic events run" test "$rc" -eq 0
# The events CSV says whether cycles opened; the terminal must agree.
if [ "$(csv_rows "$TMP/hw.events.csv" event state | awk -F'|' '$1 == "cycles" { print $2 }' | sort -u)" = "not supported" ]; then
	check "cycles: no value, never 0" test -z "$(counts "$TMP/hw.csv" cycles | sort -u)"
	check "cycles: its state is said" test "$(csv_rows "$TMP/hw.events.csv" event state | awk -F'|' '$1 == "cycles" { print $2 }' | sort -u)" = "not supported"
	check "cycles: derived metrics empty, never 0" test -z "$(col "$TMP/hw.csv" cycles_per_byte | sort -u)"
	check "no PMU: said once for every hardware event, not per event, thread or run" \
		test "$(grep -c '^mmprof: no hardware PMU here' <<<"$err")" -eq 1 \
		-a "$(grep -c '^mmprof: \(cycles\|instructions\):' <<<"$err")" -eq 0
	check "no PMU: the line counts and names them" \
		grep -q "^mmprof: no hardware PMU here: 2 hardware events not counted (cycles, instructions); software counters only" <<<"$err"
	check "no PMU: each event's reason stays in the events CSV's state" \
		test "$(csv_rows "$TMP/hw.events.csv" event state | awk -F'|' '$1 == "instructions" { print $2 }' | sort -u)" = "not supported"
	check "task-clock still counted" test -z "$(counts "$TMP/hw.csv" task-clock | grep -Ev '^[1-9][0-9]*$')"
	check "NAME.csv's cpu_ns from it" test -z "$(col "$TMP/hw.csv" cpu_ns | grep -Ev '^[1-9][0-9.e+]*$')"
	check "no derived cycle metrics" bash -c '! grep -q "cycles/B" <<<"$1"' _ "$out"
	# exec's default events name 7 hardware events, more than some PMUs'
	# counters: how they would take turns is no news where none opens.
	run_mmprof exec -r 1 --warmup 0 -- /bin/true
	check "no PMU: no note of hardware groups taking turns, only the no-PMU line" \
		test "$rc" -eq 0 -a -z "$(grep 'take turns' <<<"$err")" \
		-a "$(grep -c '^mmprof: no hardware PMU here' <<<"$err")" -eq 1
else
	skip "this machine counts cycles: the no-PMU state is not exercised here"
fi

# No perf_event_open at all (ENOSYS: qemu-user, a kernel without perf
# events), through a seccomp filter: software events cannot count either,
# every cell is empty with its state, and one line says why.
make -s --no-print-directory "${BUILD:-build}/tests/no_perf" >/dev/null 2>&1
if [ -x "${BUILD:-build}/tests/no_perf" ]; then
	printf '[global]\nsize = 256K\nprobe = mmap_byte\nrepeat = 2\nevents = cycles, page-faults, task-clock\nthreads = 1, 2\n[j]\n' >"$TMP/nosys.ini"
	err=$("${BUILD:-build}/tests/no_perf" -e ENOSYS "$MMPROF" --config "$TMP/nosys.ini" \
		--csv "$TMP/nosys.csv" 2>&1 >/dev/null)
	rc=$?
	check "no perf_event_open: the run is still measured (exit $rc)" test "$rc" -eq 0 -a \
		"$(col "$TMP/nosys.csv" result_ok | sort -u)" = true
	check "no perf_event_open: one line names the cause and every event" \
		test "$(grep -c '^mmprof: no perf_event_open here (Function not implemented: a kernel without perf events, or an emulator such as qemu-user): 3 events not counted (cycles, page-faults, task-clock)' <<<"$err")" -eq 1 \
		-a "$(grep -c '^mmprof: \(cycles\|page-faults\|task-clock\):' <<<"$err")" -eq 0
	check "no perf_event_open: not blamed on a missing PMU or the encodings" \
		test -z "$(grep -e 'no hardware PMU' -e 'rejected' <<<"$err")"
	check "no perf_event_open: every event not supported, every value empty, never 0" \
		test "$(csv_rows "$TMP/nosys.events.csv" state | sort -u)" = "not supported" -a \
		-z "$(csv_rows "$TMP/nosys.events.csv" value raw enabled_ns running_ns | grep -v '^|||$')"
	check "no perf_event_open: cpu_ns and faults_per_mib empty in NAME.csv" \
		test -z "$(csv_rows "$TMP/nosys.csv" cpu_ns faults_per_mib | grep -v '^|$')"
	lines=$("${BUILD:-build}/tests/no_perf" -e ENOSYS "$MMPROF" --list-events 2>&1 | sed -n '/^cannot count/,/^$/p' | sed '1d;$d')
	check "no perf_event_open: --list-events gives every event that reason" \
		test -n "$lines" -a -z "$(grep -v 'not supported (perf_event_open: Function not implemented): this kernel has no perf events' <<<"$lines")"
else
	skip "no_perf did not build: the no-perf_event_open state is not exercised"
fi

# --list-events: what can and cannot be counted, with reasons.
run_mmprof --list-events
check "--list-events exits 0" test "$rc" -eq 0
check "--list-events: presets" grep -q "^  contention " <<<"$out"
check "--list-events: can-count list has page-faults" bash -c 'sed -n "/^can count/,/^cannot/p" <<<"$1" | grep -q "^  page-faults "' _ "$out"
check "--list-events: every cannot line has a reason" test -z "$(sed -n '/^cannot count/,/^$/p' <<<"$out" | sed '1d;$d' | grep -Ev 'not supported|denied|not counted')"

# A CPU libpfm4 is told to be: the contention preset becomes Intel's.
out=$(LIBPFM_FORCE_PMU=skl "$MMPROF" --list-events 2>&1)
check "forced Skylake: HITM loads in the contention preset" grep -q "= MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM, MEM_INST_RETIRED:LOCK_LOADS" <<<"$out"
# A server core adds where lines came from when they were not this node's;
# a client core has only the local half, which is left out and said so.
out=$(LIBPFM_FORCE_PMU=skx "$MMPROF" --list-events 2>&1)
check "forced Skylake-SP: remote DRAM, local DRAM, remote HITM and forwards in the contention preset" grep -q "= MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM, MEM_INST_RETIRED:LOCK_LOADS, MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM, MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM, MEM_LOAD_L3_MISS_RETIRED:REMOTE_HITM, MEM_LOAD_L3_MISS_RETIRED:REMOTE_FWD$" <<<"$out"
out=$(LIBPFM_FORCE_PMU=skl "$MMPROF" --list-events 2>&1)
check "forced Skylake client: local DRAM left out, and why" grep -q "MEM_LOAD_L3_MISS_RETIRED:LOCAL_DRAM (left out: the other half of its ratio is not on this CPU)" <<<"$out"
printf '[j]\nprobe = limit\nsize = 64K\nrepeat = 2\nevents = contention\n' >"$TMP/remote.ini"
LIBPFM_FORCE_PMU=skx "$MMPROF" --config "$TMP/remote.ini" --csv "$TMP/remote.csv" >/dev/null 2>"$TMP/remote.err"
rc=$?
check "forced Skylake-SP: a run with the contention preset exits 0 (got $rc)" test "$rc" -eq 0
if grep -q "^mmprof: MEM_LOAD_L3_MISS_RETIRED:REMOTE_DRAM: not supported" "$TMP/remote.err"; then
	check "no PMU: the remote metrics are empty, never 0" test -z "$(csv_rows "$TMP/remote.csv" remote_hitm_per_kib remote_fwd_per_kib remote_dram_share cross_ccx_per_kib | tr -d '|' | sort -u)"
else
	skip "the forced Skylake-SP events open here: the no-PMU cells are not exercised"
fi
# (Forcing a PMU leaves libpfm4 only that PMU: perf's generic names go.)
printf '[j]\nprobe = limit\nsize = 4K\nevents = MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM, MEM_INST_RETIRED:LOCK_LOADS\n' >"$TMP/skl.ini"
out=$(LIBPFM_FORCE_PMU=skl "$MMPROF" --config "$TMP/skl.ini" --dry-run 2>&1)
check "forced Skylake: Intel event names encode" grep -q "events=MEM_LOAD_L3_HIT_RETIRED:XSNP_HITM, MEM_INST_RETIRED:LOCK_LOADS" <<<"$out"
run_mmprof --config "$TMP/skl.ini" --dry-run
check "the same names are an error on this CPU unless it is Intel" bash -c '[ "$1" -eq 2 ] || grep -q "GenuineIntel" /proc/cpuinfo' _ "$rc"

# A bad event name is a config error with its line and a did-you-mean.
printf '[j]\nprobe = limit\nsize = 4K\n\nevents = faults, cycels\n' >"$TMP/bad.ini"
run_mmprof --config "$TMP/bad.ini"
check "bad event: exit 2" test "$rc" -eq 2
check "bad event: FILE:LINE and did-you-mean" grep -qF "$TMP/bad.ini:5: [j] unknown event 'cycels' (did you mean 'cycles'?)" <<<"$err"

# --per-thread: one row per thread and repetition, with per-thread counts.
printf '[j]\nprobe = mmap_byte\nsize = 1M\nthreads = 2\nrepeat = 3\nevents = faults\n' >"$TMP/pt.ini"
run_mmprof --config "$TMP/pt.ini" --csv "$TMP/pt.csv" --per-thread --quiet
check "--per-thread: exit 0" test "$rc" -eq 0
check "--per-thread: NAME.threads.csv has 2 x 3 rows" test "$(($(wc -l <"$TMP/pt.threads.csv") - 1))" -eq 6
check "--per-thread: threads 0 and 1" test "$(col "$TMP/pt.threads.csv" thread | sort -u | paste -sd,)" = "0,1"
sum_threads=$(csv_rows "$TMP/pt.events.csv" rep thread event value | awk -F'|' '$1 == 0 && $2 != "" && $3 == "minor-faults" { s += $4 } END { print s + 0 }')
check "--per-thread: thread counts add up to the row's ($sum_threads)" test "$sum_threads" = "$(counts "$TMP/pt.csv" minor-faults | head -1)"
check "without --per-thread: no threads file" test ! -e "$TMP/faults.threads.csv"
check "--per-thread: each thread's allowed PUs, as it saw them" test "$(col "$TMP/pt.threads.csv" allowed | sort -u | paste -sd' ')" = "0 1"

# More hardware events than the PMU has counters: several groups, said so.
printf '[j]\nprobe = limit\nsize = 64K\nrepeat = 1\nevents = basic, cache, tlb\n' >"$TMP/groups.ini"
run_mmprof --config "$TMP/groups.ini" --csv "$TMP/groups.csv"
counters=$("$MMPROF" --list-events | sed -n 's/.*(\([0-9]*\) generic counters per group).*/\1/p')
if ! ls /sys/bus/event_source/devices | grep -Eq '^(cpu|cpu_.*|armv.*)$'; then
	# (the arm64 guest has a PMU: tests/integration/vm_pmu.sh sees the note)
	check "8 hardware events, no PMU: no split into groups to speak of" bash -c '! grep -q "measured as" <<<"$1"' _ "$err"
elif [ "${counters:-0}" -lt 8 ]; then
	check "8 hardware events, $counters counters: the split into groups is said" grep -Eq "^mmprof: note: events = basic, cache, tlb has 8 hardware events; .* has $counters counters, so they are measured as $(((8 + counters - 1) / counters)) groups" <<<"$err"
else
	check "8 hardware events, $counters counters: one group, nothing to say" bash -c '! grep -q "measured as" <<<"$1"' _ "$err"
fi

# A user who cannot read a mounted tracefs (its root is 0700 root's by
# default) is told that, and how to grant it -- not that it is unmounted.
tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null || [ -z "$tracefs" ]; then
	skip "non-root tracefs message: needs root, setpriv and a mounted tracefs"
elif setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$tracefs/events"; then
	skip "non-root tracefs message: $tracefs is readable by nobody here"
else
	bin=$(realpath "$MMPROF")
	msg=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin" --list-events 2>&1 | grep 'syscalls:sys_enter_read')
	check "as nobody: tracefs is mounted at $tracefs but cannot be read, how to grant it" \
		grep -q "tracefs is mounted at $tracefs but this user cannot read it (mode 0700.*remount,mode=755" <<<"$msg"
fi

done_testing
