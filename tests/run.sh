#!/usr/bin/env bash
# Runs every unit test binary (cmocka, TAP output) and every integration
# script (tests/integration/*.sh, TAP output), and ends with
# "N passed, N failed, N skipped".  Exit status 0 only when nothing failed.
#
#   tests/run.sh                 everything
#   tests/run.sh config cli      only the tests whose name contains a word
#
# The unit tests are $BUILD/tests/test_* (BUILD=build): one not built is
# a failure, not a test skipped without a word.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export MMPROF_TEST_TMP=${MMPROF_TEST_TMP:-$(mktemp -d /tmp/mmprof-tests.XXXXXX)}
trap 'rm -rf "$MMPROF_TEST_TMP"' EXIT

passed=0 failed=0 skipped=0
failures=()

selected() {
	[ $# -le 1 ] && return 0
	local name=$1; shift
	for w in "$@"; do [[ $name == *"$w"* ]] && return 0; done
	return 1
}

# Count one TAP stream; a stream that stops short of its plan (a crash)
# counts the missing tests as failed.
tally() {
	local name=$1 out=$2 rc=$3 plan=0 seen=0 bad=0 line
	while IFS= read -r line; do
		case $line in
		1..*) plan=${line#1..} ;;
		*"# SKIP"*) skipped=$((skipped + 1)); seen=$((seen + 1)); echo "  skip: ${line#*# SKIP }" ;;
		"ok "*) passed=$((passed + 1)); seen=$((seen + 1)) ;;
		"not ok "*) failed=$((failed + 1)); seen=$((seen + 1)); bad=1; failures+=("$name: ${line#not ok }") ;;
		esac
	done <<<"$out"
	# A crash: fewer results than planned, no plan at all, or a failing
	# exit status without a failed test to show for it.
	if [ "$seen" -lt "$plan" ] || [ "$plan" -eq 0 ] || { [ "$rc" -ne 0 ] && [ "$bad" -eq 0 ]; }; then
		failed=$((failed + 1))
		failures+=("$name: stopped after $seen of $plan tests (exit $rc)")
	fi
}

run_one() {
	local name=$1; shift
	local start=$SECONDS out rc
	out=$("$@" 2>&1)
	rc=$?
	printf '%-34s %3ss\n' "$name" $((SECONDS - start))
	if [ "$rc" -ne 0 ] || grep -q '^not ok' <<<"$out"; then
		grep -v '^ok ' <<<"$out" | grep -v '^1\.\.' | sed 's/^/    /' | head -60
	fi
	tally "$name" "$out" "$rc"
}

# Every unit test source has its binary: one that is not built is a
# failure, said, not a test that silently did not run.
for src in tests/unit/test_*.c; do
	t=$BUILD/tests/$(basename "$src" .c)
	name=unit/$(basename "$t")
	selected "$name" "$@" || continue
	if [ ! -x "$t" ]; then
		printf '%-34s not built\n' "$name"
		failed=$((failed + 1))
		failures+=("$name: $t is not built (make unit-tests, or BUILD=dir for another build)")
		continue
	fi
	run_one "$name" env CMOCKA_MESSAGE_OUTPUT=TAP "$t"
done
for t in tests/integration/*.sh; do
	name=integration/$(basename "$t" .sh)
	selected "$name" "$@" || continue
	run_one "$name" bash "$t"
done

for f in "${failures[@]+"${failures[@]}"}"; do echo "FAILED: $f"; done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
