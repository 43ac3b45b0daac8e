# A bad config: every error printed as FILE:LINE: [section] message, exit 2,
# and nothing run, created or written.
source "$(dirname "$0")/tap.bash"

cat >"$TMP/bad.ini" <<'INI'
[global]
size = 1M
csv = $TMP/should-not-exist.csv

[scan]
probe = mmap_bite
threds = 2
threads = 0
tally = packd
size = 12Q
INI
sed -i "s|\$TMP|$TMP|" "$TMP/bad.ini"
run_mmprof --config "$TMP/bad.ini"
check "exit 2" test "$rc" -eq 2
check "unknown probe with did-you-mean" grep -qF "$TMP/bad.ini:6: [scan] unknown probe 'mmap_bite' (did you mean 'mmap_byte'?)" <<<"$err"
check "unknown key with did-you-mean" grep -qF "$TMP/bad.ini:7: [scan] unknown key 'threds' (did you mean 'threads'?)" <<<"$err"
check "zero threads" grep -qF "$TMP/bad.ini:8: [scan] threads = 0 is out of range (1 to 1024)" <<<"$err"
check "bad enum value" grep -qF "$TMP/bad.ini:9: [scan] 'packd' is not a valid tally (did you mean 'packed'?)" <<<"$err"
check "bad size" grep -qF "$TMP/bad.ini:10: [scan] '12Q' is not a size" <<<"$err"
check "summary line" grep -qF "mmprof: 5 error(s) in $TMP/bad.ini; nothing was run" <<<"$err"
check "nothing on stdout" test -z "$out"
check "no CSV written" test ! -e "$TMP/should-not-exist.csv"
check "no data created" test ! -e "$MMPROF_DATA"

# A placement the machine cannot give: a config error too, with its line.
printf '[j]\nprobe = limit\nsize = 4K\nplacement = pus:0,4000\n' >"$TMP/pus.ini"
run_mmprof --config "$TMP/pus.ini"
check "missing PU: exit 2" test "$rc" -eq 2
check "missing PU: FILE:LINE" grep -qF "$TMP/pus.ini:4: [j] placement pus:0,4000: PU 4000 does not exist" <<<"$err"
printf '[j]\nprobe = limit\nsize = 4K\nplacement = numa:7\n' >"$TMP/numa.ini"
run_mmprof --config "$TMP/numa.ini"
check "missing NUMA node: exit 2" test "$rc" -eq 2
check "missing NUMA node: FILE:LINE" grep -qF "$TMP/numa.ini:4: [j] placement numa:7: no NUMA node 7" <<<"$err"

done_testing
