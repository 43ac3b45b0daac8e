# make install / make uninstall with PREFIX and DESTDIR (docs/install.md):
# exactly the binary, the man page, the completion, the configs and the
# analysis module are installed; the staged binary finds its configs by
# name; uninstall removes exactly those files.  Built in build/install
# (incremental, like builds.sh's), so the tree's ./mmprof is left alone.
source "$(dirname "$0")/tap.bash"

dest=$TMP/dest
mk() { make -s -j2 BUILD=build/install BIN=build/install/mmprof PREFIX=/usr DESTDIR="$dest" "$@"; }

if mk install >"$TMP/install.log" 2>&1; then
	ok "make install DESTDIR=... PREFIX=/usr"
else
	fail "make install DESTDIR=... PREFIX=/usr" "$(tail -5 "$TMP/install.log")"
	skip_rest "nothing installed"
fi

# What install must put there, from the source tree's lists.
expected() {
	echo usr/bin/mmprof
	echo usr/lib/mmprof/libmmprof-preload.so
	echo usr/share/man/man1/mmprof.1
	echo usr/share/bash-completion/completions/mmprof
	for f in configs/*.ini analysis/*.py analysis/mmprof.ipynb analysis/keys.tsv analysis/samples/*; do
		echo "usr/share/mmprof/$f"
	done
}
installed() { (cd "$dest" && find . -type f -o -type l | sed 's|^\./||' | sort); }
check "exactly the expected files" test "$(installed)" = "$(expected | sort)"
[ "$(installed)" = "$(expected | sort)" ] || diff <(expected | sort) <(installed) | sed 's/^/# /'
check "the binary is executable, the rest not" \
	test "$(stat -c %a "$dest/usr/bin/mmprof") $(find "$dest" -type f ! -name mmprof -perm /111 | wc -l)" = "755 0"
check "every config installed as shipped" diff -r configs "$dest/usr/share/mmprof/configs"

# The staged binary, from a directory with no configs: PREFIX/share is
# compiled in (/usr/share/mmprof: not where DESTDIR put it), and
# ../share/mmprof/configs beside it is where they are.
mkdir -p "$TMP/elsewhere"
out=$(cd "$TMP/elsewhere" && env -u MMPROF_CONFIG_PATH "$dest/usr/bin/mmprof" --config byte_8t --dry-run 2>&1)
rc=$?
check "installed mmprof --config byte_8t --dry-run: exit 0 ($rc)" test "$rc" -eq 0
check "...reads the installed byte_8t.ini" \
	grep -q "^$dest/usr/share/mmprof/configs/byte_8t.ini: 4 job(s)" <<<"$out"
out=$(cd "$TMP/elsewhere" && "$dest/usr/bin/mmprof" --list-configs)
check "--list-configs: the staged configs, beside the executable" \
	grep -Eq "^  $dest/usr/share/mmprof/configs +installed beside the executable$" <<<"$out"
check "--list-configs: PREFIX compiled in" grep -Eq "^  /usr/share/mmprof/configs +installed" <<<"$out"
out=$(cd "$TMP/elsewhere" && "$dest/usr/bin/mmprof" --config nosuch 2>&1)
check "an unknown name names the installed directory" grep -qF "$dest/usr/share/mmprof/configs (installed beside" <<<"$out"

if command -v man >/dev/null; then
	page=$dest/usr/share/man/man1/mmprof.1
	check "man -l renders the installed page without warnings" \
		test -z "$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)"
	check "man finds it under the prefix's share/man" \
		test "$(MANPATH="$dest/usr/share/man" man -w mmprof 2>/dev/null)" = "$page"
	check "its FILES section names /usr/share/mmprof" \
		grep -q '/usr/share/mmprof/analysis' <<<"$(MANWIDTH=2000 man -l "$page" 2>/dev/null)"
else
	skip "man is not installed (make deps: man-db)"
fi
check "the installed completion registers for mmprof" bash -c \
	'source "$1" && complete -p mmprof | grep -q "_mmprof mmprof"' _ "$dest/usr/share/bash-completion/completions/mmprof"
if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
	a=$dest/usr/share/mmprof/analysis
	n=$(cd "$TMP/elsewhere" && /usr/bin/python3 -B -c '
import sys; sys.path.insert(0, sys.argv[1])
import mmprof_csv
print(len(mmprof_csv.load_many(sys.argv[1] + "/samples/sample.csv")))' "$a" 2>&1)
	check "the installed loader reads the installed sample ($n rows)" test "$n" -gt 0
else
	skip "python3-pandas is not installed (make deps)"
fi

check "a second install over the first: exit 0" mk install

# Python's bytecode beside the module (an import there as root) and a
# file of the user's own in the configs directory.
mkdir -p "$dest/usr/share/mmprof/analysis/__pycache__"
touch "$dest/usr/share/mmprof/analysis/__pycache__/mmprof_csv.cpython-311.pyc"
if mk uninstall >"$TMP/uninstall.log" 2>&1; then
	ok "make uninstall DESTDIR=... PREFIX=/usr"
else
	fail "make uninstall DESTDIR=... PREFIX=/usr" "$(tail -5 "$TMP/uninstall.log")"
fi
check "uninstall leaves no file" test -z "$(installed)"
check "uninstall leaves no share/mmprof" test ! -e "$dest/usr/share/mmprof"

mk install >/dev/null 2>&1
echo '[mine]' >"$dest/usr/share/mmprof/configs/mine.ini"
mk uninstall >/dev/null 2>&1
check "uninstall leaves a file it did not install" test "$(installed)" = usr/share/mmprof/configs/mine.ini

out=$(make -n install DESTDIR=/staging BUILD=build/install BIN=build/install/mmprof 2>&1)
check "PREFIX defaults to /usr/local" grep -q ' /staging/usr/local/bin/mmprof$' <<<"$out"
done_testing
