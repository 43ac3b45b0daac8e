# More threads than PUs: allowed, flagged on stderr, in the table and in
# the CSV; as many threads as PUs is not flagged.
source "$(dirname "$0")/tap.bash"

pus=$(nproc)
more=$((pus * 2 + 2))
printf '[global]\nsize = 256K\nrepeat = 1\nwarmup = 0\n[fit]\nprobe = mmap_byte\nthreads = %s\n[over]\nprobe = mmap_byte\nthreads = %s\n' \
	"$pus" "$more" >"$TMP/over.ini"
run_mmprof --config "$TMP/over.ini" --csv "$TMP/over.csv"
check "exit 0" test "$rc" -eq 0
check "warning names threads and PUs" grep -q "warning: $more threads on $pus PU(s) (placement compact) is oversubscribed" <<<"$err"
check "one warning" test "$(grep -c oversubscribed <<<"$err")" -eq 1
check "CSV: fit not oversubscribed" test "$(awk -F, '$2 == "fit"' "$TMP/over.csv" | grep -c ',false,')" -ge 1
check "CSV: over oversubscribed" test "$(csv_col "$TMP/over.csv" oversubscribed | tail -1)" = true
check "CSV: npus" test "$(csv_col "$TMP/over.csv" npus | tail -1)" = "$pus"
check "table marks the row" grep -Eq "^over +mmap_byte +$more! " <<<"$out"
check "table explains the mark" grep -q "^! oversubscribed" <<<"$out"
done_testing
