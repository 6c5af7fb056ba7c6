"""Planted defects for the power of `theorycheck search` (issue 52): subjects written as users write them, in
NumPy, plain Python or numba, independently of theorycheck's kernels and random streams, each right on the claim's
default quick instance (so `theorycheck verify` PASSes it; the plain numba AERR is the exception: with no
recorded path, verify caps it at INCONCLUSIVE) and wrong in a region of the claim's space, as code
with a fast path or a size-dependent branch is. ``CAMPAIGN`` lists them with the claim each is searched on;
benchmarks/search_power.py runs the verification and the search of each and prints the table docs/search.md
shows. Five kinds: exact (cbss11.lemma7, sk13.makepsd, sk13.varest), frequency (cbss11.lemma9, and
tests/search_planted.py's two on cbss11.lemma8, a learner and a statement), lower bound (cbss11.thm2,
cbss11.thm3), pathwise (hk12.lemma3.2) and bound (hk12.thm3.1)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numba
import numpy as np

from tests.defects_users import UsersOnline


# ---------------------------------------------------------------------- exact claims
def subset_average_chunked(values):
    """(1/k)·Σ values, summed in chunks of 7 (a vectorised fast path for long subsets) whose loop stops before the
    last, partial chunk: right for k ≤ 7, the default's n_max, and short by the remainder above."""
    values = list(values)
    if len(values) <= 7:
        return sum(values, Fraction(0)) / len(values)
    whole = len(values) - len(values) % 7
    total = Fraction(0)
    for start in range(0, whole, 7):
        total += sum(values[start:start + 7], Fraction(0))
    return total / len(values)


def psd_shift_above_4(A):
    """The PSD matrix nearest to A: eigen-clipping of the symmetric part up to 4 × 4 (the default's n_max), and
    for larger matrices the cheaper diagonal shift A + |λ_min|·I, which is PSD but not the nearest."""
    A = np.asarray(A, dtype=np.float64)
    S = 0.5 * (A + A.T)
    vals, vecs = np.linalg.eigh(S)
    if S.shape[0] <= 4:
        return (vecs * np.maximum(vals, 0.0)) @ vecs.T
    return S + max(0.0, -float(vals[0])) * np.eye(S.shape[0])


def var_est_streaming_above_4(values, axis=-1):
    """VarEst, eq. (2): 1/(n − 1) for up to 4 values (the default's n_max); above, a streaming (Welford) update
    whose last line divides the sum of squares by n."""
    if isinstance(values, list | tuple):
        n = len(values)
        mean, squares = Fraction(0), Fraction(0)
        for i, value in enumerate(values, start=1):
            delta = Fraction(value) - mean
            mean += delta / i
            squares += delta * (Fraction(value) - mean)
        return squares / (n - 1 if n <= 4 else n)
    arr = np.asarray(values, dtype=np.float64)
    n = arr.shape[axis]
    return arr.var(axis=axis) * (n / (n - 1) if n <= 4 else 1.0)


# ---------------------------------------------------------------------- frequency claims
def estimates_floor_scale(X, y, k, random_state=None):
    """(Ā, v̄, ȳ, attributes read), cbss11's averaged estimates, with v̄'s scale d/k taken as the integer d // k
    (a habit from array sizes): exact when k divides d (the default d = 16, k = 8), too small otherwise."""
    rng = np.random.default_rng(random_state)
    m, d = X.shape
    drawn = np.argsort(rng.random((m, d)), axis=1)[:, :k]
    Z = np.zeros((m, d))
    np.put_along_axis(Z, drawn, X[np.arange(m)[:, None], drawn], axis=1)
    A = (Z.T @ Z) * (d * (d - 1) / (k * (k - 1)))
    np.fill_diagonal(A, np.sum(Z * Z, axis=0) * (d / k))
    v = 2.0 * (d // k) * (y @ Z) / m
    return A / m, v, float(np.mean(y)), int(m * k)


# ---------------------------------------------------------------------- lower bounds
class PeekerAboveD40:
    """The partial sum over the first k attributes, and for d > 40 (a "wide data" branch) attribute k + 1 as well:
    k-active on the default instances (d = 20 and 30), over budget on wide ones."""

    name = "peeker above d = 40"

    def predict(self, oracle, k, w_star, random_state):
        reads = min(k + 1 if oracle.d > 40 else k, oracle.d)
        pred = np.zeros(oracle.n)
        for j in range(reads):
            pred += w_star[j] * oracle.reveal_column(j)
        return pred


PEEKER_ABOVE_D40 = (PeekerAboveD40(),)


# ---------------------------------------------------------------------- online learners
class ProjectionSkippedAboveB2AERR(UsersOnline):
    """hk12's AERR in NumPy (tests.defects_users.UsersOnline) with a fast path: for B > 2 the ball is taken to be
    large enough and the projection (Algorithm 1, line 12) is skipped. The default has B = 1."""

    def fit(self, X, y):
        if float(self.B) <= 2.0:
            return super().fit(X, y)
        B, self.B = self.B, math.inf
        try:
            super().fit(X, y)
        finally:
            self.B = B
        return self


@numba.njit(cache=True)
def _aerr_weight_table(X, y, k, B, eta, seed):
    """AERR (hk12, Algorithm 1) in numba, written from the paper: k attributes drawn uniformly with replacement,
    each weighted by a table of d/k entries sized for at most 16 attributes (the attributes past the 16th get the
    16th's weight, 16/k), one attribute j ∝ w_j², a projected step; returns (w̄, attributes read)."""
    np.random.seed(seed)  # noqa: NPY002 - numba's own generator inside njit
    m, d = X.shape
    width = min(d, 16)
    table = np.full(width, width / k)
    w = np.zeros(d)
    total = np.zeros(d)
    read = 0
    for t in range(m):
        x = X[t]
        sq = 0.0
        for i in range(d):
            sq += w[i] * w[i]
        if sq > 0.0:
            u = np.random.random() * sq  # noqa: NPY002
            acc = 0.0
            j = d - 1
            for i in range(d):
                acc += w[i] * w[i]
                if u < acc:
                    j = i
                    break
            phi = sq * x[j] / w[j] - y[t]
            read += 1
        else:
            phi = -y[t]
        g = np.zeros(d)
        for _ in range(k):
            r = np.random.randint(0, d)  # noqa: NPY002
            g[r] += phi * x[r] * table[min(r, width - 1)]
            read += 1
        total += w
        w = w - eta * g
        norm = math.sqrt(np.sum(w * w))
        if norm > B:
            w *= B / norm
    return total / m, read


class WeightTableAERR:
    """A user's AERR in numba whose importance weights come from a table of 16 entries: d/k for d ≤ 16 (the
    default d = 4), 16/k for every attribute above (too small by 16/d). Plain: it does not record its path."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, **ignored):
        self.k, self.B, self.eta, self.random_state = k, B, eta, random_state

    def get_params(self, deep=True):
        return {"k": self.k, "B": self.B, "eta": self.eta, "random_state": self.random_state}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, X, y):
        X, y = np.ascontiguousarray(X, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)
        m, d = X.shape
        k = int(self.k)
        eta = float(self.eta) if self.eta is not None else math.sqrt(k / (2.0 * d * m))
        seed = (0 if self.random_state is None else int(self.random_state)) % (2**31 - 1)
        self.coef_, self.n_attributes_seen_ = _aerr_weight_table(X, y, k, float(self.B), eta, seed)
        self.eta_ = eta
        return self

    def predict(self, X):
        return np.asarray(X, dtype=np.float64) @ self.coef_


# ---------------------------------------------------------------------- the campaign
@dataclass(frozen=True)
class Planted:
    """One planted defect: the claim it is searched on, its subjects (``module:attr``), the ``--set`` values both
    the verification and the search use (fewer repetitions where the subject is pure Python), and where it is
    wrong."""

    claim: str
    subjects: dict[str, str]
    wrong_where: str
    fails_at: dict[str, str]  # a point of the region where it is wrong (``--set`` values)
    overrides: dict[str, str] = field(default_factory=dict)
    claims: str | None = None  # the module that declares the claim, when it is not a built-in one


_HERE = "tests.search_campaign:"
CAMPAIGN = (
    Planted("cbss11.lemma7", {"subset_average": _HERE + "subset_average_chunked"}, "subsets of more than 7",
            {"n_max": "8"}),
    Planted("sk13.makepsd", {"make_psd": _HERE + "psd_shift_above_4"}, "matrices above 4 × 4", {"n_max": "5"}),
    Planted("sk13.varest", {"var_est": _HERE + "var_est_streaming_above_4"}, "more than 4 values", {"n_max": "5"}),
    Planted("cbss11.lemma8", {"estimates": "tests.search_planted:estimates_weighted_twice_above_16"}, "d > 16",
            {"d": "24"}),
    Planted("planted.lemma8-d8", {}, "d > 8 (the statement: (8/k)² for (d/k)²)", {"d": "32"},
            claims="tests.search_planted"),
    Planted("cbss11.lemma9", {"estimates": _HERE + "estimates_floor_scale"}, "k not dividing d", {"d": "20"}),
    Planted("cbss11.thm2", {"predictors": _HERE + "PEEKER_ABOVE_D40"}, "d > 40", {"d": "60"}),
    Planted("cbss11.thm3", {"predictors": _HERE + "PEEKER_ABOVE_D40"}, "d > 40", {"d": "60"}),
    Planted("hk12.lemma3.2", {"learner": _HERE + "ProjectionSkippedAboveB2AERR"}, "B > 2", {"B": "4"},
            {"repetitions": "5"}),
    Planted("hk12.thm3.1", {"learner": _HERE + "WeightTableAERR"}, "d > 16", {"d": "48"}, {"repetitions": "100"}),
)
