# Other builds: clang with -Werror, and clang with AddressSanitizer +
# UndefinedBehaviorSanitizer running the unit tests and the tiny config;
# another BUILD's binary stays in it, and the archive holds no object of
# a deleted source.  (Incremental: the objects stay in build/clang and
# build/asan.)
source "$(dirname "$0")/tap.bash"

if ! command -v clang >/dev/null; then
	skip_rest "clang is not installed (make deps)"
fi

log=$TMP/clang.log
if make -s BUILD=build/clang BIN=build/clang/mmprof CC=clang build/clang/mmprof >"$log" 2>&1; then
	ok "clang build, -Wall -Wextra -Werror"
else
	fail "clang build" "$(tail -5 "$log")"
fi
# Another BUILD without BIN: its binary goes under it, never over ./mmprof
# (before, BIN was mmprof whatever BUILD was, so a clang build replaced
# the gcc binary the other tests and valgrind.sh run).  Asked with -n:
# doing it wrongly would replace ./mmprof under the tests running now.
links=$(make -n -B BUILD=build/clang CC=clang build/clang/mmprof.1 2>&1 | grep -E -- ' -o [^ ]*mmprof ' |
	sed -E 's/.* -o ([^ ]*mmprof) .*/\1/' | sort -u | paste -sd' ')
check "BUILD=build/clang alone: the binary is build/clang/mmprof ($links)" test "$links" = build/clang/mmprof
check "... the default build's is still ./mmprof" \
	test "$(make -n -B build/mmprof.1 2>&1 | grep -E -- ' -o mmprof ' | wc -l)" -eq 1
# The archive is made anew: the object of a source deleted since the last
# build (planted as a member) does not stay in it to be linked.
echo 'int mmp_stale_member(void) { return 1; }' | clang -c -x c - -o "$TMP/gone.o"
ar q build/clang/libmmprof.a "$TMP/gone.o"
touch build/clang/src/util/units.o
make -s BUILD=build/clang BIN=build/clang/mmprof CC=clang build/clang/libmmprof.a >"$log" 2>&1
check "libmmprof.a rebuilt without a deleted source's object" \
	bash -c '! ar t build/clang/libmmprof.a | grep -qx gone.o && ar t build/clang/libmmprof.a | grep -qx units.o'

run_mmprof_with() { local bin=$1; shift; out=$("$bin" "$@" 2>"$TMP/stderr"); rc=$?; err=$(cat "$TMP/stderr"); }
run_mmprof_with build/clang/mmprof --config tests/configs/tiny.ini --csv "$TMP/clang.csv" --quiet
check "clang binary: tiny config runs clean" test "$rc" -eq 0
check "clang binary: every result ok" test "$(csv_col "$TMP/clang.csv" result_ok | sort -u)" = true

log=$TMP/asan.log
asan="BUILD=build/asan BIN=build/asan/mmprof CC=clang SANITIZE=1"
if make -s $asan build/asan/mmprof unit-tests >"$log" 2>&1; then
	ok "clang ASan+UBSan build"
else
	fail "clang ASan+UBSan build" "$(tail -5 "$log")"
fi
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
for t in build/asan/tests/test_*; do
	[ -x "$t" ] || continue
	if "$t" >"$TMP/t.log" 2>&1; then
		ok "sanitized $(basename "$t")"
	else
		fail "sanitized $(basename "$t")" "$(grep -m3 -E 'ERROR|runtime error|FAILED' "$TMP/t.log")"
	fi
done
run_mmprof_with build/asan/mmprof --config tests/configs/tiny.ini --csv "$TMP/asan.csv" --quiet
check "sanitized: tiny config runs clean (exit $rc)" test "$rc" -eq 0
check "sanitized: no reports" bash -c '! grep -Eq "ERROR: (Address|Leak)Sanitizer|runtime error" <<<"$1"' _ "$err"
# The exec probe's paths (fork in a threaded process, pipes, pidfd, the
# process group, timeouts, output parsing) under the sanitizers.
helper=$PWD/build/asan/tests/exec_helper
printf '[global]\nsize = 1M\nrepeat = 2\nwarmup = 0\n\n[right]\nprobe = exec\ncommand = %s count {file}\nresult = output:Found (\\d+) zero\ntime = output:took (.*)\n\n[wrong]\nprobe = exec\ncommand = %s wrong {file}\nresult = output:Found (\\d+) zero\n\n[fails]\nprobe = exec\ncommand = %s exit 3\n\n[slow]\nprobe = exec\ncommand = %s sleep 30 %s/pids\ntimeout = 1s\n' \
	"$helper" "$helper" "$helper" "$helper" "$TMP" >"$TMP/exec.ini"
run_mmprof_with build/asan/mmprof --config "$TMP/exec.ini" --csv "$TMP/exec.csv" --quiet
check "sanitized: exec runs (right, wrong, exit 3, timeout) exit 1" test "$rc" -eq 1
check "sanitized: exec, no reports" bash -c '! grep -Eq "ERROR: (Address|Leak)Sanitizer|runtime error" <<<"$1"' _ "$err"
run_mmprof_with build/asan/mmprof --config tests/configs/bad.ini
check "sanitized: bad config exits 2 without reports" test "$rc" -eq 2
check "sanitized: bad config, no reports" bash -c '! grep -Eq "Sanitizer|runtime error" <<<"$1"' _ "$err"
done_testing
