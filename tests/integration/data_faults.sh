# Data files under faults: Ctrl-C during the reference scan and during
# creation, two mmprof creating the same file at once, leftovers of a
# killed creator, and a small file system.
source "$(dirname "$0")/tap.bash"

# wait_for PID SECONDS: the exit status, or 124 after killing it when it
# is still running then.
wait_for() {
	local pid=$1 i
	for ((i = 0; i < $2 * 20; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return $?; }
		sleep 0.05
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 124
}

# A 16 GiB sparse file reads as zeros at memory speed, which still took
# 44 s to scan for the reference, Ctrl-C or not.  It must stop within a
# second or two.
truncate -s 16G "$TMP/sparse.bin"
printf '[j]\nprobe = limit\nfile = %s\nrepeat = 1\nwarmup = 0\nevents = none\n' \
	"$TMP/sparse.bin" >"$TMP/sparse.ini"
"$MMPROF" --config "$TMP/sparse.ini" --csv "$TMP/sparse.csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
sleep 1
kill -INT "$pid"
wait_for "$pid" 5
rc=$?
check "Ctrl-C during the reference scan: exits 130 within 5 s (got $rc)" test "$rc" -eq 130
check "Ctrl-C during the reference scan: says interrupted" grep -q "interrupted" "$TMP/err"
rm -f "$TMP/sparse.bin"

# Creation: Ctrl-C stops it, nothing under the real name, no temporary.
printf '[j]\nprobe = limit\nsize = 1G\nseed = 77\nrepeat = 1\nwarmup = 0\nevents = none\n' \
	>"$TMP/big.ini"
target=$("$MMPROF" --config "$TMP/big.ini" --dry-run | sed -n 's/^ *data //p')
"$MMPROF" --config "$TMP/big.ini" --csv "$TMP/big.csv" >"$TMP/out" 2>"$TMP/err" &
pid=$!
for _ in $(seq 100); do
	compgen -G "$target.tmp.*" >/dev/null && break
	sleep 0.02
done
kill -INT "$pid"
wait_for "$pid" 5
rc=$?
check "Ctrl-C during creation: exits 130 within 5 s (got $rc)" test "$rc" -eq 130
check "Ctrl-C during creation: no file under the real name" test ! -e "$target"
check "Ctrl-C during creation: no temporary left" bash -c '! compgen -G "$1.tmp.*" >/dev/null' _ "$target"

# Two mmprof asking for the same new file at once: one creates it, the
# other waits and reuses it, and a third run reuses it too (before, both
# created it and the marker could describe the file that lost the race).
printf '[j]\nprobe = limit\nsize = 48M\nseed = 78\nrepeat = 1\nwarmup = 0\nevents = none\n' \
	>"$TMP/race.ini"
target=$("$MMPROF" --config "$TMP/race.ini" --dry-run | sed -n 's/^ *data //p')
created=0 failed=0
for round in 1 2 3; do
	rm -f "$target" "$target.mmprof"
	"$MMPROF" --config "$TMP/race.ini" --csv "$TMP/r1.csv" >/dev/null 2>"$TMP/e1" &
	a=$!
	"$MMPROF" --config "$TMP/race.ini" --csv "$TMP/r2.csv" >/dev/null 2>"$TMP/e2" &
	b=$!
	wait "$a" || failed=$((failed + 1))
	wait "$b" || failed=$((failed + 1))
	n=$(cat "$TMP/e1" "$TMP/e2" | grep -c "created $target")
	[ "$n" -eq 1 ] || created=$((created + 1))
	run_mmprof --config "$TMP/race.ini" --csv "$TMP/r3.csv"
	[ "$rc" -eq 0 ] && ! grep -q created <<<"$err" || failed=$((failed + 1))
done
check "concurrent creators: every run succeeded" test "$failed" -eq 0
check "concurrent creators: exactly one created the file, each round" test "$created" -eq 0
rm -f "$target" "$target.mmprof"

# A creator killed with SIGKILL leaves its temporary; the next run removes
# it (its PID is gone) and creates the file.
printf '[j]\nprobe = limit\nsize = 64K\nseed = 79\nrepeat = 1\nwarmup = 0\nevents = none\n' \
	>"$TMP/left.ini"
target=$("$MMPROF" --config "$TMP/left.ini" --dry-run | sed -n 's/^ *data //p')
mkdir -p "$(dirname "$target")"
sleep 0 & dead=$!
wait "$dead"
echo "half" >"$target.tmp.$dead"
echo "half" >"$target.mmprof.tmp.$dead"
run_mmprof --config "$TMP/left.ini" --csv "$TMP/left.csv"
check "leftovers: the run succeeds" test "$rc" -eq 0
check "leftovers: the dead creator's temporaries are gone" \
	test ! -e "$target.tmp.$dead" -a ! -e "$target.mmprof.tmp.$dead"

# A 1 MiB file on an 8 MiB file system: before, 64 MiB had to be free
# beyond the file itself.
mkdir -p "$TMP/small"
if mount -t tmpfs -o size=8m tmpfs "$TMP/small" 2>/dev/null; then
	printf '[j]\nprobe = limit\nsize = 1M\nrepeat = 1\nwarmup = 0\nevents = none\n' >"$TMP/small.ini"
	MMPROF_DATA=$TMP/small/data run_mmprof --config "$TMP/small.ini" --csv "$TMP/small.csv"
	check "small file system: 1 MiB created (exit $rc)" test "$rc" -eq 0
	check "small file system: no 'not enough space'" bash -c '! grep -q "not enough space" <<<"$1"' _ "$err"
	umount "$TMP/small"
else
	skip "mounting a tmpfs needs root"
	skip "mounting a tmpfs needs root"
fi
done_testing
