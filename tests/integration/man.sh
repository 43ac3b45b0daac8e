# mmprof(1): scripts/make-man.sh makes it from what the binary prints, man
# and groff render it without a single warning, and it holds every option,
# subcommand, key, probe, preset, control, exit status and environment
# variable the binary names.
source "$(dirname "$0")/tap.bash"

if ! command -v man >/dev/null || ! command -v groff >/dev/null; then
	skip_rest "man and groff are not installed (make deps: man-db)"
fi
page=$TMP/mmprof.1
if MMPROF=$(realpath "$MMPROF") scripts/make-man.sh >"$page" 2>"$TMP/make.err"; then
	ok "scripts/make-man.sh makes the page"
else
	fail "scripts/make-man.sh makes the page" "$(cat "$TMP/make.err")"
fi

# warnings PAGE: what man and groff say about it, all warnings on.
warnings() {
	MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null
	groff -man -ww -z "$1" 2>&1
}
w=$(warnings "$page")
check "man --warnings and groff -ww: nothing to say" test -z "$w"
[ -z "$w" ] || echo "$w" | head -20 | sed 's/^/# /'
# The same check on a page with a planted fault says something.
{ cat "$page"; printf '.XYZ\n\\fQ\n'; } >"$TMP/bad.1"
check "...and they would: a planted unknown macro and font are reported" test -n "$(warnings "$TMP/bad.1")"
check "no @marker@ left" bash -c '! grep -n "@[A-Z]*@" "$1"' _ "$page"
check "lexgrog reads its NAME line" grep -qF ': "mmprof - run memory and file access patterns' <<<"$(lexgrog "$page" 2>&1)"

# The page as read, one line per paragraph (no wrapping, no hyphenation).
text=$(MANWIDTH=2000 man -l "$page" 2>/dev/null | sed 's/^ *//')
section() { awk -v s="$1" '$0 == s { p = 1; next } /^[A-Z][A-Z ]+$/ { p = 0 } p' <<<"$text"; }
for s in NAME SYNOPSIS DESCRIPTION OPTIONS SUBCOMMANDS "CONFIG KEYS" PROBES "EVENT PRESETS" \
	CONTROLS FILES ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
	check "section $s" test -n "$(section "$s")"
done

help=$("$MMPROF" --help)
# missing WHAT SECTION NAMES...: the names not at the start of a line of SECTION.
missing() {
	local what=$1 sec=$2 m=""; shift 2
	local body; body=$(section "$sec")
	for n in "$@"; do grep -qE -- "^(-[A-Za-z], )?$n( |,|\[|$)" <<<"$body" || m="$m $n"; done
	check "$what: all ${#@} in $sec${m:+ (missing:$m)}" test -z "$m"
}
missing "options of --help" OPTIONS $(sed -n '/^options:$/,/^$/p' <<<"$help" | grep -oE -- '--[a-z][a-z-]*' | sort -u)
subs=$(sed -n '/^usage:/,/^$/p' <<<"$help" | sed -n 's/^[a-z: ]*mmprof \([a-z][a-z-]*\) .*/\1/p')
check "the usage names a subcommand (compare)" grep -qw compare <<<"$subs"
for sub in $subs; do
	check "subcommand $sub: its synopsis" grep -qE "^mmprof $sub " <<<"$(section SUBCOMMANDS)"
	missing "options of mmprof $sub --help" SUBCOMMANDS \
		$("$MMPROF" "$sub" --help | sed -nE 's/^  (-[A-Za-z], )?(--[a-z][a-z-]*).*/\2/p' | sort -u)
done
missing "keys of --list-keys" "CONFIG KEYS" $("$MMPROF" --list-keys | awk '/^    [a-z]/ { print $1 }')
missing "probes of --list-probes" PROBES $("$MMPROF" --list-probes | awk '{ print $1 }')
missing "presets of --list-events" "EVENT PRESETS" \
	$("$MMPROF" --list-events | sed -n '/^presets/,/^$/p' | awk '/^  [a-z]/ { print $1 }')
missing "controls of --help" CONTROLS $(sed -n '/^controls/,/^$/p' <<<"$help" | awk '/^    [a-z]/ { print $1 }')
missing "exit statuses of --help" "EXIT STATUS" \
	$(sed -n '/^exit status:/,/^environment/p' <<<"$help" | tr '\n' ' ' | grep -oE '(: |, )[0-9]+ ' | tr -dc '0-9 ')
check "the exit statuses are 0, 1, 2, 3 and 130" \
	test "$(section "EXIT STATUS" | grep -E '^[0-9]+ ' | awk '{ print $1 }' | tr '\n' ' ')" = "0 1 2 3 130 "
missing "environment variables --help names" ENVIRONMENT \
	$(grep -oE '(MMPROF|HWLOC|LIBPFM)_[A-Z0-9_]+' <<<"$help" | sort -u) MMPROF_CONFIG_PATH LIBPFM_FORCE_PMU
check "FILES names every companion --list-columns describes" bash -c '
	for f in $("$1" --list-columns | grep -oE "^NAME\.[a-z.]+csv"); do
		grep -qF "$f" <<<"$2" || { echo "# missing $f"; exit 1; }
	done' _ "$MMPROF" "$(section FILES)"
datadir=$("$MMPROF" --list-configs | awk '$2 == "installed" { print $1 }')
check "FILES names the compiled-in config directory ($datadir)" grep -qF "$datadir" <<<"$(section FILES)"
check "FILES says what {host} is" grep -qF '{host}' <<<"$(section FILES)"

# make builds the same page (it is made, never edited).
if [ -f "${BUILD:-build}/mmprof.1" ] && [ "${BUILD:-build}/mmprof.1" -nt "$MMPROF" ]; then
	check "make's ${BUILD:-build}/mmprof.1 is this page" cmp -s "${BUILD:-build}/mmprof.1" "$page"
else
	skip "no ${BUILD:-build}/mmprof.1 newer than $MMPROF (make builds it)"
fi
done_testing
