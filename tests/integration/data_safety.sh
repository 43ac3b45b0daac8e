# mmprof never overwrites a data file it did not create, and reuses its own.
source "$(dirname "$0")/tap.bash"

printf '[j]\nprobe = limit\nsize = 8K\nseed = 5\nrepeat = 1\nwarmup = 0\n' >"$TMP/d.ini"
target=$("$MMPROF" --config "$TMP/d.ini" --dry-run | sed -n 's/^ *data //p')
check "dry-run names the data file" test -n "$target"

mkdir -p "$(dirname "$target")"
echo "someone else's file" >"$target"
run_mmprof --config "$TMP/d.ini" --csv "$TMP/d.csv"
check "foreign file: exit 2, before anything runs" test "$rc" -eq 2
check "foreign file: refusal names the file" grep -q "$target exists but mmprof did not create it" <<<"$err"
check "foreign file: untouched" test "$(cat "$target")" = "someone else's file"
check "foreign file: no CSV written" test ! -e "$TMP/d.csv"

rm -f "$target"
run_mmprof --config "$TMP/d.ini" --csv "$TMP/d.csv"
check "created: exit 0" test "$rc" -eq 0
check "created: said so" grep -q "created $target (8KiB, random)" <<<"$err"
check "created: 8 KiB" test "$(stat -c %s "$target")" -eq 8192
check "created: marker beside it" test -f "$target.mmprof"
inode=$(stat -c %i "$target")
run_mmprof --config "$TMP/d.ini" --csv "$TMP/d.csv"
check "reused: exit 0" test "$rc" -eq 0
check "reused: not created again" bash -c '! grep -q created <<<"$1"' _ "$err"
check "reused: same inode" test "$(stat -c %i "$target")" = "$inode"

# A user's own file named with `file =` is read as it is.
printf 'abc\0\0def' >"$TMP/mine.bin"
printf '[j]\nprobe = mmap_byte\nfile = %s\nrepeat = 1\nwarmup = 0\n' "$TMP/mine.bin" >"$TMP/u.ini"
run_mmprof --config "$TMP/u.ini" --csv "$TMP/u.csv"
check "user file: exit 0" test "$rc" -eq 0
check "user file: two zeros found" test "$(csv_col "$TMP/u.csv" result)" = 2
check "user file: no marker written" test ! -e "$TMP/mine.bin.mmprof"
printf '[j]\nprobe = mmap_byte\nfile = %s\nsize = 1M\n' "$TMP/mine.bin" >"$TMP/u2.ini"
run_mmprof --config "$TMP/u2.ini" --csv "$TMP/u2.csv"
check "user file with another size: exit 2, before anything runs" test "$rc" -eq 2
check "user file with another size: untouched" test "$(stat -c %s "$TMP/mine.bin")" -eq 8
# mmprof exec reads --file as it is: a file mmprof made for a config with
# other contents than exec's defaults (fill = zero) is neither rewritten
# nor re-marked (before, exec rewrote it with random bytes and said
# "created ... (random)").
printf '[z]\nprobe = limit\nsize = 8K\nfill = zero\nrepeat = 1\nwarmup = 0\n' >"$TMP/z.ini"
zero=$("$MMPROF" --config "$TMP/z.ini" --dry-run | sed -n 's/^ *data //p')
run_mmprof --config "$TMP/z.ini" --csv "$TMP/z.csv"
check "zero file made for a config" cmp -s "$zero" <(head -c 8192 /dev/zero)
cp "$zero.mmprof" "$TMP/marker.before"
run_mmprof exec --file "$zero" -r 1 --warmup 0 --csv "$TMP/x.csv" -- /bin/true
check "exec --file: exit 0" test "$rc" -eq 0
check "exec --file: nothing created" bash -c '! grep -q created <<<"$1"' _ "$err"
check "exec --file: the bytes are untouched" cmp -s "$zero" <(head -c 8192 /dev/zero)
check "exec --file: the marker is untouched" cmp -s "$zero.mmprof" "$TMP/marker.before"
run_mmprof exec --file "$TMP/none.bin" -r 1 -- /bin/true
check "exec --file of a missing file: exit 2" test "$rc" -eq 2
check "exec --file of a missing file: not created" test ! -e "$TMP/none.bin"

# A config's own named file made with other contents is replaced, and
# the message says what it replaced.
printf '[n]\nprobe = limit\nfile = %s\nsize = 8K\nfill = zero\nrepeat = 1\nwarmup = 0\n' \
	"$TMP/named.bin" >"$TMP/n1.ini"
sed 's/fill = zero/fill = random/' "$TMP/n1.ini" >"$TMP/n2.ini"
run_mmprof --config "$TMP/n1.ini" --csv "$TMP/n1.csv"
run_mmprof --config "$TMP/n2.ini" --csv "$TMP/n2.csv"
check "named file, other fill: exit 0" test "$rc" -eq 0
check "named file, other fill: says what it replaced" \
	grep -q "replacing $TMP/named.bin (8KiB, zero, seed 1, made by mmprof) with 8KiB, random, seed 1" <<<"$err"
check "named file, other fill: random now" bash -c '! cmp -s "$1" <(head -c 8192 /dev/zero)' _ "$TMP/named.bin"

# A copy of a data directory (cp -a of a checkout: other inodes) is
# recognised by its bytes, and its markers are brought up to date.
cp -a "$MMPROF_DATA" "$TMP/copied"
run_mmprof --config "$TMP/z.ini" --csv "$TMP/zc.csv"
MMPROF_DATA=$TMP/copied run_mmprof --config "$TMP/z.ini" --csv "$TMP/zc.csv"
check "copied data directory: exit 0" test "$rc" -eq 0
copy=$TMP/copied/$(basename "$zero")
check "copied data directory: recognised by content, said so" \
	grep -q "$copy: a copy of a file mmprof made (same bytes); its marker now names this one" <<<"$err"
check "copied data directory: the copy is not rewritten" \
	bash -c '! grep -q created <<<"$1"' _ "$err"
MMPROF_DATA=$TMP/copied run_mmprof --config "$TMP/z.ini" --csv "$TMP/zc.csv"
check "copied data directory, again: reused quietly" bash -c '! grep -q "copy of" <<<"$1"' _ "$err"
# A copy whose bytes were changed is not mmprof's: refused, untouched.
printf 'x' | dd of="$copy" bs=1 seek=100 conv=notrunc 2>/dev/null
cp "$copy" "$TMP/changed"
touch -d '2001-01-01' "$copy"
MMPROF_DATA=$TMP/copied run_mmprof --config "$TMP/z.ini" --csv "$TMP/zc.csv"
check "changed copy: exit 2" test "$rc" -eq 2
check "changed copy: says how to recover" grep -q "its bytes are not the ones $copy.mmprof describes" <<<"$err"
check "changed copy: untouched" cmp -s "$copy" "$TMP/changed"
done_testing
