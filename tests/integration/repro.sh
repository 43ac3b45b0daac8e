# The seed's real programs (repro/): they build, print the seed's lines, and
# count the zero bytes of a small random file right in every mode, readCount
# (1, 1024) and thread count (1, 2).  The one exception is the seed's Java
# relative bulk get with 2+ threads: its shared buffer position is a real
# race, so its count is not asserted (repro/README.md).  Each runtime is
# skipped when missing.  No timings are asserted.
source "$(dirname "$0")/tap.bash"
BUILD=${BUILD:-build}
OUT=$BUILD/repro
trap 'rm -rf "$TMP"' EXIT

if make -s --no-print-directory -f repro/Makefile BUILD="$BUILD" >"$TMP/make.log" 2>&1; then
	ok "repro programs build (make -f repro/Makefile)"
else
	fail "repro programs build (make -f repro/Makefile)" "$(tail -5 "$TMP/make.log")"
fi

# 4 MiB: 1024 divides each thread's chunk, so no read crosses into the next
# chunk (the seed's programs count such bytes twice).
data=$TMP/r.bin
head -c 4194304 /dev/urandom >"$data"
zeros=$(tr -dc '\0' <"$data" | wc -c)
check "test file has zero bytes to count ($zeros)" test "$zeros" -gt 0

# expect NAME WANT READCOUNT THREADS OUTPUT RC: the seed's header lines, then
# exit 0, the right count and the elapsed-time line, unless WANT is "any"
# (the race may miscount, or make get() throw: exit 1).
expect() {
	local name=$1 want=$2 rcnt=$3 t=$4 out=$5 rc=$6 lines
	mapfile -t lines <<<"$out" # fail's comment lines, one per output line
	if ! grep -qx "Reading 4194304 bytes\.\.\." <<<"$out" ||
		! grep -qx "$rcnt byte(s) at a time using $t thread(s)" <<<"$out"; then
		fail "$name: prints the seed's header lines" "${lines[@]}"
	elif [ "$want" = any ]; then
		ok "$name: runs (count not asserted: shared-position race)"
	elif [ "$rc" -eq 0 ] && grep -qx "Found $want zero bytes in $data" <<<"$out" &&
		grep -Eqx "Elapsed time: $elapsed" <<<"$out"; then
		ok "$name: $want zero bytes"
	else
		fail "$name: $want zero bytes, exit 0 (got $rc)" "${lines[@]}"
	fi
}

if ! command -v dotnet >/dev/null; then
	skip "the .NET program: dotnet not found"
elif [ ! -f "$OUT/dotnet/MMapTest.dll" ]; then
	fail ".NET program built ($OUT/dotnet/MMapTest.dll)"
else
	export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
	dll=$OUT/dotnet/MMapTest.dll
	elapsed='([0-9]+\.)?[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{7})?' # TimeSpan "c"
	for mode in accessor pointer; do
		for rcnt in 1 1024; do
			for t in 1 2; do
				out=$(dotnet "$dll" "$data" $rcnt $t $mode 2>&1)
				expect ".NET $mode readCount=$rcnt threads=$t" "$zeros" $rcnt $t "$out" $?
			done
		done
	done
	out=$(dotnet "$dll" "$data" 2>&1)
	expect ".NET defaults (1 byte, 8 threads, accessor)" "$zeros" 1 8 "$out" $?
	out=$(dotnet "$dll" 2>&1)
	check ".NET without arguments: usage, exit 0" grep -q "^Usage: MMapTest.exe <file>" <<<"$out"
	dotnet "$dll" "$data" 1 1 bogus >/dev/null 2>&1
	check ".NET unknown mode: exit 2" test $? -eq 2
fi

if ! command -v java >/dev/null || ! command -v javac >/dev/null; then
	skip "the Java program: java or javac not found"
elif [ ! -f "$OUT/java/org/example/App.class" ]; then
	fail "Java program built ($OUT/java/org/example/App.class)"
else
	app() { java -cp "$OUT/java" org.example.App "$@" 2>&1; }
	elapsed='[0-9]{2,}:[0-9]{2}:[0-9]{2}\.[0-9]{3}' # StopWatch.toString
	for mode in relative absolute; do
		for rcnt in 1 1024; do
			for t in 1 2; do
				want=$zeros
				[ $mode = relative ] && [ $rcnt -gt 1 ] && [ $t -ge 2 ] && want=any
				out=$(app "$data" $rcnt $t $mode)
				expect "Java $mode readCount=$rcnt threads=$t" "$want" $rcnt $t "$out" $?
			done
		done
	done
	out=$(app "$data")
	expect "Java defaults (1 byte, 8 threads)" "$zeros" 1 8 "$out" $?
	out=$(app)
	check "Java without arguments: usage, exit 0" grep -q "^Usage: MMapTest <file>" <<<"$out"
	app "$data" 1 1 bogus >/dev/null
	check "Java unknown mode: exit 2" test $? -eq 2
fi

done_testing
