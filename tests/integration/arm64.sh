# mmprof on arm64: the cross build (make cross-arm64, warning-free with
# -Werror), the probes' vector code on each architecture, every unit test
# and the binary run natively on arm64 under qemu-user, and the x86-64
# baseline that CPUs without AVX2 run.  qemu-user has no perf_event_open
# and no NUMA calls (both ENOSYS): what needs them skips with mmprof's
# reason here, and runs for real in the arm64 guest (vm_pmu.sh).
source "$(dirname "$0")/tap.bash"

if ! command -v aarch64-linux-gnu-gcc >/dev/null; then
	skip_rest "no arm64 cross compiler (aarch64-linux-gnu-gcc: make deps installs it where apt can)"
fi
A=build/arm64
log=$TMP/cross.log
if make -s -j2 cross-arm64 >"$log" 2>&1; then
	ok "make cross-arm64: binary, unit tests and helpers, -Wall -Wextra -Werror"
else
	fail "make cross-arm64" "$(grep -m5 -E 'error|warning' "$log")" "$(tail -3 "$log")"
	done_testing
	exit 0
fi
check "the binary is arm64" bash -c 'file -b "$1" | grep -q "ARM aarch64"' _ "$A/mmprof"

disasm() { # disasm OBJDUMP OBJECT FUNCTION
	"$1" -dr --no-show-raw-insn "$2" | awk -v f="<$3>:" '$2 == f { on = 1; next } on && /^$/ { exit } on'
}
# limit's ceiling on arm64: NEON compares on q registers (a 32-byte generic
# vector there became byte-at-a-time scalar code).
body=$(disasm aarch64-linux-gnu-objdump "$A/probes/limit.o" limit_run)
check "arm64 limit: NEON byte compares (cmeq v.16b)" grep -Eq 'cmeq[[:space:]]+v[0-9]+\.16b' <<<"$body"
# The single-byte probe stays one scalar load per byte there too.
body=$(disasm aarch64-linux-gnu-objdump "$A/probes/mmap_byte.o" mmap_byte_run)
check "arm64 mmap_byte: byte loads" grep -Eq 'ldrb' <<<"$body"
check "arm64 mmap_byte: no SIMD registers" bash -c '! grep -Eq "[[:space:],]v[0-9]+\." <<<"$1"' _ "$body"

# qemu-user: -L / finds the multiarch arm64 ld.so and libc; the cross
# toolchain's ld.so (-L /usr/aarch64-linux-gnu) with the multiarch libc
# hangs in the first pthread_create.  A hung emulator ignores SIGTERM.
qemu() { timeout -s KILL "${MMPROF_QEMU_TIMEOUT:-300}" qemu-aarch64 -L / "$@"; }
if ! command -v qemu-aarch64 >/dev/null; then
	skip "arm64 unit tests and binary: qemu-user is not installed (make deps)"
else
	# Every unit test, as tests/run.sh runs them here.  Each skip must
	# come with its reason (a "# " line before it).
	for t in "$A"/tests/test_*; do
		[ -x "$t" ] && [[ $t != *.d ]] || continue
		name=$(basename "$t")
		out=$(BUILD=$A CMOCKA_MESSAGE_OUTPUT=TAP qemu "$t" 2>&1)
		trc=$?
		oks=$(grep -c '^ok ' <<<"$out")
		skips=$(grep -c '# SKIP' <<<"$out")
		bare=$(awk '/# SKIP/ && prev !~ /^# / { print $NF } { prev = $0 }' <<<"$out")
		if [ "$trc" -eq 0 ] && grep -q '^1\.\.' <<<"$out" && [ -z "$bare" ] &&
			! grep -v '# SKIP' <<<"$out" | grep -q '^not ok'; then
			said=""
			[ "$skips" -eq 0 ] || said=", $skips skipped, each with its reason"
			ok "arm64 $name under qemu-user: $oks passed$said"
		else
			fail "arm64 $name under qemu-user (exit $trc${bare:+; skipped without a reason: $bare})" \
				"$(grep -v '^ok ' <<<"$out" | grep -v '^# ' | tail -15 | sed 's/^/  /')"
		fi
	done

	# The binary: what it says where perf_event_open and the NUMA calls
	# answer ENOSYS, and a run measured all the same.
	cat >"$TMP/q.ini" <<'INI'
[global]
repeat = 2
warmup = 0
size = 64K
events = cycles, page-faults, task-clock
[bytes]
probe = mmap_byte
threads = 2
[bound]
probe = mmap_byte
membind = node:0
bind = best-effort
INI
	err=$(MMPROF_DATA=$TMP/data qemu "$A/mmprof" --config "$TMP/q.ini" --csv "$TMP/q.csv" 2>&1 >/dev/null)
	qrc=$?
	check "arm64 mmprof under qemu-user: the runs are measured, every result right (exit $qrc)" \
		test "$qrc" -eq 0 -a "$(csv_col "$TMP/q.csv" result_ok | sort -u)" = true
	check "... no perf_event_open: one line names the cause and the events" \
		grep -q '^mmprof: no perf_event_open here (Function not implemented: a kernel without perf events, or an emulator such as qemu-user): 3 events not counted (cycles, page-faults, task-clock)' <<<"$err"
	check "... not blamed on the encodings" bash -c '! grep -q rejected <<<"$1"' _ "$err"
	check "... every event not supported, every cell empty" \
		test "$(csv_rows "$TMP/q.events.csv" state | sort -u)" = "not supported" -a \
		-z "$(csv_rows "$TMP/q.events.csv" value raw | grep -v '^|$')"
	check "... mbind refused (ENOSYS): best-effort says it is not applied, and why" \
		grep -q '^mmprof: note: .*best-effort: not applied, this process may not bind memory: mbind: Function not implemented (an emulator such as qemu-user, or a kernel without NUMA)' <<<"$err"
	sed -i 's/^bind = best-effort$/bind = strict/' "$TMP/q.ini"
	err=$(MMPROF_DATA=$TMP/data qemu "$A/mmprof" --config "$TMP/q.ini" --csv "$TMP/q2.csv" 2>&1 >/dev/null)
	qrc=$?
	check "... strict: refused before anything runs (exit $qrc), with the cause and the way out" \
		test "$qrc" -eq 2 -a -n "$(grep 'mbind: Function not implemented (an emulator such as qemu-user' <<<"$err" | grep 'bind = best-effort')"
fi

# x86-64 without AVX2 runs the SSE2 baseline: vector compares, and the
# same counts as a naive loop on a CPU model that lacks AVX2.
body=$(disasm objdump "${BUILD:-build}/probes/limit.o" limit_run)
check "x86-64 limit baseline: SSE2 compares (pcmpeqb xmm)" grep -Eq 'pcmpeqb[[:space:]]+%xmm' <<<"$body"
if ! command -v qemu-x86_64 >/dev/null; then
	skip "x86-64 without AVX2: qemu-user is not installed (make deps)"
elif out=$(qemu-x86_64 -cpu Nehalem "${BUILD:-build}/tests/test_probes" 2>&1); then
	ok "x86-64 without AVX2 (qemu-x86_64 -cpu Nehalem): every probe's counts, limit's baseline included"
else
	fail "x86-64 without AVX2: test_probes" "$(grep -m5 -E 'FAIL|Error' <<<"$out")"
fi
done_testing
