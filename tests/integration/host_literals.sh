# No test expects one host's topology: a grep for "PU 1 (node 0, L3 0)"
# passes where it was written and fails on the next machine (issue 26:
# a host with one L3 per core failed cli and resources). A topology
# literal is allowed only after a command that runs mmprof on a described
# machine (--topology-from, HWLOC_SYNTHETIC, HWLOC_XMLFILE); on the host,
# tests compute what they expect (machines.bash, topology_model.py).
source "$(dirname "$0")/tap.bash"

# host_literals FILE...: "FILE:LINE: TEXT" for each such literal.
host_literals() {
	awk '
	FNR == 1 { described = 0 }
	# The last command that ran mmprof decides what the lines after it see.
	/run_mmprof|\$MMPROF|\$\{MMPROF/ { described = /--topology-from|HWLOC_SYNTHETIC|HWLOC_XMLFILE/ }
	/grep|check|test / && /PU [0-9]+ \\?\(node [0-9]|node [0-9]+, L3 [0-9]+|L3 [0-9]+: [^"]*PUs? [0-9]|core [0-9]+: PUs? [0-9]/ &&
		!described { print FILENAME ":" FNR ": " $0 }' "$@"
}

# The check itself: it finds the line that failed on a host with one L3
# per core, and lets the same literal pass after a described machine.
cat >"$TMP/old_cli.sh" <<'OLD'
run_mmprof --config configs/byte_8t.ini --topology
check "--topology: each thread's PU, node and L3" grep -Eq "^    t0 PU 0 \(node 0, L3 0\)  t1 PU 1 \(node 0, L3 0\)  t2 PU 0" <<<"$out"
out=$(taskset -c 1 "$MMPROF" --config "$TMP/t.ini" --topology)
check "taskset -c 1: every planned PU is 1" grep -q "t0 PU 1 (node 0, L3 0)  t1 PU 1 (node 0, L3 0)" <<<"$out"
OLD
check "finds the old cli.sh and resources.sh literals" test "$(host_literals "$TMP/old_cli.sh" | wc -l)" -eq 2
sed 's/--topology$/--topology --topology-from "synthetic:pack:1 core:2 pu:1"/; s/--topology)$/--topology --topology-from xml:x.xml)/' \
	"$TMP/old_cli.sh" >"$TMP/described.sh"
check "lets the same literals pass on a described machine" test -z "$(host_literals "$TMP/described.sh")"

found=$(host_literals $(ls tests/integration/*.sh tests/integration/*.bash | grep -v '/host_literals\.sh$'))
check "no test greps for a host's topology literal" test -z "$found"
[ -z "$found" ] || sed 's/^/# /' <<<"$found"
done_testing
