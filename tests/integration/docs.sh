# The docs stay true: the generated tables in docs/ equal what the binary
# prints, README.md is a front door (its two commands exist, .ci/run runs
# its test command, it stays short), and no page links to a file that is
# not in the repository.
source "$(dirname "$0")/tap.bash"

section() { # section FILE NAME: the lines between <!-- NAME:begin --> and <!-- NAME:end -->
	sed -n "/<!-- $2:begin -->/,/<!-- $2:end -->/p" "$1" | sed '1d;$d'
}
check "keys table is current (docs/config.md, --list-keys=markdown)" \
	test "$(section docs/config.md keys)" = "$("$MMPROF" --list-keys=markdown)"
check "key roles are current (analysis/keys.tsv, --list-keys=roles)" \
	test "$(cat analysis/keys.tsv)" = "$("$MMPROF" --list-keys=roles)"
check "columns table is current (docs/csv.md, --list-columns=markdown)" \
	test "$(section docs/csv.md columns)" = "$("$MMPROF" --list-columns=markdown)"
check "probe list is current (docs/probes.md, --list-probes)" \
	test "$(section docs/probes.md probes | sed '1d;$d')" = "$("$MMPROF" --list-probes)"
check "controls table is current (docs/attribution.md, --list-controls=markdown)" \
	test "$(section docs/attribution.md controls)" = "$("$MMPROF" --list-controls=markdown)"
check "command-line help is current (docs/cli.md, --help)" \
	test "$(section docs/cli.md help | sed '1d;$d')" = "$("$MMPROF" --help | sed '/^config keys/,$d' | sed '$d')"
check "every option in --help is in docs/cli.md" bash -c '
	for o in $("$1" --help | grep -o -- "--[a-z-]*" | sort -u); do
		grep -q -- "$o" docs/cli.md || { echo "missing $o"; exit 1; }
	done' _ "$MMPROF"

check "README gives the set-up-and-run command" grep -q '^make deps run ' README.md
check "README gives the test command" grep -q '^make deps check ' README.md
check ".ci/run runs README's test command" grep -qx 'make deps check' .ci/run
lines=$(wc -l <README.md)
check "README is a front door: at most 250 lines ($lines)" test "$lines" -le 250
check "README says how to ask your own question" grep -q '^## Ask your own question' README.md

# Every relative link and every path in backquotes that looks like a
# repository file must exist.
missing=$(/usr/bin/python3 - README.md docs/*.md <<'PY'
import os, re, sys
bad = []
for page in sys.argv[1:]:
    text = open(page).read()
    base = os.path.dirname(page)
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # a URL
        if not os.path.exists(os.path.normpath(os.path.join(base, target))):
            bad.append(f"{page}: link {target}")
    for path in re.findall(r"`((?:docs|configs|src|include|probes|tests|analysis|bench|scripts|repro)/[A-Za-z0-9_./-]+)`", text):
        if "*" in path or path.endswith("/"):
            continue
        if not os.path.exists(path.rstrip(".")):
            bad.append(f"{page}: {path}")
print("\n".join(bad))
PY
)
check "no page names a file that is not in the repository" test -z "$missing"
[ -z "$missing" ] || sed 's/^/# /' <<<"$missing"
check "no page cites the design notes outside the repository" \
	test -z "$(grep -l 'DESIGN.md' README.md docs/*.md)"
done_testing
