"""Write the plots of one mmprof CSV as PNGs beside it.

    /usr/bin/python3 analysis/plots.py [--reference JOB] PATH/NAME.csv

writes those that apply, and prints each path written:

    NAME.sizes.png        mean time against file size per method family, and
                          each method's time over the fastest's, the fastest
                          answers of NAME.answers.csv marked (several sizes)
    NAME.slowdown.png     each job run's time ratio to the reference job's,
                          and to limit's, with 95% intervals
    NAME.attribution.png  causes of each job run's time, shares with 95%
                          intervals (NAME.attribution.csv)
    NAME.scaling.png      GB/s against threads (several thread counts)
    NAME.core-to-core.JOB[.WHAT].png
                          pingpong with placement = pairs: ns per one-way
                          transfer between two PUs, PU x PU
    NAME.node-to-node.JOB[.WHAT].png
                          chase (ns per load) or limit (GB/s) with placement =
                          numa:M and membind = node:N: CPU node x memory node

WHAT, when a job has several matrices, is what tells them apart
(transfer-cas, 16KiB).

A plot whose data the CSV lacks is skipped with a note on stderr.  The
reference job of the slowdown plot is the plan's first job unless
--reference names another.  Exit status: 0 done (even when every plot was
skipped), 1 a CSV could not be read, 2 bad usage.  Also `make plots CSV=...`.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mmprof_csv  # noqa: E402
import mmprof_plots  # noqa: E402


def stem(csv_path):
    """PATH/NAME for PATH/NAME.csv (the CSV's path without .csv)."""
    return csv_path[:-4] if csv_path.endswith(".csv") else csv_path


def read(loader, path):
    """loader(path), or None after an error line on stderr."""
    try:
        return loader(path)
    except (OSError, ValueError, KeyError) as e:
        why = f"no column {e}" if isinstance(e, KeyError) else str(e).removeprefix(f"{path}: ")
        print(f"plots: {path}: cannot read it as an mmprof CSV: {why}", file=sys.stderr)
        return None


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="plots.py", description="Write the plots of one mmprof CSV as PNGs beside it.")
    parser.add_argument("csv", metavar="PATH/NAME.csv")
    parser.add_argument("--reference", metavar="JOB",
                        help="job the slowdown plot divides by (default: the CSV's first job)")
    args = parser.parse_args(argv)

    df = read(mmprof_csv.load, args.csv)
    if df is None:
        return 1
    # The companions beside it; a missing one loads as an empty frame.
    att = read(mmprof_csv.load_attribution, args.csv)
    answers = read(mmprof_csv.load_answers, args.csv)
    if att is None or answers is None:
        return 1
    if args.reference is not None and args.reference not in set(df["job"]):
        jobs = ", ".join(dict.fromkeys(df["job"]))
        print(f"plots: --reference {args.reference}: no such job in {args.csv} ({jobs})",
              file=sys.stderr)
        return 2

    for name, fig in mmprof_plots.all_plots(df, att, args.reference, answers).items():
        png = f"{stem(args.csv)}.{name}.png"
        if isinstance(fig, str):
            print(f"plots: skipped {png}: {fig}", file=sys.stderr)
            continue
        mmprof_plots.save(fig, png)
        print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
