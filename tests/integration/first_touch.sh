# Costs no counter sees (docs/attribution.md, the touch control): the
# first touch of a fresh mapping's pages, taken out of a probe's loop and
# a program's (through the preload library), with its cost a page and its
# evidence in the attribution CSV; the ceiling always on touched pages;
# the platform and the calibration in the report, CSV and JSON, on a
# page-cache run and on a run without a data file (anonymous memory).
# Bookkeeping, not speed: what a first touch costs is make bench's.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
PLANTED=$PWD/$BUILD/tests/planted
make -s --no-print-directory "$BUILD/tests/planted" "$BUILD/libmmprof-preload.so" >/dev/null 2>&1

cat >"$TMP/t.ini" <<INI
[global]
size = 8M
repeat = 5
warmup = 0
events = page-faults

; the cause on its own: pages mapped in first, touch the one control
[bytes]
probe = mmap_byte
prefault = yes
controls = touch

; the ladder: touch on top of prefault
[ladder]
probe = mmap_byte
controls = prefault, touch

[limit]
probe = limit
INI
run_mmprof --config "$TMP/t.ini" --csv "$TMP/t.csv" --json "$TMP/t.json"
check "page cache: runs" test "$rc" -eq 0
check "the ladder: prefault, then touch on top of it" \
	test "$(csv_rows "$TMP/t.csv" job control prefault touch | grep '^ladder|' | sort -u | tr '\n' ' ')" = \
	"$(printf 'ladder||no|no\nladder|prefault|yes|no\nladder|prefault+touch|yes|yes\n' | sort -u | tr '\n' ' ')"
check "touch alone on a job that maps its pages in first" \
	test "$(csv_rows "$TMP/t.csv" job control prefault touch | grep '^bytes|' | sort -u | tr '\n' ' ')" = \
	"$(printf 'bytes||yes|no\nbytes|touch|yes|yes\n' | sort -u | tr '\n' ' ')"
check "the ceiling's pages are mapped in and touched, whatever [global] says" \
	test "$(csv_rows "$TMP/t.csv" job prefault touch | grep '^limit|' | sort -u)" = "limit|yes|yes"
check "the cause is a row of the attribution CSV, with its evidence (page faults counted)" \
	test "$(csv_rows "$TMP/t.attribution.csv" job cause evidence | grep -c '^bytes|first touch|faults/MiB$')" -eq 1
check "the attribution CSV: the first touch's cost a page, and whether it was below the kernel" \
	test "$(csv_rows "$TMP/t.attribution.csv" job cause page_ns below_kernel | awk -F'|' '$1 == "bytes" && $2 == "first touch" && (($3 == "" && $4 == "") || ($3 + 0 > 0 && ($4 == "true" || $4 == "false")))' | wc -l)" -eq 1
check "the report's first lines: the platform and the calibration" \
	grep -Eq '^platform: .+$' <<<"$(sed -n 1p <<<"$out")"
check "... the calibration on the run's data file, with its spread" \
	grep -Eq '^calibration: first touch [-0-9.]+ (ns|us) \[[-0-9.]+ (ns|us), [-0-9.]+ (ns|us)\] a page .* scan [0-9.]+ GB/s \[[0-9.]+, [0-9.]+\]$' <<<"$(unwrap <<<"$out")"
check "... measured on the run's data file, its mappings and faults said" \
	grep -Eq '^  5 fresh 8MiB mappings of .*mmprof-8MiB[^;]*; [0-9]+ faults counted in their first touches, [0-9.e-]+ a page left to fault$' <<<"$(unwrap <<<"$out")"
check "... its lines at most 160 characters (but the data file's path, which is the user's)" \
	test -z "$(sed -n '1,/^job /p' <<<"$out" | awk 'length > 160 && !/ mappings of /')"
check "the CSV carries the platform and the calibration on every row" \
	test "$(csv_rows "$TMP/t.csv" platform first_touch_ns scan_gbs | awk -F'|' '$1 == "" || $2 == "" || $3 == ""' | wc -l)" -eq 0
check "the JSON carries them under machine" /usr/bin/python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["machine"]
c = m["calibration"]
assert m["platform"] and c["mappings"] == 5 and c["bytes"] == 8 << 20, m
assert c["first_touch_ns"]["low"] <= c["first_touch_ns"]["median"] <= c["first_touch_ns"]["high"], c
assert c["scan_gbs"]["median"] > 0 and c["faults_per_page"] > 0, c
' "$TMP/t.json"
line=$(grep '^  first touch ' <<<"$(verdict bytes)")
if grep -q "not measurable here: .*first touch" <<<"$(verdict bytes)"; then
	ok "first touch not measurable here: no figure a page to check"
elif grep -q "^  first touch  *made it .* slower" <<<"$line"; then
	ok "first touch made it slower in these rounds: no cost a page to check"
else
	check "the cause's row: its cost a page, and no fault on either side said as below the kernel" \
		grep -Eq '^  first touch +[0-9]+% .*faults/MiB [0-9.]+ -> [0-9.]+; [0-9.]+ (ns|us) \[[-0-9.]+ (ns|us), [0-9.]+ (ns|us)\] a page(, no fault counted: below the kernel)?$' <<<"$line"
fi
run_mmprof --config "$TMP/t.ini" --dry-run
check "--dry-run names the platform" grep -q '^platform: .* (a run measures its first-touch cost' <<<"$out"

# A job that asks for less than the ceiling is: refused with its line.
printf '[limit]\nprobe = limit\nsize = 1M\ntouch = no\n' >"$TMP/l.ini"
run_mmprof --config "$TMP/l.ini" --dry-run
check "touch = no on limit: refused, with the line and why" \
	grep -q "l.ini:4: \[limit\] probe 'limit' is the ceiling: it maps its pages in and touches each once" <<<"$err"
# data = anon is a copy written before timing: nothing to touch.
printf '[a]\nprobe = mmap_byte\nsize = 1M\ndata = anon\ncontrols = touch\n' >"$TMP/a.ini"
run_mmprof --config "$TMP/a.ini" --dry-run
check "touch named on data = anon: not applied, and why" \
	grep -q "touch.*data = anon is a copy written before timing" <<<"$out$err"

# mmap_file maps the file itself inside its loop (the seed's mmap path):
# its first touch is what it measures, and said so.
printf '[m]\nprobe = mmap_file\nsize = 1M\ncontrols = prefault, touch\n' >"$TMP/m.ini"
run_mmprof --config "$TMP/m.ini" --dry-run
check "touch named on mmap_file: not applied, and why" \
	grep -q "touch.*mmap_file maps the file itself in its timed loop: mapping it in and touching it are what it measures" <<<"$out$err"

# No data file: the calibration maps anonymous memory.
printf '[c]\nprobe = chase\nsize = 1M\nthreads = 1\nrepeat = 2\nwarmup = 0\nevents = none\n' >"$TMP/c.ini"
run_mmprof --config "$TMP/c.ini" --csv "$TMP/c.csv"
check "no data file: runs" test "$rc" -eq 0
check "... the calibration on anonymous memory" \
	grep -Eq '^  5 fresh 8MiB mappings of anonymous memory; ' <<<"$(unwrap <<<"$out")"

# A described machine is not this one: nothing measured, nothing named.
run_mmprof --config "$TMP/t.ini" --dry-run --topology-from synthetic:"core:2 pu:1"
check "a described machine: no platform line" test -z "$(grep '^platform:' <<<"$out")"

# A program: the preload library touches what it populated.
if [ -x "$PLANTED" ]; then
	cat >"$TMP/p.ini" <<INI
[global]
size = 8M
repeat = 2
warmup = 0
events = page-faults
probe = exec
kernel = histogram
threads = 1
controls = prefault, touch
time = output:^Elapsed time: (.*)\$

[prog]
command = $PLANTED compute {file} 1
result = output:^Sum: (\\d+)
INI
	run_mmprof --config "$TMP/p.ini" --csv "$TMP/p.csv"
	check "a program: runs" test "$rc" -eq 0
	check "a program: the touch rung's library read every page of the 8 MiB file it mapped" \
		test "$(csv_rows "$TMP/p.csv" control touched_bytes | awk -F'|' '$1 == "prefault+touch" && $2 >= 8388608' | wc -l)" -eq 2
	check "a program: the prefault rung touched nothing (no touched_bytes)" \
		test "$(csv_rows "$TMP/p.csv" control touched_bytes | awk -F'|' '$1 == "prefault" && $2 != ""' | wc -l)" -eq 0
	check "a program: first touch is a cause of its attribution" \
		test "$(csv_rows "$TMP/p.attribution.csv" job cause | grep -c '^prog|first touch$')" -eq 1
else
	skip "the planted program did not build ($PLANTED)"
fi
done_testing
