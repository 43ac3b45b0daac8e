#!/usr/bin/env bash
# Write mmprof(1) to stdout: the prose of man/mmprof.1.in, with each
# @SECTION@ line replaced by what the binary prints (--help, each
# subcommand's --help, --list-keys, --list-probes, --list-events), turned
# into man(7) by scripts/help2roff.awk.  The Makefile runs it, so the page
# cannot drift from the binary; tests/integration/man.sh renders it with
# warnings on.
#
#   scripts/make-man.sh >build/mmprof.1        (MMPROF=path/to/mmprof)
set -euo pipefail
cd "$(dirname "$0")/.."
MMPROF=${MMPROF:-./mmprof}
AWK=${AWK:-awk}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

roff() { "$AWK" -v mode="$1" -f scripts/help2roff.awk; }
# block HEADING-REGEX: the lines after the heading, to the first blank line.
block() { sed -n "/$1/,/^\$/{/$1/d;/^\$/d;p}"; }
# note HEADING-REGEX: the heading's parenthesis, the block's introduction.
note() { grep -m1 -A1 "$1" | tr '\n' ' ' | sed -n 's/^[^(]*(\(.*\)): *$/\1./p'; }

help=$("$MMPROF" --help)
"$MMPROF" --version | awk '{print $2}' >"$tmp/VERSION"
date -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}" \
	+%Y-%m-%d >"$tmp/DATE"
"$MMPROF" --list-configs | awk '$2 == "installed" { sub(/\/configs$/, "", $1); print $1 }' \
	>"$tmp/DATADIR"

sed -n '/^usage:/,/^$/p' <<<"$help" | roff synopsis >"$tmp/SYNOPSIS"
sed -n '/^usage:/,/^$/d; /^options:$/q; p' <<<"$help" | roff prose >"$tmp/DESCRIPTION"
block '^options:$' <<<"$help" | roff items >"$tmp/OPTIONS"

# A subsection per subcommand the usage lines name (compare, exec, ...),
# from its own --help.
: >"$tmp/SUBCOMMANDS"
for sub in $(sed -n '/^usage:/,/^$/p' <<<"$help" | sed -n 's/^[a-z: ]*mmprof \([a-z][a-z-]*\) .*/\1/p'); do
	sh=$("$MMPROF" "$sub" --help)
	{
		echo ".SS \"mmprof $sub\""
		sed -n '/^usage:/,/^$/p' <<<"$sh" | roff synopsis
		sed '/^usage:/,/^$/d' <<<"$sh" | roff help
	} >>"$tmp/SUBCOMMANDS"
done

{
	note '^config keys' <<<"$help" | roff prose
	"$MMPROF" --list-keys | roff keys
} >"$tmp/KEYS"
"$MMPROF" --list-probes | roff items >"$tmp/PROBES"
{
	note '^controls' <<<"$help" | roff prose
	block '^controls' <<<"$help" | grep '^ ' | roff items
} >"$tmp/CONTROLS"
# The presets' names and purposes; what each expands to depends on the
# machine (mmprof --list-events there says).
if events=$("$MMPROF" --list-events 2>/dev/null); then
	block '^presets' <<<"$events" | grep '^  [a-z]' | roff items >"$tmp/PRESETS"
else
	echo 'mmprof \-\-list\-events lists them (it could not run where this page was made).' \
		>"$tmp/PRESETS"
fi
sed -n '/^exit status:/,/^$/p' <<<"$help" | sed '/^environment:/,$d' | roff exit >"$tmp/EXIT"

"$AWK" -v dir="$tmp" '
	/^@[A-Z]+@$/ {
		f = dir "/" substr($0, 2, length($0) - 2)
		n = 0
		while ((getline l < f) > 0) { print l; n++ }
		if (n == 0) { print "make-man.sh: nothing for " $0 > "/dev/stderr"; exit 1 }
		close(f)
		next
	}
	{
		while (match($0, /@[A-Z]+@/)) {
			f = dir "/" substr($0, RSTART + 1, RLENGTH - 2)
			v = ""
			getline v < f
			close(f)
			if (v == "") { print "make-man.sh: nothing for " substr($0, RSTART, RLENGTH) > "/dev/stderr"; exit 1 }
			$0 = substr($0, 1, RSTART - 1) v substr($0, RSTART + RLENGTH)
		}
		print
	}' man/mmprof.1.in
