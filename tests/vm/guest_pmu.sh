# Runs inside the arm64 guest (busybox sh; tests/vm/vm.sh arm64: virt,
# -cpu max,pmu=on): hardware events on a real PMU driver.  It checks
# nothing itself: it sends the driver's line and mmprof's outputs back as
# "@@file NAME" blocks, and tests/integration/vm_pmu.sh judges them.
. /vm/guest_lib.sh
dmesg | grep 'hw perfevents' >pmu.txt
send pmu.txt
run list mmprof --list-events

# cycles counts; instructions (INST_RETIRED, which qemu counts only under
# -icount) stays empty with its state; a software event beside them.
cat >count.ini <<INI
[global]
repeat = 2
warmup = 0
[count]
probe = mmap_byte
size = 256K
events = cycles, instructions, page-faults
INI
run count mmprof --config count.ini --csv count.csv --per-thread

# Ten hardware events (raw PMUv3 event numbers; 0x11 is CPU_CYCLES) on a
# PMU of 7 counters: more groups than fit at once, so the kernel rotates
# them and mmprof scales each count by enabled / running.
cat >mux.ini <<INI
[global]
repeat = 2
warmup = 0
[mux]
probe = mmap_byte
size = 2M
events = cycles, perf_raw::r11, perf_raw::r1, perf_raw::r2, perf_raw::r3, perf_raw::r4, perf_raw::r5, perf_raw::r8, perf_raw::r23, perf_raw::r24
INI
run mux mmprof --config mux.ini --csv mux.csv

run shape mmprof --config /vm/shape.ini --csv shape.csv -q

# The PMU busy: hold_pmu pins CPU-wide events on every CPU, as another
# tool would, and runs mmprof with them held.  All of them taken: no group
# of mmprof's goes on, even split down to single events.  Four of the six
# generic ones taken: mmprof's group of four (cycles and three generic)
# does not fit in what is left, its halves do, taking turns (2 MiB: enough
# of the kernel's 4 ms turns under TCG for every group to get some).
H=$(ls /src/*/arm64/tests/hold_pmu 2>/dev/null) # as vm_pmu.sh put it in the image
cat >busy.ini <<INI
[global]
repeat = 2
warmup = 0
[busy]
probe = mmap_byte
size = 2M
events = cycles, perf_raw::r1, perf_raw::r2, perf_raw::r3, page-faults
INI
run busyall $H -c all mmprof --config busy.ini --csv busyall.csv
run busy4 $H 4 mmprof --config busy.ini --csv busy4.csv

# libpfm4 told of more counters than this PMU has (A64FX: 8 generic; here
# 6 and the cycle counter), so mmprof plans one group of eight: the
# kernel refuses the seventh member (its own group then), and the six
# left with their disabled leader open but never fit.
cat >over.ini <<INI
[global]
repeat = 2
warmup = 0
[over]
probe = mmap_byte
size = 2M
events = L1I_CACHE_REFILL, L1I_TLB_REFILL, L1D_CACHE_REFILL, L1D_CACHE, L1D_TLB_REFILL, INST_RETIRED, BR_MIS_PRED, BR_PRED
INI
LIBPFM_FORCE_PMU=arm_a64fx run over mmprof --config over.ini --csv over.csv

# The unit tests qemu-user cannot run for real (no perf_event_open, no
# NUMA calls there: tests/integration/arm64.sh), as tests/run.sh runs
# them, from the tree's copy in /src.
mkdir -p /tmp/unit
here=$PWD
for t in /src/*/arm64/tests/test_*; do
	[ -x "$t" ] || continue
	n=${t##*/} b=${t#/src/}
	(cd /src && BUILD=${b%/tests/*} CMOCKA_MESSAGE_OUTPUT=TAP MMPROF_TEST_TMP=/tmp/unit \
		"$t" >"$here/$n.out" 2>&1; echo $? >"$here/$n.rc")
	send "$n.out"
	send "$n.rc"
done
