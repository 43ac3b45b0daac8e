# Result files through outfile.c: an input is never overwritten, a device
# gets no companions, one writer per CSV, stale companions and dead runs'
# temporaries removed, a kill leaves the previous CSV whole, write errors
# named.  (Active once the session writes through mmp_outset_open.)
source "$(dirname "$0")/tap.bash"

if ! nm "$MMPROF" 2>/dev/null | grep -q ' T mmp_outset_open$'; then
	skip_rest "the session does not write result files through outfile.c yet"
fi

printf '[j]\nprobe = limit\nsize = 64K\nseed = 5\nrepeat = 2\nwarmup = 0\nthreads = 2\ncontrols = auto\nevents = none\n' \
	>"$TMP/c.ini"
run_mmprof --config "$TMP/c.ini" --csv "$TMP/first.csv"
check "a first run: exit 0" test "$rc" -eq 0
data=$("$MMPROF" --config "$TMP/c.ini" --dry-run | sed -n 's/^ *data //p')
sum=$(md5sum <"$data")

for victim in "$data" "$data.mmprof" "$TMP/c.ini"; do
	before=$(md5sum <"$victim")
	run_mmprof --config "$TMP/c.ini" --csv "$victim"
	check "--csv $(basename "$victim"): exit 2" test "$rc" -eq 2
	check "--csv $(basename "$victim"): refused, naming it" grep -qF "refusing to write results to $victim" <<<"$err"
	check "--csv $(basename "$victim"): untouched" test "$(md5sum <"$victim")" = "$before"
done
# Another name for the data file.
ln -s "$data" "$TMP/alias.csv"
run_mmprof --config "$TMP/c.ini" --csv "$TMP/alias.csv"
check "a link to the data file: exit 2" test "$rc" -eq 2
check "the data file is whole" test "$(md5sum <"$data")" = "$sum"

# A character device (a private /dev/null): written, nothing beside it.
if mknod "$TMP/null" c 1 3 2>/dev/null; then
	run_mmprof --config "$TMP/c.ini" --csv "$TMP/null"
	check "a device: exit 0" test "$rc" -eq 0
	check "a device: no companion beside it" test -z "$(ls "$TMP" | grep '^null\.')"
else
	skip "mknod needs root"
	skip "mknod needs root"
fi
run_mmprof --config "$TMP/c.ini" --csv /dev/full
check "/dev/full: exit 1" test "$rc" -eq 1
check "/dev/full: the error names it" grep -q "/dev/full: No space left on device" <<<"$err"

# Companions of an earlier run that this one does not write are removed.
echo stale >"$TMP/first.threads.csv"
echo '{}' >"$TMP/first.json"
run_mmprof --config "$TMP/c.ini" --csv "$TMP/first.csv"
check "stale companions: exit 0" test "$rc" -eq 0
check "stale companions: removed" test ! -e "$TMP/first.threads.csv" -a ! -e "$TMP/first.json"
check "this run's attribution is there" test -s "$TMP/first.attribution.csv"

# One writer per CSV; a kill -9 leaves the previous CSV whole and a
# temporary that the next run removes.
printf '[j]\nprobe = accessor_byte\nsize = 2M\nrepeat = 1000\nwarmup = 0\nevents = none\n' >"$TMP/long.ini"
csv=$TMP/long.csv
echo "the previous run" >"$csv"
"$MMPROF" --config "$TMP/long.ini" --csv "$csv" >/dev/null 2>"$TMP/long.err" &
pid=$!
for _ in $(seq 200); do
	compgen -G "$TMP/.long.csv.tmp.$pid" >/dev/null && break
	sleep 0.05
done
sleep 0.5
run_mmprof --config "$TMP/long.ini" --csv "$csv"
check "a second writer: refused" test "$rc" -ne 0
check "a second writer: told who holds it" grep -qF "being written by another mmprof (process $pid" <<<"$err"
kill -9 "$pid"
wait "$pid" 2>/dev/null
check "killed: the previous CSV is whole" test "$(cat "$csv")" = "the previous run"
check "killed: its temporary is left" test -e "$TMP/.long.csv.tmp.$pid"
run_mmprof --config "$TMP/c.ini" --csv "$csv"
check "the next run: exit 0" test "$rc" -eq 0
check "the next run: the temporary is removed" test ! -e "$TMP/.long.csv.tmp.$pid"
check "the next run: says so, once (it said it twice)" \
	test "$(grep -c "note: .*long.csv.tmp.$pid" <<<"$err")" -eq 1

# A rerun keeps the CSV's mode (and, as root, its owner and group); a
# link's target keeps them too.
run_mmprof --config "$TMP/c.ini" --csv "$TMP/mode.csv"
chmod 600 "$TMP/mode.csv"
[ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$TMP/mode.csv"
before=$(stat -c '%a %U %G' "$TMP/mode.csv")
run_mmprof --config "$TMP/c.ini" --csv "$TMP/mode.csv"
check "a rerun onto a chmod 600 CSV: exit 0, still '$before'" \
	test "$rc" -eq 0 -a "$(stat -c '%a %U %G' "$TMP/mode.csv")" = "$before"
mkdir "$TMP/mine"
ln -s "$TMP/mode.csv" "$TMP/mine/link.csv"
run_mmprof --config "$TMP/c.ini" --csv "$TMP/mine/link.csv"
check "through a link: its target keeps '$before', the link stays" \
	test "$rc" -eq 0 -a "$(stat -c '%a %U %G' "$TMP/mode.csv")" = "$before" -a -L "$TMP/mine/link.csv"
# A link into a directory others can write (/tmp-like) is refused:
# the temporary and the rename would happen where anyone can race.
mkdir -m 1777 "$TMP/shared"
echo "someone's file" >"$TMP/shared/x.csv"
ln -s "$TMP/shared/x.csv" "$TMP/mine/shared.csv"
run_mmprof --config "$TMP/c.ini" --csv "$TMP/mine/shared.csv"
check "a link into a directory others can write: exit 2, refused, says how to mean it" \
	test "$rc" -eq 2 -a -n "$(grep -F "refusing to write results through the symbolic link $TMP/mine/shared.csv: it points into $TMP/shared, which others can write (mode 1777); name the file itself (--csv $TMP/shared/x.csv)" <<<"$err")"
check "...and the file there is untouched" test "$(cat "$TMP/shared/x.csv")" = "someone's file"

# The file size limit (ulimit -f): SIGXFSZ used to end mmprof at once
# (exit 153), every row lost.  Now the write fails with EFBIG, said so,
# and the rows written whole before it are kept (the data file is made
# first, below the limit).
printf '[j]\nprobe = limit\nsize = 4K\nrepeat = 40\nwarmup = 0\n' >"$TMP/fsize.ini"
"$MMPROF" --config "$TMP/fsize.ini" --csv "$TMP/fsize.csv" --quiet >/dev/null 2>&1
echo "the previous run" >"$TMP/fsize.csv"
out=$(ulimit -f 8; "$MMPROF" --config "$TMP/fsize.ini" --csv "$TMP/fsize.csv" 2>"$TMP/fsize.err")
rc=$?
err=$(cat "$TMP/fsize.err")
check "ulimit -f: exit 1, not killed by SIGXFSZ (exit $rc)" test "$rc" -eq 1
check "ulimit -f: says the file size limit was reached, and what is kept" \
	grep -q "File too large (the file size limit, ulimit -f, was reached); measuring stopped there: the [1-9][0-9]* row(s) written before are kept in $TMP/fsize.csv" <<<"$err"
kept=$(sed -n 's/.*the \([0-9]*\) row(s) written before.*/\1/p' <<<"$err")
check "ulimit -f: those $kept rows are the CSV, each whole" /usr/bin/python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert len(rows) - 1 == int(sys.argv[2]) and all(len(r) == len(rows[0]) for r in rows), rows[-1]
' "$TMP/fsize.csv" "$kept"
check "ulimit -f: the summary says the same count" grep -q "1 run(s), $kept row(s) in $TMP/fsize.csv" <<<"$err"
# A file system full at the start: no temporary of the run is left on it
# (the CSV's, the events' and the threads' stayed, each of 0 bytes).
mkdir -p "$TMP/full"
if mount -t tmpfs -o size=64k tmpfs "$TMP/full" 2>/dev/null; then
	dd if=/dev/zero of="$TMP/full/fill" bs=4k count=100 2>/dev/null
	printf '[j]\nprobe = limit\nsize = 64K\nrepeat = 2\nwarmup = 0\nevents = page-faults\n' >"$TMP/full.ini"
	run_mmprof --config "$TMP/full.ini" --csv "$TMP/full/r.csv" --per-thread
	check "full at the start: exit 1, says so" \
		test "$rc" -eq 1 -a -n "$(grep 'No space left on device' <<<"$err")"
	check "full at the start: nothing of the run left there" \
		test "$(ls -A "$TMP/full")" = fill
	umount "$TMP/full"
else
	skip "full at the start: cannot mount a tmpfs (needs root)"
	skip "full at the start: cannot mount a tmpfs (needs root)"
fi

done_testing
