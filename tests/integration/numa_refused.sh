# Runs where the NUMA system calls are refused, as Docker's default seccomp
# profile refuses mbind, set_mempolicy, get_mempolicy and move_pages to a
# container without CAP_SYS_NICE (tests/helpers/numa_refused.c installs
# such a filter).  Representative configs run under it with the same
# answers' shape as without; firsttouch needs no binding call; strict
# binding stops once at the start with the cause and the way out;
# best-effort runs with a note; the page census says unknown.
source "$(dirname "$0")/tap.bash"

BUILD=${BUILD:-build}
WRAP=$PWD/$BUILD/tests/numa_refused
HELPER=$PWD/$BUILD/tests/exec_helper
make -s --no-print-directory "$WRAP" "$HELPER" >/dev/null 2>&1
if ! "$WRAP" true 2>"$TMP/wrap.err"; then
	skip_rest "cannot install a seccomp filter here: $(cat "$TMP/wrap.err")"
fi
refused() { out=$("$WRAP" "$MMPROF" "$@" 2>"$TMP/stderr"); rc=$?; err=$(cat "$TMP/stderr"); }

# The filter really refuses, and mmprof says so where it describes the machine.
refused --topology
check "--topology under the filter runs" test "$rc" -eq 0
check "--topology: memory binding refused, with the way out" \
	grep -q 'memory binding: refused, mbind: Operation not permitted.*CAP_SYS_NICE.*bind = best-effort' <<<"$out"
check "--topology: page locations refused, the census says unknown" \
	grep -q 'page locations: refused, move_pages: Operation not permitted.*unknown' <<<"$out"
run_mmprof --topology
check "--topology without the filter: binding allowed" grep -q 'memory binding: allowed' <<<"$out"
refused --list-events
check "--list-events under the filter says what may not be done" \
	bash -c 'grep -q "memory binding: refused" <<<"$1" && grep -q "page locations: refused" <<<"$1"' _ "$out"

# The same config with and without the filter: the same rows, every result
# ok, the same questions asked, and no page census guessed.
rows() { csv_rows "$1" job probe threads access refcount result_ok | sort; }
# (which job a "fastest" answer names is measured: not part of the shape)
questions() { csv_rows "${1%.csv}.answers.csv" set kind question | sort; }
same_shape() { # same_shape NAME CONFIG
	local name=$1 cfg=$2
	run_mmprof --config "$cfg" --csv "$TMP/$name.free.csv" --quiet
	local free_rc=$rc
	refused --config "$cfg" --csv "$TMP/$name.refused.csv" --quiet
	check "$name: runs under the filter (exit $rc, as without: $free_rc)" test "$rc" -eq "$free_rc"
	check "$name: every result ok under the filter" \
		bash -c '! grep -qv "|true$" <<<"$1" && test -n "$1"' _ "$(rows "$TMP/$name.refused.csv")"
	check "$name: the same rows as without the filter" \
		test "$(rows "$TMP/$name.refused.csv")" = "$(rows "$TMP/$name.free.csv")"
	if [ -f "$TMP/$name.free.answers.csv" ]; then
		check "$name: the same questions answered" \
			test "$(questions "$TMP/$name.refused.csv")" = "$(questions "$TMP/$name.free.csv")"
	fi
}
same_shape byte_8t tests/configs/shape_byte_8t.ini
check "byte_8t: the page census says unknown under the filter" \
	test "$(csv_col "$TMP/byte_8t.refused.csv" data_nodes | sort -u)" = unknown
check "byte_8t: and counts pages without it" \
	grep -q "^[0-9]*:[0-9]" <<<"$(csv_col "$TMP/byte_8t.free.csv" data_nodes)"
check "byte_8t: no state node guessed under the filter" \
	test -z "$(csv_col "$TMP/byte_8t.refused.csv" state_node | sort -u)"
same_shape read_mmap_fread tests/configs/shape_read_mmap_fread.ini

printf '[global]\nsize = 1M\nseed = 5\nrepeat = 2\nwarmup = 0\nevents = none\n\n[count]\nprobe = exec\ncommand = %s count {file}\nresult = output:Found (\\d+) zero\ntime = output:took (.*)\n' \
	"$HELPER" >"$TMP/exec.ini"
same_shape exec "$TMP/exec.ini"
printf '[global]\nrepeat = 2\nwarmup = 0\nevents = none\nthreads = 2\nops = 2000\n\n[pingpong]\nprobe = pingpong\n\n[chase]\nprobe = chase\nsize = 256K\nthreads = 1\n' >"$TMP/ops.ini"
same_shape pingpong_chase "$TMP/ops.ini"

# firsttouch, the default, makes no binding call at all: the one mbind is
# the question asked when the topology is loaded (MPOL_DEFAULT on a page
# of mmprof's own).
if command -v strace >/dev/null; then
	strace -f -qq -o "$TMP/strace" -e trace=mbind,set_mempolicy \
		"$MMPROF" --config tests/configs/shape_byte_8t.ini --csv "$TMP/st.csv" --quiet >/dev/null 2>&1
	check "firsttouch: no binding call (only the MPOL_DEFAULT question)" \
		test "$(grep -c -E 'mbind|set_mempolicy' "$TMP/strace")" -eq 1
	check "firsttouch: the one call is the question" grep -q 'MPOL_DEFAULT' "$TMP/strace"
else
	skip "firsttouch makes no binding call: strace is not installed"
fi

# Binding asked for, strict: stops before anything runs, once, with the
# cause and the ways out.
printf '[global]\nsize = 1M\nrepeat = 1\nwarmup = 0\nevents = none\n\n[anon]\nprobe = mmap_block\ndata = anon\nmembind = node:0, interleave, local\n' >"$TMP/strict.ini"
refused --config "$TMP/strict.ini" --csv "$TMP/strict.csv"
check "strict binding refused: exit 2 (exit $rc)" test "$rc" -eq 2
check "strict binding refused: said once" test "$(grep -c 'may not bind memory' <<<"$err")" -eq 1
check "strict binding refused: names the line, the cause and the ways out" \
	grep -q "strict.ini:[0-9]*: .*may not bind memory: mbind: Operation not permitted.*seccomp.*CAP_SYS_NICE.*bind = best-effort" <<<"$err"
check "strict binding refused: nothing was run" test ! -e "$TMP/strict.csv"
# best-effort: runs, says once that the binding is not applied.
sed 's/^events = none$/events = none\nbind = best-effort/' "$TMP/strict.ini" >"$TMP/best.ini"
refused --config "$TMP/best.ini" --csv "$TMP/best.csv"
check "best-effort binding refused: runs (exit $rc)" test "$rc" -eq 0
check "best-effort binding refused: one note" test "$(grep -c 'note: .*not applied, this process may not bind memory' <<<"$err")" -eq 1
check "best-effort binding refused: three rows, every result ok" \
	test "$(csv_col "$TMP/best.csv" result_ok | sort | uniq -c | awk '{print $1, $2}')" = "3 true"
done_testing
