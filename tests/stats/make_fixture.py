#!/usr/bin/python3
"""Generates tests/stats/reference_values.json: reference values for the rb_stats tests.

Run:  /usr/bin/python3 tests/stats/make_fixture.py > tests/stats/reference_values.json
Needs Debian's python3-scipy (1.10) and python3-numpy; the tests themselves do not need Python.

Provenance of each value (also written into the fixture):
  - Fisher p-values: exact rational arithmetic (Python integers/fractions), with R's fisher.test rule for
    two-sided p (tables with P <= P(observed) * (1 + 1e-7)); cross-checked against
    scipy.stats.fisher_exact (whose two-sided tie tolerance is 1e-14 instead; recorded as scipy_*).
  - Conditional MLE odds ratio and exact interval: 50-digit decimal arithmetic on the exact
    hypergeometric weights (bisection on log psi); cross-checked against
    scipy.stats.contingency.odds_ratio(kind="conditional") (recorded as scipy_*).
  - Boschloo: the extreme set as in scipy.stats.boschloo_exact (one-sided Fisher p as the statistic,
    1e-13 tie guard, two-sided = 2 * min one-sided); the supremum over the nuisance rate by a dense grid
    (4001 points) refined with scipy.optimize.minimize_scalar; scipy.stats.boschloo_exact's own value
    (shgo, n=32) recorded as scipy_p_value.
  - Binomial intervals: scipy.stats.beta.ppf (Clopper-Pearson, Jeffreys), scipy.stats.binomtest(...)
    .proportion_ci (wilson, wilsoncc).
  - Binomial test: scipy.stats.binomtest, cross-checked with exact rational arithmetic (R's rule).
  - Mann-Whitney: scipy.stats.mannwhitneyu with an explicit method ("exact" or "asymptotic").
  - p-value adjustment: R's p.adjust definitions written out below in plain Python.
  - Fisher power: exact rational Fisher p-values per outcome, binomial probabilities in floats.
"""
import decimal
import json
import math
import sys
from fractions import Fraction

import numpy as np
import scipy
import scipy.optimize
import scipy.stats as ss
from scipy.stats.contingency import odds_ratio

REL_TOL = Fraction(1, 10**7)  # R's fisher.test / binom.test relErr = 1 + 1e-7


# --------------------------------------------------------------------------------------------- Fisher
def hyper_weights(a, b, c, d):
    """Exact integer weights C(n1, x) C(n2, m - x) for x = lo..hi, and lo."""
    n1, n2, m = a + b, c + d, a + c
    lo, hi = max(0, m - n2), min(n1, m)
    # C(n1, x) C(n2, m - x) by the exact integer recurrence (math.comb per point is too slow at 10^4).
    w = [math.comb(n1, lo) * math.comb(n2, m - lo)]
    for x in range(lo + 1, hi + 1):
        num = w[-1] * (n1 - x + 1) * (m - x + 1)
        den = x * (n2 - m + x)
        assert num % den == 0
        w.append(num // den)
    return lo, hi, w


def fisher_exact_rational(a, b, c, d):
    n1, n2, m = a + b, c + d, a + c
    if n1 == 0 or n2 == 0 or m == 0 or n1 + n2 - m == 0:
        return 1.0, 1.0, 1.0
    lo, hi, w = hyper_weights(a, b, c, d)
    total = sum(w)
    i = a - lo
    less = Fraction(sum(w[: i + 1]), total)
    greater = Fraction(sum(w[i:]), total)
    limit = w[i] * (1 + REL_TOL)
    two = Fraction(sum(v for v in w if v <= limit), total)
    return float(min(two, 1)), float(min(greater, 1)), float(min(less, 1))


def cond_or_decimal(a, b, c, d, conf=0.95):
    """Conditional MLE and exact interval, 50 significant digits."""
    n1, n2, m = a + b, c + d, a + c
    if n1 == 0 or n2 == 0 or m == 0 or n1 + n2 - m == 0:
        return None, 0.0, math.inf
    ctx = decimal.Context(prec=50, Emax=10**8, Emin=-(10**8))
    decimal.setcontext(ctx)
    D = decimal.Decimal
    lo, hi, w = hyper_weights(a, b, c, d)
    wd = [ctx.create_decimal(v) for v in w]  # rounded to 50 digits once

    def weights(t):  # w_x psi^(x - a), psi = exp(t)
        psi = D(t).exp()
        inv = 1 / psi
        out = [D(0)] * len(wd)
        i0 = a - lo
        p = D(1)
        for i in range(i0, len(wd)):
            out[i] = wd[i] * p
            p *= psi
        p = inv
        for i in range(i0 - 1, -1, -1):
            out[i] = wd[i] * p
            p *= inv
        return out

    def bisect(f, lo_t, hi_t):  # f increasing in t
        flo = f(lo_t)
        while flo > 0:
            lo_t -= 8
            flo = f(lo_t)
        while f(hi_t) < 0:
            hi_t += 8
        for _ in range(70):
            mid = (lo_t + hi_t) / 2
            if f(mid) > 0:
                hi_t = mid
            else:
                lo_t = mid
        return (lo_t + hi_t) / 2

    def mean_minus_a(t):
        ws = weights(t)
        s0 = sum(ws)
        s1 = sum(D(lo + i) * v for i, v in enumerate(ws))
        return float(s1 / s0 - a)

    def upper_tail_minus(t, tail):  # P(X >= a) - tail, increasing
        ws = weights(t)
        return float(sum(ws[a - lo:]) / sum(ws) - D(tail))

    def lower_tail_minus(t, tail):  # -(P(X <= a) - tail), increasing
        ws = weights(t)
        return float(-(sum(ws[: a - lo + 1]) / sum(ws) - D(tail)))

    alpha = (1 - conf) / 2
    if a == lo:
        mle, low = 0.0, 0.0
    else:
        low = math.exp(bisect(lambda t: upper_tail_minus(t, alpha), -2.0, 2.0))
    if a == hi:
        mle, high = math.inf, math.inf
    else:
        high = math.exp(bisect(lambda t: lower_tail_minus(t, alpha), -2.0, 2.0))
    if lo < a < hi:
        mle = math.exp(bisect(mean_minus_a, -2.0, 2.0))
    return mle, low, high


def jnum(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return None
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


FISHER_TABLES = [
    # The paper's figures.
    (7, 3, 1, 9), (6, 0, 0, 6),
    # Zeros, empty rows and columns (degenerate: p = 1).
    (0, 0, 0, 0), (0, 0, 5, 5), (0, 5, 0, 5), (0, 10, 0, 10), (5, 0, 5, 0), (0, 10, 10, 0), (1, 0, 0, 1),
    (0, 1, 1, 0), (0, 3, 2, 1), (0, 6, 6, 0), (0, 9, 1, 8), (3, 0, 0, 3), (0, 0, 3, 0),
    # All-success rows.
    (10, 0, 5, 5), (10, 0, 0, 10), (20, 0, 19, 1), (3, 0, 1, 2), (5, 0, 1, 4), (4, 0, 3, 1), (12, 0, 12, 3),
    # Near-ties and symmetric tables (mirror tables of exactly equal probability).
    (5, 5, 5, 5), (2, 3, 3, 2), (4, 6, 6, 4), (1, 2, 2, 1), (3, 7, 7, 3), (10, 10, 10, 10), (1, 9, 9, 1),
    (2, 8, 8, 2), (6, 4, 4, 6), (7, 8, 8, 7), (3, 3, 4, 2), (9, 11, 11, 9),
    # Typical small and moderate tables.
    (1, 9, 11, 3), (8, 2, 1, 5), (12, 5, 7, 7), (3, 1, 1, 3), (2, 8, 6, 4), (4, 1, 0, 5), (9, 1, 4, 6),
    (4, 5, 1, 9), (20, 30, 25, 25), (50, 50, 60, 40), (100, 0, 95, 5), (17, 3, 9, 11), (1, 99, 8, 92),
    # Large counts (tens of thousands), including extreme tails.
    (5000, 5000, 5200, 4800), (10000, 0, 9990, 10), (12000, 8000, 11000, 9000), (1000, 9000, 1100, 8900),
    (30000, 20000, 29500, 20500), (40000, 10, 39990, 20), (500, 0, 0, 500), (2000, 0, 0, 2000),
    (20000, 20000, 20000, 20000), (9990, 10, 10000, 0),
]
# Plus 40 pseudo-random tables (fixed seed) of assorted sizes, rows 1..300.
_rng = np.random.default_rng(20261129)
for _ in range(40):
    n1, n2 = (int(v) for v in _rng.integers(1, 301, size=2))
    r1, r2 = _rng.random(2)
    a, c = int(_rng.binomial(n1, r1)), int(_rng.binomial(n2, r2))
    FISHER_TABLES.append((a, n1 - a, c, n2 - c))
# Tables whose conditional odds ratio / interval is checked (the decimal reference is slow on big ones).
OR_MAX_SUPPORT = 12000


def fisher_entries():
    out = []
    for (a, b, c, d) in FISHER_TABLES:
        two, greater, less = fisher_exact_rational(a, b, c, d)
        e = {"table": [a, b, c, d], "p_two_sided": two, "p_greater": greater, "p_less": less}
        sp = {alt: float(ss.fisher_exact([[a, b], [c, d]], alternative=alt)[1])
              for alt in ("two-sided", "greater", "less")}
        e["scipy_p"] = sp
        n1, n2, m = a + b, c + d, a + c
        support = min(n1, m) - max(0, m - n2) + 1
        if n1 == 0 or n2 == 0 or m == 0 or n1 + n2 - m == 0:
            e["odds_ratio"] = None
        elif b * c == 0:
            e["odds_ratio"] = "inf"
        else:
            e["odds_ratio"] = a * d / (b * c)
        if support <= OR_MAX_SUPPORT:
            mle, low, high = cond_or_decimal(a, b, c, d)
            e["conditional_odds_ratio"] = jnum(mle)
            e["ci_low"] = jnum(low)
            e["ci_high"] = jnum(high)
            if not (n1 == 0 or n2 == 0 or m == 0 or n1 + n2 - m == 0) and support <= 2000:
                r = odds_ratio([[a, b], [c, d]], kind="conditional")
                ci = r.confidence_interval(0.95)
                e["scipy_conditional"] = [jnum(float(r.statistic)), jnum(float(ci.low)), jnum(float(ci.high))]
        out.append(e)
    return out


# ------------------------------------------------------------------------------------------- Boschloo
def boschloo_dense(table, alternative):
    """Boschloo's p (our table: rows are the groups) by a dense grid plus local refinement."""
    (a, b), (c, d) = table
    n1, n2 = a + b, c + d
    if n1 == 0 or n2 == 0:
        return float("nan"), 1.0
    if alternative == "two-sided":
        sl, pl = boschloo_dense(table, "less")
        sg, pg = boschloo_dense(table, "greater")
        s, p = (sl, pl) if pl < pg else (sg, pg)
        return s, min(1.0, 2 * p)
    x1 = np.arange(n1 + 1).reshape(-1, 1)
    x2 = np.arange(n2 + 1).reshape(1, -1)
    tot = n1 + n2
    if alternative == "less":
        pv = ss.hypergeom.cdf(x1, tot, x1 + x2, n1)
    else:
        pv = ss.hypergeom.cdf(x2, tot, x1 + x2, n2)
    stat = pv[a, c]
    mask = pv <= stat * (1 + 1e-13)
    lc = np.array([[math.lgamma(n1 + 1) - math.lgamma(i + 1) - math.lgamma(n1 - i + 1) +
                    math.lgamma(n2 + 1) - math.lgamma(j + 1) - math.lgamma(n2 - j + 1)
                    for j in range(n2 + 1)] for i in range(n1 + 1)])
    s = (x1 + x2)[mask]
    coef = lc[mask]

    def logp(pi):
        with np.errstate(divide="ignore", invalid="ignore"):
            lp = np.where(s > 0, s * np.log(pi) if pi > 0 else -np.inf, 0.0)
            lq = np.where(tot - s > 0, (tot - s) * np.log1p(-pi) if pi < 1 else -np.inf, 0.0)
        v = coef + lp + lq
        mx = v.max()
        if mx == -np.inf:
            return -np.inf
        return mx + math.log(np.exp(v - mx).sum())

    grid = np.linspace(0, 1, 4001)
    vals = np.array([logp(p) for p in grid])
    best = vals.max()
    for i in range(len(grid)):
        if (i == 0 or vals[i] >= vals[i - 1]) and (i == len(grid) - 1 or vals[i] >= vals[i + 1]):
            lo, hi = grid[max(0, i - 1)], grid[min(len(grid) - 1, i + 1)]
            r = scipy.optimize.minimize_scalar(lambda p: -logp(p), bounds=(lo, hi), method="bounded",
                                               options={"xatol": 1e-13})
            best = max(best, -r.fun)
    return float(stat), float(min(1.0, math.exp(best)))


BOSCHLOO_TABLES = [(7, 3, 1, 9), (6, 0, 0, 6), (3, 3, 0, 6), (4, 1, 0, 5), (2, 5, 6, 1), (10, 0, 5, 5),
                   (5, 5, 5, 5), (1, 9, 11, 3), (0, 4, 3, 1), (8, 12, 16, 4), (9, 1, 2, 8), (0, 5, 0, 5)]


def boschloo_entries():
    out = []
    for (a, b, c, d) in BOSCHLOO_TABLES:
        for alt in ("two-sided", "greater", "less"):
            stat, p = boschloo_dense(((a, b), (c, d)), alt)
            # SciPy's table has the groups as columns: transpose ours.
            r = ss.boschloo_exact([[a, c], [b, d]], alternative=alt)
            out.append({"table": [a, b, c, d], "alternative": alt, "p_value": p, "statistic": jnum(stat),
                        "scipy_p_value": jnum(float(r.pvalue)), "scipy_statistic": jnum(float(r.statistic))})
    return out


# ------------------------------------------------------------------------------------------ Binomial
CI_CASES = [(0, 1), (1, 1), (0, 10), (10, 10), (7, 10), (1, 10), (3, 7), (6, 6), (0, 6), (50, 100),
            (1, 1000), (999, 1000), (12345, 20000), (5, 37), (2, 3)]
CI_LEVELS = [0.95, 0.9, 0.99, 0.5]


def ci_entries():
    out = []
    for (k, n) in CI_CASES:
        for level in CI_LEVELS:
            a = 1 - level
            cp = (0.0 if k == 0 else float(ss.beta.ppf(a / 2, k, n - k + 1)),
                  1.0 if k == n else float(ss.beta.isf(a / 2, k + 1, n - k)))
            je = (0.0 if k == 0 else float(ss.beta.ppf(a / 2, k + 0.5, n - k + 0.5)),
                  1.0 if k == n else float(ss.beta.isf(a / 2, k + 0.5, n - k + 0.5)))
            bt = ss.binomtest(k, n)
            wi = bt.proportion_ci(level, method="wilson")
            wc = bt.proportion_ci(level, method="wilsoncc")
            for name, (lo, hi) in (("clopper-pearson", cp), ("jeffreys", je),
                                   ("wilson", (float(wi.low), float(wi.high))),
                                   ("wilson-cc", (max(0.0, float(wc.low)), min(1.0, float(wc.high))))):
                out.append({"k": k, "n": n, "level": level, "method": name, "low": lo, "high": hi})
    return out


def binom_test_rational(k, n, p0):
    p = Fraction(p0)
    pmf = [math.comb(n, i) * p**i * (1 - p)**(n - i) for i in range(n + 1)]
    d = pmf[k]
    m = n * p
    if k == m:
        return 1.0
    if k < m:
        y = sum(1 for i in range(math.ceil(m), n + 1) if pmf[i] <= d * (1 + REL_TOL))
        return float(min(1, sum(pmf[: k + 1]) + sum(pmf[n - y + 1:])))
    y = sum(1 for i in range(0, math.floor(m) + 1) if pmf[i] <= d * (1 + REL_TOL))
    return float(min(1, sum(pmf[:y]) + sum(pmf[k:])))


BT_CASES = [(7, 10, 0.5), (1, 10, 0.5), (0, 10, 0.5), (10, 10, 0.5), (5, 10, 0.5), (3, 20, 0.3), (9, 20, 0.3),
            (6, 6, 0.2), (0, 25, 0.1), (682, 925, 0.75), (2, 40, 0.01), (39, 40, 0.9), (51, 235, 0.1667),
            (4, 4, 0.5), (1, 3, 0.3)]


def binom_test_entries():
    out = []
    for (k, n, p0) in BT_CASES:
        e = {"k": k, "n": n, "p0": p0}
        for alt in ("two-sided", "greater", "less"):
            e["scipy_" + alt] = float(ss.binomtest(k, n, p0, alternative=alt).pvalue)
        e["two-sided"] = binom_test_rational(k, n, p0)
        e["greater"] = e["scipy_greater"]
        e["less"] = e["scipy_less"]
        out.append(e)
    return out


# ------------------------------------------------------------------------------------- Mann-Whitney
MW_CASES = [
    ([1, 2, 3], [4, 5, 6], "exact"),
    ([0.8, 0.9, 1.0, 0.95], [0.1, 0.2, 0.15, 0.3, 0.05], "exact"),
    ([1.1, 3.4, 2.2, 5.0, 4.1, 0.7, 2.9], [3.3, 6.1, 4.4, 5.5, 7.2, 3.9, 6.6, 5.8], "exact"),
    ([19, 22, 16, 29, 24], [20, 11, 17, 12], "exact"),
    ([float(v) for v in range(1, 21)], [v + 0.5 for v in range(5, 30)], "exact"),
    ([1, 2, 2, 3, 3, 3], [3, 4, 4, 5], "asymptotic"),
    ([1, 1, 1], [1, 1, 1], "asymptotic"),
    ([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0], [4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5, 12.5], "asymptotic"),
    ([0.99, 0.99, 1.0, 0.98, 0.2, 0.99], [0.1, 0.15, 0.99, 0.12, 0.2, 0.11], "asymptotic"),
    ([5], [1, 2, 3, 4], "exact"),
    ([3.2, 1.5], [2.1], "exact"),
]


def mw_entries():
    out = []
    for (x, y, method) in MW_CASES:
        for alt in ("two-sided", "greater", "less"):
            r = ss.mannwhitneyu(x, y, alternative=alt, method=method, use_continuity=True)
            out.append({"x": [float(v) for v in x], "y": [float(v) for v in y], "alternative": alt,
                        "method": "exact" if method == "exact" else "normal", "u": float(r.statistic),
                        "p_value": float(r.pvalue)})
    return out


# ------------------------------------------------------------------------------------ p-adjust (R)
def p_adjust(p, method):
    n = len(p)
    if n == 0:
        return []
    if method == "bonferroni":
        return [min(1.0, n * v) for v in p]
    if method == "holm":
        o = sorted(range(n), key=lambda i: p[i])
        out, run = [0.0] * n, 0.0
        for i, idx in enumerate(o):
            run = max(run, (n - i) * p[idx])
            out[idx] = min(1.0, run)
        return out
    o = sorted(range(n), key=lambda i: -p[i])
    q = sum(1.0 / i for i in range(1, n + 1)) if method == "by" else 1.0
    out, run = [0.0] * n, 1.0
    for k, idx in enumerate(o):
        rank = n - k
        f = (n - rank + 1) if method == "hochberg" else q * n / rank
        run = min(run, f * p[idx])
        out[idx] = min(1.0, run)
    return out


PADJ_CASES = [
    [0.01, 0.04, 0.03],
    [0.0198, 0.00108, 0.2, 0.5, 0.03, 0.049, 0.001, 1.0],
    [0.5],
    [0.04, 0.04, 0.04, 0.04],
    [0.001, 0.008, 0.039, 0.041, 0.042, 0.06, 0.074, 0.205, 0.212, 0.216],
    [0.0, 1.0, 0.3, 0.0],
    [],
]


def padj_entries():
    return [{"p": p, "method": m, "adjusted": p_adjust(p, m)}
            for p in PADJ_CASES for m in ("bonferroni", "holm", "hochberg", "bh", "by")]


# --------------------------------------------------------------------------------------------- Power
def power_rational(p1, p2, n1, n2, alpha, alt):
    b1 = [ss.binom.pmf(k, n1, p1) for k in range(n1 + 1)]
    b2 = [ss.binom.pmf(k, n2, p2) for k in range(n2 + 1)]
    total = 0.0
    for x1 in range(n1 + 1):
        for x2 in range(n2 + 1):
            two, greater, less = fisher_exact_rational(x1, n1 - x1, x2, n2 - x2)
            p = {"two-sided": two, "greater": greater, "less": less}[alt]
            if p <= alpha * (1 + 1e-9):
                total += b1[x1] * b2[x2]
    return float(total)


POWER_CASES = [(0.7, 0.1, 10, 10, 0.05, "two-sided"), (0.7, 0.1, 10, 10, 0.05, "greater"),
               (1.0, 0.0, 6, 6, 0.01, "greater"), (0.5, 0.5, 8, 8, 0.05, "two-sided"),
               (0.9, 0.4, 12, 7, 0.1, "two-sided"), (0.2, 0.6, 9, 11, 0.05, "less")]


def power_entries():
    return [{"p1": p1, "p2": p2, "n1": n1, "n2": n2, "alpha": a, "alternative": alt,
             "power": power_rational(p1, p2, n1, n2, a, alt)} for (p1, p2, n1, n2, a, alt) in POWER_CASES]


def main():
    fixture = {
        "schema_version": 1,
        "provenance": {
            "generator": "tests/stats/make_fixture.py",
            "python": sys.version.split()[0],
            "scipy": scipy.__version__,
            "numpy": np.__version__,
            "notes": __doc__.strip(),
        },
        "fisher": fisher_entries(),
        "boschloo": boschloo_entries(),
        "binom_ci": ci_entries(),
        "binom_test": binom_test_entries(),
        "mann_whitney": mw_entries(),
        "p_adjust": padj_entries(),
        "power": power_entries(),
    }
    json.dump(fixture, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
