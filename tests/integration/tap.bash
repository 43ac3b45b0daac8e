# TAP helpers for integration tests: each script prints "1..N" at the end
# (done_testing) and one "ok"/"not ok"/"ok # SKIP" line per check.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MMPROF=${MMPROF:-./mmprof}
TMP=$(mktemp -d "${MMPROF_TEST_TMP:-/tmp}/it.XXXXXX")
export MMPROF_DATA=${MMPROF_DATA:-$TMP/data}
_n=0

ok()   { _n=$((_n + 1)); echo "ok $_n - $1"; }
fail() { _n=$((_n + 1)); echo "not ok $_n - $1"; shift; for l in "$@"; do echo "# $l"; done; }
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $1"; }
check() { # check "name" command...: ok when the command succeeds
	local name=$1; shift
	if "$@"; then ok "$name"; else fail "$name" "command: $*"; fi
}
done_testing() { echo "1..$_n"; }
# skip_rest REASON: what is left of the script cannot run here; end it.
skip_rest() { skip "$1"; done_testing; exit 0; }

# run_mmprof ARGS...: sets $out, $err, $rc
run_mmprof() {
	out=$("$MMPROF" "$@" 2>"$TMP/stderr")
	rc=$?
	err=$(cat "$TMP/stderr")
}

# csv_col FILE NAME: the values of one column, one per line (no quoted commas
# in the columns tests read).
csv_col() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		{ print $c }' "$1"
}
