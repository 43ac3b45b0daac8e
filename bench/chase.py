#!/usr/bin/python3
"""make bench: what one load costs as the memory grows past the caches and
the TLB's reach, and what huge pages take off it.

mmprof's chase probe, 1 thread, at 16 KiB, 1 MiB, 64 MiB and 1 GiB, each
beside its `huge` control (the same run with hugepages = yes), in R rounds
(BENCH_CHASE_ROUNDS, default 8).  A round is one mmprof with repeat = 1 and
warmup = 1, so the sizes are measured side by side too (seconds apart, in
the same round; their order reverses from round to round), and within a
size the job and its control alternate as mmprof's interleaved rounds do.
One mmprof with repeat = R would instead run each size's repetitions back
to back, minutes from the others', and its 1 GiB / 16 KiB ratio would
include the drift between them.

Prints the machine's transparent huge page mode; per size and page kind,
the median ns per load with its spread and the huge bytes the kernel really
gave (the CSV's huge_bytes); the ratio 1 GiB / 16 KiB (geometric mean of
the paired rounds, 95% interval; target >= 3x, the whole interval above);
and per size hugepages = no / yes, with at 1 GiB the share of the job's
time the control takes (TLB reach, as mmprof's attribution counts it).
Rounds mmprof marked disturbed (a thread waited > 10% of its time for a
CPU) are left out of a comparison when 3 others remain.  Exit status 1
when the target is missed, 2 when a run failed; 0 with a "skipped" line
when there is not memory for 2 GiB of chase (1 GiB, twice, for a round).
"""
import csv
import os
import subprocess
import sys
import tempfile
import time

import paired

os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # ./mmprof, build/

MMPROF = os.environ.get("MMPROF", "./mmprof")
ROUNDS = int(os.environ.get("BENCH_CHASE_ROUNDS", "8"))
SIZES = [("16 KiB", "16K", 16 << 10), ("1 MiB", "1M", 1 << 20), ("64 MiB", "64M", 64 << 20),
         ("1 GiB", "1G", 1 << 30)]
KIB4, HUGE = "no", "yes"  # hugepages = no: the job; yes: its huge control


def fail(msg):
    print(f"chase: {msg}", file=sys.stderr)
    sys.exit(2)


def thp(name):
    """The mode in brackets in /sys/kernel/mm/transparent_hugepage/NAME."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/" + name) as f:
            line = f.readline()
    except OSError:
        return "unavailable"
    return line[line.find("[") + 1:line.find("]")] if "[" in line else line.strip()


def meminfo():
    out = {}
    with open("/proc/meminfo") as f:
        for line in f:
            k, v = line.split(":", 1)
            out[k] = int(v.split()[0])
    return out


def config(sizes):
    return f"""[global]
repeat = 1
warmup = 1
[chase]
probe = chase
size = {', '.join(s[1] for s in sizes)}
controls = huge
"""


def human(n):
    for unit, b in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= b:
            return f"{n / b:.4g} {unit}"
    return f"{n} B"


def main():
    mem = meminfo()
    if mem.get("MemAvailable", 0) < 3 << 20:  # kB: 2 GiB chased plus the shuffles
        print(f"chase: skipped: {mem.get('MemAvailable', 0) >> 10} MiB available, "
              f"a round needs about 3 GiB")
        return 0
    # ns[size][kind] per round, clean[size][kind], huge_bytes[size] (huge runs), dtlb
    ns = {s[2]: {KIB4: [], HUGE: []} for s in SIZES}
    clean = {s[2]: {KIB4: [], HUGE: []} for s in SIZES}
    dtlb = {s[2]: {KIB4: [], HUGE: []} for s in SIZES}
    got = {s[2]: [] for s in SIZES}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mmprof-bench-chase.") as d:
        for r in range(ROUNDS):
            ini, out = os.path.join(d, "chase.ini"), os.path.join(d, "chase.csv")
            with open(ini, "w") as f:
                f.write(config(SIZES if r % 2 == 0 else SIZES[::-1]))
            p = subprocess.run([MMPROF, "--config", ini, "--csv", out, "--quiet"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if p.returncode:
                fail(f"mmprof exited {p.returncode} in round {r + 1}: {p.stderr.strip()}")
            rows = list(csv.DictReader(open(out)))
            if len(rows) != 2 * len(SIZES) or any(x["result_ok"] != "true" for x in rows):
                fail(f"round {r + 1}: expected {2 * len(SIZES)} checked rows, got {rows}")
            for x in rows:
                size, kind = int(x["bytes"]), HUGE if x["control"] == "huge" else KIB4
                if (x["hugepages"] == "yes") != (kind == HUGE):
                    fail(f"round {r + 1}: control {x['control']!r} with hugepages = {x['hugepages']}")
                ns[size][kind].append(float(x["ns_per_op"]))
                clean[size][kind].append(x["disturbed"] != "true")
                if x["dtlb_misses_per_kib"]:
                    dtlb[size][kind].append(float(x["dtlb_misses_per_kib"]))
                if kind == HUGE:
                    got[size].append(int(x["huge_bytes"] or 0))
    print(f"chase: {ROUNDS} rounds, {time.monotonic() - start:.0f} s", file=sys.stderr)

    print(f"chase: ns per load, 1 thread on PU 0, mmprof's default ops (2^20 loads), {ROUNDS} "
          f"rounds; each round one mmprof: every size, the job (hugepages = no) beside its "
          f"huge control (= yes)")
    print(f"  transparent huge pages: enabled = {thp('enabled')}, defrag = {thp('defrag')}; "
          f"reserved huge pages (vm.nr_hugepages): {mem.get('HugePages_Total', 0)} of "
          f"{mem.get('Hugepagesize', 0)} kB")
    if thp("enabled") == "always":
        print("  note: with THP always, hugepages = no may be given huge pages too, and mmprof "
              "reports huge_bytes only for hugepages = yes: the control can show less than "
              "the TLB's cost")
    print(f"  {'size':<7} {'huge':<5} {'undisturbed':>11} {'median':>8} {'min':>8} {'max':>8} "
          f"{'cv':>6}   huge pages obtained (least of the rounds)")
    for name, _, size in SIZES:
        for kind in (KIB4, HUGE):
            v = [x for x, ok in zip(ns[size][kind], clean[size][kind]) if ok]
            if len(v) < 3:
                v = ns[size][kind]
            med, lo, hi, cv = paired.spread(v)
            tail = ""
            if kind == HUGE:
                least = min(got[size])
                tail = f"   {human(least)} of {human(size)} ({least / size:.0%})"
            print(f"  {name if kind == KIB4 else '':<7} {kind:<5} "
                  f"{sum(clean[size][kind]):>5} of {ROUNDS:<3} {med:8.2f} {lo:8.2f} {hi:8.2f} "
                  f"{cv * 100:5.1f}%{tail}")

    def pairs(a_clean, b_clean):
        keep = [i for i in range(ROUNDS) if a_clean[i] and b_clean[i]]
        if len(keep) >= 3:
            return keep, f"{len(keep)} undisturbed paired rounds"
        return list(range(ROUNDS)), f"all {ROUNDS} paired rounds, {len(keep)} undisturbed"

    big, small = SIZES[-1][2], SIZES[0][2]
    keep, note = pairs(clean[big][KIB4], clean[small][KIB4])
    g, lo, hi, _ = paired.ratio([ns[big][KIB4][i] for i in keep], [ns[small][KIB4][i] for i in keep])
    met = lo >= 3
    print("  hugepages = no / yes, paired by round (geometric mean [95% interval]):")
    for name, _, size in SIZES:
        k, n = pairs(clean[size][KIB4], clean[size][HUGE])
        job, ctl = [ns[size][KIB4][i] for i in k], [ns[size][HUGE][i] for i in k]
        hg, hlo, hhi, _ = paired.ratio(job, ctl)
        line = f"    {name:<7} {hg:.3f}x [{hlo:.3f}, {hhi:.3f}]  ({n})"
        if size == big:
            s, slo, shi = paired.share(job, ctl)
            line += f": TLB reach {s:.0%} [{slo:.0%}, {shi:.0%}] of the job's time"
        print(line)
    if dtlb[big][KIB4] and dtlb[big][HUGE]:
        print(f"  dTLB-load-misses per KiB at 1 GiB, medians: hugepages = no "
              f"{paired.spread(dtlb[big][KIB4])[0]:.3g}, yes "
              f"{paired.spread(dtlb[big][HUGE])[0]:.3g}")
    else:
        print("  dTLB-load-misses: not counted here (empty CSV cells), so the control's drop "
              "is the only evidence")
    print(f"chase 1 GiB / 16 KiB (hugepages = no): {g:.1f}x [{lo:.1f}, {hi:.1f}] "
          f"(geometric mean of {note}, 95% interval; target >= 3x): {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
