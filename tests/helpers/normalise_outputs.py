#!/usr/bin/python3
"""Prints mmprof's CSV and JSON outputs with what is measured masked, so two
builds that plan and label alike print the same text
(tests/integration/same_outputs.sh).

    normalise_outputs.py DIR [COLUMN...]   every *.csv and *.json under DIR,
                                          the COLUMNs (CSV columns and JSON
                                          members, as config keys, added
                                          since the reference) left out

What is masked is what a run measures or draws: times, counts, ratios,
the verdicts decided from them, disturbance, the PUs a thread was found
on, the run id and start time (also where it names a directory: an exec
row's log is NAME.logs/RUNID/..., compared without the RUNID/), and the
shuffled order (position and its seed; rows are sorted so the order of
rounds does not matter).  Everything
else (columns, runs, parameters, labels, questions, sets, file names) must
match byte for byte.
"""
import csv
import json
import os
import re
import sys

# Columns of any of the CSVs whose cells are measured or drawn.
MEASURED_COLUMNS = {
    # NAME.csv
    "position", "elapsed_ns", "ns_per_byte", "ns_per_op", "result", "cpu_ns",
    "cycles_per_byte", "instructions_per_byte", "ipc", "faults_per_mib",
    "major_faults", "syscalls_per_mib", "reads_per_mib", "context_switches",
    "migrations", "contention_per_kib", "remote_hitm_per_kib",
    "remote_fwd_per_kib", "remote_dram_share", "cross_ccx_per_kib",
    "dtlb_misses_per_kib", "disturbed", "disturbed_why", "overlap", "wait_max",
    "busy", "cpu_pressure", "nivcsw", "others_busy", "run_id", "started_at",
    "order_seed", "wall_ns", "huge_bytes", "data_nodes", "data_absent",
    "state_node", "pus_seen", "pus_ran", "thread_ns_min", "thread_ns_max",
    # the calibration (firsttouch.h), measured before the first round
    "first_touch_ns", "first_touch_low_ns", "first_touch_high_ns", "scan_gbs",
    "touched_bytes",
    # NAME.events.csv
    "value", "raw", "enabled_ns", "running_ns", "state",
    # NAME.threads.csv
    "pu_seen", "pu_node", "remote_share", "thread_ns",
    # NAME.answers.csv and NAME.attribution.csv
    "ratio", "ci_low", "ci_high", "outcome", "verdict", "disturbed_reps",
    "used_disturbed", "more_rounds", "evidence", "share", "share_low",
    "share_high", "significant", "understated", "interacting",
    "evidence_before", "evidence_after", "page_ns", "page_ns_low", "page_ns_high",
    "below_kernel",
    # what the program's PUs did beside it, and what the preload library
    # reached (exec rows)
    "unexplained_busy", "kernel_busy", "kernel_tasks", "other_tasks",
    "mmprof_busy", "preload_blocks", "bulk_calls", "bulk_served",
    "bulk_syscalls", "bulk_aside",
}
# Columns that name a file under the invocation's run id (logdir.h).
RUN_ID_DIR = re.compile(r"/[0-9a-f]{16}/")
UNDER_RUN_ID = {"log"}
# An answer of these kinds names the runs its measurement picked.
PICKED_KINDS = {"fastest"}
PICKED = {"job", "other", "run", "other_run", "access"}
# Members of the JSON document that are measured or drawn (anywhere).
MEASURED_MEMBERS = MEASURED_COLUMNS | {
    "seconds", "seed", "median", "mean", "min", "max", "stddev", "cv",
    "estimate", "low", "high", "x_limit", "metrics", "disturbed_repetitions",
    "csv", "counters", "profile", "calibration",
    # why the largest cause is undecided: disturbed rounds, or the noise
    # (attribution.c), as measured
    "doubt",
    # a program's runs[].beside and runs[].preload (the rest of their
    # members are NAME.csv's measured columns, or mean/min/max above);
    # beside's rounds and attribution[].unused[].why are measured too but
    # share their names with members that are not: the shipped configs
    # run no program, so those are null or empty there
    "not_told_apart", "loaded", "mappings", "blocks", "prefaulted_bytes",
}


DROPPED = set()


def normalise_csv(path, out):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        out.write("%s: empty\n" % path)
        return
    keep = [i for i, n in enumerate(rows[0]) if n not in DROPPED]
    rows = [[row[i] for i in keep if i < len(row)] for row in rows]
    header = rows[0]
    masked = [i for i, n in enumerate(header) if n in MEASURED_COLUMNS]
    run_id_dirs = [i for i, n in enumerate(header) if n in UNDER_RUN_ID]
    picked = [i for i, n in enumerate(header) if n in PICKED]
    kind = header.index("kind") if "kind" in header else None
    out.write("%s: %s\n" % (os.path.basename(path), ",".join(header)))
    lines = []
    for row in rows[1:]:
        cells = list(row)
        chosen = kind is not None and kind < len(cells) and cells[kind] in PICKED_KINDS
        for i in masked + (picked if chosen else []):
            if i < len(cells):
                cells[i] = "*"
        for i in run_id_dirs:
            if i < len(cells):
                cells[i] = RUN_ID_DIR.sub("/", cells[i])
        lines.append(",".join(cells))
    for line in sorted(lines):
        out.write(line + "\n")


def mask(value):
    if isinstance(value, dict):
        chosen = value.get("kind") in PICKED_KINDS
        return {k: ("*" if k in MEASURED_MEMBERS or (chosen and k in PICKED) else mask(v))
                for k, v in value.items() if k not in DROPPED}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, float):
        return "*"
    return value


def normalise_json(path, out):
    with open(path) as f:
        doc = json.load(f)
    out.write("%s:\n" % os.path.basename(path))
    out.write(json.dumps(mask(doc), indent=1, sort_keys=True) + "\n")


def main():
    top = sys.argv[1]
    DROPPED.update(sys.argv[2:])
    out = sys.stdout
    for dirpath, dirnames, filenames in sorted(os.walk(top)):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if name.endswith(".profile.csv") or name.endswith(".profile.folded"):
                continue  # samples: measured through and through (the folded
                # stacks are new since the reference: profile.sh checks them)
            if name.endswith(".csv"):
                normalise_csv(path, out)
            elif name.endswith(".json"):
                normalise_json(path, out)
            elif not name.endswith(".log"):
                out.write("%s: a file\n" % os.path.relpath(path, top))


if __name__ == "__main__":
    main()
