"""Distribution-dependent sampling (Kukliansky & Shamir, ICML 2015): GAERR, DDAERR and
Two-Phased DDAERR on the L2 ball; GAELR, DDAELR and Two-Phased DDAELR on the L1 ball.

Each learner reads k + 1 attributes of an example (``inner_draws = 1``): k draws from a
distribution q over the attributes (with replacement) estimate the data point,
x̃ = (1/k) Σ_r x[i_r]/q_{i_r}·e_{i_r}, and one draw j estimates the inner product,
φ̃ = (w_j/p_j)·x[j] − y; the gradient estimate is g̃ = φ̃·x̃ (ks15 Algorithm 1, and Algorithm 3
in its supplement). They run on the kernels of AERR and AELR (:func:`run_gaerr`,
:func:`run_gaelr`), which take q, so q uniform is exactly AERR/AELR (same draws, same output).

=========================  =============================  ==================================
learner                    q                              default η
=========================  =============================  ==================================
:class:`GAERR`             any (default uniform)          hk12 Thm 3.1, √(k/(2dm))
:class:`DDAERR`            ∝ √E[x_i²]  (eq. 2)            Thm 3.3
:class:`TwoPhaseDDAERR`    ∝ √(A_i + 13ε/6)  (Alg. 2)     Thm 3.4, max(η₁, η₂)
:class:`GAELR`             any (default uniform)          hk12 Thm 3.4 as printed
:class:`DDAELR`            ∝ E[x_i²]  (Lemma 4.3)         Thm 4.4
:class:`TwoPhaseDDAELR`    ∝ A_i + 13ε/6  (Alg. 4)        Thm 4.5
=========================  =============================  ==================================

Options beyond the theorems (off by default): ``inner_weights`` / ``improved_inner`` draw j
with p_j ∝ |w_j|·√E[x_j²] (the "improved inner product" after eq. (2)) instead of w_j²/‖w‖₂²
(Ridge) or |w_j|/‖w‖₁ (Lasso); ``inner_draws`` averages that many inner-product draws, which is
how the experiments of §5 split the budget between the two estimates; the two-phase learners'
``smoothing`` (ε; §5 uses 0) and ``warm_start`` (§5 runs AERR/AELR in phase 1 and starts phase 2
from its output).

Every learner here also takes a streaming design in place of X (``fit(design)``, y left out; see
:mod:`theorycheck.generators.streaming`): the same kernels read its attributes on demand, and the
two-phase learners split it into its first m₁ and last m − m₁ examples without building a row.

Interpretations. Phase 1 (Algorithm 2) draws every attribute it reads uniformly, k + inner_draws
per example, and adds 1 to counts[i] and x[i]² to sums[i] per draw; A_i = sums_i/counts_i, and
A_i = 0 for an attribute never drawn (possible when d > (k+1)m₁; the printed algorithm divides
by zero there). With ``warm_start`` the phase-1 learner's k uniform data-point draws feed the
same statistics (its inner-product draws are not uniform and are left out). If every A_i + 13ε/6
is 0 (only with ε = 0), q falls back to uniform. The output is the average of the phase-2
iterates, as Algorithm 2 returns GAERR's output on phase 2.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bounds import ks15 as bounds
from ..bounds.hk12 import thm31_eta, thm34_eta
from ..rng import next_index
from ..validation import ParameterError, check_int, check_matrix, check_real
from ._common import (
    BudgetedRegressor,
    _checked,
    check_lasso_budget,
    check_radius,
    check_reads,
    check_step,
    fit_data,
    reads_guard,
    split_rows,
    state_from,
)
from .aelr import lasso_buffers, run_gaelr, theta_for
from .aerr import ridge_start, run_gaerr, trajectory_buffers

__all__ = ["DDAELR", "DDAERR", "GAELR", "GAERR", "TwoPhaseDDAELR", "TwoPhaseDDAERR", "phase_one_moments"]


# ----------------------------------------------------------------------------------------
# phase 1: uniform estimates of the second moments


@njit(cache=True)
def _phase_one_kernel(X, draws, state, counts, sums, bad, rec_read, rec_draws):
    """For every row, ``draws`` uniform attributes (with replacement): counts[i] += 1 and
    sums[i] += x[i]² per draw. Returns the number of distinct attributes read, summed over rows.
    A ``rec_read`` with rows receives, in row t, the distinct attributes read from row t in the
    order read (the caller pads it with −1), and a ``rec_draws`` with rows every draw of row t in
    order, repeats included; an empty one is not touched."""
    m, d = X.shape
    record = rec_read.shape[0] > 0
    every = rec_draws.shape[0] > 0
    stamp = np.full(d, -1, dtype=np.int64)
    n_read = 0
    for t in range(m):
        n_row = 0
        for r in range(draws):
            i = next_index(state, d)
            if every:
                rec_draws[t, r] = i
            if stamp[i] != t:
                stamp[i] = t
                n_read += 1
                if record:
                    rec_read[t, n_row] = i
                n_row += 1
            counts[i] += 1.0
            value = _checked(X[t, i], t, i, bad)
            sums[i] += value * value
    return n_read


def phase_one_moments(X, draws, *, random_state) -> tuple[np.ndarray, np.ndarray, int]:
    """Phase 1 of ks15 Algorithms 2 and 4 on the rows of X: (counts, sums, attributes read).

    Parameters
    ----------
    X : array_like, shape (m₁, d)
    draws : int
        Uniform draws per row (k + 1 in the paper).
    random_state : int, SeedSequence, Generator or kernel state
    """
    X = np.ascontiguousarray(check_matrix("X", X, ndim=2), dtype=np.float64)
    draws = check_int("draws", draws, low=1)
    counts, sums = np.zeros(X.shape[1]), np.zeros(X.shape[1])
    empty = np.zeros((0, 0), dtype=np.int64)
    n_read = _phase_one_kernel(X, draws, state_from(random_state), counts, sums, reads_guard(), empty, empty)
    return counts, sums, int(n_read)


def _all_reads(phase_one: np.ndarray, path: dict) -> np.ndarray:
    """The distinct attributes read from every example of both phases, one row each, padded with −1:
    phase 1's rows as recorded, then phase 2's ``coordinates`` and ``j`` (−1: no draw)."""
    second = [list(dict.fromkeys(int(c) for c in (*row, j) if c >= 0))
              for row, j in zip(path["coordinates"], path["j"], strict=True)]
    width = max(phase_one.shape[1], max((len(r) for r in second), default=0))
    read = np.full((phase_one.shape[0] + len(second), width), -1, dtype=np.int64)
    read[: phase_one.shape[0], : phase_one.shape[1]] = phase_one
    for t, row in enumerate(second, start=phase_one.shape[0]):
        read[t, : len(row)] = row
    return read


def _estimate(counts: np.ndarray, sums: np.ndarray) -> np.ndarray:
    """A_i = sums_i/counts_i, and 0 where an attribute was never drawn."""
    return np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)


# ----------------------------------------------------------------------------------------
# validation


def _nonnegative(name: str, values, d: int) -> np.ndarray:
    v = np.array(check_matrix(name, values, ndim=1), dtype=np.float64)
    if v.shape[0] != d:
        raise ParameterError(f"{name} must have n_features = {d} entries, got {v.shape[0]}")
    if np.any(v < 0.0):
        raise ParameterError(f"{name} must be non-negative, got a minimum of {v.min():.6g}")
    return v


def _distribution(q, d: int) -> np.ndarray:
    """q as a probability vector: d non-negative entries summing to 1 (within 10⁻⁹)."""
    q = _nonnegative("q", q, d)
    total = float(q.sum())
    if abs(total - 1.0) > 1e-9:
        raise ParameterError(f"q must sum to 1, got {total:.12g}")
    return q / total


def _second_moments(values, d: int) -> np.ndarray:
    s = _nonnegative("second_moments", values, d)
    if not np.any(s > 0.0):
        raise ParameterError("second_moments must not all be 0")
    return s


def _proportional(weights: np.ndarray) -> np.ndarray:
    """weights/Σ weights, or uniform when they are all 0."""
    total = float(weights.sum())
    return weights / total if total > 0.0 else np.full(weights.shape[0], 1.0 / weights.shape[0])


def _flag(name: str, value) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ParameterError(f"{name} must be True or False, got {value!r}")
    return bool(value)


# ----------------------------------------------------------------------------------------
# the shared fit


class _Sampled(BudgetedRegressor):
    """One pass of GAERR (``_norm = "l2"``) or GAELR (``"l1"``) with a q chosen by a subclass."""

    _norm = "l2"

    def _setup(self, X, y):
        X, y = fit_data(self, X, y, stream=True)
        m, d = X.shape
        k = check_lasso_budget(self.k, d)
        B = check_radius(self.B)
        draws = check_int("inner_draws", self.inner_draws, low=1)
        return X, y, m, d, k, B, draws

    def _eta(self, default) -> float:
        return float(default()) if self.eta is None else check_step("eta", self.eta)

    def _run(self, X, y, k, eta, B, start, state, q, inner, draws, moments=None, record=True):
        """Run the kernel; with ``record`` (and record_trajectory) keep the path in trajectory_."""
        m, d = X.shape
        keep = record and _flag("record_trajectory", self.record_trajectory)
        if self._norm == "l2":
            rec = trajectory_buffers(keep, m, d, k)
            out = run_gaerr(X, y, k, eta, B, start, state, q=q, inner_weight=inner, inner_draws=draws,
                            moments=moments, record=rec if keep else None)
            if keep:
                self.trajectory_ = {**rec, "g_tilde": rec["g"], "eta": float(eta), "B": float(B)}
        else:
            rec = lasso_buffers(keep, m, d, k)
            out = run_gaelr(X, y, k, eta, B, start, state, q=q, inner_weight=inner, inner_draws=draws,
                            moments=moments, record=rec if keep else None)
            if keep:
                self.trajectory_ = {**rec, "eta": float(eta), "B": float(B)}
        return out

    def _start(self, w_init, d: int, B: float) -> np.ndarray:
        """w_1 (Ridge) or θ_1 (Lasso: zeros for w_1 = 0, else the θ of w_init)."""
        if self._norm == "l2":
            return ridge_start(w_init, d, B)
        if w_init is None:
            return np.zeros(d)
        w = np.array(check_matrix("w_init", w_init, ndim=1), dtype=np.float64)
        if w.shape[0] != d:
            raise ParameterError(f"w_init must have n_features = {d} entries, got {w.shape[0]}")
        return theta_for(w, B)

    def _finish(self, wbar, n_read, eta, q):
        self.coef_ = wbar
        self.intercept_ = 0.0
        self.eta_ = float(eta)
        self.q_ = q
        self.n_attributes_seen_ = int(n_read)
        return self


_PARAMS_DOC = """
    k : int, default 1
        Data-point draws per example (1 ≤ k ≤ d); the learner reads k + inner_draws attributes.
    B : float, default 1.0
        Radius of the norm ball.
    inner_draws : int, default 1
        Inner-product draws averaged in φ̃ (1 in the theorems).
    random_state : None, int, SeedSequence or Generator
    record_trajectory : bool, default False
        Keep the path in ``trajectory_`` (as AERR/AELR; m·d ≤ 10⁷)."""


class GAERR(_Sampled):
    """GAERR (ks15 Algorithm 1): online gradient descent on the L2 ball with k data-point draws
    from q and one inner-product draw.

    Parameters
    ----------
    q : array_like of shape (d,) or None
        Sampling distribution of the data-point draws (non-negative, sums to 1); None: uniform,
        which is AERR (hk12 Algorithm 1) draw for draw.
    inner_weights : array_like of shape (d,) or None
        None: j ∝ w_j² (line 8); else j ∝ |w_j|·c_j with c = inner_weights ≥ 0.
    eta : float or None
        Step size; None: hk12 Theorem 3.1's √(k/(2dm)).
    w_init : array_like of shape (d,) or None
        w_1 (non-zero, ‖w_1‖₂ ≤ B); None: 10⁻³·(B/√d)·𝟏.
    <common parameters>

    Attributes
    ----------
    coef_, intercept_, eta_, n_attributes_seen_, q_ (None for uniform), trajectory_
    """

    def __init__(self, k=1, B=1.0, eta=None, q=None, inner_weights=None, inner_draws=1, w_init=None,
                 random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.eta = eta
        self.q = q
        self.inner_weights = inner_weights
        self.inner_draws = inner_draws
        self.w_init = w_init
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def _default_eta(self, d, k, m, B):
        return thm31_eta(d, k, m) if self._norm == "l2" else thm34_eta(d, k, m, B, "theorem")

    def fit(self, X, y=None):
        """One pass over (X, y) in row order, or over a streaming design X (y None). Returns self."""
        X, y, m, d, k, B, draws = self._setup(X, y)
        q = None if self.q is None else _distribution(self.q, d)
        inner = None if self.inner_weights is None else _nonnegative("inner_weights", self.inner_weights, d)
        eta = self._eta(lambda: self._default_eta(d, k, m, B))
        start = self._start(self.w_init, d, B)
        wbar, n_read, _ = self._run(X, y, k, eta, B, start, state_from(self.random_state), q, inner, draws)
        return self._finish(wbar, n_read, eta, q)


class GAELR(GAERR):
    """GAELR (ks15 Algorithm 3, supplement): EG± on the L1 ball (clip at 1/η) with k data-point
    draws from q and one inner-product draw j ∝ |w_j| (or |w_j|·c_j). q None is AELR (hk12
    Algorithm 2) draw for draw; η None is hk12 Theorem 3.4's printed step size; ``w_init``
    (‖w_init‖₁ < B) warm-starts EG± at that iterate (None: w_1 = 0). Parameters as :class:`GAERR`.
    """

    _norm = "l1"


class DDAERR(_Sampled):
    """DDAERR (ks15 §3.1, Theorem 3.3): GAERR with q_i ∝ √E[x_i²] (eq. 2).

    Parameters
    ----------
    second_moments : array_like of shape (d,)
        E[x_i²] for each attribute (known in advance).
    improved_inner : bool, default False
        Draw j ∝ |w_j|·√E[x_j²] instead of w_j²/‖w‖².
    eta : float or None
        None: Theorem 3.3's 1/√(m(‖E x²‖_{1/2}/k + 1)).
    w_init : array_like of shape (d,) or None
        As :class:`GAERR`.
    <common parameters>
    """

    _weights = staticmethod(np.sqrt)

    def __init__(self, k=1, B=1.0, eta=None, second_moments=None, improved_inner=False, inner_draws=1,
                 w_init=None, random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.eta = eta
        self.second_moments = second_moments
        self.improved_inner = improved_inner
        self.inner_draws = inner_draws
        self.w_init = w_init
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def _default_eta(self, total, d, k, m, B):
        """Theorem 3.3's η from ``total`` = Σ_i √s_i (so ‖s‖_{1/2} = total²), as bounds.thm33_eta."""
        return bounds._thm33_eta(float(total ** 2), k, m)

    def fit(self, X, y=None):
        """One pass over (X, y) in row order, or over a streaming design X (y None). Returns self."""
        X, y, m, d, k, B, draws = self._setup(X, y)
        if self.second_moments is None:
            raise ParameterError("second_moments is required (E[x_i²] for each attribute)")
        s = _second_moments(self.second_moments, d)
        weights = self._weights(s)
        total = weights.sum()  # > 0 (s has a positive entry): q's normaliser, and the norm in η
        q = weights / float(total)
        inner = np.sqrt(s) if _flag("improved_inner", self.improved_inner) else None
        eta = self._eta(lambda: self._default_eta(total, d, k, m, B))
        start = self._start(self.w_init, d, B)
        wbar, n_read, _ = self._run(X, y, k, eta, B, start, state_from(self.random_state), q, inner, draws)
        return self._finish(wbar, n_read, eta, q)


class DDAELR(DDAERR):
    """DDAELR (ks15 §4.1, Theorem 4.4): GAELR with q_i ∝ E[x_i²] (Lemma 4.3); η None is
    Theorem 4.4's (1/(2B))√(log(2d)/(5m(‖E x²‖₁/k + 1))). Parameters as :class:`DDAERR`
    (``w_init``: ‖w_init‖₁ < B, None: w_1 = 0)."""

    _norm = "l1"
    _weights = staticmethod(lambda s: s)

    def _default_eta(self, total, d, k, m, B):
        """Theorem 4.4's η from ``total`` = ‖s‖₁, as bounds.thm44_eta."""
        return bounds._thm44_eta(float(total), d, k, m, B)


class TwoPhaseDDAERR(_Sampled):
    """Two-Phased DDAERR (ks15 §3.2, Algorithm 2 of the supplement, Theorem 3.4).

    Phase 1 (the first m₁ rows) estimates the second moments from uniform draws; phase 2 (the
    other m₂ = m − m₁ rows) runs GAERR with q_i ∝ √(A_i + 13ε/6). See the module docstring for
    the interpretations.

    Parameters
    ----------
    m1 : int or None
        Rows of phase 1 (1 ≤ m₁ < m); None: m // 10 (at least 1), as in §5.
    delta : float, default 0.1
        Confidence parameter δ of ε and of Theorem 3.4.
    smoothing : float or None
        ε; None: the theorem's d·log(2d/δ)/((k+1)m₁); §5 uses 0.
    warm_start : bool, default False
        Run AERR (AELR for the Lasso learner) in phase 1 and start phase 2 from its output (§5).
    eta1 : float or None
        Step size of that phase-1 learner; None: hk12's default for m₁ rows (Theorem 3.1's, or
        Theorem 3.4's as printed). Ignored without ``warm_start``.
    improved_inner : bool, default False
        Draw j ∝ |w_j|·√(A_j + 13ε/6) in phase 2 (the estimate of √E[x_j²], for both learners).
    eta : float or None
        Phase-2 step size; None: Theorem 3.4's max(η₁, η₂).
    <common parameters>

    Attributes
    ----------
    coef_ : the average of the phase-2 iterates
    moments_estimate_ (A), epsilon_ (ε), H_ (‖2A + (10/3)ε‖_{1/2}; for the Lasso learner ‖A‖₁),
    q_, m1_, m2_, eta_, n_attributes_seen_ (both phases), trajectory_ (phase 2's path, whose ``coordinates``
    are its data-point draws; its ``read``, the distinct attributes read from each example padded with −1,
    covers both phases, and ``phase1_draws`` holds every phase-1 draw of each example in order, repeats
    included (m₁ × (k + inner_draws)), unless warm_start)
    """

    def __init__(self, k=1, B=1.0, eta=None, m1=None, delta=0.1, smoothing=None, warm_start=False, eta1=None,
                 improved_inner=False, inner_draws=1, random_state=None, record_trajectory=False):
        self.k = k
        self.B = B
        self.eta = eta
        self.m1 = m1
        self.delta = delta
        self.smoothing = smoothing
        self.warm_start = warm_start
        self.eta1 = eta1
        self.improved_inner = improved_inner
        self.inner_draws = inner_draws
        self.random_state = random_state
        self.record_trajectory = record_trajectory

    def _moment_estimate(self, counts, sums):
        """A_i = sums_i/counts_i (0 where attribute i was never drawn)."""
        return _estimate(counts, sums)

    # Ridge: q ∝ √(A + 13ε/6), H = ‖2A + (10/3)ε‖_{1/2}; the Lasso subclass overrides these four
    def _epsilon(self, d, k, m1, delta):
        return bounds.phase1_epsilon(d, k, m1, delta)

    def _weights(self, A, eps):
        return np.sqrt(A + 13.0 * eps / 6.0)

    def _summary(self, A, eps):
        return bounds.thm34_H(A, eps)

    def _default_eta(self, A, summary, d, k, m1, m2, delta, B):
        return bounds.thm34_eta(d, k, m1, m2, delta, summary)

    def fit(self, X, y=None):
        """Phase 1 on the first m₁ rows, phase 2 on the rest (X may be a streaming design, y None).
        Returns self."""
        X, y, m, d, k, B, draws = self._setup(X, y)
        if m < 2:
            raise ParameterError(f"n_samples = {m}: the two-phase learners need at least 2 examples (one per phase)")
        m1 = max(1, m // 10) if self.m1 is None else check_int("m1", self.m1, low=1)
        if m1 >= m:
            raise ParameterError(f"m1 must be smaller than the number of examples m = {m}, got {m1}")
        delta = check_real("delta", self.delta, low=0.0, high=1.0, strict_low=True, strict_high=True)
        warm = _flag("warm_start", self.warm_start)
        state = state_from(self.random_state)
        counts, sums = np.zeros(d), np.zeros(d)
        X1, y1, X2, y2 = split_rows(X, y, m1)
        if warm:  # AERR/AELR on phase 1; its uniform data-point draws feed the moment estimate
            eta1 = (GAERR._default_eta(self, d, k, m1, B) if self.eta1 is None
                    else check_step("eta1", self.eta1))
            w1, read1, _ = self._run(X1, y1, k, eta1, B, self._start(None, d, B), state, None, None, draws,
                                     moments=(counts, sums), record=False)
            phase_one = None  # the warm start's reads are not recorded: trajectory_ has no "read"
        else:
            bad = reads_guard()
            keep = _flag("record_trajectory", self.record_trajectory)
            phase_one = np.full((m1 if keep else 0, k + draws if keep else 0), -1, dtype=np.int64)
            every = np.full_like(phase_one, -1)
            read1 = _phase_one_kernel(X1, k + draws, state, counts, sums, bad, phase_one, every)
            check_reads(X1, bad)
        A = self._moment_estimate(counts, sums)
        eps = self._epsilon(d, k, m1, delta) if self.smoothing is None else check_real(
            "smoothing", self.smoothing, low=0.0)
        weights = self._weights(A, eps)
        q = _proportional(weights)
        summary = self._summary(A, eps)
        eta = self._eta(lambda: self._default_eta(A, summary, d, k, m1, m - m1, delta, B))
        start = self._start(None, d, B)
        if warm and np.any(w1 != 0.0):
            size = np.abs(w1).sum() if self._norm == "l1" else np.linalg.norm(w1)
            if size < B:
                start = self._start(w1, d, B)
        inner = np.sqrt(A + 13.0 * eps / 6.0) if _flag("improved_inner", self.improved_inner) else None
        wbar, read2, _ = self._run(X2, y2, k, eta, B, start, state, q, inner, draws)
        if phase_one is not None and phase_one.shape[0]:
            self.trajectory_["read"] = _all_reads(phase_one, self.trajectory_)
            self.trajectory_["phase1_draws"] = every
        self.moments_estimate_ = A
        self.epsilon_ = float(eps)
        self.H_ = float(summary)
        self.m1_, self.m2_ = int(m1), int(m - m1)
        return self._finish(wbar, int(read1) + int(read2), eta, q)


class TwoPhaseDDAELR(TwoPhaseDDAERR):
    """Two-Phased DDAELR (ks15 §4.2, Algorithm 4 of the supplement, Theorem 4.5): phase 1 as
    :class:`TwoPhaseDDAERR` with ε = min(d·log(2d/δ)/((k+1)m₁), 1); phase 2 runs GAELR with
    q_i ∝ A_i + 13ε/6 and, by default, Theorem 4.5's η. ``H_`` is ‖A‖₁. Parameters as
    :class:`TwoPhaseDDAERR` (``warm_start`` runs AELR in phase 1)."""

    _norm = "l1"

    def _epsilon(self, d, k, m1, delta):
        return bounds.phase1_epsilon(d, k, m1, delta, lasso=True)

    def _weights(self, A, eps):
        return A + 13.0 * eps / 6.0

    def _summary(self, A, eps):
        return float(np.sum(A))

    def _default_eta(self, A, summary, d, k, m1, m2, delta, B):
        return bounds.thm45_eta(A, d, k, m1, m2, delta, B)


for _cls in (GAERR, DDAERR, TwoPhaseDDAERR):
    _cls.__doc__ = _cls.__doc__.replace("    <common parameters>", _PARAMS_DOC.strip("\n"))
