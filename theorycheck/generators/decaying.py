"""The decaying-moment Bernoulli family of ks15 §5.1, as printed and in a bounded variant.

ks15 §5.1 takes u_i = i^α (α ≤ 0, i = 1..d), projects it onto the unit L2 ball (Ridge:
u ← u/‖u‖₂ when ‖u‖₂ > 1) or the unit L∞ ball (Lasso: u ← min(u, 1), a no-op since i^α ≤ 1),
and draws independent attributes x_i ~ Bernoulli(u_i). Both constructions below are instances
of one "scaled Bernoulli" model::

    b_i ~ Bernoulli(p_i) independent,   x_i = a_i·b_i,   y = ⟨w*, x⟩ + σ·ξ   (ξ Rademacher)

whose population moments are, with the mean m = a·p (entrywise),

    E[x] = m,   E[xxᵀ] = mmᵀ + diag(a²p − m²),   E[xy] = E[xxᵀ]w*,   E[y²] = w*ᵀE[xxᵀ]w* + σ².

* :func:`decaying_design`, the family as printed (a = 1, p = u, σ = 0): Ridge w* uniform on
  {±1}^d, Lasso w* ∈ {−1, 0, 1} with probabilities 0.15/0.7/0.15, drawn from ``w_seed``. Then
  E[x] = u and E[xxᵀ] = uuᵀ + diag(u − u²). A 0/1 vector with several ones has ‖x‖₂ > 1 and
  |y| up to ‖w*‖₁, so the printed family breaks the theorems' hypotheses (‖x‖₂ ≤ 1 for Ridge,
  |y| ≤ B for both): :meth:`DecayingDesign.satisfies` is False and
  :meth:`DecayingDesign.violations` says why. The experiments (ks15 Figures 1–2) use it as printed.
* :func:`decaying_bounded_design`, a variant that meets the hypotheses with second moments
  proportional to the same profile u, so the improvement ratios ρ_Ridge = ‖s‖_{1/2}/(d·E‖x‖²)
  and ρ_Lasso = ‖s‖₁/(d‖s‖∞) of s = E[x²] are those of the printed family (both are invariant
  under s → c·s and E‖x‖² = Σ s_i). Ridge: a = √v with v = u/Σu, p = ½, so
  ‖x‖₂² = Σ b_i v_i ≤ Σ v_i = 1 surely and s = v/2 ∝ u. Lasso: a = 1, p = u (the printed
  attributes, ‖x‖∞ ≤ 1). Labels y = ⟨w*, x⟩ + σξ with σ = noise·B and w* = B(1 − noise)·w,
  w a unit-L2 (Ridge) or unit-L1 (Lasso) direction. By Cauchy–Schwarz (Ridge)
  |⟨w*, x⟩| ≤ ‖w*‖₂‖x‖₂ ≤ B(1 − noise), by Hölder (Lasso) |⟨w*, x⟩| ≤ ‖w*‖₁‖x‖∞ ≤ B(1 − noise);
  adding |σξ| = noise·B gives |y| ≤ B surely, and w* lies in the ball of radius B.

Default directions (chosen so that the trivial learner w = 0 is far from the optimum, an excess
risk of order B², and the bound claims are not vacuous). Ridge: w = √v (so ‖w‖₂² = Σv = 1),
aligned with E[x] = √v/2: ⟨w*, x⟩ = B(1 − noise)·Σ b_i v_i ∈ [0, B(1 − noise)]. E[xxᵀ] is
positive definite, so w* is the constrained optimum and the ½-loss excess risk of w = 0 is
½w*ᵀΣw* = B²(1 − noise)²(1 + Σv_i²)/8 ≥ B²(1 − noise)²/8 (d = 20, α = −1, noise = 0: 0.1404).
Lasso: the leading s = min(d, 3) attributes with alternating signs and geometric weights,
w ∝ (1, −½, ¼), normalised to ‖w‖₁ = 1; the alternating sum never cancels (u is
non-increasing, so Σ(−½)^{i−1}u_i ≥ u_1 − u_2/2 ≥ ½), and the ½-loss excess risk of w = 0 is
again ½w*ᵀΣw* (d = 20, α = −1, noise = 0: 0.1260; α = 0, where x ≡ 1: 0.0918). A random sign
direction (``direction="seeded"``) would give an excess risk of order B²/d for Ridge.

Attributes on demand. Every random bit is a counter-based hash (SplitMix64's finaliser) of
(key, t, i): example t has the seed h_t = mix(key ⊕ mix((t + 1)·γ)) and attribute i the word
mix(h_t + (i + 1)·γ), γ = 0x9E3779B97F4A7C15, i.e. the SplitMix64 stream seeded at h_t; slot
i = d is the label noise's sign. b_i = 1 iff U < p_i for U the word's top 53 bits over 2^53, so
P(b_i = 1) = ⌈p_i·2^53⌉/2^53, within 2^−53 of p_i (below the rounding of the moments).
:meth:`DecayingDesign.attribute` (and the vectorised :meth:`DecayingDesign.attributes`) returns
one attribute of one example without building its row; :meth:`DecayingDesign.sample` draws one
key from ``random_state`` (one xoroshiro128+ output) and returns rows t = 0..n−1 of that key, so
``sample(n, state)`` equals ``rows(key, n)`` and every entry equals ``attribute(key, t, i)``
(successive calls on a kernel state draw fresh keys, i.e. independent data). A noise-free label
is a function of the whole row, so :meth:`DecayingDesign.label` costs O(d) generator time; a
learner that reads a label reads no attribute by doing so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from ..rng import as_generator, as_kernel_state, next_u64
from ..validation import ParameterError, check_int, check_matrix, check_real

__all__ = ["DecayingDesign", "decaying_bounded_design", "decaying_design", "decaying_profile", "printed_w_star"]

SETTINGS = ("ridge", "lasso")
_U64 = np.uint64
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53
_KEY_MAX = 2**64 - 1


# --------------------------------------------------------------------------------------
# counter-based bits and the two kernels
# --------------------------------------------------------------------------------------


def counter_index(key, rows, cols, d: int):
    """Validate a key and integer row (and column) indices for on-demand attributes of a d-attribute
    design: (key as uint64, the broadcast shape, the flattened int64 index arrays)."""
    key = check_int("key", key, low=0, high=_KEY_MAX)
    arrays = [np.asarray(rows)] + ([] if cols is None else [np.asarray(cols)])
    for name, a in zip(("rows", "cols"), arrays, strict=False):
        if a.dtype.kind not in "iu":
            raise ParameterError(f"{name} must be integers, got dtype {a.dtype}")
    arrays = np.broadcast_arrays(*arrays)
    if arrays[0].size and arrays[0].min() < 0:
        raise ParameterError("rows must be non-negative")
    if cols is not None and arrays[1].size and (arrays[1].min() < 0 or arrays[1].max() >= d):
        raise ParameterError(f"cols must lie in 0..{d - 1}")
    return _U64(key), arrays[0].shape, [np.ascontiguousarray(a, dtype=np.int64).ravel() for a in arrays]


@njit(cache=True, inline="always")
def _mix(z):
    """SplitMix64's finaliser (a bijection of 64-bit words)."""
    z = (z ^ (z >> _U64(30))) * _U64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> _U64(27))) * _U64(0x94D049BB133111EB)
    return z ^ (z >> _U64(31))


@njit(cache=True, inline="always")
def _row_seed(key, t):
    return _mix(key ^ _mix((_U64(t) + _U64(1)) * _U64(0x9E3779B97F4A7C15)))


@njit(cache=True, inline="always")
def _word(seed, i):
    return _mix(seed + (_U64(i) + _U64(1)) * _U64(0x9E3779B97F4A7C15))


@njit(cache=True, inline="always")
def _value(seed, i, probs, values):
    u = float(_word(seed, i) >> _U64(11)) * _TWO_M53
    return values[i] if u < probs[i] else 0.0


@njit(cache=True)
def _fill(key, rows, probs, values, w, noise_amp, X, y):
    """y[r] (and X[r] when X has rows) for example rows[r] of ``key``; O(d) per row."""
    d = probs.shape[0]
    keep = X.shape[0] > 0
    for r in range(rows.shape[0]):
        seed = _row_seed(key, rows[r])
        acc = 0.0
        for i in range(d):
            v = _value(seed, i, probs, values)
            if keep:
                X[r, i] = v
            acc += w[i] * v
        if noise_amp != 0.0:
            acc += noise_amp if (_word(seed, d) >> _U64(63)) == _U64(1) else -noise_amp
        y[r] = acc


@njit(cache=True)
def _cells(key, rows, cols, probs, values, out):
    """out[r] = attribute cols[r] of example rows[r] of ``key``; O(1) each."""
    for r in range(rows.shape[0]):
        out[r] = _value(_row_seed(key, rows[r]), cols[r], probs, values)


# --------------------------------------------------------------------------------------
# the design
# --------------------------------------------------------------------------------------


def _frozen(a) -> np.ndarray:
    a = np.array(a, dtype=np.float64, copy=True)
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class DecayingDesign:
    """x_i = a_i·Bernoulli(p_i) independent, y = ⟨w*, x⟩ + σξ, with exact moments (see the module).

    Attributes
    ----------
    name : str
        ``"decaying"`` (as printed) or ``"decaying_bounded"``.
    setting : str
        ``"ridge"`` or ``"lasso"`` (which projection of u = i^α, and which hypotheses).
    d : int
    alpha : float
        The decay exponent α ≤ 0.
    profile : ndarray (d,)
        The projected u (the printed attributes' expectations).
    probs, values : ndarray (d,)
        p and a of the scaled Bernoulli model.
    w_star : ndarray (d,)
    noise_amp : float
        σ, the amplitude of the Rademacher label noise.
    mean : ndarray (d,)
        E[x].
    second_moments : ndarray (d,)
        s = E[x_i²], the vector the ks15 learners and ratios use.
    expected_sq_norm : float
        E‖x‖₂² = Σ s_i (the Ridge ratio's denominator).
    second_moment : ndarray (d, d)
        Σ = E[xxᵀ].
    cross_moment : ndarray (d,)
        c = E[xy] = Σw*.
    y_second_moment : float
        E[y²] = w*ᵀΣw* + σ².
    x_bound_l2, x_bound_linf : float
        max ‖x‖₂ and max ‖x‖∞ over the support (exact; 1 for the bounded Ridge variant's ‖x‖₂).
    y_bound : float
        An almost-sure bound on |y|: B for the bounded variant (proved in the module docstring),
        max |y| over the support for the printed family.
    y_range : tuple (lo, hi)
        min and max of ⟨w*, x⟩ over the support (the noise adds ±σ).
    params : dict
        The constructor's arguments.
    """

    name: str
    setting: str
    d: int
    alpha: float
    profile: np.ndarray
    probs: np.ndarray
    values: np.ndarray
    w_star: np.ndarray
    noise_amp: float
    mean: np.ndarray
    second_moments: np.ndarray
    expected_sq_norm: float
    second_moment: np.ndarray
    cross_moment: np.ndarray
    y_second_moment: float
    x_bound_l2: float
    x_bound_linf: float
    y_bound: float
    y_range: tuple[float, float]
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def moments(self) -> tuple[np.ndarray, np.ndarray, float]:
        """The tuple (Σ, c, E[y²]) accepted by :mod:`theorycheck.population`."""
        return self.second_moment, self.cross_moment, self.y_second_moment

    # ------------------------------------------------------------------ hypotheses
    def violations(self, norm: str, B) -> tuple[str, ...]:
        """The hypotheses of the Ridge (``norm="l2"``: ‖x‖₂ ≤ 1, |y| ≤ B) or Lasso (``"l1"``:
        ‖x‖∞ ≤ 1, |y| ≤ B) theorems that fail for radius B, one sentence each (empty if none)."""
        B = check_real("B", B, low=0.0, strict_low=True)
        if norm not in ("l2", "l1"):
            raise ParameterError(f"norm must be 'l2' (Ridge) or 'l1' (Lasso), got {norm!r}")
        out = []
        if norm == "l2" and self.x_bound_l2 > 1.0 + 1e-12:
            out.append(f"‖x‖₂ reaches {self.x_bound_l2:.6g} > 1 (the row with every b_i = 1 has positive probability)")
        if norm == "l1" and self.x_bound_linf > 1.0 + 1e-12:
            out.append(f"‖x‖∞ reaches {self.x_bound_linf:.6g} > 1")
        if self.y_bound > B * (1.0 + 1e-12):
            out.append(f"|y| reaches {self.y_bound:.6g} > B = {B:g} (⟨w*, x⟩ ranges over "
                       f"[{self.y_range[0]:.6g}, {self.y_range[1]:.6g}], noise ±{self.noise_amp:g})")
        return tuple(out)

    def satisfies(self, norm: str, B) -> bool:
        """Whether the design meets the Ridge (``"l2"``) or Lasso (``"l1"``) hypotheses for radius B."""
        return not self.violations(norm, B)

    # ------------------------------------------------------------------ sampling
    def draw_key(self, random_state) -> int:
        """One 64-bit key from ``random_state`` (a kernel state advances by one output)."""
        return int(next_u64(as_kernel_state(random_state)))

    def sample(self, n, random_state) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. examples: ``rows(draw_key(random_state), n)``.

        Parameters
        ----------
        n : int
            n ≥ 1.
        random_state : int, SeedSequence, Generator or kernel state (uint64[2], advanced in place)

        Returns
        -------
        X : ndarray (n, d), y : ndarray (n,)
        """
        n = check_int("n", n, low=1)
        return self.rows(self.draw_key(random_state), n)

    def rows(self, key, n, start=0) -> tuple[np.ndarray, np.ndarray]:
        """Examples t = start..start+n−1 of ``key`` (the rows :meth:`sample` returns for that key)."""
        key = check_int("key", key, low=0, high=_KEY_MAX)
        n = check_int("n", n, low=1)
        start = check_int("start", start, low=0)
        X = np.empty((n, self.d))
        y = np.empty(n)
        _fill(_U64(key), np.arange(start, start + n, dtype=np.int64), self.probs, self.values, self.w_star,
              self.noise_amp, X, y)
        return X, y

    def _index(self, key, rows, cols=None):
        return counter_index(key, rows, cols, self.d)

    def attributes(self, key, rows, cols) -> np.ndarray:
        """Attribute cols[r] of example rows[r] of ``key`` (broadcast), without building any row."""
        key, shape, (r, c) = self._index(key, rows, cols)
        out = np.empty(r.shape[0])
        _cells(key, r, c, self.probs, self.values, out)
        return out.reshape(shape)

    def attribute(self, key, t, i) -> float:
        """Attribute i of example t of ``key``: O(1), the value ``rows(key, t + 1)[0][t, i]`` holds."""
        return float(self.attributes(key, check_int("t", t, low=0), check_int("i", i, low=0, high=self.d - 1)))

    def labels(self, key, rows) -> np.ndarray:
        """The labels of examples ``rows`` of ``key``: O(d) generator time per label, since y is a
        function of the whole row (a learner reading y reads no attribute)."""
        key, shape, (r,) = self._index(key, rows)
        y = np.empty(r.shape[0])
        _fill(key, r, self.probs, self.values, self.w_star, self.noise_amp, np.empty((0, self.d)), y)
        return y.reshape(shape)

    def label(self, key, t) -> float:
        """The label of example t of ``key`` (O(d), see :meth:`labels`)."""
        return float(self.labels(key, check_int("t", t, low=0)))


# --------------------------------------------------------------------------------------
# constructors
# --------------------------------------------------------------------------------------


def _check(d, alpha, setting):
    d = check_int("d", d, low=1)
    alpha = check_real("alpha", alpha, high=0.0)
    if setting not in SETTINGS:
        raise ParameterError(f"setting must be 'ridge' or 'lasso', got {setting!r}")
    return d, alpha, setting


def decaying_profile(d, alpha=-1.0, setting="ridge") -> np.ndarray:
    """u_i = i^α (i = 1..d) projected onto the unit L2 ball (Ridge) or unit L∞ ball (Lasso)."""
    d, alpha, setting = _check(d, alpha, setting)
    u = np.arange(1, d + 1, dtype=np.float64) ** alpha
    if setting == "ridge":
        size = float(np.linalg.norm(u))
        return u / size if size > 1.0 else u
    return np.minimum(u, 1.0)


def printed_w_star(d, setting, w_seed) -> np.ndarray:
    """The printed w* of §5.1, drawn from the seed ``w_seed``: uniform on {±1}^d (Ridge) or −1/0/1
    with probabilities 0.15/0.7/0.15 (Lasso)."""
    d = check_int("d", d, low=1)
    if setting not in SETTINGS:
        raise ParameterError(f"setting must be one of {', '.join(SETTINGS)}, got {setting!r}")
    w_seed = check_int("w_seed", w_seed, low=0)
    r = as_generator(w_seed).random(d)
    if setting == "ridge":
        return np.where(r < 0.5, -1.0, 1.0)
    return np.where(r < 0.15, -1.0, np.where(r >= 0.85, 1.0, 0.0))


def _make(name, setting, alpha, u, probs, values, w, noise_amp, y_bound, params, x_l2=None) -> DecayingDesign:
    mean = values * probs
    second = values * values * probs
    sigma = np.outer(mean, mean)
    sigma[np.diag_indices_from(sigma)] = second
    cross = sigma @ w
    # range of ⟨w*, x⟩: attributes with p_i = 1 are always on, the others free (p_i > 0 always)
    sure = probs >= 1.0
    wa = w * values
    base = float(wa[sure].sum())
    lo, hi = base + float(np.minimum(wa[~sure], 0.0).sum()), base + float(np.maximum(wa[~sure], 0.0).sum())
    reach = max(abs(lo), abs(hi)) + noise_amp
    if y_bound is None:
        y_bound = reach
    elif reach > y_bound * (1.0 + 1e-12):  # the Cauchy–Schwarz / Hölder argument of the module
        raise AssertionError(f"|y| reaches {reach} > declared {y_bound}")
    return DecayingDesign(
        name=name, setting=setting, d=u.shape[0], alpha=alpha, profile=_frozen(u), probs=_frozen(probs),
        values=_frozen(values), w_star=_frozen(w), noise_amp=float(noise_amp), mean=_frozen(mean),
        second_moments=_frozen(second), expected_sq_norm=float(second.sum()), second_moment=_frozen(sigma),
        cross_moment=_frozen(cross), y_second_moment=float(w @ cross) + noise_amp**2,
        x_bound_l2=float(np.sqrt(np.sum(values**2))) if x_l2 is None else x_l2,
        x_bound_linf=float(values.max()), y_bound=float(y_bound), y_range=(lo, hi), params=params)


def decaying_design(d, alpha=-1.0, *, setting="ridge", w_seed=0) -> DecayingDesign:
    """The family of ks15 §5.1 as printed (it breaks the theorems' hypotheses; see the module).

    Parameters
    ----------
    d : int
        Number of attributes, d ≥ 1.
    alpha : float
        Decay exponent α ≤ 0 (u_i = i^α).
    setting : {"ridge", "lasso"}
        Ridge: u projected onto the unit L2 ball, w* uniform on {±1}^d. Lasso: u on the unit
        L∞ ball, w* ∈ {−1, 0, 1} with probabilities 0.15/0.7/0.15. No label noise.
    w_seed : int
        Seed of w* (each repeat of an experiment may draw its own).

    Returns
    -------
    DecayingDesign
        E[x] = u, E[xxᵀ] = uuᵀ + diag(u − u²), c = Σw*, E[y²] = w*ᵀΣw*.
    """
    d, alpha, setting = _check(d, alpha, setting)
    u = decaying_profile(d, alpha, setting)
    w = printed_w_star(d, setting, w_seed)
    params = {"d": d, "alpha": alpha, "setting": setting, "w_seed": int(w_seed)}
    return _make("decaying", setting, alpha, u, u.copy(), np.ones(d), w, 0.0, None, params)


def decaying_bounded_design(d, alpha=-1.0, *, setting="ridge", B=1.0, noise=0.0, direction=None,
                            w_seed=0) -> DecayingDesign:
    """The §5.1 profile in a design that meets ‖x‖₂ ≤ 1 (Ridge) or ‖x‖∞ ≤ 1 (Lasso) and |y| ≤ B.

    Parameters
    ----------
    d : int
        Number of attributes, d ≥ 1.
    alpha : float
        Decay exponent α ≤ 0.
    setting : {"ridge", "lasso"}
        Ridge: x_i = b_i·√v_i, b_i ~ Bernoulli(½), v = u/Σu. Lasso: x_i ~ Bernoulli(u_i).
    B : float
        Radius of the ball and bound on |y|, B > 0.
    noise : float
        Fraction of B given to Rademacher label noise, 0 ≤ noise < 1.
    direction : None, "mean", "leading", "seeded" or array_like (d,)
        Direction of w* = B(1 − noise)·w, rescaled to ‖w‖₂ = 1 (Ridge) or ‖w‖₁ = 1 (Lasso).
        None: "mean" for Ridge (w = √v, aligned with E[x]) and "leading" for Lasso (the first
        min(d, 3) attributes, signs +, −, +, weights ∝ 1, ½, ¼). "seeded": the printed family's
        sign draw from ``w_seed`` (Lasso: e_1 if the draw is all zero).
    w_seed : int
        Seed of the "seeded" direction.

    Returns
    -------
    DecayingDesign
        s = E[x²] ∝ u, so ρ_Ridge and ρ_Lasso equal the printed family's.
    """
    d, alpha, setting = _check(d, alpha, setting)
    B = check_real("B", B, low=0.0, strict_low=True)
    noise = check_real("noise", noise, low=0.0, high=1.0, strict_high=True)
    u = decaying_profile(d, alpha, setting)
    order = 2 if setting == "ridge" else 1
    if setting == "ridge":
        v = u / u.sum()
        probs, values = np.full(d, 0.5), np.sqrt(v)
    else:
        probs, values = u.copy(), np.ones(d)
    label = direction if isinstance(direction, str) or direction is None else "given"
    if label is None:
        label = "mean" if setting == "ridge" else "leading"
    if label == "mean":
        w = np.sqrt(u / u.sum())
    elif label == "leading":
        w = np.zeros(d)
        s = min(d, 3)
        w[:s] = (-0.5) ** np.arange(s)
    elif label == "seeded":
        w = printed_w_star(d, setting, w_seed)
        if not w.any():
            w[0] = 1.0
    elif label == "given":
        w = check_matrix("direction", direction, ndim=1)
        if w.shape[0] != d:
            raise ParameterError(f"direction must have length d={d}, got {w.shape[0]}")
    else:
        raise ParameterError(f"direction must be 'mean', 'leading', 'seeded' or a vector, got {direction!r}")
    size = float(np.linalg.norm(w, ord=order))
    if size == 0.0:
        raise ParameterError("direction must not be the zero vector")
    w = w * (B * (1.0 - noise) / size)
    params = {"d": d, "alpha": alpha, "setting": setting, "B": B, "noise": noise,
              "direction": label if label != "given" else [float(x) for x in direction], "w_seed": int(w_seed)}
    # Ridge: ‖x‖₂² = Σ b_i v_i ≤ Σ v_i = 1 in exact arithmetic (the float Σ a_i² may be 1 ± an ulp)
    return _make("decaying_bounded", setting, alpha, u, probs, values, w, noise * B, B, params,
                 x_l2=1.0 if setting == "ridge" else None)
