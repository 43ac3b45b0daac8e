# README.md stays true: its generated tables equal what the binary prints,
# its two commands exist, and .ci/run runs exactly its test command.
source "$(dirname "$0")/tap.bash"

section() { # section NAME: the lines between <!-- NAME:begin --> and <!-- NAME:end -->
	sed -n "/<!-- $1:begin -->/,/<!-- $1:end -->/p" README.md | sed '1d;$d'
}
check "keys table is current (./mmprof --list-keys=markdown)" \
	test "$(section keys)" = "$("$MMPROF" --list-keys=markdown)"
check "columns table is current (./mmprof --list-columns=markdown)" \
	test "$(section columns)" = "$("$MMPROF" --list-columns=markdown)"
check "probe list is current (./mmprof --list-probes)" \
	test "$(section probes | sed '1d;$d')" = "$("$MMPROF" --list-probes)"
check "command-line help is current (./mmprof --help)" \
	test "$(section help | sed '1d;$d')" = "$("$MMPROF" --help | sed '/^config keys/,$d' | sed '$d')"
check "README gives the set-up-and-run command" grep -q '^make deps run ' README.md
check "README gives the test command" grep -q '^make deps check ' README.md
check ".ci/run runs README's test command" grep -qx 'make deps check' .ci/run
check "every option in --help is in README" bash -c '
	for o in $("$1" --help | grep -o -- "--[a-z-]*" | sort -u); do
		grep -q -- "$o" README.md || { echo "missing $o"; exit 1; }
	done' _ "$MMPROF"
done_testing
