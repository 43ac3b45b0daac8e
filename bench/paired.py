"""make bench: the arithmetic of bench/pingpong.sh and bench/chase.sh.

The same method as src/result/intervals.c (which the C benches link): samples
paired by round, a ratio's estimate is the geometric mean of the paired
ratios, with a 95% Student-t interval on their logs; a cost's interval is
the t-interval on the paired differences.  Python's standard library has
no t quantile, so the table is src/result/intervals.c's.
"""
import math
import statistics

# Student's t, 97.5% quantile, df 1..30 (index = df), as src/result/intervals.c.
T975 = [math.inf, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262,
        2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(df):
    return T975[df] if df < len(T975) else 1.960 + 2.466 / df  # ~2.042 at 30, 1.960 at inf


def mean_interval(v):
    """Mean of v with its 95% t-interval: (mean, low, high)."""
    m = statistics.fmean(v)
    if len(v) < 2:
        return m, -math.inf, math.inf
    half = t975(len(v) - 1) * statistics.stdev(v) / math.sqrt(len(v))
    return m, m - half, m + half


def ratio(a, b):
    """a_i / b_i paired by round: (geometric mean, low, high, the ratios)."""
    r = [x / y for x, y in zip(a, b)]
    m, lo, hi = mean_interval([math.log(x) for x in r])
    return math.exp(m), math.exp(lo), math.exp(hi), r


def share(job, control):
    """What a control takes away, as mmprof's attribution reports it: the
    mean paired drop (job_i - control_i) as a share of the job's mean, with
    the drop's interval scaled alike: (share, low, high)."""
    m, lo, hi = mean_interval([j - c for j, c in zip(job, control)])
    base = statistics.fmean(job)
    return m / base, lo / base, hi / base


def spread(v):
    """median, min, max, cv of v."""
    cv = statistics.stdev(v) / statistics.fmean(v) if len(v) > 1 else 0.0
    return statistics.median(v), min(v), max(v), cv


def band(lo, hi, low, high):
    """Where the interval [lo, hi] lies against [low, high]: 'within',
    'outside' (wholly below or above), or 'undecided' (across a bound)."""
    if low <= lo and hi <= high:
        return "within"
    if hi < low or lo > high:
        return "outside"
    return "undecided"
