#!/usr/bin/env python3
"""What mmprof should print about a machine, computed by the test from the
machine's structure, never copied from one host's output.

A machine is read from one of:
  xml:FILE        an hwloc XML (tests/topologies/*.xml): the tree itself
  synthetic:SPEC  an hwloc synthetic description ("pack:2 numa:2 l3:1
                  core:2 pu:2"), expanded here level by level
  table           mmprof --topology's own tables on stdin (the real host:
                  its NUMA nodes, L3 domains and cores lists)
  sysfs           the real host's L3 domains as the kernel reports them,
                  independently of hwloc (cpu*/cache/index*/shared_cpu_list)
  hwloc-calc      the real host's L3 domains as hwloc's own tool lists them
                  (sysfs and hwloc-calc answer only "l3", one PU list a line)

and one of these is printed:
  pus                 one line per PU in logical order: "PU NODE L3 CORE PKG ALLOWED"
  machine             the "machine: ..." line of --topology
  l3                  "L3 i: PUs LIST" per L3 domain
  compact N           the placement line of N threads, placement = compact
  cores N             the placement line of N threads, placement = cores

  topology_model.py MACHINE WHAT [N]
"""
import os
import re
import sys
import xml.etree.ElementTree as ET


class Machine:
    def __init__(self):
        self.pus = []  # dicts: pu, node, l3, core, pkg, allowed; logical order

    def add(self, **kw):
        self.pus.append(kw)

    def count(self, key):
        return len({p[key] for p in self.pus if p[key] is not None})


def parse_bitmap(text):
    """hwloc's "0xffffffff,0x0000000f" (32-bit words, high first)."""
    value = 0
    for word in text.split(","):
        value = (value << 32) | int(word, 16)
    return {i for i in range(value.bit_length()) if value >> i & 1}


def parse_list(text):
    """"0-3,8,10-11" as a set; "none" is empty."""
    out = set()
    if text in ("", "none"):
        return out
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def list_text(pus):
    """A set as hwloc_bitmap_list_snprintf writes it: "0-1,4,7"."""
    pus, out, i = sorted(pus), [], 0
    while i < len(pus):
        j = i
        while j + 1 < len(pus) and pus[j + 1] == pus[j] + 1:
            j += 1
        out.append(str(pus[i]) if i == j else "%d-%d" % (pus[i], pus[j]))
        i = j + 1
    return ",".join(out) or "none"


def from_xml(path):
    root = ET.parse(path).getroot().find("object")
    allowed = parse_bitmap(root.get("allowed_cpuset") or root.get("cpuset"))
    m, seen = Machine(), {"Package": 0, "L3Cache": 0, "Core": 0}

    def walk(obj, ctx):
        kind = obj.get("type")
        ctx = dict(ctx)
        if kind in seen:  # logical indexes: left-to-right order of a level
            ctx[kind] = seen[kind]
            seen[kind] += 1
        for child in obj.findall("object"):
            if child.get("type") == "NUMANode":
                ctx["node"] = int(child.get("os_index"))
        if kind == "PU":
            pu = int(obj.get("os_index"))
            m.add(pu=pu, node=ctx.get("node"), l3=ctx.get("L3Cache"), core=ctx.get("Core"),
                  pkg=ctx.get("Package"), allowed=pu in allowed)
        for child in obj.findall("object"):
            if child.get("type") != "NUMANode":
                walk(child, ctx)

    walk(root, {})
    return m


LEVELS = {"pack": "pkg", "package": "pkg", "socket": "pkg", "numa": "node", "node": "node",
          "l3": "l3", "l3cache": "l3", "core": "core", "pu": "pu"}


def from_synthetic(spec):
    levels = []
    for item in re.findall(r"([A-Za-z0-9]+):(\d+)(?:\(([^)]*)\))?", spec):
        name, n, attrs = item[0].lower(), int(item[1]), item[2]
        indexes = None
        for attr in attrs.split():
            if attr.startswith("indexes="):
                if not re.fullmatch(r"[0-9,]+", attr[8:]):
                    sys.exit("topology_model: only explicit PU index lists are modelled: " + attr)
                indexes = [int(x) for x in attr[8:].split(",")]
        levels.append((LEVELS.get(name), n, indexes))
    total = 1
    for _, n, _ in levels:
        total *= n
    m = Machine()
    pu_indexes = next((ix for key, _, ix in levels if key == "pu" and ix), None)
    for i in range(total):  # PU i in logical order: its index at each level
        where, span = {}, total
        for key, n, _ in levels:
            span //= n
            if key:
                where[key] = i // span
        pu = pu_indexes[i] if pu_indexes else i
        m.add(pu=pu, node=where.get("node", 0), l3=where.get("l3"), core=where.get("core", i),
              pkg=where.get("pkg", 0), allowed=True)
    return m


def from_table(text):
    """The real host, from mmprof --topology's own tables."""
    node, l3, cores, allowed, section = {}, {}, [], None, None
    for line in text.splitlines():
        if not line.startswith(" "):
            section = line.split(" ")[0].rstrip(":")
            if line.startswith("allowed PUs: "):
                allowed = parse_list(line.split()[2])
            continue
        if section == "NUMA" and re.match(r"  node \d+: ", line):
            for pu in parse_list(line.rsplit("PUs ", 1)[1]):
                node.setdefault(pu, int(line.split()[1].rstrip(":")))
        elif section == "L3" and re.match(r"  L3 \d+: ", line):
            for pu in parse_list(line.rsplit("PUs ", 1)[1]):
                l3[pu] = int(line.split()[1].rstrip(":"))
        elif section == "cores":
            for c, pus in re.findall(r"core (\d+): PUs? ([0-9,-]+)", line):
                cores.extend((int(c), pu) for pu in sorted(parse_list(pus)))
    m = Machine()
    for c, pu in cores:  # cores in logical order, their PUs in order
        m.add(pu=pu, node=node.get(pu), l3=l3.get(pu), core=c, pkg=None,
              allowed=allowed is None or pu in allowed)
    return m


def sysfs_l3_sets():
    """The PUs sharing each L3, as the kernel reports them (no hwloc)."""
    sets = set()
    base = "/sys/devices/system/cpu"
    for cpu in os.listdir(base):
        if not re.fullmatch(r"cpu\d+", cpu):
            continue
        cache = os.path.join(base, cpu, "cache")
        for index in os.listdir(cache) if os.path.isdir(cache) else []:
            d = os.path.join(cache, index)
            try:
                if open(os.path.join(d, "level")).read().strip() == "3":
                    sets.add(frozenset(parse_list(
                        open(os.path.join(d, "shared_cpu_list")).read().strip())))
            except OSError:
                continue
    return sets


def hwloc_calc_l3_sets():
    """The PUs of each L3 as hwloc-calc (package "hwloc") lists them."""
    import subprocess
    def calc(*args):
        return subprocess.run(["hwloc-calc", *args], capture_output=True, text=True,
                              check=True).stdout.strip()
    n = int(calc("--number-of", "l3cache", "machine:0") or 0)
    return {frozenset(int(x) for x in calc("--physical-output", "--intersect", "pu",
                                           "l3cache:%d" % i).split(","))
            for i in range(n)}


def placement(m, n, order):
    pus = [p for p in order if p["allowed"]]
    items = []
    for i in range(n):
        p = pus[i % len(pus)]
        where = ""
        if p["node"] is not None and p["l3"] is not None:
            where = " (node %d, L3 %d)" % (p["node"], p["l3"])
        elif p["node"] is not None:
            where = " (node %d)" % p["node"]
        items.append("t%d PU %d%s" % (i, p["pu"], where))
    return "  ".join(items)


def by_core(m):
    """placement = cores: the first allowed PU of every core."""
    first = {}
    for p in m.pus:
        if p["allowed"] and p["core"] not in first:
            first[p["core"]] = p
    return [first[c] for c in sorted(first)]


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def main():
    src, what = sys.argv[1], sys.argv[2]
    if src.startswith("xml:"):
        m = from_xml(src[4:])
    elif src.startswith("synthetic:"):
        m = from_synthetic(src[10:])
    elif src == "table":
        m = from_table(sys.stdin.read())
    elif src in ("sysfs", "hwloc-calc"):
        sets = sysfs_l3_sets() if src == "sysfs" else hwloc_calc_l3_sets()
        for s in sorted(sorted(s) for s in sets):
            print(list_text(s))
        return
    else:
        sys.exit("topology_model: unknown machine " + src)
    if what == "pus":
        for p in m.pus:
            print(p["pu"], p["node"], p["l3"], p["core"], p["pkg"], int(p["allowed"]))
    elif what == "machine":
        pus, cores, l3 = len(m.pus), m.count("core"), m.count("l3")
        print("machine: %s, %s,%s %s, %s%s" % (
            plural(m.count("pkg"), "package"), plural(m.count("node"), "NUMA node"),
            " %s," % plural(l3, "L3 domain") if l3 else "", plural(cores, "core"),
            plural(pus, "PU"), " (%d per core)" % (pus // cores) if pus % cores == 0 else ""))
    elif what == "l3":
        for i in sorted({p["l3"] for p in m.pus if p["l3"] is not None}):
            print("L3 %d: PUs %s" % (i, list_text(p["pu"] for p in m.pus if p["l3"] == i)))
    elif what == "compact":
        print(placement(m, int(sys.argv[3]), m.pus))
    elif what == "cores":
        print(placement(m, int(sys.argv[3]), by_core(m)))
    else:
        sys.exit("topology_model: unknown question " + what)


if __name__ == "__main__":
    main()
