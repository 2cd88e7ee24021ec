"""The exact (Clopper-Pearson) binomial interval without SciPy: bisection on the binomial tail sums."""
import math


def _tail_at_least(k, n, p):
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def _bisect(f, lo=0.0, hi=1.0):
    for _ in range(100):
        mid = (lo + hi) / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def clopper_pearson(k, n, level=0.95):
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else _bisect(lambda p: _tail_at_least(k, n, p) >= a)
    hi = 1.0 if k == n else _bisect(lambda p: 1 - _tail_at_least(k + 1, n, p) <= a)
    return lo, hi
