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
done_testing
