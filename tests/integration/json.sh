# --json PATH: one document per invocation, checked against docs/json.md
# both ways (every documented field present with its type, nothing
# undocumented), and against the CSVs written beside it (a run's median,
# counters and metrics, attribution shares, answers, a program's escapes
# and PUs) and the plan's notes against --dry-run; mmprof exec's, of its
# job and rungs; where it is written (in the result set or alone) and
# what is refused (an unwritable path alike for exec and a config).
source "$(dirname "$0")/tap.bash"

# A config path with a quote, a backslash and non-ASCII: the document must
# still parse and give it back.
cfg="$TMP/fix \"ü\" \\ x.ini"
cat >"$cfg" <<'INI'
[global]
size = 2M
seed = 5
threads = 2
repeat = 3
warmup = 1
events = faults, sched
tally = atomic

[java]
probe = mmap_byte, mmap_block
access = 1, 1K
zip = probe, access

[dotnet]
probe = accessor_byte, accessor_block
access = 1, 1K
zip = probe, access
refcount = shared
baseline = java
controls = auto

[fixed]
probe = accessor_byte, accessor_block
access = 1, 1K
zip = probe, access
refcount = once
baseline = java
fixes = dotnet

[limit]
probe = limit
# No shared state: a plan note, plan.notes[] in the document.
controls = private
INI
# A profiled program at 1 and 2 threads: runs[].profile with its growth.
make -s --no-print-directory build/tests/hot >/dev/null 2>&1
printf '\n[prog]\nprobe = exec\ncommand = %s spin {threads}0\nthreads = 1, 2\nprofile = 4000\n' \
	"$PWD/build/tests/hot" >>"$cfg"
run_mmprof --config "$cfg" --csv "$TMP/out/fix.csv" --json "$TMP/out/fix.json"
check "runs with --json" test "$rc" -eq 0
check "the summary names the JSON" grep -q "out/fix.json; " <<<"$err"
n_answers=$(($(csv_rows "$TMP/out/fix.answers.csv" outcome | wc -l)))
check "the summary counts the answers as the answers CSV has them ($n_answers)" \
	grep -Eq "; $n_answers answer\(s\) in $TMP/out/fix.answers.csv: [0-9]+ yes, [0-9]+ no, [0-9]+ inconclusive\$" <<<"$(unwrap <<<"$err")"
check "NAME.json written" test -s "$TMP/out/fix.json"
check "no temporary left" test -z "$(ls -A "$TMP/out" | grep '^\.' | grep -v '\.lock$')"

# mmprof exec --json: the config run's document for its one job, its
# control rungs and their attribution, checked against the CSVs beside it
# (below).  A program that faults in malloc'd pages: prefault and huge
# change something, bulk nothing (it reads no file): a rung left out,
# with why.  And a program reading a byte a call, whose bulk rung the
# library answers.  Their runs[].preload and attribution[].unused are
# checked against docs/json.md with the config run's document.
make -s --no-print-directory build/tests/malloc_touch build/tests/percall build/libmmprof-preload.so >/dev/null 2>&1
run_mmprof exec -r 2 --warmup 0 --events none --profile off --controls prefault,huge,bulk \
	--csv "$TMP/ex/m.csv" --json "$TMP/ex/m.json" -- "$PWD/build/tests/malloc_touch" touch 8
check "mmprof exec --json: exit 0 ($rc)" test "$rc" -eq 0
check "... the summary names the JSON" grep -q "ex/m.json; " <<<"$err"
check "... the file is there" test -s "$TMP/ex/m.json"
head -c 16384 /dev/urandom >"$TMP/small.bin"
run_mmprof exec -r 2 --warmup 0 --events none --profile off --controls bulk --file "$TMP/small.bin" \
	--csv "$TMP/ex/p.csv" --json "$TMP/ex/p.json" -- "$PWD/build/tests/percall" bytes '{file}'
check "mmprof exec --json, a read a byte with bulk: exit 0 ($rc)" test "$rc" -eq 0 -a -s "$TMP/ex/p.json"

# The document against the tables of docs/json.md, and against the CSVs.
/usr/bin/python3 - "$TMP/out/fix.json" docs/json.md "$TMP/out/fix" "$cfg" "$MMPROF" \
	"$TMP/ex/m.json" "$TMP/ex/p.json" <<'PY' >"$TMP/checks"
import csv, json, math, re, statistics, subprocess, sys
path, docs, name, cfg, mmprof = sys.argv[1:6]
doc = json.load(open(path, encoding="utf-8"))
# The documented fields are checked over this document and mmprof exec's
# (a program's preload rungs, a rung left out): what one lacks the other has.
alldocs = [doc] + [json.load(open(p, encoding="utf-8")) for p in sys.argv[6:]]
def ok(cond, what):
    print(("ok" if cond else "FAIL") + " " + what)

# Documented fields: | `path` | type | meaning |
fields = {}
for line in open(docs, encoding="utf-8"):
    m = re.match(r"^\| `([^`]+)` \| ([^|]+) \|", line)
    if m:
        fields[m.group(1)] = m.group(2).strip()
ok(len(fields) > 100, "docs/json.md documents %d fields" % len(fields))

def check_type(v, t):
    nullable = t.endswith(" or null")
    t = t[:-len(" or null")] if nullable else t
    if v is None:
        return nullable
    if t.startswith("array of "):
        each = {"objects": "object", "integers": "integer"}[t[len("array of "):]]
        return isinstance(v, list) and all(check_type(x, each) for x in v)
    return {
        "integer": lambda: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
        "string": lambda: isinstance(v, str),
        "boolean": lambda: isinstance(v, bool),
        "object": lambda: isinstance(v, dict),
    }[t]()

def values(path, root):
    """Every value at a documented path, as (concrete path, value)."""
    cur = [("", root)]
    for seg in path.split("."):
        each = seg.endswith("[]")
        key = seg[:-2] if each else seg
        nxt = []
        for p, v in cur:
            if v is None:        # under a null parent: nothing to check
                continue
            if key == "*":
                nxt += [(p + "." + k, x) for k, x in v.items()]
            elif key not in v:
                nxt.append((p + "." + key, KeyError))
            else:
                nxt.append((p + "." + key, v[key]))
        if each:
            nxt = [(p + "[%d]" % i, x) for p, v in nxt if isinstance(v, list) for i, x in enumerate(v)]
        cur = nxt
    return cur

bad = []
for root, f, t in ((root, f, t) for root in alldocs for f, t in fields.items()):
    vs = values(f, root)
    if not vs and "[]" not in f:
        bad.append("%s: absent" % f)
    for p, v in vs:
        if v is KeyError:
            bad.append("%s: missing" % p)
        elif not check_type(v, t):
            bad.append("%s: %r is not %s" % (p, v, t))
ok(not bad, "every documented field present with its type" + ("; " + "; ".join(bad[:5]) if bad else ""))

# Nothing undocumented: every field of the file normalised to a doc path.
maps = {f[:-2] for f in fields if f.endswith(".*")}
seen, extra = set(), set()
def walk(v, p):
    if isinstance(v, dict):
        for k, x in v.items():
            q = (p + ".*") if p in maps else (p + "." + k if p else k)
            seen.add(q)
            if q not in fields:
                extra.add(q)
            walk(x, q)
    elif isinstance(v, list):
        for x in v:
            walk(x, p + "[]")
for root in alldocs:
    walk(root, "")
ok(not extra, "no undocumented field" + (": " + ", ".join(sorted(extra)) if extra else ""))
ok(fields.keys() <= seen, "every documented field occurs in this document" + ("; missing: " + ", ".join(sorted(fields.keys() - seen)) if fields.keys() - seen else ""))

# The data maps: config keys and the CSV's metric columns.
keys = re.findall(r"^\| `([a-z_]+)` \|", subprocess.run([mmprof, "--list-keys=markdown"], capture_output=True, text=True).stdout, re.M)
rows = list(csv.DictReader(open(name + ".csv", newline="")))
header = list(rows[0].keys())
metric_cols = header[header.index("result_ok") + 1:header.index("oversubscribed")]
ok(all(set(r["metrics"]) == set(metric_cols) for r in doc["runs"]), "metrics are NAME.csv's metric columns")
want = set(keys) - {"order", "order_seed", "table", "csv"}
ok(all(set(r["parameters"]) == want for r in doc["runs"]) and len(want) > 20, "parameters are the per-run config keys (%d)" % len(want))

# Strings round-trip; the values are NAME.csv's.
ok(doc["config"] == cfg, "the config path with a quote, a backslash and ü reads back: %r" % doc["config"])
ok(doc["schema_version"] == 1 and doc["status"]["complete"], "schema 1, complete")
ok(doc["run_id"] == rows[0]["run_id"], "run_id is NAME.csv's")
byrun = {}
for r in rows:
    byrun.setdefault(int(r["run"]), []).append(r)
mism = []
for run in doc["runs"]:
    rs = byrun.get(run["run"], [])
    if run["rounds"] != len(rs):
        mism.append("run %d rounds %d != %d rows" % (run["run"], run["rounds"], len(rs)))
    elif rs and run["elapsed_ns"]["median"] != statistics.median(int(r["elapsed_ns"]) for r in rs):
        mism.append("run %d median" % run["run"])
    for m, v in run["metrics"].items():
        cells = [r[m] for r in rs]
        if all(cells) and cells:
            med = statistics.median(float(c) for c in cells)
            if v is None or abs(v - med) > 1e-5 * max(1, abs(med)):
                mism.append("run %d %s %r != %r" % (run["run"], m, v, med))
        elif v is not None:
            mism.append("run %d %s is %r, NAME.csv has empty cells" % (run["run"], m, v))
ok(not mism, "each run's rounds, median and metrics are NAME.csv's" + ("; " + "; ".join(mism[:4]) if mism else ""))

events = list(csv.DictReader(open(name + ".events.csv", newline="")))
mism, counted = [], 0
for run in doc["runs"]:
    for c in run["counters"]:
        vals = [e["value"] for e in events if int(e["run"]) == run["run"] and e["event"] == c["event"] and e["thread"] == ""]
        if vals and all(vals):
            counted += 1
            if c["median"] != statistics.median(float(v) for v in vals):
                mism.append("run %d %s" % (run["run"], c["event"]))
        elif c["median"] is not None:
            mism.append("run %d %s: %r for uncounted" % (run["run"], c["event"], c["median"]))
ok(counted > 0 and not mism, "counter medians are NAME.events.csv's (%d counted)" % counted + ("; " + "; ".join(mism[:4]) if mism else ""))

attr = list(csv.DictReader(open(name + ".attribution.csv", newline="")))
mine = [(a["run"], c["name"], c["share"]) for a in doc["attribution"] for c in a["causes"]]
theirs = [(int(r["run"]), r["cause"], float(r["share"])) for r in attr]
ok(len(mine) == len(theirs) > 0 and all(a[:2] == b[:2] and abs(a[2] - b[2]) < 6e-5 for a, b in zip(mine, theirs)),
   "attribution causes and shares are NAME.attribution.csv's (%d)" % len(theirs))

answers = list(csv.DictReader(open(name + ".answers.csv", newline="")))
pairs = list(zip(doc["answers"], answers))
ok(len(doc["answers"]) == len(answers) > 0 and all(
       a["kind"] == r["kind"] and a["outcome"] == r["outcome"] and a["verdict"] == r["verdict"]
       and a["question"] == r["question"] and str(a["run"] or "") == r["run"]
       and (a["ratio"] is None or abs(a["ratio"]["estimate"] / float(r["ratio"]) - 1) < 1e-5)
       for a, r in pairs),
   "answers (kind, question, outcome, verdict, ratio) are NAME.answers.csv's (%d)" % len(answers))
ok({a["kind"] for a in doc["answers"]} >= {"ratio", "gap", "cause", "fix", "regression"},
   "the fixes job's answers are there: " + ", ".join(sorted({a["kind"] for a in doc["answers"]})))

# The plan's notes are those --dry-run lists, word for word.
dry = subprocess.run([mmprof, "--config", cfg, "--dry-run"], capture_output=True, text=True).stdout
notes = doc["plan"]["notes"]
said = ["  %s:%d: [%s] controls: %s, at %s: %s" % (cfg, n["line"], n["section"], n["control"],
        "every point of [%s]" % n["job"] if n["points"] == n["of"] else "%d of [%s]'s %d points" % (n["points"], n["job"], n["of"]),
        n["why"]) for n in notes]
ok(notes and any(n["job"] == "limit" and n["control"] == "private" and n["nowhere"] for n in notes)
   and all(l in dry.splitlines() for l in said),
   "plan.notes are --dry-run's (%d): %s" % (len(notes), "; ".join(said)[:200]))

# A program's escapes and the PUs it ran on are NAME.csv's; null for probes.
mism, progs = [], 0
for run in doc["runs"]:
    rs = byrun.get(run["run"], [])
    if run["job"] != "prog":
        if [run[k] for k in ("escaped", "pus_ran", "beside", "preload")] != [None] * 4:
            mism.append("run %d (a probe): %r %r %r %r" % (run["run"], run["escaped"], run["pus_ran"],
                                                         run["beside"], run["preload"]))
        continue
    progs += 1
    ran = set()
    for r in rs:
        for part in filter(None, r["pus_ran"].split(",")):
            a, _, b = part.partition("-")
            ran.update(range(int(a), int(b or a) + 1))
    if run["escaped"] != sum(r["escaped"] == "true" for r in rs):
        mism.append("run %d escaped %r" % (run["run"], run["escaped"]))
    if run["pus_ran"] != (sorted(ran) if ran else None):
        mism.append("run %d pus_ran %r, NAME.csv %r" % (run["run"], run["pus_ran"], sorted(ran)))
ok(progs == 2 and not mism, "escaped and pus_ran are NAME.csv's (%d programs); a probe's, beside and preload null" % progs + ("; " + "; ".join(mism[:4]) if mism else ""))
PY
while read -r verdict what; do
	if [ "$verdict" = ok ]; then ok "$what"; else fail "$what"; fi
done <"$TMP/checks"
check "the validator ran to its end" test "$(wc -l <"$TMP/checks")" -eq 16

# Where it goes: NAME.json is the set's (a later run without --json removes
# it); elsewhere it stands alone (nothing removes it).
run_mmprof --config "$cfg" --csv "$TMP/out/fix.csv" --json "$TMP/elsewhere/run.json" --quiet
check "--json elsewhere: written alone" test -s "$TMP/elsewhere/run.json"
check "... the set's NAME.json of the earlier run removed with the set" test ! -e "$TMP/out/fix.json"
run_mmprof --config "$cfg" --csv "$TMP/out/fix.csv" --quiet
check "a run without --json keeps the alone file" test -s "$TMP/elsewhere/run.json"
run_mmprof --config "$cfg" --csv "$TMP/out/fix.csv" --json "$TMP/out/fix.csv"
check "--json NAME.csv: refused, exit 2" test "$rc" -eq 2
check "... saying why" grep -q "json .*fix.csv is this run's CSV: name another file; nothing was run" <<<"$err"
run_mmprof --config "$cfg" --csv "$TMP/out/fix.csv" --json "$cfg"
check "--json over the config: refused, exit 2" test "$rc" -eq 2
check "... the config intact" grep -q '^\[fixed\]$' "$cfg"
run_mmprof --config "$cfg" --csv /dev/null --json /dev/stdout --quiet
# The document comes first on stdout, the report after it.
# (On stdin: a report of disturbed rounds says more, and one argument
# holds 128 KiB at most.)
check "--json /dev/stdout with no CSV companions" /usr/bin/python3 -c 'import json, sys; json.JSONDecoder().raw_decode(sys.stdin.read())' <<<"$out"

# mmprof exec's documents (above), checked against the CSVs beside them.
/usr/bin/python3 - "$TMP/ex/m" "$TMP/ex/p" <<'PY' >"$TMP/exchecks"
import csv, json, sys
name, other = sys.argv[1:3]
def ok(cond, what):
    print(("ok" if cond else "FAIL") + " " + what)
try:
    doc = json.load(open(name + ".json", encoding="utf-8"))
except ValueError as e:
    ok(False, "it parses as JSON: %s" % e)
    sys.exit(0)
ok(True, "it parses as JSON")
rows = list(csv.DictReader(open(name + ".csv", newline="")))
want = sorted({(int(r["run"]), r["job"], r["control"] or None) for r in rows})
got = sorted((r["run"], r["job"], r["control"]) for r in doc["runs"])
ok(got == want and [c for _, _, c in got] == [None, "prefault", "prefault+huge", "prefault+huge+bulk"],
   "runs[]: the job and each rung that ran, as NAME.csv has them: %r" % got)
ok(all(r["state"] == "done" for r in doc["runs"]), "... every run done")
ok(doc["plan"]["runs"] == 4 and doc["plan"]["job_points"] == 1,
   "plan: 4 runs, 1 job point (%r, %r)" % (doc["plan"]["runs"], doc["plan"]["job_points"]))
# The causes measured (a rung that changed nothing has a CSV row without
# a cost, and no cause in the document: it is in unused, below).
arows = list(csv.DictReader(open(name + ".attribution.csv", newline="")))
attr = sorted((r["cause"], r["controls"]) for r in arows if r["ns_per_byte"])
a = doc["attribution"]
causes = sorted((c["name"], c["controls"] or "") for c in a[0]["causes"]) if len(a) == 1 else a
ok(len(a) == 1 and a[0]["job"] == "malloc_touch" and a[0]["run"] == 1 and causes == attr
   and {k for _, c in attr for k in c.split("+") if k} == {"prefault", "huge"},
   "attribution[]: the job's, its causes NAME.attribution.csv's: %r" % (causes,))
ok(doc["answers"] == [] and doc["config"] == "mmprof exec" and doc["csv"] == name + ".csv",
   "no answers (one job), config 'mmprof exec', csv its path")

# The rungs left out: NAME.attribution.csv's rows with used false, with
# its reason word for word, and the rung that ran them.
left = [(u["name"], u["controls"], "changed nothing: " + u["why"]) for x in a for u in x["unused"]]
csv_left = [(r["cause"], r["controls"], r["not_shown"]) for r in arows if r["used"] == "false"]
rung_of = {r["control"]: r["run"] for r in doc["runs"]}
ok(left == csv_left and [c for _, c, _ in left] == ["bulk"]
   and all(u["run"] == rung_of["prefault+huge+bulk"] for x in a for u in x["unused"])
   and not any(r["cost_ns_per_byte"] is None for x in a for r in x["causes"]),
   "attribution[].unused: the bulk rung that changed nothing, as NAME.attribution.csv: %r" % (left,))

# runs[].beside and runs[].preload summarise NAME.csv's cells of each
# repetition: shares by their range and mean (the CSV rounds to 4
# places), the library's counts by the most any repetition saw.
def cells(rs, col):
    return [r[col] for r in rs if r[col] != ""]
bad, seen = [], set()
for n in (name, other):
    d = json.load(open(n + ".json", encoding="utf-8"))
    rows = list(csv.DictReader(open(n + ".csv", newline="")))
    for run in d["runs"]:
        rs = [r for r in rows if int(r["run"]) == run["run"]]
        b, p, tag = run["beside"], run["preload"], "%s run %d" % (n[-1], run["run"])
        if b is None:
            bad.append(tag + ": beside null for a program")
            continue
        for k in ("kernel_busy", "unexplained_busy", "mmprof_busy"):
            v = [float(c) for c in cells(rs, k)]
            if not v:
                if b[k] is not None:
                    bad.append("%s %s %r, NAME.csv empty" % (tag, k, b[k]))
                continue
            s = b[k] or {}
            if not (s.get("rounds") == len(v) and abs(s["min"] - min(v)) <= 5e-5
                    and abs(s["max"] - max(v)) <= 5e-5 and min(v) - 5e-5 <= s["mean"] <= max(v) + 5e-5):
                bad.append("%s %s %r, NAME.csv %r" % (tag, k, b[k], v))
            seen.add(k)
        for k, col in (("kernel_tasks", "kernel_tasks"), ("other_tasks", "other_tasks")):
            if (b[k] or "") not in {r[col] for r in rs}:
                bad.append("%s %s %r not one of NAME.csv's" % (tag, k, b[k]))
        counts = {"blocks": "preload_blocks", "prefaulted_bytes": "prefaulted_bytes",
                  "touched_bytes": "touched_bytes", "huge_bytes": "huge_bytes",
                  "bulk_calls": "bulk_calls", "bulk_served": "bulk_served",
                  "bulk_syscalls": "bulk_syscalls", "loaded": "preload_loaded",
                  "mappings": "preload_mappings"}
        if p is None:
            if any(cells(rs, c) for c in counts.values()):
                bad.append(tag + ": preload null, NAME.csv has its cells")
            continue
        for k, col in counts.items():
            v = [int(c) for c in cells(rs, col)]
            if p[k] != (max(v) if v else None):
                bad.append("%s %s %r, NAME.csv %r" % (tag, k, p[k], v))
            elif p[k]:
                seen.add(k)
        if (p["bulk_aside"] is None) != (not cells(rs, "bulk_aside")):
            bad.append("%s bulk_aside %r" % (tag, p["bulk_aside"]))
ok(not bad and {"kernel_busy", "mmprof_busy", "blocks", "prefaulted_bytes", "huge_bytes",
                "bulk_calls", "bulk_served", "bulk_syscalls"} <= seen,
   "runs[].beside and runs[].preload are NAME.csv's over its repetitions (values seen: %s)"
   % ", ".join(sorted(seen)) + ("; " + "; ".join(bad[:4]) if bad else ""))
PY
while read -r verdict what; do
	if [ "$verdict" = ok ]; then ok "$what"; else fail "$what"; fi
done <"$TMP/exchecks"
check "the exec validator ran to its end" test "$(wc -l <"$TMP/exchecks")" -eq 8

# An unwritable --json (a path under a file: root may write anywhere
# else) is refused before anything runs, by exec as by a config run.
touch "$TMP/plain"
printf '[j]\nprobe = exec\ncommand = /bin/true\nrepeat = 1\nevents = none\n' >"$TMP/true.ini"
run_mmprof --config "$TMP/true.ini" --csv "$TMP/cfgbad.csv" --json "$TMP/plain/x.json"
cfg_rc=$rc cfg_said=$(grep "plain/x.json" <<<"$err")
run_mmprof exec -r 1 --events none --csv "$TMP/exbad.csv" --json "$TMP/plain/x.json" -- /bin/true
check "an unwritable --json: the config run exits 2 ($cfg_rc), mmprof exec too ($rc)" \
	test "$cfg_rc" -eq 2 -a "$rc" -eq 2
check "... with the config run's words: $cfg_said" \
	test "$cfg_said" = "mmprof: error: cannot write $TMP/plain/x.json: Not a directory; nothing was run" \
	-a "$(grep "plain/x.json" <<<"$err")" = "$cfg_said"
check "... and nothing written" test ! -e "$TMP/exbad.csv" -a ! -e "$TMP/cfgbad.csv"

# Two runs with one --json path elsewhere: the second is refused, as a
# second writer of one CSV is (both exited 0 and the file held one run).
printf '[j]\nprobe = accessor_byte\nsize = 2M\nrepeat = 1000\nwarmup = 0\nevents = none\n' >"$TMP/long.ini"
mkdir -p "$TMP/shared"
"$MMPROF" --config "$TMP/long.ini" --csv "$TMP/one.csv" --json "$TMP/shared/r.json" >/dev/null 2>"$TMP/one.err" &
pid=$!
for _ in $(seq 200); do
	compgen -G "$TMP/.one.csv.tmp.$pid" >/dev/null && break
	sleep 0.05
done
run_mmprof --config "$TMP/long.ini" --csv "$TMP/two.csv" --json "$TMP/shared/r.json" --repeat 1
check "a second run with the same --json: exit 2" test "$rc" -eq 2
check "... told who holds it" grep -qF "$TMP/shared/r.json is being written by another mmprof (process $pid" <<<"$err"
check "... nothing of it written" test ! -e "$TMP/two.csv"
kill -INT "$pid"
wait "$pid"
check "the first run keeps the --json file, and its lock is gone" \
	test -s "$TMP/shared/r.json" -a ! -e "$TMP/shared/.r.json.lock"

done_testing
