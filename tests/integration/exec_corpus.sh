# Real programs nobody here wrote, from Debian's packages, under probe =
# exec with controls = auto: lz4 -d, zstd -T2, pigz -p 2, xz -T2,
# sort --parallel=2, sqlite3 with autocommit inserts (an fsync each) and
# dd bs=1.  There is no planted cause to find in most of them: each is
# judged on what is known of it -- every run exits 0 with its output
# right, and the cause decided on top (with a fix) is not one the program
# cannot have: cross-core sharing in a single-threaded program, per-call
# overhead in one that reads and writes in large blocks.  An honest
# "inconclusive" is always right.  Run idle, and two of them (one
# multi-threaded, one not) again with one CPU kept busy: some 2 minutes.
# A package that cannot be installed skips its program, saying why.
source "$(dirname "$0")/tap.bash"
trap 'rm -rf "$TMP"' EXIT
[ "$(nproc)" -ge 2 ] || skip_rest "needs two PUs for the multi-threaded programs (this machine has $(nproc))"

# package:command, for what is missing.
WANT="lz4:lz4 zstd:zstd pigz:pigz xz-utils:xz sqlite3:sqlite3 coreutils:sort coreutils:dd"
missing=
for pc in $WANT; do
	command -v "${pc#*:}" >/dev/null || missing="$missing ${pc%%:*}"
done
if [ -n "$missing" ] && [ "$(id -u)" = 0 ]; then
	# No timeout around dpkg (a package half installed would break the
	# machine's apt); another apt-get holding the lock is waited for.
	export DEBIAN_FRONTEND=noninteractive
	apt=(apt-get -y -qq -o DPkg::Lock::Timeout=120)
	{ "${apt[@]}" install --no-install-recommends $missing ||
		{ "${apt[@]}" update && "${apt[@]}" install --no-install-recommends $missing; }; } \
		>"$TMP/apt.log" 2>&1
fi
have() { command -v "$1" >/dev/null; }

# Inputs, made here: text that compresses (some 3 MiB of numbers), its
# lz4 form, a shuffled copy for sort, and inserts for sqlite3.
seq 1 500000 >"$TMP/text"
have lz4 && lz4 -q -f "$TMP/text" "$TMP/text.lz4"
have shuf && shuf --random-source=<(yes) "$TMP/text" >"$TMP/shuffled"
for i in $(seq 1 100); do echo "insert into t values ($i, 'row $i');"; done >"$TMP/inserts.sql"

cat >"$TMP/corpus.ini" <<INI
[global]
repeat = 5
warmup = 1
controls = auto
probe = exec
threads = 1
events = task-clock, page-faults, syscalls
INI
cp "$TMP/corpus.ini" "$TMP/busy.ini"
jobs=() busy_jobs=()
add() { # JOB PACKAGE COMMAND [THREADS]
	if ! have "${3%% *}"; then
		skip "$1: ${3%% *} not installed (package $2$([ -s "$TMP/apt.log" ] && echo ": $(tail -1 "$TMP/apt.log")"))"
		return
	fi
	jobs+=("$1")
	printf '\n[%s]\ncommand = %s\nthreads = %s\n' "$1" "$3" "${4:-1}" >>"$TMP/corpus.ini"
	case $1 in zstd_t2 | dd_bs1)
		busy_jobs+=("$1")
		printf '\n[%s]\ncommand = %s\nthreads = %s\n' "$1" "$3" "${4:-1}" >>"$TMP/busy.ini"
	esac
}
add lz4_d lz4 "lz4 -d -q -f $TMP/text.lz4 $TMP/lz4.out"
add zstd_t2 zstd "zstd -q -f -T2 -3 $TMP/text -o $TMP/text.zst" 2
add pigz_p2 pigz "pigz -f -k -p 2 $TMP/text" 2
add xz_t2 xz-utils "xz -f -k -T2 -0 $TMP/text" 2
add sort_p2 coreutils "sort --parallel=2 -S 32M -n -o $TMP/sorted $TMP/shuffled" 2
add sqlite_fsync sqlite3 "sqlite3 $TMP/t.db '.read $TMP/inserts.sql'"
add dd_bs1 coreutils "dd if=$TMP/text of=/dev/null bs=1 count=50000 status=none"
[ ${#jobs[@]} -gt 0 ] || skip_rest "none of the programs could be had"
if have sqlite3; then
	sqlite3 "$TMP/t.db" 'create table t (id integer, name text);'
fi

# top JOB CSV: the largest significant cause shown (tap.bash's shown_top).
top() { shown_top "$@"; }
# not_wrong LABEL JOB WRONG CSV: decided with a fix, the cause is not one
# WRONG (an extended regex) names; inconclusive is right.
not_wrong() {
	local line t
	line=$(verdict "$2")
	t=$(top "$2" "$4")
	if grep -q '^  largest cause: inconclusive (' <<<"$line"; then
		ok "$1: $2 is inconclusive ($(sed -n 's/^  largest cause: inconclusive (//p' <<<"$line" | cut -c1-90))"
	elif [[ $t =~ ^($3)$ ]] && grep -q '^  fix: ' <<<"$line"; then
		fail "$1: $2 is blamed on '$t', which it cannot have" "$line"
	else
		ok "$1: $2's largest cause: ${t:-none decided}"
	fi
}
SHARING="cross-core sharing"
judge_corpus() { # LABEL JOB...
	local csv=$TMP/$1.csv job label=$1
	shift
	check "$label: runs, every program exits 0 (rc $rc)" test "$rc" -eq 0
	check "$label: no run failed" eval '! grep -qE "FAILED|error: \[" <<<"$out$err"'
	lines_fit "$label"
	for job in "$@"; do
		case $job in
		lz4_d | sqlite_fsync) not_wrong "$label" "$job" "$SHARING|per-call" "${csv%.csv}.attribution.csv" ;;
		dd_bs1) not_wrong "$label" "$job" "$SHARING" "${csv%.csv}.attribution.csv" ;;
		*) not_wrong "$label" "$job" "per-call" "${csv%.csv}.attribution.csv" ;;
		esac
	done
	# Their outputs are right under every rung: the last run's (a rung's
	# or the job's) decompresses and sorts to the input (after the run
	# that has them all).
	[ "$label" = idle ] || return 0
	if have lz4; then
		check "$label: lz4 -d's output is its input" cmp -s "$TMP/lz4.out" "$TMP/text"
	fi
	if have zstd; then
		check "$label: zstd's output decompresses to its input" \
			bash -c 'zstd -q -d -c "$1" | cmp -s - "$2"' _ "$TMP/text.zst" "$TMP/text"
	fi
	if have sort && have shuf; then
		check "$label: sort's output is sorted and whole" \
			bash -c 'sort -n -c "$1" && [ "$(wc -l <"$1")" = "$(wc -l <"$2")" ]' _ "$TMP/sorted" "$TMP/text"
	fi
	if have sqlite3; then
		check "$label: sqlite3 inserted 100 rows a run" \
			test $(($(sqlite3 "$TMP/t.db" 'select count(*) from t;') % 100)) -eq 0
	fi
}

sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null; rm -rf "$TMP"' EXIT
if [ ${#busy_jobs[@]} -gt 0 ]; then
	run_mmprof --config "$TMP/busy.ini" --csv "$TMP/busy.csv" --quiet
	judge_corpus busy "${busy_jobs[@]}"
fi
kill $hog 2>/dev/null
wait $hog 2>/dev/null

run_mmprof --config "$TMP/corpus.ini" --csv "$TMP/idle.csv" --quiet
judge_corpus idle "${jobs[@]}"
done_testing
