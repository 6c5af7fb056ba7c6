"""Simulated crowds for feature multi-selection (Sabato & Kalai, ICML 2013), with exact moments.

No offline copy of the paper's crowdsourced judgments exists (papers/NOTES.md), so every sk13
experiment runs on judgments drawn here; pages say so.

The model (§2 of the paper, made concrete so that every population quantity is exact):

* an object O carries latent factors z ∈ {±1}^q (independent Rademacher) and latent feature
  values μ = offset + A z ∈ ℝ^d (A = ``loadings``), its expected judgments E[X[a] | O] = μ[a];
* a judgment of feature a is drawn independently given O: *binary* features give X ∈ {−1, +1}
  with P(X = +1 | O) = (1 + μ[a])/2, so Var[X | O] = 1 − μ[a]²; *real-valued* features give
  X = μ[a] + s[a]·U with U uniform on [−1, 1], so Var[X | O] = s[a]²/3;
* the label is linear in the latent values plus noise: Y = β₀ + ⟨β, μ⟩ + η·ε with ε = ±1.

Every judgment and label lies in [−1, 1] (checked when the crowd is built), which is
Theorem 3.1's hypothesis. Exact moments, in the paper's notation (uncentred, as §2 assumes
E X = 0; with a non-zero ``offset`` they are the uncentred second moments):

* Σ = E_∞[X Xᵀ] = A Aᵀ + offset·offsetᵀ (the external covariance), its centred part A Aᵀ;
* v[a] = E_O Var[X[a] | O] (internal variance): 1 − Σ[a, a] for binary features, s[a]²/3 for
  real ones;
* b = E[X Y] = A Aᵀ β + offset·E[Y], E[Y] = β₀ + ⟨β, offset⟩,
  E[Y²] = E[Y]² + βᵀ A Aᵀ β + η²;
* Σ_r = E_r[X̄ X̄ᵀ] = Z_r Σ Z_r + V_r (Lemma A.1) and the projected loss
  ℓ(r) = E[Y²] − sub_r(b)ᵀ sub_r(Σ_r)⁺ sub_r(b), with the pseudo-inverse where singular (b always
  lies in the range of Σ_r, so this is the minimum over w exactly).

Randomness follows :mod:`theorycheck.rng`: every sampler takes one ``random_state``. Two jitted
kernels draw objects and judgments; the public functions validate their inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..rng import as_kernel_state, next_sign, next_uniform
from ..validation import ParameterError, check_int, check_matrix, check_real

__all__ = ["Crowd", "CrowdSample", "correlated_crowd", "crowd", "diagonal_crowd", "table1_crowd"]

_SLACK = 1e-12  # relative rounding allowance of the range checks


@njit(cache=True)
def _draw_objects(state, loadings, offset, beta, beta0, noise, mu, y):
    n, d = mu.shape
    q = loadings.shape[1]
    z = np.empty(q)
    for i in range(n):
        for j in range(q):
            z[j] = next_sign(state)
        acc = beta0
        for a in range(d):
            s = offset[a]
            for j in range(q):
                s += loadings[a, j] * z[j]
            mu[i, a] = s
            acc += beta[a] * s
        y[i] = acc + noise * next_sign(state)


@njit(cache=True)
def _draw_judgments(state, mu, spread, binary, reps, out, accumulate):
    """out[i, a, j] for j < reps[a] (or, when ``accumulate``, their sum added to out[i, a, 0])."""
    n, d = mu.shape
    for i in range(n):
        for a in range(d):
            for j in range(reps[a]):
                if binary[a]:
                    x = 1.0 if next_uniform(state) < 0.5 * (1.0 + mu[i, a]) else -1.0
                else:
                    x = mu[i, a] + spread[a] * (2.0 * next_uniform(state) - 1.0)
                if accumulate:
                    out[i, a, 0] += x
                else:
                    out[i, a, j] = x


def _repeats(r, d: int, name: str = "r") -> np.ndarray:
    arr = np.asarray(r)
    if arr.shape != (d,) or (not np.issubdtype(arr.dtype, np.integer) and not np.all(np.mod(arr, 1) == 0)):
        raise ParameterError(f"{name} must be a vector of {d} non-negative integers, got {r!r}")
    arr = arr.astype(np.int64)
    if arr.min(initial=0) < 0:
        raise ParameterError(f"{name} must be non-negative, got {arr.tolist()}")
    return arr


@dataclass(frozen=True)
class CrowdSample:
    """m labelled objects: latent values ``mu`` (m, d), labels ``y`` (m,), and ``J`` (m, d, k),
    k judgments of every feature of every object (the training format of Algorithm 1)."""

    mu: np.ndarray
    y: np.ndarray
    J: np.ndarray

    @property
    def k(self) -> int:
        return int(self.J.shape[2])


@dataclass(frozen=True)
class Crowd:
    """A crowd: objects, judgments and labels with exact moments (see the module docstring).

    Build it with :func:`crowd` (validated) or one of the named constructions.
    """

    loadings: np.ndarray
    offset: np.ndarray
    spread: np.ndarray
    binary: np.ndarray
    beta: np.ndarray
    beta0: float
    noise: float
    costs: np.ndarray
    names: tuple[str, ...]
    name: str = "crowd"

    # ------------------------------------------------------------------ exact moments
    @property
    def d(self) -> int:
        return int(self.loadings.shape[0])

    @property
    def covariance(self) -> np.ndarray:
        """The centred external covariance A Aᵀ."""
        return self.loadings @ self.loadings.T

    @property
    def Sigma(self) -> np.ndarray:
        """Σ = E_∞[X Xᵀ] (uncentred, as in the paper)."""
        return self.covariance + np.outer(self.offset, self.offset)

    @property
    def v(self) -> np.ndarray:
        """Internal variances v[a] = E_O Var[X[a] | O]."""
        return np.where(self.binary, 1.0 - np.diag(self.Sigma), self.spread**2 / 3.0)

    @property
    def y_mean(self) -> float:
        return float(self.beta0 + self.beta @ self.offset)

    @property
    def b(self) -> np.ndarray:
        """b = E[X Y]."""
        return self.covariance @ self.beta + self.offset * self.y_mean

    @property
    def y_second_moment(self) -> float:
        """E[Y²]."""
        return float(self.y_mean**2 + self.beta @ self.covariance @ self.beta + self.noise**2)

    @property
    def y_variance(self) -> float:
        return float(self.beta @ self.covariance @ self.beta + self.noise**2)

    @property
    def is_diagonal(self) -> bool:
        """Whether Σ is diagonal (Scoring's zero-correlation assumption)."""
        S = self.Sigma
        return bool(np.all(S[~np.eye(self.d, dtype=bool)] == 0.0))

    @property
    def judgment_bound(self) -> float:
        """The largest |judgment| any object can produce."""
        reach = np.abs(self.offset) + np.abs(self.loadings).sum(axis=1)
        return float(np.max(np.where(self.binary, 1.0, reach + self.spread)))

    @property
    def label_bound(self) -> float:
        """The largest |Y| any object can produce."""
        return float(abs(self.y_mean) + np.abs(self.loadings.T @ self.beta).sum() + self.noise)

    def sigma_r(self, r, *, centred: bool = False) -> np.ndarray:
        """Σ_r = Z_r Σ Z_r + V_r (Lemma A.1), d × d with zero rows and columns where r[a] = 0;
        ``centred`` uses A Aᵀ in place of Σ (the covariance of X̄)."""
        r = _repeats(r, self.d)
        on = (r > 0).astype(float)
        S = (self.covariance if centred else self.Sigma) * np.outer(on, on)
        return S + np.diag(np.where(r > 0, self.v / np.maximum(r, 1), 0.0))

    def gain(self, r, *, bias: bool = False) -> float:
        """E[Y²] − ℓ(r) = sub_r(b)ᵀ sub_r(Σ_r)⁺ sub_r(b); with ``bias`` (a free intercept),
        Var(Y) − ℓ_bias(r) = cᵀ C_r⁺ c with the centred C_r and c = Cov(X, Y)."""
        r = _repeats(r, self.d)
        on = r > 0
        if not on.any():
            return 0.0
        S = self.sigma_r(r, centred=bias)[np.ix_(on, on)]
        c = (self.covariance @ self.beta if bias else self.b)[on]
        return float(c @ np.linalg.pinv(S, hermitian=True) @ c)

    def projected_loss(self, r, *, bias: bool = False) -> float:
        """ℓ(r) = min_w E_r[(⟨w, X̄⟩ − Y)²] (with ``bias``, also minimised over an intercept)."""
        top = self.y_variance if bias else self.y_second_moment
        return top - self.gain(r, bias=bias)

    def optimal_predictor(self, r, *, bias: bool = False) -> tuple[np.ndarray, float]:
        """(w, intercept) attaining ℓ(r) (minimum-norm w, zero where r[a] = 0)."""
        r = _repeats(r, self.d)
        on = r > 0
        w = np.zeros(self.d)
        if on.any():
            S = self.sigma_r(r, centred=bias)[np.ix_(on, on)]
            c = (self.covariance @ self.beta if bias else self.b)[on]
            w[on] = np.linalg.pinv(S, hermitian=True) @ c
        intercept = float(self.y_mean - w @ self.offset) if bias else 0.0
        return w, intercept

    def risk(self, w, intercept: float, r) -> float:
        """E_r[(⟨w, X̄⟩ + intercept − Y)²] exactly (X̄[a] = 0 where r[a] = 0)."""
        r = _repeats(r, self.d)
        w = np.where(r > 0, np.asarray(w, dtype=np.float64), 0.0)
        mean_x = np.where(r > 0, self.offset, 0.0)
        value = (w @ self.sigma_r(r) @ w + 2 * intercept * (w @ mean_x) - 2 * (w @ np.where(r > 0, self.b, 0.0))
                 + intercept**2 - 2 * intercept * self.y_mean + self.y_second_moment)
        return float(max(value, 0.0))

    # ------------------------------------------------------------------ sampling
    def objects(self, n: int, random_state) -> tuple[np.ndarray, np.ndarray]:
        """n labelled objects: (latent values (n, d), labels (n,))."""
        n = check_int("n", n, low=1)
        mu, y = np.empty((n, self.d)), np.empty(n)
        _draw_objects(as_kernel_state(random_state), self.loadings, self.offset, self.beta, float(self.beta0),
                      float(self.noise), mu, y)
        return mu, y

    def judge(self, mu, reps, random_state) -> np.ndarray:
        """Fresh judgments of objects with latent values ``mu``: an (n, d, max reps) array whose
        [i, a, j] for j < reps[a] is a judgment (the rest is 0); ``reps`` an int or a vector."""
        mu = self._mu(mu)
        reps = _repeats(np.full(self.d, reps) if np.ndim(reps) == 0 else reps, self.d, "reps")
        out = np.zeros((mu.shape[0], self.d, max(int(reps.max()), 1)))
        _draw_judgments(as_kernel_state(random_state), mu, self.spread, self.binary.astype(np.int64), reps, out,
                        False)
        return out

    def judgment_sums(self, mu, reps, random_state) -> np.ndarray:
        """(n, d) sums of reps[a] fresh judgments of each feature (no array of single judgments)."""
        mu = self._mu(mu)
        reps = _repeats(reps, self.d, "reps")
        out = np.zeros((mu.shape[0], self.d, 1))
        _draw_judgments(as_kernel_state(random_state), mu, self.spread, self.binary.astype(np.int64), reps, out,
                        True)
        return out[:, :, 0]

    def sample(self, m: int, k: int, random_state) -> CrowdSample:
        """m labelled objects with k judgments of every feature (the training data of Alg. 1)."""
        k = check_int("k", k, low=1)
        state = as_kernel_state(random_state)
        mu, y = self.objects(m, state)
        return CrowdSample(mu, y, self.judge(mu, k, state))

    def means(self, mu, r, random_state, J=None) -> np.ndarray:
        """Averages X̄ with repeat vector r (0 where r[a] = 0). With ``J`` (n, d, k), the first
        min(k, r[a]) of its judgments are kept and only the rest are drawn fresh: the paper's
        'top-up' of the training set to r judgments (§4)."""
        mu = self._mu(mu)
        r = _repeats(r, self.d)
        used = np.zeros(self.d, dtype=np.int64) if J is None else np.minimum(r, np.asarray(J).shape[2])
        total = self.judgment_sums(mu, r - used, random_state)
        if J is not None:
            J = np.asarray(J, dtype=np.float64)
            if J.shape[:2] != mu.shape:
                raise ParameterError(f"J must have shape ({mu.shape[0]}, {self.d}, k), got {J.shape}")
            for a in range(self.d):
                total[:, a] += J[:, a, : used[a]].sum(axis=1)
        return np.where(r > 0, total / np.maximum(r, 1), 0.0)

    def _mu(self, mu) -> np.ndarray:
        mu = check_matrix("mu", mu)
        if mu.shape[1] != self.d:
            raise ParameterError(f"mu must have {self.d} columns, got shape {mu.shape}")
        return mu


def crowd(loadings, *, beta, offset=None, spread=None, binary=None, beta0: float = 0.0, noise: float = 0.0,
          costs=None, names=None, name: str = "crowd") -> Crowd:
    """A validated :class:`Crowd`.

    Parameters
    ----------
    loadings : (d, q) array
        A: latent feature values μ = offset + A z with z uniform on {±1}^q.
    beta : (d,) array
        Label weights on the latent values: Y = beta0 + ⟨beta, μ⟩ + noise·(±1).
    offset : (d,) array, optional
        Mean of μ (default 0, the paper's zero-mean assumption).
    spread : (d,) array, optional
        Half-width s[a] of the uniform judgment noise of real-valued features (must be 0 for
        binary ones); default 0.
    binary : (d,) bool array, optional
        Which features have ±1 judgments (default: all).
    costs : (d,) positive integers, optional
        Cost of one judgment of each feature (default 1; §4 counts a numerical judgment as 4).

    Raises
    ------
    ParameterError
        On a shape mismatch, a non-finite value, a negative spread, a binary feature with a
        spread, or judgments or labels that could leave [−1, 1].
    """
    A = check_matrix("loadings", loadings)
    d = A.shape[0]
    if d < 1 or A.shape[1] < 1:
        raise ParameterError(f"loadings must be a non-empty (d, q) matrix, got shape {A.shape}")

    def vector(label, value, default):
        arr = np.full(d, default, dtype=np.float64) if value is None else check_matrix(label, value, ndim=1)
        if arr.shape != (d,):
            raise ParameterError(f"{label} must have length d = {d}, got shape {arr.shape}")
        return arr

    beta_v, offset_v, spread_v = vector("beta", beta, 0.0), vector("offset", offset, 0.0), vector("spread", spread, 0.0)
    bin_v = np.ones(d, dtype=bool) if binary is None else np.asarray(binary, dtype=bool)
    if bin_v.shape != (d,):
        raise ParameterError(f"binary must have length d = {d}, got shape {bin_v.shape}")
    if np.any(spread_v < 0):
        raise ParameterError("spread must be non-negative")
    if np.any(spread_v[bin_v] != 0):
        raise ParameterError("binary features take no spread (their judgments are ±1)")
    cost_v = np.ones(d, dtype=np.int64) if costs is None else np.asarray(costs)
    if cost_v.shape != (d,) or not np.all(np.mod(cost_v, 1) == 0) or np.any(cost_v < 1):
        raise ParameterError(f"costs must be {d} positive integers, got {costs!r}")
    beta0 = check_real("beta0", beta0)
    noise = check_real("noise", noise, low=0.0)
    label_names = tuple(f"f{a}" for a in range(d)) if names is None else tuple(str(n) for n in names)
    if len(label_names) != d:
        raise ParameterError(f"names must have {d} entries")
    out = Crowd(A, offset_v, spread_v, bin_v, beta_v, beta0, noise, cost_v.astype(np.int64), label_names, str(name))
    reach = np.abs(offset_v) + np.abs(A).sum(axis=1) + spread_v
    if np.any(reach > 1.0 + _SLACK):
        a = int(np.argmax(reach))
        raise ParameterError(f"feature {label_names[a]} can be judged {reach[a]:.6g} > 1 in absolute value: need "
                             "|offset| + Σ|loadings| + spread ≤ 1 (Theorem 3.1 assumes judgments in [−1, 1])")
    if out.label_bound > 1.0 + _SLACK:
        raise ParameterError(f"labels can reach {out.label_bound:.6g} > 1 in absolute value (Theorem 3.1 assumes "
                             "labels in [−1, 1]): shrink beta, beta0 or noise")
    return out


def diagonal_crowd(scales, beta, *, spread=None, binary=None, noise: float = 0.0, costs=None,
                   name: str = "diagonal") -> Crowd:
    """Independent features (Σ = Diag(scales²)): μ[a] = scales[a]·z[a]."""
    s = check_matrix("scales", scales, ndim=1)
    return crowd(np.diag(s), beta=beta, spread=spread, binary=binary, noise=noise, costs=costs, name=name)


def correlated_crowd(scales, rho: float, beta, *, spread=None, binary=None, noise: float = 0.0, costs=None,
                     name: str = "correlated") -> Crowd:
    """One shared factor: μ[a] = scales[a]·(√ρ·z₀ + √(1 − ρ)·z_a) for ρ ∈ [0, 1], so that
    Σ[a, a'] = ρ·scales[a]·scales[a'] off the diagonal (not diagonal when ρ > 0)."""
    s = check_matrix("scales", scales, ndim=1)
    rho = check_real("rho", rho, low=0.0, high=1.0)
    d = s.shape[0]
    A = np.zeros((d, d + 1))
    A[:, 0] = s * np.sqrt(rho)
    A[np.arange(d), np.arange(1, d + 1)] = s * np.sqrt(1.0 - rho)
    # |μ| ≤ scales·(√ρ + √(1 − ρ)); the caller's scales must leave room for that
    return crowd(A, beta=beta, spread=spread, binary=binary, noise=noise, costs=costs, name=name)


def table1_crowd(noise: float = 0.25) -> Crowd:
    """Simulated judgments modelled on the mix of the paper's Table 1 (height prediction).

    Latent factors: gender, height, build and two nuisance factors. Features: binary attributes
    that are useful and stable (male, female), useful and noisy (tall, short), correlated with
    the useful ones but carrying little of their own (heavy, long-hair, has-beard), useless and
    stable (outdoors, wearing-glasses), useless and noisy (attractive, smiling), and one
    numerical estimate of height (real-valued, cost 4, as §4 charges a numerical judgment). The
    label is linear in the latent values of male, tall and the numerical estimate, plus noise.
    Not the paper's data (no offline copy exists); a simulation labelled as such.
    """
    names = ("male", "female", "tall", "short", "heavy", "long-hair", "has-beard", "outdoors", "wearing-glasses",
             "attractive", "smiling", "height (numerical)")
    # factors:      gender height build nuis1 nuis2
    A = np.array([[0.85, 0.00, 0.00, 0.00, 0.00],   # male: useful, stable
                  [-0.80, 0.00, 0.00, 0.05, 0.00],  # female: its mirror, slightly noisier
                  [0.15, 0.40, 0.05, 0.00, 0.00],   # tall: useful, noisy
                  [-0.10, -0.35, 0.00, 0.00, 0.05],  # short: useful, noisy
                  [0.10, 0.05, 0.50, 0.00, 0.00],   # heavy: build
                  [-0.55, 0.00, 0.00, 0.20, 0.00],  # long-hair: gender proxy
                  [0.45, 0.00, 0.05, 0.00, 0.10],   # has-beard: gender proxy
                  [0.00, 0.00, 0.00, 0.90, 0.00],   # outdoors: useless, stable
                  [0.00, 0.00, 0.00, 0.00, 0.85],   # wearing-glasses: useless, stable
                  [0.00, 0.05, -0.05, 0.00, 0.15],  # attractive: useless, noisy
                  [0.00, 0.00, 0.00, 0.10, 0.10],   # smiling: useless, noisy
                  [0.12, 0.42, 0.03, 0.00, 0.00]])  # height (numerical): useful, real-valued
    spread = np.zeros(12)
    spread[11] = 0.4
    binary = np.ones(12, dtype=bool)
    binary[11] = False
    beta = np.zeros(12)
    beta[0], beta[2], beta[11] = 0.15, 0.45, 0.55
    costs = np.ones(12, dtype=np.int64)
    costs[11] = 4
    return crowd(A, beta=beta, spread=spread, binary=binary, noise=noise, costs=costs, names=names,
                 name="table1 (simulated)")


# ---------------------------------------------------------------------- exact laws (small binary crowds)
def binary_object_law(loadings, beta, noise, reps, *, offset=None, beta0=0):
    """Every outcome of one object of a crowd whose features are all binary, in Fractions.

    Enumerates z ∈ {±1}^q, every sequence of reps[a] judgments ±1 of each feature a (with
    P(+1) = (1 + μ[a])/2) and the label noise ±η. Yields (probability, judgments, y) with
    ``judgments`` a tuple of d tuples. The slow, obviously-correct reference of the kernels
    (parameters given as Fractions or as floats, which are exact rationals).
    """
    from fractions import Fraction
    from itertools import product

    A = [[Fraction(x) for x in row] for row in loadings]
    d, q = len(A), len(A[0])
    off = [Fraction(0)] * d if offset is None else [Fraction(x) for x in offset]
    bet, eta, b0 = [Fraction(x) for x in beta], Fraction(noise), Fraction(beta0)
    reps = [int(x) for x in reps]
    signs = (Fraction(-1), Fraction(1))
    for z in product(signs, repeat=q):
        pz = Fraction(1, 2**q)
        mu = [off[a] + sum((A[a][j] * z[j] for j in range(q)), Fraction(0)) for a in range(d)]
        mean_y = b0 + sum((bet[a] * mu[a] for a in range(d)), Fraction(0))
        per_feature = []
        for a in range(d):
            up = (1 + mu[a]) / 2
            per_feature.append([(tuple(s), _prod(up if x > 0 else 1 - up for x in s))
                                for s in product(signs, repeat=reps[a])])
        for combo in product(*per_feature):
            pj = _prod(p for _, p in combo)
            if pj == 0:
                continue
            judgments = tuple(s for s, _ in combo)
            for eps in (signs if eta else (Fraction(0),)):
                pe = Fraction(1, 2) if eta else Fraction(1)
                yield pz * pj * pe, judgments, mean_y + eta * eps


def _prod(values):
    from fractions import Fraction

    out = Fraction(1)
    for v in values:
        out *= v
    return out
