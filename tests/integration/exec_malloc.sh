# The prefault and huge rungs reach a program's malloc'd memory (probe =
# exec, controls = auto): glibc maps a large block with its own internal
# mmap, which the preload library's mmap() never sees, so the library
# serves the allocator's entry points itself.  A planted program
# (tests/helpers/malloc_touch.c) that mallocs 64 MiB and writes a byte a
# page is named page faults or page setup, or inconclusive, never another
# cause as if it were sure; one that reuses a 64 KiB buffer gets no page
# fault cause; each rung says what it reached; idle and with one CPU kept
# busy.  Then the library alone: calloc, realloc (only the grown part),
# and a program that brings its own malloc (not reached, said so).
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
PROG=$PWD/$BUILD/tests/malloc_touch
LIB=$PWD/$BUILD/libmmprof-preload.so
trap 'rm -rf "$TMP"' EXIT
make -s --no-print-directory "$BUILD/tests/malloc_touch" "$LIB" >/dev/null 2>&1
[ -x "$PROG" ] || skip_rest "the planted program did not build ($PROG)"
ldd "$PROG" 2>/dev/null | grep -q 'libc\.so\.6' || skip_rest "not a glibc system: the library says the allocator is not reached"

# 64 MiB: some 16,400 faults, 0.2-0.4 s a run here, so both runs of the
# ladder (4 rungs, 5 rounds, 2 programs) stay near 10 s each.
cat >"$TMP/malloc.ini" <<INI
[global]
repeat = 5
warmup = 1
controls = auto
events = task-clock, page-faults
probe = exec
threads = 1
time = output:^Elapsed time: (.*)\$

[touch]
command = $PROG touch 64

[none]
command = $PROG none 64
INI

# top JOB CSV: the largest significant cause shown (the remainder aside).
top() { shown_top "$@"; }
PAGES='page faults|page setup \((faults or TLB|in the kernel)\)|first touch'
judge_all() { # LABEL CSV
	local line t
	# (a merge of two page causes is one of them: 'first touch + page
	# setup (faults or TLB)' when the touch rung's step is beside huge's)
	judge "$1" touch "($PAGES)( \\+ ($PAGES))*" "$2"
	line=$(verdict none)
	t=$(top none "$2")
	if [[ $t =~ ^($PAGES)$ ]] && grep -q '^  fix: ' <<<"$line"; then
		fail "$1: none (16 faults a run) is blamed on $t" "$line"
	else
		ok "$1: none gets no page fault cause ($(grep -E '^  largest cause:|^  fix:' <<<"$line" | sed 's/^  //'))"
	fi
	check "$1: the prefault rung says what it reached in the malloc'd block" \
		grep -q "^  prefault reached: 64 MiB in 1 malloc'd block populated" <<<"$(verdict touch)"
	check "$1: none's prefault rung skipped from its job's warmup, and says there was no block" \
		grep -q "^  not used: prefault (page faults) skipped: nothing in its job's warmup for it to reach (no mapping or malloc'd block of the program's to populate)" <<<"$line"
}

# One CPU kept busy by another process for the whole run.
taskset -c 1 sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$TMP"' EXIT
run_mmprof --config "$TMP/malloc.ini" --csv "$TMP/busy.csv" --quiet
kill $hog 2>/dev/null
wait $hog 2>/dev/null
check "busy: runs" test "$rc" -eq 0
lines_fit busy
judge_all busy "$TMP/busy.attribution.csv"

run_mmprof --config "$TMP/malloc.ini" --csv "$TMP/idle.csv" --quiet
check "idle: runs" test "$rc" -eq 0
lines_fit idle
judge_all idle "$TMP/idle.attribution.csv"
csv=$TMP/idle.csv
# every_rep CONTROL COLUMNS AWK: touch's repetitions with that control (at
# least 3: the rounds stop once the answer is decided) all pass AWK.
every_rep() {
	local all good
	all=$(csv_rows "$csv" job control | awk -F'|' -v c="$1" '$1 == "touch" && $2 == c' | wc -l)
	good=$(csv_rows "$csv" job control $2 | awk -F'|' -v c="$1" '$1 == "touch" && $2 == c && ('"$3"')' | wc -l)
	test "$all" -ge 3 -a "$good" -eq "$all"
}
check "prefault: 1 block and its 64 MiB interior (less its 2 partial pages) in every repetition" \
	every_rep prefault "preload_blocks prefaulted_bytes" '$3 == 1 && $4 >= 67100000'
faults() { # CONTROL: the median page faults of touch's repetitions with it
	awk -F'|' -v c="$1" 'NR == FNR { if ($3 == "touch" && $4 == c) want[$1 "|" $2] = 1; next }
		$4 == "" && $3 == "page-faults" && ($1 "|" $2) in want { print $5 }' \
		<(csv_rows "$csv" run rep job control) <(csv_rows "${csv%.csv}.events.csv" run rep event thread value) |
		sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
without=$(faults "") with=$(faults prefault)
check "prefault: the faults leave the program's loop ($without -> $with a run)" \
	test "${with:-99999}" -lt $((${without:-0} / 10))
thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if [ "$thp" = never ] || [ -z "$thp" ]; then
	skip "huge: transparent huge pages are '${thp:-absent}' here"
else
	check "huge: the kernel gave the advised block huge pages in every repetition (THP: $thp)" \
		every_rep prefault+touch+huge huge_bytes '$3 > 33554432'
	check "huge: the rung says what it advised and what the kernel gave" \
		grep -Eq "^  huge reached: 64 MiB in 1 malloc'd block advised MADV_HUGEPAGE; [0-9]+ MiB on huge pages" <<<"$(verdict touch)"
fi

# The library alone, each entry point as a program uses it.
report() { # MODE PROGRAM ARGS...: the report file's lines
	local mode=$1
	shift
	rm -f "$TMP/report"
	MMPROF_PRELOAD_MODE=$mode MMPROF_PRELOAD_REPORT=$TMP/report LD_PRELOAD=$LIB "$@" >/dev/null
	cat "$TMP/report" 2>/dev/null
}
r=$(report prefault "$PROG" calloc 8)
check "calloc: the block is populated (8 MiB less its partial pages)" \
	test "$(awk '$1 == "alloc" && $3 >= 8380000 && $4 == $3 { n++ } END { print n + 0 }' <<<"$r")" -eq 1
r=$(report prefault "$PROG" realloc 16)
check "realloc: the first 8 MiB, then only the 8 MiB it grew by" \
	test "$(awk '$1 == "alloc" && $3 >= 8380000 && $3 <= 8388608 { n++ } END { print n + 0 }' <<<"$r")" -eq 2 -a \
	"$(grep -c '^alloc' <<<"$r")" -eq 2
r=$(report prefault "$PROG" none 64)
check "a 64 KiB buffer is below what the library reaches (no alloc line)" \
	test "$(grep -c '^alloc' <<<"$r")" -eq 0 -a "$(grep -c '^load' <<<"$r")" -eq 1
if cc -DOWN_MALLOC -O2 -o "$TMP/own" tests/helpers/malloc_touch.c 2>/dev/null; then
	r=$(report prefault "$TMP/own" touch 8)
	check "its own malloc: not reached, and said so" \
		test "$(grep -c '^noalloc [0-9]* own$' <<<"$r")" -eq 1 -a "$(grep -c '^alloc' <<<"$r")" -eq 0
	cat >"$TMP/own.ini" <<INI
[own]
repeat = 3
warmup = 0
controls = prefault
probe = exec
command = $TMP/own touch 8
INI
	run_mmprof --config "$TMP/own.ini" --csv "$TMP/own.csv" --quiet
	check "its own malloc: the rung is not used, and why" grep -q \
		"^  not used: prefault (page faults) changed nothing: .*; its allocator is not reached (the program brings its own malloc))" \
		<<<"$(verdict own)"
else
	skip "its own malloc: no C compiler to build the variant"
fi
done_testing
