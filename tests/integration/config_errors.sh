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

# Every error in one pass, in line order: a value that does not parse in
# one job no longer hides the errors the later stages find in others
# (expanding: pingpong's threads; planning: a PU the machine lacks, a
# baseline that cannot be compared).  Before, only line 3 was said.
cat >"$TMP/pass.ini" <<'INI'
[p]
probe = pingpong
threads = 0

[q]
probe = pingpong
threads = 4

[far]
probe = limit
size = 4K
placement = pus:0,4000

[fast]
probe = mmap_block
size = 1M
access = 64K

[slow]
probe = mmap_byte
size = 1M
baseline = fast
INI
run_mmprof --config "$TMP/pass.ini" -n
check "one pass: exit 2" test "$rc" -eq 2
check "one pass: every error, in line order" diff <(grep -o '^[^ ]*pass.ini:[0-9]*' <<<"$err" | sed 's/.*://') <(printf '3\n7\n12\n22\n')
check "one pass: pingpong's threads" grep -qF "$TMP/pass.ini:7: [q] probe 'pingpong' runs 2 threads, not 4" <<<"$err"
check "one pass: the missing PU" grep -qF "$TMP/pass.ini:12: [far] placement pus:0,4000: PU 4000 does not exist" <<<"$err"
check "one pass: the baseline that cannot be compared, with the keys that differ" \
	grep -qF "$TMP/pass.ini:22: [slow] baseline = fast: no run of [fast] is comparable with this one (the same data read in the same conditions), so no ratio to it is shown; they differ in access (1B here, 64KiB in [fast])" <<<"$err"
check "one pass: counted" grep -qF "mmprof: 4 error(s) in $TMP/pass.ini; nothing was run" <<<"$err"

done_testing
