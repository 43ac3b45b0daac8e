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

# csv_rows FILE NAME...: the named columns of every row, '|' between them
# (an RFC 4180 reader: free-text cells carry quoted commas).
csv_rows() {
	/usr/bin/python3 - "$@" <<'PY'
import csv, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # | head: stop quietly
path, names = sys.argv[1], sys.argv[2:]
for row in csv.DictReader(open(path, newline="")):
    print("|".join(row[n] for n in names))
PY
}

# csv_col FILE NAME: the values of one column, one per line.
csv_col() { csv_rows "$1" "$2"; }

# counts NAME.csv EVENT [COLUMN]: one event's sums over threads from
# NAME.events.csv, one per repetition in the CSV's order (COLUMN: value by
# default; run_ratio = running/enabled).
counts() {
	local events=${1%.csv}.events.csv col=${3:-value}
	csv_rows "$events" thread event value raw enabled_ns running_ns | awk -F'|' -v e="$2" -v c="$col" '
		$1 == "" && $2 == e { if (c == "run_ratio") print ($5 > 0 ? sprintf("%.4f", $6 / $5) : "");
			else print $3 }'
}

# The planted-cause tests' verdicts (attribution, disturbed, exec_causes).
# verdict JOB: the job's block in the last run's report ("[JOB] ...: N ns
# per byte", its causes table, "  fix: ..." or "  largest cause:
# inconclusive (...)"), up to the blank line after it.
# unwrap: stdin with each prose line mmprof wrapped at 160 characters
# joined back (its continuations are indented 4 more than it; the
# report's own nesting steps by 2).
unwrap() {
	awk '{ i = match($0, /[^ ]/) - 1 }
		NR > 1 && i >= 0 && i == ind + 4 { printf " %s", substr($0, i + 1); next }
		NR > 1 { print "" } { printf "%s", $0; ind = i } END { if (NR) print "" }'
}
verdict() { awk -v h="[$1] " 'index($0, h) == 1 { on = 1 } on && /^$/ { exit } on' <<<"$out" | unwrap; }
# longest OUT: the length of the longest line of stdout and stderr.
longest() { printf '%s\n%s\n' "$out" "$err" | awk '{ if (length > m) m = length } END { print m + 0 }'; }
# lines_fit LABEL: no line of the last run's stdout and stderr over 160
# characters; the ones over it shown when not.
lines_fit() {
	if [ "$(longest)" -le 160 ]; then
		ok "$1: no line over 160 characters (the longest: $(longest))"
	else
		fail "$1: no line over 160 characters (the longest: $(longest))" \
			"$(printf '%s\n%s\n' "$out" "$err" | awk 'length > 160')"
	fi
}
# shown_top JOB ATTRIBUTION_CSV: a program's largest significant cause
# shown (not left out of the table, its rung used), the remainder aside:
# what the exec tests' `top` holds judge's verdict against.
shown_top() {
	csv_rows "$2" job cause significant ns_per_byte not_shown used | awk -F'|' -v job="$1" '
		$1 == job && $3 == "true" && $5 == "" && $6 == "true" && $2 != "limit" &&
		$2 != "remaining" && ($4 + 0 > best || !found) { best = $4 + 0; cause = $2; found = 1 }
		END { print cause }'
}
# judge LABEL JOB CAUSE CSV: the planted cause on top (the script's own
# `top JOB CSV` names the largest) and decided, or an inconclusive verdict
# that says why -- a fix for another cause is wrong.  CAUSE is an
# extended regex the whole name matches ('a|b' for either).
judge() {
	local label=$1 job=$2 cause=$3 csv=$4 line t
	line=$(verdict "$job")
	t=$(top "$job" "$csv")
	if [[ $t =~ ^($cause)$ ]] && grep -q '^  fix: ' <<<"$line"; then
		ok "$label: $job names $cause"
	elif grep -q '^  largest cause: inconclusive (' <<<"$line"; then
		ok "$label: $job is inconclusive ($(sed -n 's/^  largest cause: inconclusive (//p' <<<"$line"))"
	else
		fail "$label: $job names '$t' with a fix, the planted cause is $cause" "$line"
	fi
}
