"""The bench scripts' one statistic: a median of rounds and a bootstrap 95% interval of it.

Rounds are paired (each round runs every tool once, in turn), so the interval is of the median
of per-round ratios. Imported by the scripts' inline Python (`PYTHONPATH=bench`)."""
import random
import statistics


def bootstrap(items, statistic, draws=2000):
    """The 2.5th and 97.5th percentiles of `statistic` of `items` resampled with replacement
    (seeded, so a rerun on the same figures prints the same interval), as "low-high"."""
    rng = random.Random(1)
    boot = sorted(statistic(rng.choices(items, k=len(items))) for _ in range(draws))
    return f"{boot[int(draws * 0.025)]:.3f}-{boot[int(draws * 0.975) - 1]:.3f}"


def interval(xs, draws=2000):
    """The bootstrap 95% interval of the median of `xs`."""
    return bootstrap(xs, statistics.median, draws)
