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
