# The stages include each other in one direction only: a file of a stage
# includes the headers of its own and earlier stages, never of a later
# one, in the order of docs/design.md's table of folders (so the table
# stays true, and no two stages form a cycle: results once included
# attribution and answers, which included results).
#
# A header's stage is the folder it sits in, beside its .c file
# (src/plan/plan.h is src/plan/plan.c's); include/mmprof/ holds only the
# probe interface, the probes' stage (named below), and a probe includes
# nothing of src/.
source "$(dirname "$0")/tap.bash"

# The headers of include/mmprof/ (no .c of the same name): their stage.
HEADER_STAGES="params=probes probe=probes"

# stages ORDER EXTRA: every include that goes to a later stage, one per
# line ("src/result/result.c (result) includes analysis.h (analysis)"),
# and every header or folder without a stage.  EXTRA is a planted
# include ("FILE HEADER"), for the check of the check.
stages() {
	/usr/bin/python3 - "$1" "$HEADER_STAGES" "$2" <<'PY'
import glob, os, re, sys
order = sys.argv[1].split()
rank = {s: i for i, s in enumerate(order)}
stage_of = dict(kv.split("=") for kv in sys.argv[2].split())
for c in glob.glob("src/*/*.c") + glob.glob("src/*/*.h") + glob.glob("probes/*.[ch]"):
    folder = c.split("/")[1] if c.startswith("src/") else "probes"
    stage_of.setdefault(os.path.splitext(os.path.basename(c))[0], folder)
bad = []
for f in sorted(set(stage_of.values()) - set(rank)):
    bad.append(f"folder {f}/ is not in docs/design.md's table")
includes = []
for f in glob.glob("src/*/*.[ch]") + glob.glob("probes/*.[ch]") + glob.glob("include/mmprof/*.h"):
    for line in open(f):
        m = re.match(r'\s*#\s*include\s+"(?:\w+/)?(\w+)\.h"', line)
        if m:
            includes.append((f, m.group(1)))
if sys.argv[3]:
    f, h = sys.argv[3].split()
    includes.append((f, h))
def stage(f):
    if f.startswith("src/"):
        return f.split("/")[1]
    if f.startswith("probes/"):
        return "probes"
    return stage_of.get(os.path.splitext(os.path.basename(f))[0])
for h in sorted(glob.glob("include/mmprof/*.h")):
    if stage(h) is None:
        bad.append(f"{h} has no stage (a module's header goes beside its .c in src/STAGE/)")
for f, h in includes:
    a, b = stage(f), stage_of.get(h)
    if a in rank and b in rank and rank[b] > rank[a]:
        bad.append(f"{f} ({a}) includes {h}.h ({b})")
print("\n".join(bad))
PY
}

# The order: docs/design.md's table of folders, top to bottom.
order=$(sed -n 's/^| `\(src\/\)\{0,1\}\([a-z_]*\)\/` |.*/\2/p' docs/design.md | tr '\n' ' ')
if [ -z "$order" ]; then
	fail "docs/design.md has a table of folders"
	done_testing
	exit 0
fi
ok "stage order from docs/design.md: $order"
for d in src/*/; do
	d=${d#src/}
	d=${d%/}
	grep -qw "$d" <<<"$order" || fail "src/$d/ is a stage of docs/design.md's table"
done

found=$(stages "$order" "")
if [ -z "$found" ]; then
	ok "every include goes to the same or an earlier stage"
else
	mapfile -t lines <<<"$found"
	fail "includes against the flow (${#lines[@]})" "${lines[@]}"
fi

# The check catches what it is for: results including the analysis
# again, and a config file including a later stage's header.
planted=$(stages "$order" "src/result/result.c answers")
check "a planted result -> analysis include is caught" \
	grep -q '^src/result/result.c (result) includes answers.h (analysis)$' <<<"$planted"
planted=$(stages "$order" "src/config/config_keys.c controls")
check "a planted config -> plan include is caught" \
	grep -q '^src/config/config_keys.c (config) includes controls.h (plan)$' <<<"$planted"
# include/mmprof/ is the probe interface: each of its headers is one a
# probe includes (or one of those includes), and a probe reaches nothing
# of src/ (its includes are mmprof/ or its own folder's).
probe_includes() { # the headers the probes and include/mmprof/ include, by name
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"mmprof\/\([a-z_]*\)\.h".*/\1/p' \
		probes/*.[ch] include/mmprof/*.h | sort -u
}
unused=$(comm -23 <(ls include/mmprof | sed 's/\.h$//' | sort) <(probe_includes))
check "include/mmprof/ holds only what a probe includes${unused:+ (not: $unused)}" test -z "$unused"
reach=$(grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[a-z_]*/' probes/*.[ch] | grep -v '"mmprof/' || true)
check "no probe includes a header of src/${reach:+ ($reach)}" test -z "$reach"
done_testing
