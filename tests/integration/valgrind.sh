# valgrind memcheck on the tiny config and on a bad config: no errors, no
# definite leaks.
source "$(dirname "$0")/tap.bash"

if ! command -v valgrind >/dev/null; then
	skip_rest "valgrind is not installed (make deps)"
fi
vg() { valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite "$@"; }
vg "$MMPROF" --config tests/configs/tiny.ini --csv "$TMP/vg.csv" --quiet >/dev/null 2>"$TMP/vg.err"
rc=$?
check "tiny config under valgrind: exit 0 (got $rc)" test "$rc" -eq 0
check "tiny config under valgrind: every result ok" test "$(csv_col "$TMP/vg.csv" result_ok | sort -u)" = true
[ "$rc" -eq 0 ] || head -20 "$TMP/vg.err" | sed 's/^/# /'
vg "$MMPROF" --config tests/configs/bad.ini >/dev/null 2>"$TMP/vg2.err"
rc=$?
check "bad config under valgrind: exit 2 (got $rc)" test "$rc" -eq 2
vg "$MMPROF" --config configs/byte_8t.ini --dry-run >/dev/null 2>"$TMP/vg3.err"
rc=$?
check "dry run under valgrind: exit 0 (got $rc)" test "$rc" -eq 0
done_testing
