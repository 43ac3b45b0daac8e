# The CSV and JSON outputs of the shipped and test configs are the same,
# byte for byte, as a reference revision's, apart from what a run measures
# or draws (tests/helpers/normalise_outputs.py masks those): a refactor
# that should change nothing is checked to change nothing.
#
# The reference is built from git (MMPROF_SAME_REV, default below) into
# build/ref-REV once and kept.  A change that means to change the outputs
# moves REF to the commit that makes it, and says so in its message.
source "$(dirname "$0")/tap.bash"

# The reference is the last commit before the architecture step (issue
# 29: run kinds as engines, commands as builtins, headers beside their
# stage), which must change no output.  Columns added since REF
# (docs/csv.md: columns are added at the end of their group), config keys
# (the JSON's jobs list them) and JSON members go in ADDED: they are left
# out of both sides' outputs before the comparison.
REF=${MMPROF_SAME_REV:-64ac485}
ref_dir=build/ref-$REF
ADDED="beside preload unused"

if ! git rev-parse -q --verify "$REF^{commit}" >/dev/null 2>&1; then
	skip_rest "reference revision $REF is not in this checkout (a tarball, or a shallow clone)"
fi
if [ ! -x "$ref_dir/mmprof" ]; then
	rm -rf "$ref_dir.tmp" && mkdir -p "$ref_dir.tmp"
	if git archive "$REF" | tar -x -C "$ref_dir.tmp" &&
		make -s -C "$ref_dir.tmp" BUILD=build mmprof >"$TMP/ref-build.log" 2>&1; then
		rm -rf "$ref_dir" && mv "$ref_dir.tmp" "$ref_dir"
	else
		fail "build the reference $REF" "$(tail -5 "$TMP/ref-build.log")"
		done_testing
		exit 0
	fi
fi
ok "reference $REF built ($ref_dir/mmprof)"

# Small, fast configs: one recorded round each, with every companion file.
configs="configs/quick.ini configs/c2c.ini configs/numa.ini tests/configs/shape_false_sharing.ini
	tests/configs/shape_byte_8t.ini tests/configs/shape_read_mmap_fread.ini"

outputs() { # outputs BINARY DIR CONFIG: runs CONFIG, its files in DIR
	local name
	name=$(basename "$3" .ini)
	mkdir -p "$2"
	"$1" --quiet --config "$3" --repeat 1 --per-thread --csv "$2/$name.csv" \
		--json "$2/$name.json" >/dev/null 2>"$2/$name.stderr"
	echo "exit $?" >"$2/$name.exit"
}

for c in $configs; do
	name=$(basename "$c" .ini)
	outputs "$ref_dir/mmprof" "$TMP/ref/$name" "$c"
	outputs "$MMPROF" "$TMP/new/$name" "$c"
	/usr/bin/python3 tests/helpers/normalise_outputs.py "$TMP/ref/$name" $ADDED |
		sed "s|$TMP/ref/|DIR/|g" >"$TMP/$name.ref"
	/usr/bin/python3 tests/helpers/normalise_outputs.py "$TMP/new/$name" $ADDED |
		sed "s|$TMP/new/|DIR/|g" >"$TMP/$name.new"
	if diff -u "$TMP/$name.ref" "$TMP/$name.new" >"$TMP/$name.diff" &&
		cmp -s "$TMP/ref/$name/$name.exit" "$TMP/new/$name/$name.exit"; then
		ok "$c: outputs as $REF's"
	else
		fail "$c: outputs differ from $REF's ($(grep -c '^[-+][^-+]' "$TMP/$name.diff") lines)" \
			"$(head -20 "$TMP/$name.diff")"
	fi
	# Every row of every CSV has the cells its header names (each file is
	# written from one table of columns, csv_table.h).
	shapes=$(/usr/bin/python3 - "$TMP/new/$name" <<'PY'
import csv, glob, sys
for path in sorted(glob.glob(sys.argv[1] + "/*.csv")):
    rows = list(csv.reader(open(path, newline="")))
    bad = [i for i, r in enumerate(rows[1:], 2) if len(r) != len(rows[0])]
    print(f"{path.split('/')[-1]}: {len(rows) - 1} rows of {len(rows[0])}"
          + (f", line {bad[0]} has {len(rows[bad[0] - 1])}" if bad else ""))
PY
)
	if grep -q ', line ' <<<"$shapes"; then
		fail "$c: a row with more or fewer cells than its header" "$(grep ', line ' <<<"$shapes")"
	else
		ok "$c: every row has its header's cells ($(grep -c . <<<"$shapes") files)"
	fi
done
done_testing
