#!/usr/bin/env bash
# Rewrite the generated sections of docs/ (between <!-- NAME:begin --> and
# <!-- NAME:end -->) from the binary's own tables: keys, columns, probes,
# controls, help.  tests/integration/docs.sh fails when one is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
MMPROF=${MMPROF:-./mmprof}
replace() { # replace FILE NAME FILE-WITH-CONTENT
	awk -v name="$2" -v file="$3" '
		$0 == "<!-- " name ":begin -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
		$0 == "<!-- " name ":end -->" { skip = 0 }
		!skip' "$1" >"$1.new"
	mv "$1.new" "$1"
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$MMPROF" --list-keys=markdown >"$tmp" && replace docs/config.md keys "$tmp"
"$MMPROF" --list-columns=markdown >"$tmp" && replace docs/csv.md columns "$tmp"
{ echo '```'; "$MMPROF" --list-probes; echo '```'; } >"$tmp" && replace docs/probes.md probes "$tmp"
"$MMPROF" --list-controls=markdown >"$tmp" && replace docs/attribution.md controls "$tmp"
{ echo '```'; "$MMPROF" --help | sed '/^config keys/,$d' | sed '$d'; echo '```'; } >"$tmp" &&
	replace docs/cli.md help "$tmp"
# The key roles the Python loader reads (analysis/mmprof_csv.py).
"$MMPROF" --list-keys=roles >analysis/keys.tsv
