# --config given something that is not a config: one line, exit 2, at
# once (a device was read forever, a FIFO without a writer blocked), and
# the harmless oddities of real files (a byte order mark) accepted.
source "$(dirname "$0")/tap.bash"

# run_bounded SECONDS ARGS...: run_mmprof, killed after SECONDS (rc 124).
run_bounded() {
	local secs=$1; shift
	out=$(timeout -s KILL "$secs" "$MMPROF" "$@" 2>"$TMP/stderr")
	rc=$?
	err=$(cat "$TMP/stderr")
}

mkfifo "$TMP/fifo"
head -c 1100000 /dev/zero | tr '\0' ';' >"$TMP/big.ini"
for input in "$TMP" /dev/zero /dev/urandom "$TMP/fifo" "$TMP/big.ini"; do
	run_bounded 10 --config "$input" --dry-run
	check "$input: exit 2 at once (got $rc)" test "$rc" -eq 2
	check "$input: one line naming it" \
		test "$(wc -l <<<"$err")" -eq 1 -a -n "$(grep -F "$input" <<<"$err")"
done

printf '\xef\xbb\xbf[j]\nprobe = limit\nsize = 4K\n' >"$TMP/bom.ini"
run_bounded 10 --config "$TMP/bom.ini" --dry-run
check "byte order mark: accepted (exit $rc)" test "$rc" -eq 0

printf '[j]\nprobe = limit\0\nsize = 4K\n' >"$TMP/nul.ini"
run_bounded 10 --config "$TMP/nul.ini" --dry-run
check "NUL byte: exit 2" test "$rc" -eq 2
check "NUL byte: said with its line" grep -qF "$TMP/nul.ini:2: a NUL byte" <<<"$err"

# A config from a pipe with a writer (bash's process substitution) runs.
run_bounded 10 --config <(printf '[j]\nprobe = limit\nsize = 4K\n') --dry-run
check "config from a pipe: accepted (exit $rc)" test "$rc" -eq 0
done_testing
