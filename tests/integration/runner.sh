# tests/run.sh itself: a unit test whose binary is not built fails, said
# (before, it ran none of them and ended "0 passed, 0 failed", exit 0).
source "$(dirname "$0")/tap.bash"

mkdir -p "$TMP/empty"
# "units": test_units only; no integration script holds the word.
runner_out=$(BUILD="$TMP/empty" MMPROF_TEST_TMP="$TMP" tests/run.sh units 2>&1)
runner_rc=$?
check "a unit test not built: exit 1" test "$runner_rc" -eq 1
check "... said, with the way out" grep -qF \
	"FAILED: unit/test_units: $TMP/empty/tests/test_units is not built (make unit-tests" <<<"$runner_out"
check "... counted as failed" grep -qx "0 passed, 1 failed, 0 skipped" <<<"$runner_out"
done_testing
