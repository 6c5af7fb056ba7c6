"""Right-hand sides, step sizes and sampling distributions of Kukliansky & Shamir (ICML 2015).

Notation of the paper: the learner reads k + 1 attributes of each example (k draws from q for
the data-point estimate, one for the inner product), m examples (m₁ in phase 1 and m₂ in phase
2 of the two-phased algorithms), d attributes, B the radius of the norm ball and the bound on
|y|; s = E[x²] is the vector of second moments E[x_i²]; ‖a‖_{1/2} = (Σ√|a_i|)² and
‖a‖₁ = Σ|a_i| (Section 2.1); ``log`` is natural. All functions validate their inputs (a
:class:`~theorycheck.validation.ParameterError` with one sentence) and return floats.

* eq. (1): E‖x̃_r‖² = Σ s_i/q_i (:func:`datapoint_second_moment`); eq. (3): E[x̃_r[i]²] = s_i/q_i
  (:func:`datapoint_coordinate_moments`); eq. (2) and Lemma 4.3: the minimisers q ∝ √s and
  q ∝ s (:func:`ridge_q`, :func:`lasso_q`), whose values are ‖s‖_{1/2} and ‖s‖₁.
* Theorem 3.1, Lemma 3.2, Theorem 3.3, Theorem 3.4 (Ridge); Theorem 4.1, Lemma 4.2, Theorem 4.4,
  Theorem 4.5 (Lasso). The step sizes of the two-phased algorithms and of Theorem 3.4's η are
  those of the supplement, as ``../shared/papers/NOTES.md`` gives them.
* §5: the improvement ratios ρ_Ridge and ρ_Lasso (:func:`rho_ridge`, :func:`rho_lasso`) and the
  second moments of the decaying family of §5.1 (:func:`decaying_second_moments`; the family itself,
  with every moment, is :mod:`theorycheck.generators.decaying`).

Exact variants for the proof claims (:mod:`proofs.ks15`), on rationals (:class:`fractions.Fraction`):
:func:`ridge_q_exact`, :func:`lasso_q_exact`, :func:`lemma32_bound_exact`, and
:func:`power_sum_enclosure`, a rigorous rational enclosure of Σ_{i ≤ d} i^β for dyadic β (the
sums ρ is made of on the decaying family).
"""

from __future__ import annotations

import math
from fractions import Fraction
from numbers import Rational

import numpy as np

from ..validation import ParameterError, check_delta, check_int, check_matrix, check_real

__all__ = [
    "datapoint_coordinate_moments",
    "datapoint_second_moment",
    "decaying_second_moments",
    "half_norm",
    "improved_inner_p_exact",
    "lasso_q",
    "lasso_q_exact",
    "lemma32_bound",
    "lemma32_bound_exact",
    "lemma42_bound",
    "one_norm",
    "phase1_epsilon",
    "power_sum_enclosure",
    "rational_sqrt",
    "rho_lasso",
    "rho_ridge",
    "ridge_q",
    "ridge_q_exact",
    "thm31_bound",
    "thm33_bound",
    "thm33_eta",
    "thm34_H",
    "thm34_bound_always",
    "thm34_bound_whp",
    "thm34_eta",
    "thm34_sandwich",
    "thm41_bound",
    "thm44_bound",
    "thm44_eta",
    "thm45_bound_always",
    "thm45_bound_whp",
    "thm45_eta",
]

#: how far Σq may be from 1 in floating point
Q_SUM_TOLERANCE = 1e-9


# ---------------------------------------------------------------------- validation
def _moments(name: str, s, *, nonzero: bool = True) -> np.ndarray:
    if isinstance(s, (int, float, np.generic)):
        raise ParameterError(f"{name} must be a 1-D array of second moments, got the scalar {s!r}")
    s = check_matrix(name, s, ndim=1)
    if s.shape[0] == 0:
        raise ParameterError(f"{name} must have at least one entry")
    if (s < 0).any():
        raise ParameterError(f"{name} must be ≥ 0 (second moments), got a negative entry {s[s < 0][0]:g}")
    if nonzero and not (s > 0).any():
        raise ParameterError(f"{name} must have a positive entry (all second moments are 0)")
    return s


def _distribution(q, d: int) -> np.ndarray:
    q = _moments("q", q)
    if q.shape[0] != d:
        raise ParameterError(f"q must have one entry per attribute: {q.shape[0]} entries for d = {d}")
    if abs(q.sum() - 1.0) > Q_SUM_TOLERANCE:
        raise ParameterError(f"q must sum to 1 (a probability vector), got Σq = {q.sum():.12g}")
    return q


def _positive(name, value) -> float:
    return check_real(name, value, low=0.0, strict_low=True)


def _k(k, d: int | None = None) -> int:
    k = check_int("k", k, low=1)
    if d is not None and k > d:
        raise ParameterError(f"k must not exceed d (the number of attributes): k={k}, d={d}")
    return k


def _phases(d, k, m1, m2, delta):
    d = check_int("d", d, low=1)
    return d, _k(k, d), check_int("m1", m1, low=1), check_int("m2", m2, low=1), check_delta(delta)


def _enough_examples(name: str, m: int, d: int) -> None:
    if m < math.log(2 * d):
        raise ParameterError(f"the theorem needs {name} ≥ log(2d) = {math.log(2 * d):.4g}, got {name} = {m}")


# ---------------------------------------------------------------------- norms, ratios, q
def half_norm(s) -> float:
    """‖s‖_{1/2} = (Σ_i √s_i)² (Section 2.1; not a norm). For s = E[x²] under ‖x‖₂ ≤ 1 it is at most d."""
    return _half_norm(_moments("s", s, nonzero=False))


def one_norm(s) -> float:
    """‖s‖₁ = Σ_i s_i for s ≥ 0 (Section 2.1)."""
    return _one_norm(_moments("s", s, nonzero=False))


def _half_norm(s: np.ndarray) -> float:  # s already checked by _moments
    return float(np.sqrt(s).sum() ** 2)


def _one_norm(s: np.ndarray) -> float:  # s already checked by _moments
    return float(s.sum())


def rho_ridge(s, expected_sq_norm=None) -> float:
    """ρ_Ridge = ‖s‖_{1/2}/(d·E‖x‖²) (§5, the improvement ratio of the Ridge bounds).

    ``expected_sq_norm`` is E‖x‖²; it equals Σ_i E[x_i²] = ‖s‖₁ for every distribution with these
    second moments, which is the default. By Cauchy–Schwarz 1/d ≤ ρ_Ridge ≤ 1 (at the default),
    with ρ = 1 exactly when all second moments are equal.
    """
    s = _moments("s", s)
    norm = float(s.sum()) if expected_sq_norm is None else _positive("expected_sq_norm", expected_sq_norm)
    return _half_norm(s) / (s.shape[0] * norm)


def rho_lasso(s) -> float:
    """ρ_Lasso = ‖s‖₁/(d·‖s‖∞) (§5); 1/d ≤ ρ_Lasso ≤ 1, with 1 exactly when all moments are equal."""
    s = _moments("s", s)
    return float(s.sum() / (s.shape[0] * s.max()))


def ridge_q(s) -> np.ndarray:
    """Eq. (2): q_i = √s_i/Σ_j√s_j, the minimiser of Σ s_i/q_i over the simplex (value ‖s‖_{1/2})."""
    root = np.sqrt(_moments("s", s))
    return root / root.sum()


def lasso_q(s) -> np.ndarray:
    """Lemma 4.3: q_i = s_i/Σ_j s_j, the minimiser of max_i s_i/q_i over the simplex (value ‖s‖₁)."""
    s = _moments("s", s)
    return s / s.sum()


def datapoint_second_moment(s, q) -> float:
    """Eq. (1): E‖x̃_r‖₂² = Σ_i s_i/q_i for one draw x̃_r = x[i]/q_i·e_i, i ~ q.

    A term with s_i = 0 is 0 whatever q_i (x_i = 0 almost surely, so nothing is added); a term
    with s_i > 0 and q_i = 0 makes the value infinite (the estimate is then biased).
    """
    return float(datapoint_coordinate_moments(s, q).sum())


def datapoint_coordinate_moments(s, q) -> np.ndarray:
    """Eq. (3): E[x̃_r[i]²] = s_i/q_i coordinate-wise (0 where s_i = 0, ∞ where only q_i = 0)."""
    s = _moments("s", s, nonzero=False)
    q = _distribution(q, s.shape[0])
    out = np.zeros_like(s)
    live = s > 0
    with np.errstate(divide="ignore"):
        out[live] = np.where(q[live] > 0, s[live] / np.where(q[live] > 0, q[live], 1.0), np.inf)
    return out


def decaying_second_moments(d, alpha, setting: str) -> np.ndarray:
    """s = E[x²] of the §5.1 family: u_i = i^α (α ≤ 0) projected onto the unit L2 ball ("ridge")
    or the unit L∞ ball ("lasso"); attributes are independent Bernoulli(u_i), so s_i = u_i (the same
    vector as ``theorycheck.generators.decaying.decaying_design(...).second_moments``)."""
    d = check_int("d", d, low=1)
    alpha = check_real("alpha", alpha, high=0.0)
    u = np.arange(1, d + 1, dtype=np.float64) ** alpha
    if setting == "ridge":
        return u / max(1.0, float(np.sqrt((u * u).sum())))
    if setting == "lasso":
        return np.minimum(u, 1.0)
    raise ParameterError(f"setting must be 'ridge' or 'lasso', got {setting!r}")


# ---------------------------------------------------------------------- Ridge (Section 3)
def thm31_bound(B, eta, m, G2) -> float:
    """Theorem 3.1 (GAERR): E[L(w̄)] − L(w*) ≤ 2B²/(ηm) + ηG²/2 when max_t E‖g̃_t‖² ≤ G²."""
    B, eta = _positive("B", B), _positive("eta", eta)
    m = check_int("m", m, low=1)
    return 2.0 * B * B / (eta * m) + eta * check_real("G2", G2, low=0.0) / 2.0


def lemma32_bound(B, k, datapoint_moment) -> float:
    """Lemma 3.2: E‖g̃_t‖₂² ≤ 4B²(E‖x̃_{t,r}‖₂²/k + 1), with E‖x̃_{t,r}‖₂² from eq. (1)."""
    return 4.0 * _positive("B", B) ** 2 * (check_real("datapoint_moment", datapoint_moment, low=0.0) / _k(k) + 1.0)


def lemma42_bound(B, k, datapoint_moment_inf) -> float:
    """Lemma 4.2: ‖E g̃_t²‖∞ ≤ 4B²(‖E x̃²_{t,r}‖∞/k + 1), with E[x̃²_{t,r}[i]] from eq. (3)."""
    return lemma32_bound(B, k, check_real("datapoint_moment_inf", datapoint_moment_inf, low=0.0))


def thm33_eta(s, k, m) -> float:
    """Theorem 3.3's step size η = 1/√(m(‖s‖_{1/2}/k + 1)) (DDAERR)."""
    s = _moments("s", s)
    return _thm33_eta(_half_norm(s), _k(k, s.shape[0]), check_int("m", m, low=1))


def _thm33_eta(half_norm: float, k: int, m: int) -> float:  # arguments already checked
    return 1.0 / math.sqrt(m * (half_norm / k + 1.0))


def thm33_bound(s, k, m, B) -> float:
    """Theorem 3.3 (DDAERR, q ∝ √s): E[L(w̄)] − L(w*) ≤ (4B²/√m)·√(‖s‖_{1/2}/k + 1)."""
    s = _moments("s", s)
    k, m = _k(k, s.shape[0]), check_int("m", m, low=1)
    return 4.0 * _positive("B", B) ** 2 / math.sqrt(m) * math.sqrt(_half_norm(s) / k + 1.0)


def phase1_epsilon(d, k, m1, delta, *, lasso: bool = False) -> float:
    """The smoothing term of phase 1: ε = d·log(2d/δ)/((k+1)m₁) (Algorithm 2, Theorem 3.4);
    min(ε, 1) for the Lasso (Algorithm 4, Theorem 4.5)."""
    d = check_int("d", d, low=1)
    k, m1, delta = _k(k, d), check_int("m1", m1, low=1), check_delta(delta)
    eps = d * math.log(2.0 * d / delta) / ((k + 1) * m1)
    return min(eps, 1.0) if lasso else eps


def thm34_H(A, eps) -> float:
    """H = ‖2A + (10/3)ε‖_{1/2} (Theorem 3.4's step size), from phase 1's moment estimates A."""
    A = _moments("A", A, nonzero=False)
    return half_norm(2.0 * A + (10.0 / 3.0) * check_real("eps", eps, low=0.0))


def thm34_eta(d, k, m1, m2, delta, H) -> float:
    """Theorem 3.4's step size η = max(η₁, η₂): η₁ = √(k/(6d·m₂)) and
    η₂ = √(k/(m₂(2H + 2√(5d³H·log(2d/δ)/(3(k+1)m₁)) + k))) (NOTES.md; 6d, not 12d, in η₁)."""
    d, k, m1, m2, delta = _phases(d, k, m1, m2, delta)
    H = check_real("H", H, low=0.0)
    eta1 = math.sqrt(k / (6.0 * d * m2))
    root = math.sqrt(5.0 * d ** 3 * H * math.log(2.0 * d / delta) / (3.0 * (k + 1) * m1))
    eta2 = math.sqrt(k / (m2 * (2.0 * H + 2.0 * root + k)))
    return max(eta1, eta2)


def thm34_bound_always(d, k, m2, B) -> float:
    """Theorem 3.4, with probability 1 over phase 1: E[L(w̄)] − L(w*) ≤ (4B²/√m₂)·√(6d/k)."""
    d = check_int("d", d, low=1)
    k, m2 = _k(k, d), check_int("m2", m2, low=1)
    return 4.0 * _positive("B", B) ** 2 / math.sqrt(m2) * math.sqrt(6.0 * d / k)


def thm34_bound_whp(s, d, k, m1, m2, delta, B) -> float:
    """Theorem 3.4, with probability ≥ 1 − δ over phase 1:
    E[L(w̄)] − L(w*) ≤ (16B²/√m₂)·√((√‖s‖_{1/2} + d√(2d·log(2d/δ)/((k+1)m₁)))²/k + 1)."""
    d, k, m1, m2, delta = _phases(d, k, m1, m2, delta)
    s = _moments("s", s)
    if s.shape[0] != d:
        raise ParameterError(f"s must have d = {d} entries, got {s.shape[0]}")
    inner = math.sqrt(_half_norm(s)) + d * math.sqrt(2.0 * d * math.log(2.0 * d / delta) / ((k + 1) * m1))
    return 16.0 * _positive("B", B) ** 2 / math.sqrt(m2) * math.sqrt(inner ** 2 / k + 1.0)


def thm34_sandwich(s, d, eps) -> tuple[float, float]:
    """The supplement's fact behind Theorem 3.4: with probability ≥ 1 − δ over phase 1,
    ‖s‖_{1/2} ≤ H ≤ 8‖s‖_{1/2} + (34/3)d²ε. Returns (lower, upper)."""
    d = check_int("d", d, low=1)
    s = _moments("s", s)
    if s.shape[0] != d:
        raise ParameterError(f"s must have d = {d} entries, got {s.shape[0]}")
    h = _half_norm(s)
    return h, 8.0 * h + (34.0 / 3.0) * d * d * check_real("eps", eps, low=0.0)


# ---------------------------------------------------------------------- Lasso (Section 4)
def thm41_bound(B, eta, m, d, G2) -> float:
    """Theorem 4.1 (GAELR): E[L(w̄)] − L(w*) ≤ B(log(2d)/(ηm) + 5ηG²) when ‖E g̃_t²‖∞ ≤ G² and
    η ≤ 1/(2G); ``math.inf`` for a larger η (the theorem says nothing there)."""
    B, eta = _positive("B", B), _positive("eta", eta)
    m, d = check_int("m", m, low=1), check_int("d", d, low=1)
    G2 = check_real("G2", G2, low=0.0)
    if G2 > 0 and eta > 1.0 / (2.0 * math.sqrt(G2)):
        return math.inf
    return B * (math.log(2.0 * d) / (eta * m) + 5.0 * eta * G2)


def thm44_eta(s, k, m, B) -> float:
    """Theorem 4.4's step size η = (1/(2B))·√(log(2d)/(5m(‖s‖₁/k + 1))) (DDAELR)."""
    s = _moments("s", s)
    d = s.shape[0]
    k, m = _k(k, d), check_int("m", m, low=1)
    return _thm44_eta(_one_norm(s), d, k, m, _positive("B", B))


def _thm44_eta(one_norm: float, d: int, k: int, m: int, B: float) -> float:  # arguments already checked
    return math.sqrt(math.log(2.0 * d) / (5.0 * m * (one_norm / k + 1.0))) / (2.0 * B)


def thm44_bound(s, k, m, B) -> float:
    """Theorem 4.4 (DDAELR, q ∝ s, m ≥ log 2d): E[L(w̄)] − L(w*) ≤ 4B²√(5 log(2d)(‖s‖₁ + k)/(km))."""
    s = _moments("s", s)
    d = s.shape[0]
    k, m = _k(k, d), check_int("m", m, low=1)
    _enough_examples("m", m, d)
    return 4.0 * _positive("B", B) ** 2 * math.sqrt(5.0 * math.log(2.0 * d) * (_one_norm(s) + k) / (k * m))


def thm45_eta(A, d, k, m1, m2, delta, B) -> float:
    """Theorem 4.5's step size η = √(k·log(2d)/(20B²m₂(8‖A‖₁ + 20d·ε + k))), ε = min(d log(2d/δ)/((k+1)m₁), 1)."""
    d, k, m1, m2, delta = _phases(d, k, m1, m2, delta)
    A = _moments("A", A, nonzero=False)
    eps = phase1_epsilon(d, k, m1, delta, lasso=True)
    B = _positive("B", B)
    return math.sqrt(k * math.log(2.0 * d) / (20.0 * B * B * m2 * (8.0 * one_norm(A) + 20.0 * d * eps + k)))


def thm45_bound_always(d, k, m2, B) -> float:
    """Theorem 4.5, with probability 1 over phase 1 (m₂ ≥ log 2d): 61B²√(d·log(2d)/(k·m₂))."""
    d = check_int("d", d, low=1)
    k, m2 = _k(k, d), check_int("m2", m2, low=1)
    _enough_examples("m2", m2, d)
    return 61.0 * _positive("B", B) ** 2 * math.sqrt(d * math.log(2.0 * d) / (k * m2))


def thm45_bound_whp(s, d, k, m1, m2, delta, B) -> float:
    """Theorem 4.5, with probability ≥ 1 − δ over phase 1 (m₂ ≥ log 2d):
    4B²√(5(16‖s‖₁ + (88d/3)·min(d log(2d/δ)/((k+1)m₁), 1) + k)·log(2d)/(k·m₂))."""
    d, k, m1, m2, delta = _phases(d, k, m1, m2, delta)
    s = _moments("s", s)
    if s.shape[0] != d:
        raise ParameterError(f"s must have d = {d} entries, got {s.shape[0]}")
    _enough_examples("m2", m2, d)
    eps = phase1_epsilon(d, k, m1, delta, lasso=True)
    inner = 5.0 * (16.0 * one_norm(s) + 88.0 * d / 3.0 * eps + k) * math.log(2.0 * d) / (k * m2)
    return 4.0 * _positive("B", B) ** 2 * math.sqrt(inner)


# ---------------------------------------------------------------------- exact variants
def _rational_vector(name: str, s) -> tuple[Fraction, ...]:
    try:
        items = list(s)
    except TypeError:
        raise ParameterError(f"{name} must be a sequence of rationals, got {s!r}") from None
    out = []
    for i, v in enumerate(items):
        if isinstance(v, bool) or not isinstance(v, Rational):
            raise ParameterError(f"{name}[{i}] must be an int or a Fraction, got {v!r}")
        if v < 0:
            raise ParameterError(f"{name}[{i}] must be ≥ 0, got {v}")
        out.append(Fraction(v))
    if not any(out):
        raise ParameterError(f"{name} must have a positive entry")
    return tuple(out)


def rational_sqrt(v: Fraction) -> Fraction:
    """√v for a rational v ≥ 0 that is the square of a rational (else ParameterError)."""
    v = Fraction(v)
    if v < 0:
        raise ParameterError(f"{v} is negative: it has no real square root")
    num, den = math.isqrt(v.numerator), math.isqrt(v.denominator)
    if num * num != v.numerator or den * den != v.denominator:
        raise ParameterError(f"{v} is not the square of a rational: its square root is irrational")
    return Fraction(num, den)


def ridge_q_exact(s) -> tuple[Fraction, ...]:
    """Eq. (2) in exact arithmetic: q_i = √s_i/Σ√s_j, for rational s whose entries are squares
    of rationals (so that q is rational); its value Σ s_i/q_i is then (Σ√s_i)² = ‖s‖_{1/2}."""
    roots = [rational_sqrt(v) for v in _rational_vector("s", s)]
    total = sum(roots)
    return tuple(r / total for r in roots)


ONE_ = Fraction(1)


def improved_inner_p_exact(w, s) -> tuple[Fraction, ...]:
    """The "improved inner product" probabilities after eq. (2), exactly: p_j = |w_j|·√s_j/Σ_l |w_l|·√s_l for
    rational w and second moments s whose entries are squares of rationals (so that p is rational); with the
    inner-product estimate (w_j/p_j)·x_j its second moment Σ w_j²s_j/p_j is then (Σ|w_j|√s_j)². Where every
    |w_j|·s_j is 0 the estimate needs no draw; p is then uniform (any p gives second moment 0)."""
    ws = _rational_vector("|w|", [abs(Fraction(v)) for v in w] + [ONE_])[:-1]  # w = 0 is allowed
    roots = [rational_sqrt(v) for v in _rational_vector("s", [*s, ONE_])[:-1]]  # so is s = 0
    if len(ws) != len(roots):
        raise ParameterError(f"w and s must have the same length, got {len(ws)} and {len(roots)}")
    weights = [a * r for a, r in zip(ws, roots, strict=True)]
    total = sum(weights, Fraction(0))
    if total == 0:
        return tuple(Fraction(1, len(ws)) for _ in ws)
    return tuple(v / total for v in weights)


def lasso_q_exact(s) -> tuple[Fraction, ...]:
    """Lemma 4.3 in exact arithmetic: q_i = s_i/Σ s_j for rational s ≥ 0 (value max_i s_i/q_i = ‖s‖₁)."""
    s = _rational_vector("s", s)
    total = sum(s)
    return tuple(v / total for v in s)


def lemma32_bound_exact(B, k: int, datapoint_moment) -> Fraction:
    """Lemma 3.2's (and 4.2's) 4B²(M/k + 1) in rationals, M = E‖x̃_r‖² (or ‖E x̃_r²‖∞)."""
    return 4 * Fraction(B) ** 2 * (Fraction(datapoint_moment) / check_int("k", k, low=1) + 1)


def _dyadic(beta) -> tuple[int, int]:
    """β = −p/2^j with p ≥ 0 an integer: (p, j)."""
    b = Fraction(str(beta)) if isinstance(beta, float) else Fraction(beta)
    if b > 0 or b.denominator & (b.denominator - 1):
        raise ParameterError(f"beta must be ≤ 0 with a power-of-two denominator (−p/2^j), got {beta}")
    return -b.numerator, b.denominator.bit_length() - 1


def power_sum_enclosure(d, beta, digits: int = 30) -> tuple[Fraction, Fraction]:
    """Rationals (low, high) with low ≤ Σ_{i=1}^{d} i^β ≤ high, for β = −p/2^j (p ≥ 0, j ≥ 0).

    Each term i^{−p/2^j} = 1/ⁿ√(i^p) with n = 2^j is bracketed exactly with integer roots: r =
    ⌊(i^p·10^{digits·n})^{1/n}⌋ (n nested ``math.isqrt``, since ⌊√⌊√N⌋⌋ = ⌊N^{1/4}⌋) gives
    r ≤ 10^digits·ⁿ√(i^p) < r + 1. So the width is about d·10^−digits relative; no floating point.
    """
    d = check_int("d", d, low=1)
    digits = check_int("digits", digits, low=1, high=200)
    p, j = _dyadic(beta)
    n, scale = 2 ** j, 10 ** digits
    low = high = Fraction(0)
    for i in range(1, d + 1):
        r = i ** p * scale ** n
        for _ in range(j):
            r = math.isqrt(r)
        exact = r ** n == i ** p * scale ** n
        low += Fraction(scale, r + (0 if exact else 1))
        high += Fraction(scale, r)
    return low, high
