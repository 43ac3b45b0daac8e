#!/usr/bin/env bash
# Rewrite README.md's generated sections (between <!-- NAME:begin --> and
# <!-- NAME:end -->) from the binary: keys, columns, probes, help.
# tests/integration/readme.sh fails when they are stale.
set -euo pipefail
cd "$(dirname "$0")/.."
MMPROF=${MMPROF:-./mmprof}
replace() { # replace NAME FILE-WITH-CONTENT
	awk -v name="$1" -v file="$2" '
		$0 == "<!-- " name ":begin -->" { print; while ((getline line < file) > 0) print line; skip = 1; next }
		$0 == "<!-- " name ":end -->" { skip = 0 }
		!skip' README.md >README.md.new
	mv README.md.new README.md
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
"$MMPROF" --list-keys=markdown >"$tmp" && replace keys "$tmp"
"$MMPROF" --list-columns=markdown >"$tmp" && replace columns "$tmp"
{ echo '```'; "$MMPROF" --list-probes; echo '```'; } >"$tmp" && replace probes "$tmp"
{ echo '```'; "$MMPROF" --help | sed '/^config keys/,$d' | sed '$d'; echo '```'; } >"$tmp" &&
	replace help "$tmp"
