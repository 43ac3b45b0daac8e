# completion/mmprof.bash: sourced into bash, its function called as bash
# would call it (COMP_WORDS, COMP_CWORD), COMPREPLY checked: options from
# --help, subcommands, .ini after --config (and the configs found by
# name), .csv after --csv and after compare, values of options that set a
# config key, =markdown after --list-keys=.
source "$(dirname "$0")/tap.bash"

mm=$(realpath "$MMPROF")
comp_file=$PWD/completion/mmprof.bash
mkdir -p "$TMP/w/sub" "$TMP/bin"
touch "$TMP/w/mine.ini" "$TMP/w/notes.txt" "$TMP/w/a.csv" "$TMP/w/b.csv" "$TMP/w/m.xml"

# complete BIN WORDS...: COMPREPLY, one per line, sorted, for the command
# line BIN WORDS... with the cursor at the end of the last word ("" for a
# new word), run in $TMP/w.
complete_line() {
	(
		cd "$TMP/w" || exit 1
		source "$comp_file"
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_mmprof
		printf '%s\n' "${COMPREPLY[@]}" | sort
	)
}
# has WORDS... -- EXPECTED...: every EXPECTED is offered.
has() {
	local words=() got w m=""
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	got=$(complete_line "${words[@]}")
	for w in "$@"; do grep -qxF -- "$w" <<<"$got" || m="$m $w"; done
	check "${words[*]:1}|: offers $*${m:+ (missing:$m; got: $(echo $got))}" test -z "$m"
}
# hasnt WORDS... -- UNEXPECTED...: none of them is offered.
hasnt() {
	local words=() got w m=""
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	got=$(complete_line "${words[@]}")
	for w in "$@"; do grep -qxF -- "$w" <<<"$got" && m="$m $w"; done
	check "${words[*]:1}|: does not offer $*${m:+ (offered:$m)}" test -z "$m"
}

check "it is registered for mmprof" bash -c 'source "$1"; complete -p mmprof | grep -q "_mmprof mmprof"' _ "$comp_file"

# Options: every one --help lists, and only those.
all=$("$mm" --help | sed -n '/^options:$/,/^$/p' | grep -oE -- '--[a-z][a-z-]*' | sort -u)
got=$(complete_line "$mm" --)
check "-- offers every option of --help" test "$got" = "$all"
has "$mm" - -- -c -o -n -q --config --dry-run
has "$mm" --list- -- --list-probes --list-events --list-configs --list-keys --list-columns
hasnt "$mm" --list- -- --config
has "$mm" "" -- compare
hasnt "$mm" --config x.ini "" -- compare

# --config: .ini files and directories, and the configs found by name.
has "$mm" --config "" -- mine.ini sub byte_8t quick read_mmap_fread
hasnt "$mm" --config "" -- notes.txt a.csv
has "$mm" -c by -- byte_8t
hasnt "$mm" -c by -- quick
has "$mm" --csv "" -- a.csv b.csv sub
hasnt "$mm" --csv "" -- mine.ini byte_8t
has "$mm" --config mine.ini --json "" -- sub
# --explain JOB: the jobs of the config on the line, found by name too.
printf '[global]\nsize = 4K\n[alpha]\nprobe = limit\n[beta_2]\nprobe = limit\n' >"$TMP/w/jobs.ini"
has "$mm" --config jobs.ini --explain "" -- alpha beta_2
hasnt "$mm" --config jobs.ini --explain "" -- global
has "$mm" --config byte_8t --explain d -- dotnet_like dotnet_fixed
has "$mm" exec --job dotnet --explain "" -- dotnet
has "$mm" exec --ex -- --explain
has "$mm" --topology-from "" -- synthetic: xml:
has "$mm" --topology-from xml: -- xml:m.xml
# An optional value only after '='.
has "$mm" --list-keys = -- markdown
has "$mm" --list-keys = -- roles
has "$mm" --list-columns = m -- markdown
hasnt "$mm" --list-keys "" -- markdown
# -r N: a count; "auto" is not one the main command takes.
hasnt "$mm" -r "" -- auto

# compare: its own options, then CSVs.
all=$("$mm" compare --help | grep -E '^  -' | grep -oE -- '--[a-z][a-z-]*' | sort -u)
got=$(complete_line "$mm" compare --)
check "compare --: offers every option of compare --help" test "$got" = "$all"
has "$mm" compare "" -- a.csv b.csv sub
hasnt "$mm" compare a.csv "" -- mine.ini
has "$mm" compare a.csv b.csv --csv "" -- a.csv

# An option that sets a config key completes the key's values: a stand-in
# mmprof whose --help has such options (as mmprof exec's does) and whose
# listings are the real binary's.
cat >"$TMP/bin/mmprof" <<EOF
#!/usr/bin/env bash
if [ "\$1" = --help ]; then
	"$mm" --help | sed '/^options:\$/a\\
  --placement P              where (compact, scatter, ...)\\
  --events E                 what to count\\
  --probe NAME               the access path\\
  --kernel K                 what it computes'
	exit
fi
exec "$mm" "\$@"
EOF
chmod +x "$TMP/bin/mmprof"
stand_in=$TMP/bin/mmprof
has "$stand_in" --placement "" -- compact scatter cores spread pairs pus: numa: package: l3:
has "$stand_in" --placement pu -- pus:
has "$stand_in" --events "" -- basic cache tlb faults contention sched syscalls none
has "$stand_in" --events basic,fa -- basic,faults
has "$stand_in" --probe mm -- mmap_byte mmap_block mmap_file
hasnt "$stand_in" --probe mm -- limit
has "$stand_in" --kernel "" -- zeros histogram

# mmprof exec, where this build has it: its options, values, the command.
if "$mm" --help | grep -q '^ .*mmprof exec '; then
	has "$mm" exec --pl -- --placement
	has "$mm" exec --placement "" -- compact scatter
	has "$mm" exec --events b -- basic
	# (has/hasnt split at "--": this line has one of its own)
	got=$(complete_line "$mm" exec --file x -- ba)
	check "exec --file x -- ba|: offers bash (a command)" grep -qx bash <<<"$got"
else
	skip "this mmprof has no exec subcommand"
fi
done_testing
