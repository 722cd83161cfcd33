"""The bench scripts' one statistic: a median of rounds and a bootstrap 95% interval of it.

Rounds are paired (each round runs every tool once, in turn), so the interval is of the median
of per-round ratios. Imported by the scripts' inline Python (`PYTHONPATH=bench`)."""
import random
import statistics


def interval(xs, draws=2000):
    """The 2.5th and 97.5th percentiles of the median of `xs` resampled with replacement
    (seeded, so a rerun on the same figures prints the same interval), as "low-high"."""
    rng = random.Random(1)
    boot = sorted(statistics.median(rng.choices(xs, k=len(xs))) for _ in range(draws))
    return f"{boot[int(draws * 0.025)]:.3f}-{boot[int(draws * 0.975) - 1]:.3f}"
