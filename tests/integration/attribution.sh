# Planted causes, each attributed to the right top cause by the controls
# (asserting causes, never times), the attribution CSV, and the answers a
# `fixes` job asks for.
source "$(dirname "$0")/tap.bash"

if [ "$(nproc)" -lt 2 ]; then
	skip "needs two PUs for sharing to cost anything (this machine has $(nproc))"
	done_testing
	exit 0
fi
pus=$(nproc)
cat >"$TMP/planted.ini" <<INI
[global]
size = 16M
repeat = 5
warmup = 1
controls = auto
events = faults, sched

; one reference count, taken and given back by both threads on every byte
[true_sharing]
probe = accessor_byte
refcount = shared
threads = 2

; per-thread counters side by side in one line, hit on every byte
[false_sharing]
probe = mmap_byte
fill = zero
tally = packed
threads = 2
prefault = yes

; a cold page cache: the lazy mapping faults the file in from the disk,
; page by page (random advice: no readahead to hide it)
[page_faults]
probe = mmap_block
seed = 23
cache = drop
advice = random

; a call and bounds checks per byte, nothing shared
[per_call]
probe = accessor_byte
refcount = once

; more threads than PUs
[oversubscribed]
probe = mmap_byte
threads = $((pus * 4))
INI
run_mmprof --config "$TMP/planted.ini" --csv "$TMP/planted.csv"
check "planted config runs" test "$rc" -eq 0
attr=$TMP/planted.attribution.csv
check "attribution CSV beside the CSV" test -s "$attr"
check "attribution CSV header" test "$(head -1 "$attr")" = "schema_version,run_id,job,probe,threads,access,cause,detail,ns_per_byte,share,significant,noise_ns_per_byte,cv_before,cv_after,control,evidence,evidence_before,evidence_after,evidence_missing"

top() { # the largest significant cause of a job, unexplained aside
	awk -F, -v job="$1" 'NR > 1 && $3 == job && $11 == "true" && $7 != "unexplained" &&
		($9 + 0 > best || !found) { best = $9 + 0; cause = $7; found = 1 } END { print cause }' "$attr"
}
check "refcount shared at 2 threads: true sharing ($(top true_sharing))" test "$(top true_sharing)" = "true sharing"
check "packed tally on zeros at 2 threads: false sharing ($(top false_sharing))" test "$(top false_sharing)" = "false sharing"
check "cold lazy mmap: page faults ($(top page_faults))" test "$(top page_faults)" = "page faults"
check "ReadByte with the reference once, 1 thread: per-call ($(top per_call))" test "$(top per_call)" = "per-call"
check "oversubscription named for $((pus * 4)) threads on $pus PUs" grep -q ",oversubscribed,mmap_byte,$((pus * 4)),1,oversubscription,," "$attr"
check "the true sharing is the refcount" grep -q ',true_sharing,accessor_byte,2,1,true sharing,refcount,' "$attr"
check "shares add up to 1 for every job" test -z "$(awk -F, 'NR > 1 { s[$3] += $10 } END { for (j in s) if (s[j] < 0.99 || s[j] > 1.01) print j, s[j] }' "$attr")"
check "fault evidence counted" grep -q ',page_faults,.*,page faults,.*,faults/MiB,[0-9.]*,0,' "$attr"

check "verdict line with fix" grep -q '^true_sharing accessor_byte t=2 a=1: .* ns/B = true sharing (refcount) [0-9]*%.*; fix: take the reference once per thread' <<<"$out"
check "evidence line" grep -q '^    evidence: faults/MiB' <<<"$out"
check "ladder line" grep -q '^    ladder, ns per byte of the file: job [0-9.]* | +prefault ' <<<"$out"
check "controls are CSV rows" test "$(csv_col "$TMP/planted.csv" control | sort -u | grep -c .)" -ge 5
check "control rows interleave with the job's (A B A B)" test "$(awk -F, '$2 == "per_call" { printf "%s;", $11 }' "$TMP/planted.csv")" = ";prefault;prefault+bulk;;prefault;prefault+bulk;;prefault;prefault+bulk;;prefault;prefault+bulk;;prefault;prefault+bulk;"

# The seed's questions on a small copy of byte_8t.ini.
sed -e 's/^size = 100M/size = 8M/' -e 's/^repeat = 5/repeat = 3/' configs/byte_8t.ini >"$TMP/seed.ini"
run_mmprof --config "$TMP/seed.ini" --csv "$TMP/seed.csv" --quiet
check "seed config runs" test "$rc" -eq 0
check "answers block" grep -q '^answers (dotnet_fixed fixes dotnet_like; baseline java_like):' <<<"$out"
check "1. the gap" grep -q '^ 1\. Is the gap reproduced?  dotnet_like vs java_like, 1-byte reads: [0-9.]*x at 1 thread, [0-9.]*x at 8 threads' <<<"$out"
check "2. the cause at 8 threads is true sharing of the refcount" grep -q '^ 2\. What causes it? .*threads=8 access=1: true sharing (refcount' <<<"$out"
check "3. the fix, side by side" grep -q '^ 3\. Does dotnet_fixed resolve it without slowing multi-byte reads?  1-byte reads: .* side by side.*; multi-byte reads: ' <<<"$out"
check "twin rows in the CSV" grep -q ',twin of dotnet_fixed,' "$TMP/seed.csv"

# Bad controls are config errors.
printf '[j]\nprobe = limit\nsize = 4K\ncontrols = prefualt\n' >"$TMP/bad.ini"
run_mmprof --config "$TMP/bad.ini"
check "bad control: exit 2 and did-you-mean" grep -qF "$TMP/bad.ini:4: [j] unknown control 'prefualt' (did you mean 'prefault'?)" <<<"$err"
printf '[j]\nprobe = limit\nsize = 4K\nfixes = k\n' >"$TMP/bad2.ini"
run_mmprof --config "$TMP/bad2.ini"
check "fixes must name a job" grep -qF "$TMP/bad2.ini:4: [j] fixes 'k' is not a job here" <<<"$err"
done_testing
