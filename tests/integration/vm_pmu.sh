# Hardware counters on a real PMU driver: an emulated arm64 machine
# (tests/vm/vm.sh arm64: qemu virt, -cpu max,pmu=on, "armv8_pmuv3 PMU
# driver, 7 counters available") runs tests/vm/guest_pmu.sh with the arm64
# mmprof (make cross-arm64), and what it sends back is checked here.
# Counts under emulation are the emulator's: only that they were opened,
# read, scaled and reported right is checked, never what they say of speed.
source "$(dirname "$0")/tap.bash"

source tests/vm/host.bash
arm=${MMPROF_ARM64:-${BUILD:-build}/arm64/mmprof}
if [ -z "${MMPROF_ARM64:-}" ]; then
	grep -q '^cross-arm64:' Makefile ||
		skip_rest "emulated arm64: this tree has no arm64 build (make cross-arm64)"
	make --no-print-directory cross-arm64 >"$TMP/cross.log" 2>&1 ||
		vm_unavailable "the arm64 mmprof (make cross-arm64)" "$(tail -1 "$TMP/cross.log")"
fi
# The unit tests that need what qemu-user lacks (perf_event_open, the NUMA
# calls), the helpers they and the guest script run, and their inputs.
# The whole unit suite does not fit here: TCG runs test_probes alone for
# more than five minutes; arm64.sh runs all of it under qemu-user.
# (From this tree's build only: a binary given as MMPROF_ARM64 comes alone.)
A=${BUILD:-build}/arm64
guest_unit="test_counters test_memory test_memory_refused test_profile"
paths=()
if [ -z "${MMPROF_ARM64:-}" ]; then
	for f in $guest_unit hold_pmu hot hot-stripped planted jit; do
		[ -x "$A/tests/$f" ] && paths+=("$A/tests/$f")
	done
	[ ${#paths[@]} -eq 0 ] || paths+=(tests/topologies tests/helpers/hot.c)
fi
boot_guest "the arm64 guest" arm64 "$arm" tests/vm/guest_pmu.sh "${paths[@]+"${paths[@]}"}"
# state NAME EVENT: the states of an event's sums over threads, one per rep
state() { csv_rows "$G/$1.events.csv" thread event state | awk -F'|' -v e="$2" '$1 == "" && $2 == e { print $3 }' | sort -u; }

check "the guest kernel has the PMU driver ($(cat "$G/pmu.txt"))" \
	grep -q 'armv8_pmuv3 PMU driver, [0-9]* counters available' "$G/pmu.txt"
check "--list-events: cycles can be counted, as a hardware event" \
	grep -Eq '^  cycles +hardware ' "$G/list.out"

# One group that fits: cycles counted the whole time, instructions empty.
check "count: exits 0" test "$(rc_of count)" = 0
check "cycles: counted in every repetition" test "$(state count cycles)" = counted
ev=$(csv_rows "$G/count.events.csv" thread event value raw enabled_ns running_ns | grep '^|cycles|')
check "cycles: a count > 0, raw = value, running = enabled ($(head -1 <<<"$ev"))" \
	test -z "$(awk -F'|' '!($3 > 0 && $3 == $4 && $5 > 0 && $5 == $6)' <<<"$ev")" -a -n "$ev"
check "cycles per byte is in the CSV" \
	test -z "$(csv_col "$G/count.csv" cycles_per_byte | grep -v '^[0-9.]*[1-9][0-9.]*$')"
check "instructions (not on this PMU without -icount): not supported, every cell empty" \
	test "$(state count instructions)" = "not supported" -a \
	-z "$(csv_rows "$G/count.events.csv" event value raw enabled_ns | grep '^instructions|' | grep -v '^instructions|||$')"
check "... and said once on stderr" test "$(grep -c '^mmprof: instructions: not supported' "$G/count.err")" = 1
check "page-faults counted beside them" test "$(state count page-faults)" = counted

# Ten hardware events on 7 counters: groups take turns, counts are scaled.
check "mux: exits 0" test "$(rc_of mux)" = 0
check "mux: mmprof says the events take turns in groups" \
	grep -q 'has 10 hardware events; .* so they are measured as 3 groups that take turns' "$G/mux.err"
rows=$(csv_rows "$G/mux.events.csv" thread event value raw enabled_ns running_ns state | grep '^|')
check "mux: every event scaled, running < enabled" \
	test -z "$(awk -F'|' '!($7 == "scaled" && $6 > 0 && $6 < $5)' <<<"$rows")" -a "$(grep -c '' <<<"$rows")" = 20
check "mux: value = raw x enabled / running (within rounding)" \
	test -z "$(awk -F'|' '{ w = $4 * $5 / $6; if ($3 - w > 1 || w - $3 > 1) print }' <<<"$rows")"
check "mux: cycles and raw 0x11 (CPU_CYCLES) in one group count alike (within 1%)" \
	test -z "$(awk -F'|' '$2 == "cycles" { c[n++] = $3 } $2 == "perf_raw::r11" { r[m++] = $3 }
		END { for (i = 0; i < n; i++) if (c[i] <= 0 || (c[i] - r[i]) / c[i] > 0.01 || (r[i] - c[i]) / c[i] > 0.01) print i }' <<<"$rows")"
groups=$(awk -F'|' '{ print $5, $6 }' <<<"$rows" | sort -u | grep -c '')
check "mux: 3 groups, each member sharing its group's times (2 reps: $groups distinct)" \
	test "$groups" = 6

# The same config here (x86-64) and there (arm64): the same shape.
check "shape: exits 0 on arm64" test "$(rc_of shape)" = 0
run_mmprof --config tests/vm/shape.ini --csv "$TMP/shape.csv" -q
check "shape: exits 0 here" test "$rc" -eq 0
check "shape: the same CSV columns" test "$(head -1 "$G/shape.csv")" = "$(head -1 "$TMP/shape.csv")"
cols="job probe threads unit ops run rep result_ok"
check "shape: the same runs, repetitions, units and right answers" \
	test "$(csv_rows "$G/shape.csv" $cols)" = "$(csv_rows "$TMP/shape.csv" $cols)"
check "shape: every answer right" test -z "$(csv_col "$G/shape.csv" result_ok | grep -v true)"
check "shape: the same event rows" \
	test "$(csv_rows "$G/shape.events.csv" run rep thread event)" = "$(csv_rows "$TMP/shape.events.csv" run rep thread event)"
check "shape: software events in the same states" \
	test "$(csv_rows "$G/shape.events.csv" event state | grep -v '^cycles|')" = \
	"$(csv_rows "$TMP/shape.events.csv" event state | grep -v '^cycles|')"
check "shape: cycles counted on arm64 ($(state shape cycles | tr '\n' ' '))" \
	test -z "$(state shape cycles | grep -Ev '^(counted|scaled)$')"
# The PMU busy (hold_pmu, pinned CPU-wide events on every CPU).
if [ ! -s "$G/busyall.rc" ] || [ "$(rc_of busyall)" = 127 ]; then
	skip "the busy PMU: hold_pmu was not in the image (MMPROF_ARM64 given, or not built)"
else
	check "hold_pmu took the cycle counter and every generic counter on each CPU" \
		test "$(grep -c 'holding the cycle counter and [0-9]* generic counter(s), all there were' "$G/busyall.err")" = 2
	check "every counter held: exits 0, every answer right" \
		test "$(rc_of busyall)" = 0 -a "$(csv_col "$G/busyall.csv" result_ok | sort -u)" = true
	hw="cycles perf_raw::r1 perf_raw::r2 perf_raw::r3"
	bad=$(for e in $hw; do [ "$(state busyall "$e")" = "not counted" ] || echo "$e"; done)
	check "... every hardware event not counted in every repetition${bad:+ (not: $bad)}" test -z "$bad"
	check "... their cells empty, never 0" \
		test -z "$(csv_rows "$G/busyall.events.csv" event value raw enabled_ns running_ns | grep -v '^page-faults|' | grep -v '^[^|]*||||$')"
	check "... cycles per byte empty in NAME.csv" test -z "$(csv_col "$G/busyall.csv" cycles_per_byte | sort -u)"
	check "... each said on stderr, once" \
		test "$(grep -c '^mmprof: \(cycles\|perf_raw::r[123]\): not counted in \[busy\]' "$G/busyall.err")" = 4
	check "... page-faults counted beside them" test "$(state busyall page-faults)" = counted
	check "... the group was split down to single events, none of which went on (said)" \
		grep -q '^mmprof: note: events = cycles, perf_raw::r1, perf_raw::r2, perf_raw::r3, page-faults: the PMU would not take one group of them at once .* split it 3 time(s)' "$G/busyall.err"

	check "four generic counters held: hold_pmu says so on each CPU" \
		test "$(grep -c 'holding 4 generic counter(s)$' "$G/busy4.err")" = 2
	check "... exits 0" test "$(rc_of busy4)" = 0
	rows=$(csv_rows "$G/busy4.events.csv" thread event value raw enabled_ns running_ns state | grep -v '^|page-faults|')
	check "... the group of four did not fit in what was left: split once, said" \
		grep -q 'the PMU would not take one group of them at once .* split it 1 time(s)' "$G/busy4.err"
	check "... its halves take turns: every hardware event scaled, running < enabled" \
		test -z "$(awk -F'|' '!($7 == "scaled" && $6 > 0 && $6 < $5)' <<<"$rows")" -a "$(grep -c '' <<<"$rows")" = 8
	check "... value = raw x enabled / running (within rounding)" \
		test -z "$(awk -F'|' '{ w = $4 * $5 / $6; if ($3 - w > 1 || w - $3 > 1) print }' <<<"$rows")"
	check "... cycles counted (> 0) in every repetition" \
		test -z "$(awk -F'|' '$2 == "cycles" && !($3 > 0)' <<<"$rows")"
	check "... cycles and perf_raw::r1 share one group's times, r2 and r3 the other's" \
		test -z "$(awk -F'|' '{ t[$2] = t[$2] " " $5 "/" $6 } END { if (t["cycles"] != t["perf_raw::r1"] || t["perf_raw::r2"] != t["perf_raw::r3"] || t["cycles"] == t["perf_raw::r2"]) print "differ" }' <<<"$rows")"

	# libpfm4 told of 8 counters: the refused member on its own, the
	# rest split in two.  Before the split, the seven never went on.
	check "libpfm4 told of 8 counters: exits 0" test "$(rc_of over)" = 0
	rows=$(csv_rows "$G/over.events.csv" thread event value raw enabled_ns running_ns state | grep '^|')
	check "... every one of the eight counted in every repetition (scaled), none 'not counted'" \
		test -z "$(awk -F'|' '!($7 == "scaled" && $6 > 0 && $6 < $5)' <<<"$rows")" -a "$(grep -c '' <<<"$rows")" = 16
	check "... the group the PMU could not take was split, said" \
		grep -q 'the PMU would not take one group of them at once (another tool holds counters, or it has fewer than the 8 libpfm4 counts for arm_a64fx), so mmprof split it 1 time(s)' "$G/over.err"
	check "... the first four share one group's times, the next three another's" \
		test -z "$(awk -F'|' '{ k = $5 "/" $6; i = n[NR > 8]++; g[NR > 8, i] = k }
			END { for (r = 0; r < 2; r++) { if (g[r,0] != g[r,1] || g[r,0] != g[r,2] || g[r,0] != g[r,3] || g[r,4] != g[r,5] || g[r,4] != g[r,6] || g[r,0] == g[r,4]) print r } }' <<<"$rows")"
fi

# The unit tests that need a real perf_event_open and NUMA calls, run in
# the guest.
if [ ! -s "$G/test_counters.rc" ]; then
	skip "unit tests in the guest: not in the image (MMPROF_ARM64 given, or not built)"
else
	# test_profile's hot-function, stripped and growth cases compare
	# samples with the CPU time the program spent spinning, which TCG on
	# a shared host does not give steadily (seen: the stripped program's
	# start-up outweighing 200 ms of spinning); its other cases are judged,
	# the JIT one among them (its loop is counted in iterations, not time).
	for n in ${guest_unit% test_profile}; do
		out=$(cat "$G/$n.out" 2>/dev/null)
		if [ "$(cat "$G/$n.rc" 2>/dev/null)" = 0 ] && grep -q '^1\.\.' <<<"$out" &&
			! grep -v '# SKIP' <<<"$out" | grep -q '^not ok'; then
			ok "arm64 guest: $n passes ($(grep -c '^ok ' <<<"$out") passed, $(grep -c '# SKIP' <<<"$out") skipped)"
		else
			fail "arm64 guest: $n (exit $(cat "$G/$n.rc" 2>/dev/null))" \
				"$(grep -v '^ok ' <<<"$out" | tail -15 | sed 's/^/  /')"
		fi
	done
	for t in test_software_group_counts test_large_group_counts test_tracepoint_counts_reads; do
		check "arm64 guest: $t counted for real, not skipped" grep -q "^ok [0-9]* - $t\$" "$G/test_counters.out"
	done
	check "arm64 guest: test_hardware_state finds the PMU (cycles opened)" \
		grep -q '^# this machine has a PMU: cycles opened' "$G/test_counters.out"
	for t in test_parse_records test_faults_by_mapping test_where_jit; do
		check "arm64 guest: test_profile's $t passes" grep -q "^ok [0-9]* - $t\$" "$G/test_profile.out"
	done
	check "arm64 guest: test_profile samples for real (nothing skipped: perf_event_open samples there)" \
		test -s "$G/test_profile.out" -a -z "$(grep '# SKIP' "$G/test_profile.out")"
	check "arm64 guest: test_memory binds and reads page locations for real, nothing skipped" \
		test -z "$(grep '# SKIP' "$G/test_memory.out")"
fi
done_testing
