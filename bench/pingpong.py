#!/usr/bin/python3
"""make bench: does mmprof's pingpong give the core-to-core latency that a
minimal ping-pong written apart from it gives?

On PUs 0 and 1, transfer = cas, N one-way transfers (BENCH_PINGPONG_OPS,
default 1000000).  Every round runs three sides, each a process of its own
with one warmup pass of N transfers and one timed pass, in an order that
rotates from round to round, so drift and position hit all three alike:

  ref, wait = pause   bench/pingpong_ref.c polling with PAUSE, as mmprof's
                      probe and spin locks do: the reference of the target
  ref, wait = spin    the same polling back to back, as c2clat does: shown
                      to say what that choice alone is worth here
  mmprof pingpong     ./mmprof on a one-job config, repeat = 1, warmup = 1

Why one process per round, not one mmprof with repeat = R paired by
repetition: only separate processes can alternate with the reference, so
a pair's two rounds share the machine's state of that moment (this VM
shares its two vCPUs with other work that comes and goes within seconds);
and both sides then have the same shape (a new process, new pinned
threads, one warmup, one timed pass).  One mmprof with repeat = R would
measure all its rounds in one window and the reference's in others.

A round in which a thread waited more than 10% of its pass for a CPU (the
reference's waited_max; for mmprof its runner's disturbed flag, which uses
the same 10%) measures the scheduler, not the line: such pairs are left out
when 3 others remain (as mmprof's comparisons do), and rounds are added
until BENCH_PINGPONG_ROUNDS (default 10) undisturbed pairs or
BENCH_PINGPONG_MAX_ROUNDS (default twice that) rounds.

Prints each side's median ns per transfer with its spread, and mmprof / ref
as the geometric mean of the paired rounds with its 95% interval.  Target:
mmprof within 20% of the reference (pause), the whole interval inside
[0.8, 1.2].  Exit status 1 when that is not shown, 2 when a side failed;
0 with a "skipped" line when PUs 0 and 1 are not both available.
"""
import csv
import os
import re
import subprocess
import sys
import tempfile
import time

import paired

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # ./mmprof, build/

MMPROF = os.environ.get("MMPROF", "./mmprof")
REF = os.environ.get("PINGPONG_REF", "build/bench/pingpong_ref")
OPS = int(os.environ.get("BENCH_PINGPONG_OPS", "1000000"))
WANT = int(os.environ.get("BENCH_PINGPONG_ROUNDS", "10"))
MAX_ROUNDS = int(os.environ.get("BENCH_PINGPONG_MAX_ROUNDS", str(2 * WANT)))
MAX_WAIT = 0.10  # MMP_DISTURB_MAX_WAIT (src/run/disturbance.h)

CONFIG = f"""[global]
repeat = 1
warmup = 1
[pingpong]
probe = pingpong
placement = pus:0,1
transfer = cas
ops = {OPS}
"""
SIDES = ("pause", "spin", "mmprof")
NAMES = {"pause": "ref, wait = pause", "spin": "ref, wait = spin", "mmprof": "mmprof pingpong"}


def fail(msg):
    print(f"pingpong: {msg}", file=sys.stderr)
    sys.exit(2)


def run_ref(wait):
    """(ns per transfer, undisturbed) of one reference process."""
    p = subprocess.run([REF, "-n", str(OPS), "-w", wait, "0", "1"], capture_output=True, text=True)
    if p.returncode:  # 1: its counter came out wrong; 2: it could not pin
        fail(f"pingpong_ref -w {wait} exited {p.returncode}: {p.stderr.strip()}")
    ns = float(re.search(r"ns_per_transfer=([0-9.]+)", p.stdout).group(1))
    waited = float(re.search(r"waited_max=(-?[0-9.]+)", p.stdout).group(1))
    return ns, waited <= MAX_WAIT


def run_mmprof(config, out):
    p = subprocess.run([MMPROF, "--config", config, "--csv", out, "--quiet"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        fail(f"mmprof exited {p.returncode}: {p.stderr.strip()}")
    row = next(csv.DictReader(open(out)))
    if row["result_ok"] != "true" or int(row["ops"]) != OPS // 2 * 2:
        fail(f"mmprof's row is not a checked run of {OPS} transfers: {row}")
    return float(row["ns_per_op"]), row["disturbed"] != "true"


def main():
    if not {0, 1} <= os.sched_getaffinity(0):
        print(f"pingpong: skipped: needs PUs 0 and 1; this process may run on "
              f"{sorted(os.sched_getaffinity(0))}")
        return 0
    ns = {s: [] for s in SIDES}
    clean = {s: [] for s in SIDES}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mmprof-bench-pingpong.") as d:
        config = os.path.join(d, "pingpong.ini")
        with open(config, "w") as f:
            f.write(CONFIG)
        r = 0
        while r < MAX_ROUNDS:
            for k in range(3):
                side = SIDES[(r + k) % 3]
                v, ok = run_mmprof(config, os.path.join(d, "r.csv")) if side == "mmprof" \
                    else run_ref(side)
                ns[side].append(v)
                clean[side].append(ok)
            r += 1
            if sum(a and b for a, b in zip(clean["mmprof"], clean["pause"])) >= WANT:
                break
    print(f"pingpong: {r} rounds of 3 sides, {time.monotonic() - start:.0f} s", file=sys.stderr)

    print(f"pingpong vs an independent ping-pong (bench/pingpong_ref.c): PUs 0 and 1, "
          f"transfer = cas, {OPS} transfers per pass, {r} rounds, sides alternating")
    print(f"  {'side':<18} {'undisturbed':>11} {'median':>8} {'min':>8} {'max':>8} {'cv':>6}"
          f"   ns per one-way transfer: of the undisturbed rounds")
    for s in SIDES:
        v = [x for x, ok in zip(ns[s], clean[s]) if ok]
        note = ""
        if len(v) < 3:
            v, note = ns[s], "   (of all rounds: too few undisturbed)"
        med, lo, hi, cv = paired.spread(v)
        print(f"  {NAMES[s]:<18} {sum(clean[s]):>5} of {r:<3} {med:8.2f} {lo:8.2f} {hi:8.2f} "
              f"{cv * 100:5.1f}%{note}")

    def compare(ref):
        keep = [i for i in range(r) if clean["mmprof"][i] and clean[ref][i]]
        note = f"{len(keep)} undisturbed pairs"
        if len(keep) < 3:
            keep = list(range(r))
            note = f"all {r} pairs: only {sum(clean['mmprof'][i] and clean[ref][i] for i in keep)}" \
                   f" undisturbed, the machine was busy"
        g, lo, hi, ratios = paired.ratio([ns["mmprof"][i] for i in keep],
                                         [ns[ref][i] for i in keep])
        return g, lo, hi, ratios, note

    g, lo, hi, ratios, note = compare("pause")
    where = paired.band(lo, hi, 0.8, 1.2)
    verdict = {"within": "met", "outside": "MISSED",
               "undecided": "MISSED (undecided: the interval crosses a bound)"}[where]
    print(f"  paired ratios mmprof / ref (pause): {' '.join(f'{x:.2f}' for x in ratios)}")
    print(f"mmprof / ref (pause): {g:.3f}x [{lo:.3f}, {hi:.3f}] (geometric mean of {note}, "
          f"95% interval; target within 20%, 0.8x to 1.2x): {verdict}")
    g, lo, hi, _, note = compare("spin")
    print(f"mmprof / ref (spin):  {g:.3f}x [{lo:.3f}, {hi:.3f}] ({note}; no target: c2clat's "
          f"back-to-back polling is not the probe's loop)")
    return 0 if where == "within" else 1


if __name__ == "__main__":
    sys.exit(main())
