# --config NAME: found by name in the current directory, on
# $MMPROF_CONFIG_PATH and beside the executable (the build tree's
# configs/), in that order; a name found nowhere is exit 2 naming every
# place looked in; a path is opened as written, as before.
source "$(dirname "$0")/tap.bash"

mm=$(realpath "$MMPROF")
tree=$(dirname "$mm")
if [ ! -d "$tree/configs" ]; then
	skip_rest "$MMPROF has no configs/ beside it (not the build tree's binary)"
fi
mkdir -p "$TMP/here" "$TMP/p1" "$TMP/p2"
cd "$TMP/here" || exit 1
# run NAME ARGS...: run mmprof from $TMP/here (sets out, err, rc)
run() { out=$("$mm" "$@" 2>"$TMP/stderr"); rc=$?; err=$(cat "$TMP/stderr"); }
# The first line of --dry-run names the config it read.
from() { head -1 <<<"$out" | sed 's/: [0-9]* job(s).*//'; }

job() { printf '[%s]\nprobe = limit\nsize = 4K\n' "$1" >"$2"; }

run --config quick --dry-run
check "quick, from elsewhere: exit 0 ($rc)" test "$rc" -eq 0
check "quick: the build tree's configs/quick.ini" test "$(from)" = "$tree/configs/quick.ini"
check "its CSV is named after it, here" grep -qx 'CSV: results/quick.csv' <<<"$out"
run --config quick.ini --dry-run
check "quick.ini: the same file" test "$(from)" = "$tree/configs/quick.ini"

job p2 "$TMP/p2/quick.ini"
job p1 "$TMP/p1/quick"
MMPROF_CONFIG_PATH="$TMP/p2:$TMP/p1" run --config quick --dry-run
check "MMPROF_CONFIG_PATH before the build tree" test "$(from)" = "$TMP/p2/quick.ini"
MMPROF_CONFIG_PATH="$TMP/p1:$TMP/p2" run --config quick --dry-run
check "MMPROF_CONFIG_PATH in its order, NAME before NAME.ini" test "$(from)" = "$TMP/p1/quick"
job here quick.ini
MMPROF_CONFIG_PATH="$TMP/p1" run --config quick --dry-run
check "the current directory first, named as written" test "$(from)" = "quick.ini"

# Errors in a config found by name still name its file and line.
printf '[j]\nprobe = limit\nbufsize = 4K\n' >"$TMP/p1/bad.ini"
MMPROF_CONFIG_PATH="$TMP/p1" run --config bad --dry-run
check "a bad config found by name: exit 2 ($rc)" test "$rc" -eq 2
check "its error names file:line" grep -qF "$TMP/p1/bad.ini:3: [j] unknown key 'bufsize'" <<<"$err"

MMPROF_CONFIG_PATH="$TMP/nowhere" run --config byte_9t --dry-run
check "an unknown name: exit 2 ($rc)" test "$rc" -eq 2
check "an unknown name: one line" test "$(wc -l <<<"$err")" -eq 1
check "it says what it looked for" grep -qF "no config 'byte_9t' (did you mean 'byte_8t'?): looked for byte_9t and byte_9t.ini in" <<<"$err"
for where in ". (the current directory)" "$TMP/nowhere (MMPROF_CONFIG_PATH, not there)" \
	"$tree/configs (beside the executable)" "/share/mmprof/configs (installed"; do
	check "it names $where" grep -qF "$where" <<<"$err"
done

# A path is opened as written: never searched for, same message as ever.
run --config sub/quick.ini --dry-run
check "a missing path: exit 2 ($rc)" test "$rc" -eq 2
check "a missing path: as before" grep -qx 'mmprof: cannot read sub/quick.ini: No such file or directory' <<<"$err"
run --config "$TMP/p1" --dry-run
check "a directory by path: said to be one" grep -qF "$TMP/p1: is a directory" <<<"$err"
mkdir sub
run --config sub --dry-run
check "a directory by name, nothing else of the name: said to be one" grep -qF "sub: is a directory" <<<"$err"

MMPROF_CONFIG_PATH="$TMP/p1" run --list-configs
check "--list-configs: exit 0" test "$rc" -eq 0
check "--list-configs: the path in order" test "$(sed -n '2,4p' <<<"$out" | awk '{print $1}' | tr '\n' ' ')" = ". $TMP/p1 $tree/configs "
check "--list-configs: a name once, the first found" test "$(grep -c '^  quick ' <<<"$out")" -eq 1
check "--list-configs: here's quick.ini wins" grep -Eq '^  quick +quick.ini$' <<<"$out"
check "--list-configs: the shipped ones" grep -Eq "^  byte_8t +$tree/configs/byte_8t.ini$" <<<"$out"
done_testing
