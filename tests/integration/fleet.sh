# More than one machine (docs/fleet.md): {host} in --csv, --json and the
# csv key is the short host name, so one command line gives each host its
# own files; then the files of two hosts load as one frame and compare.
# A second host is this one under another name (a UTS namespace), where
# unshare is allowed.
source "$(dirname "$0")/tap.bash"

short=$(hostname | cut -d. -f1)
printf '[j]\nprobe = limit\nsize = 64K\nseed = 9\nrepeat = 3\nwarmup = 0\nevents = faults\n' >"$TMP/c.ini"

run_mmprof --config "$TMP/c.ini" --csv "$TMP/r/{host}.csv" --json "$TMP/r/{host}.json" --quiet
check "--csv r/{host}.csv: exit 0 ($rc)" test "$rc" -eq 0
check "written as r/$short.csv" test -s "$TMP/r/$short.csv"
check "its companion beside it: r/$short.events.csv" test -s "$TMP/r/$short.events.csv"
check "--json r/{host}.json: r/$short.json" test -s "$TMP/r/$short.json"
check "nothing named {host}" test -z "$(find "$TMP/r" -name '*{*')"
check "the file's name is the host column's, to its first dot" \
	test "$(csv_col "$TMP/r/$short.csv" host | sort -u | cut -d. -f1)" = "$short"

printf '[global]\ncsv = %s/k/{host}.csv\n[j]\nprobe = limit\nsize = 4K\n' "$TMP" >"$TMP/key.ini"
run_mmprof --config "$TMP/key.ini" --dry-run
check "csv = k/{host}.csv: filled in" grep -qx "CSV: $TMP/k/$short.csv" <<<"$out"
run_mmprof --config "$TMP/key.ini" --dry-run --csv "$TMP/{{host}}.csv"
check "{{host}}: literal braces" grep -qx "CSV: $TMP/{host}.csv" <<<"$out"

run_mmprof --config "$TMP/c.ini" --csv "$TMP/bad/{hostname}.csv"
check "--csv {hostname}: exit 2 ($rc)" test "$rc" -eq 2
check "--csv {hostname}: says the one there is" \
	grep -qF "unknown placeholder {hostname}: the only one is {host}" <<<"$err"
check "--csv {hostname}: nothing written" test ! -e "$TMP/bad"
printf '[global]\nseed = 1\ncsv = r/{nodename}.csv\n[j]\nprobe = limit\nsize = 4K\n' >"$TMP/badkey.ini"
run_mmprof --config "$TMP/badkey.ini" --dry-run
check "csv = {nodename}: exit 2 ($rc)" test "$rc" -eq 2
check "csv = {nodename}: its file and line" \
	grep -qF "$TMP/badkey.ini:3: [global] csv: unknown placeholder {nodename}" <<<"$err"
run_mmprof --config "$TMP/c.ini" --dry-run --json "$TMP/{host"
check "--json with '{' alone: exit 2 ($rc)" test "$rc" -eq 2

# A second host.
if ! unshare -u true 2>/dev/null; then
	skip_rest "unshare -u is not allowed here: no second host name to run as"
fi
unshare -u bash -c 'hostname node-b.example && exec "$@"' _ \
	"$MMPROF" --config "$TMP/c.ini" --csv "$TMP/r/{host}.csv" --quiet >/dev/null
check "as node-b.example: r/node-b.csv" test -s "$TMP/r/node-b.csv"
check "its host column is the whole name" test "$(csv_col "$TMP/r/node-b.csv" host | sort -u)" = node-b.example
run_mmprof compare "$TMP/r/$short.csv" "$TMP/r/node-b.csv"
check "compare across the two hosts: exit 0 ($rc)" test "$rc" -eq 0
check "compare matched the run" grep -q "^j  " <<<"$out"
if ! /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
	skip_rest "python3-pandas is not installed (make deps)"
fi
hosts=$(cd analysis && /usr/bin/python3 -B -c '
import sys, mmprof_csv
df = mmprof_csv.load_many(sys.argv[1])
print(" ".join(sorted(df["host"].unique())))' "$TMP/r/*.csv")
check "load_many(r/*.csv): both hosts in one frame ($hosts)" \
	test "$hosts" = "$(printf '%s\n' node-b.example "$(hostname)" | sort | tr '\n' ' ' | sed 's/ $//')"
done_testing
