# Fuzzing the config path: tests/fuzz/fuzz_config.c under libFuzzer with
# AddressSanitizer and UndefinedBehaviorSanitizer, seeded with every
# config in the tree, for a bounded time (MMPROF_FUZZ_SECONDS, 30 by
# default).  Saved crash inputs in tests/fuzz/regressions/ are run first.
source "$(dirname "$0")/tap.bash"

secs=${MMPROF_FUZZ_SECONDS:-30}
if ! command -v clang >/dev/null; then
	skip_rest "clang is not installed (make deps)"
fi
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; return (int)(n & 0); }\n' \
	>"$TMP/probe.c"
if ! clang -fsanitize=fuzzer -o "$TMP/probe" "$TMP/probe.c" >/dev/null 2>&1; then
	skip_rest "clang cannot link libFuzzer (libclang-rt-14-dev: make deps)"
fi

bin=build/libfuzzer/fuzz/fuzz_config
log=$TMP/build.log
if make -s FUZZ=1 CC=clang BUILD=build/libfuzzer "$bin" >"$log" 2>&1; then
	ok "fuzz_config builds (clang, -fsanitize=fuzzer,address,undefined)"
else
	fail "fuzz_config builds" "$(tail -5 "$log")"
	done_testing
	exit 0
fi

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# Earlier crashes stay fixed.
shopt -s nullglob
saved=(tests/fuzz/regressions/*)
if [ ${#saved[@]} -gt 0 ]; then
	if "$bin" "${saved[@]}" >"$TMP/regressions.log" 2>&1; then
		ok "fuzz: ${#saved[@]} saved input(s) run clean"
	else
		fail "fuzz: saved inputs" "$(grep -m3 -E 'ERROR|runtime error' "$TMP/regressions.log")"
	fi
fi

# Seeds: every config of the tree.  Dictionary: the key and probe names
# from the binary itself, so it never goes stale, and the syntax.
mkdir -p "$TMP/seeds" "$TMP/corpus"
cp configs/*.ini tests/configs/*.ini "$TMP/seeds/"
{
	"$MMPROF" --list-keys | awk '/^    [a-z]/ { print $1 }'
	"$MMPROF" --list-probes | awk '{ print $1 }'
	printf '%s\n' global pus:0-1,3 numa:0 yes no auto none K M G KiB 1T
} | sort -u | sed 's/.*/"&"/' >"$TMP/config.dict"
cat >>"$TMP/config.dict" <<'DICT'
"["
"]"
" = "
","
";"
"\x0A"
DICT

"$bin" -max_total_time="$secs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
	-dict="$TMP/config.dict" -artifact_prefix="$TMP/" -print_final_stats=1 \
	"$TMP/corpus" "$TMP/seeds" >"$TMP/fuzz.log" 2>&1
rc=$?
runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$TMP/fuzz.log")
artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$TMP/fuzz.log" | head -1)
if [ "$rc" -eq 0 ]; then
	ok "fuzz: ${runs:-?} inputs in ${secs} s, no crash, leak or undefined behaviour"
else
	fail "fuzz: exit $rc after ${runs:-?} inputs" \
		"$(grep -m5 -E 'ERROR|runtime error|SUMMARY' "$TMP/fuzz.log")" \
		"input: ${artifact:-none} (copy it to tests/fuzz/regressions/ once fixed)"
fi
done_testing
