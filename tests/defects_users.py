"""Defects written the way a user writes a learner: plain NumPy, or numba of their own, with their own
random generator (``numpy.random.default_rng`` seeded from the integer they are given, mixed with a
tag of their own), sharing no kernel and no stream with theorycheck.algorithms. A claim that catches
them catches the defect, not a coincidence of streams (a defect that reuses the library's kernel with
the library's seed can be caught by a difference that is exactly 0)."""

from __future__ import annotations

import math

import numpy as np

from theorycheck.algorithms import AER


class NumpyUniformDDAERR:
    """A DDAERR without its idea: it takes the second moments and ignores them, drawing the k data-point
    attributes uniformly (weight d/k each) and the inner-product attribute j ∝ w_j², at the η it is given;
    projected steps on the L2 ball, w̄ the average of the iterates w_1..w_m (w_1 = 0)."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, second_moments=None, **ignored):
        self.k, self.B, self.eta, self.random_state = k, B, eta, random_state
        self.second_moments = second_moments

    def get_params(self, deep=True):
        return {"k": self.k, "B": self.B, "eta": self.eta, "random_state": self.random_state,
                "second_moments": self.second_moments}

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        eta = float(self.eta) if self.eta is not None else 1.0 / math.sqrt(m * (d / k + 1))
        rng = np.random.default_rng([0 if self.random_state is None else int(self.random_state) % 2**63, 2024])
        w, total, read = np.zeros(d), np.zeros(d), 0
        for t in range(m):
            x = X[t]
            total += w
            draws = rng.integers(0, d, size=k)
            sq = float(w @ w)
            if sq > 0.0:
                j = int(np.searchsorted(np.cumsum(w * w), rng.random() * sq, side="right"))
                j = min(j, d - 1)
                phi = sq * x[j] / w[j] - y[t]
                read += len(set(draws.tolist()) | {j})
            else:
                phi = -y[t]
                read += len(set(draws.tolist()))
            g = np.zeros(d)
            np.add.at(g, draws, (d / k) * x[draws])
            v = w - eta * phi * g
            norm = float(np.linalg.norm(v))
            w = v if norm <= B else v * (B / norm)
        self.coef_ = total / m
        self.n_attributes_seen_ = read
        self.eta_ = eta
        return self


class AERInAELRsPlace(AER):
    """AER (cbss11 Figure 2) plugged in where AELR (hk12) is asked for: it takes AELR's k (reading k + 1
    attributes, so AER's even budget is k + 1) and AELR's η, read as Pegasos' step scale λ = 0.01/η (so
    AELR's η grid, 10⁻⁴ to 0.1, spans λ from 100 to 0.1, AER's own grid). hk12's idea removed: no
    exponentiated-gradient step, no L1-geometry update."""

    def __init__(self, k=3, B=1.0, eta=None, random_state=None, record_trajectory=False):
        self.eta = eta
        super().__init__(k=k, B=B, lam=None, random_state=random_state, record_trajectory=record_trajectory)

    def get_params(self, deep=True):
        return {"k": self.k, "B": self.B, "eta": self.eta, "random_state": self.random_state,
                "record_trajectory": self.record_trajectory}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, X, y):
        k, eta = self.k, self.eta
        self.k, self.lam = k + 1 if (k + 1) % 2 == 0 else k, None if eta is None else 0.01 / float(eta)
        try:
            return super().fit(X, y)
        finally:
            self.k = k


def _project_l1(v, radius):
    """Euclidean projection onto {‖w‖₁ ≤ radius} (sort-based), in place of v's copy."""
    a = np.abs(v)
    if a.sum() <= radius:
        return v.copy()
    u = np.sort(a)[::-1]
    cumulative = np.cumsum(u)
    rho = 0
    for i in range(u.size):
        if u[i] * (i + 1) > cumulative[i] - radius:
            rho = i
    theta = (cumulative[rho] - radius) / (rho + 1.0)
    return np.sign(v) * np.maximum(a - theta, 0.0)


def _uniform_draws_aer(X, y, k, lam, B, seed):
    """cbss11 Figure 2 with the prediction's k/2 draws uniform (weight d each) instead of ∝ |w_i|."""
    np.random.seed(seed)  # noqa: NPY002 - numba's own generator inside njit
    m, d = X.shape
    half = k // 2
    w, total = np.zeros(d), np.zeros(d)
    read = 0
    for t in range(1, m + 1):
        x = X[t - 1]
        subset = np.random.permutation(d)[:half]  # noqa: NPY002
        v = np.zeros(d)
        seen = set()
        for i in subset:
            v[i] = (2.0 / k) * d * x[i]
            seen.add(i)
        y_hat = 0.0
        if np.abs(w).sum() > 0.0:
            for _ in range(half):
                j = np.random.randint(0, d)  # noqa: NPY002
                y_hat += d * w[j] * x[j] / half
                seen.add(j)
        read += len(seen)
        w = _project_l1((1.0 - 1.0 / t) * w - 2.0 * (y_hat - y[t - 1]) * v / (lam * t), B)
        total += w
    return total / m, read


try:  # compiled as a user would compile it: numba's own njit and its own generator, not the library's kernels
    import numba

    _project_l1 = numba.njit(cache=False)(_project_l1)
    _uniform_draws_aer = numba.njit(cache=False)(_uniform_draws_aer)
except ImportError:  # pragma: no cover - numba is a dependency of theorycheck
    pass


class UniformDrawsAER:
    """AER (cbss11 Figure 2) whose prediction ŷ draws its k/2 attributes uniformly, each weighted d (still
    unbiased), instead of ∝ |w_i|: cbss11's idea (sampling the inner product by the weights) removed. Compiled
    with numba, its own random stream; the data-point half and the Pegasos step are the paper's."""

    def __init__(self, k=2, B=1.0, lam=None, random_state=None):
        self.k, self.B, self.lam, self.random_state = k, B, lam, random_state

    def get_params(self, deep=True):
        return {"k": self.k, "B": self.B, "lam": self.lam, "random_state": self.random_state}

    def set_params(self, **params):
        for key, value in params.items():
            setattr(self, key, value)
        return self

    def fit(self, X, y):
        X, y = np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(y, dtype=float)
        m, d = X.shape
        k = int(self.k)
        lam = 12.0 * d * math.sqrt(math.log(max(m, 2)) / (m * k)) if self.lam is None else float(self.lam)
        seed = (0 if self.random_state is None else int(self.random_state)) % (2**31 - 1)
        self.coef_, self.n_attributes_seen_ = _uniform_draws_aer(X, y, k, lam, float(self.B), seed)
        self.intercept_ = 0.0
        self.lam_ = lam
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float) @ self.coef_
