"""Exact population risk and the constrained optimum of least squares.

With the moments Σ = E[xxᵀ], c = E[xy] and s = E[y²] of a distribution of (x, y), the
population squared loss of a linear predictor is the quadratic

    L(w) = E[(⟨w, x⟩ − y)²] = wᵀΣw − 2wᵀc + s                  (cbss11's convention)

or half of it (hk12, ks15: ℓ(ŷ, y) = ½(ŷ − y)²; pass ``half=True``). The theorems compare a
learner's output with the best predictor in a norm ball {‖w‖_p ≤ B}, p = 2 (Ridge) or
p = 1 (Lasso); :func:`constrained_optimum` computes that minimiser to high accuracy and
:func:`excess_risk` the exact excess risk of any w (or of a stack of them).

Moments are given either as a :class:`theorycheck.generators.designs.Design` or as a tuple
(Σ, c, s).

The module also holds the certified optimiser the uniform-deviation lemmas need:
:func:`l1_ball_sup_abs_quadratic`, the supremum of |q| over the L1 ball for a quadratic q that
may be indefinite (cbss11 Lemma 10), exact by enumeration of the faces or bracketed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import sparse
from scipy.optimize import brentq

from .projections import project_l1_ball
from .validation import ParameterError, check_int, check_matrix, check_real

__all__ = ["constrained_optimum", "excess_risk", "l1_ball_sup_abs_quadratic", "risk"]

_EPS = np.finfo(np.float64).eps
_TINY = np.finfo(np.float64).tiny
_NORMS = ("l2", "l1")


# --------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------


def _moments(obj) -> tuple[np.ndarray, np.ndarray, float]:
    """(Σ, c, s) from a Design or a 3-tuple, checked and with Σ symmetrised."""
    if hasattr(obj, "second_moment") and hasattr(obj, "cross_moment"):
        sigma, c, s = obj.second_moment, obj.cross_moment, obj.y_second_moment
    elif isinstance(obj, (tuple, list)) and len(obj) == 3:
        sigma, c, s = obj
    else:
        raise ParameterError(
            "moments must be a Design or a tuple (E[xx^T], E[xy], E[y^2]), "
            f"got {type(obj).__name__}"
        )
    sigma = check_matrix("E[xx^T]", sigma, ndim=2)
    d = sigma.shape[0]
    if sigma.shape != (d, d) or d < 1:
        raise ParameterError(f"E[xx^T] must be a non-empty square matrix, got shape {sigma.shape}")
    c = check_matrix("E[xy]", c, ndim=1)
    if c.shape != (d,):
        raise ParameterError(f"E[xy] must have length d={d} like E[xx^T], got {c.shape[0]}")
    s = check_real("E[y^2]", s, low=0.0)
    scale = float(np.max(np.abs(sigma)))
    if np.max(np.abs(sigma - sigma.T)) > 1e-10 * scale:
        raise ParameterError("E[xx^T] must be symmetric")
    return 0.5 * (sigma + sigma.T), c, s


def _weights(w, d: int) -> tuple[np.ndarray, bool]:
    """w as a (r, d) array, and whether it was a single vector."""
    try:
        ndim = np.ndim(w)
    except (TypeError, ValueError):  # ragged nesting
        raise ParameterError("w must be a numeric array of shape (d,) or (r, d)") from None
    if ndim not in (1, 2):
        raise ParameterError(f"w must have shape (d,) or (r, d), got {ndim} dimension(s)")
    single = ndim == 1
    arr = check_matrix("w", w, ndim=ndim)
    if arr.shape[-1] != d:
        raise ParameterError(f"w must have d={d} entries per vector, got shape {arr.shape}")
    return (arr[None, :] if single else arr), single


def _check_norm(norm) -> str:
    if norm not in _NORMS:
        raise ParameterError(f"norm must be 'l2' (Ridge) or 'l1' (Lasso), got {norm!r}")
    return norm


def _ball_norm(w: np.ndarray, norm: str) -> float:
    return float(np.linalg.norm(w, ord=2 if norm == "l2" else 1))


# --------------------------------------------------------------------------------------
# risk
# --------------------------------------------------------------------------------------


def _quadratic(W: np.ndarray, sigma: np.ndarray, c: np.ndarray, s: float) -> np.ndarray:
    return np.einsum("ij,ij->i", W @ sigma, W) - 2.0 * (W @ c) + s


def risk(w, design_or_moments, *, half: bool = False):
    """Population squared loss of the linear predictor(s) w.

    Parameters
    ----------
    w : array_like, shape (d,) or (r, d)
        One weight vector or a stack of r vectors.
    design_or_moments : Design or tuple (Σ, c, s)
        The distribution, through its moments E[xxᵀ], E[xy], E[y²].
    half : bool
        Return ½ L(w) (the loss ½(ŷ − y)² of hk12 and ks15) instead of L(w).

    Returns
    -------
    float or ndarray of shape (r,)
        L(w) = wᵀΣw − 2wᵀc + s (or half of it).
    """
    sigma, c, s = _moments(design_or_moments)
    W, single = _weights(w, c.shape[0])
    out = _quadratic(W, sigma, c, s)
    if half:
        out = 0.5 * out
    return float(out[0]) if single else out


# --------------------------------------------------------------------------------------
# constrained optimum
# --------------------------------------------------------------------------------------


def _spectrum(sigma: np.ndarray, c: np.ndarray):
    """Eigen-decomposition with numerically-zero eigenvalues set to 0.

    Returns (lam, Q, c_hat, pos): Σ ≈ Q diag(lam) Qᵀ, c_hat = Qᵀc with its components on
    the null space zeroed when they are at the level of round-off, pos = lam > 0.
    """
    d = sigma.shape[0]
    diagonal = np.diag(sigma)
    if np.count_nonzero(sigma) == np.count_nonzero(diagonal):  # diagonal Σ: its own decomposition, no O(d³) solve
        order = np.argsort(diagonal, kind="stable")
        lam, Q = diagonal[order].copy(), sparse.identity(d, format="csr")[:, order]  # a permutation
    else:
        lam, Q = np.linalg.eigh(sigma)
    lam_max = max(float(lam[-1]), 0.0)
    if lam[0] < -1e-9 * max(lam_max, _TINY):
        raise ParameterError(
            f"E[xx^T] must be positive semi-definite (smallest eigenvalue {lam[0]:.3g})"
        )
    lam = np.where(lam > d * _EPS * lam_max, lam, 0.0)
    pos = lam > 0.0
    c_hat = Q.T @ c
    # A genuine moment pair has c in the range of Σ (Σv = 0 ⇒ ⟨v, x⟩ = 0 a.s. ⇒ ⟨v, c⟩ = 0);
    # null-space components of the size of round-off are dropped. This changes the
    # objective on the ball by at most 2B·|dropped| ≤ ~1e-13·B·‖c‖.
    null = ~pos
    if np.any(null) and np.linalg.norm(c_hat[null]) <= 64.0 * d * _EPS * np.linalg.norm(c):
        c_hat = np.where(null, 0.0, c_hat)
    return lam, Q, c_hat, pos


def _l2_optimum(lam, Q, c_hat, pos, B):
    """Trust-region subproblem min wᵀΣw − 2cᵀw over ‖w‖₂ ≤ B (Σ ⪰ 0)."""
    null_mass = float(np.linalg.norm(c_hat[~pos]))
    inner = np.where(pos, c_hat / np.where(pos, lam, 1.0), 0.0)
    if null_mass == 0.0 and np.linalg.norm(inner) <= B:
        return Q @ inner  # the minimum-norm unconstrained minimiser Σ⁺c
    # Boundary: w(μ) = (Σ + μI)⁻¹c with μ > 0 and ‖w(μ)‖₂ = B. ‖w(μ)‖ decreases in μ, so the
    # secular function f(μ) = 1/B − 1/‖w(μ)‖ decreases from f(0⁺) > 0 (‖w(0⁺)‖ > B, or = ∞
    # when c has a component on the null space) to f(μ_hi) ≤ 0 at μ_hi = ‖c‖/B (there
    # ‖w‖ ≤ ‖c‖/μ = B). f is nearly linear in μ (Moré & Sorensen 1983), so Brent's method
    # converges in a few steps.

    def f(mu):
        if mu == 0.0:
            if null_mass > 0.0:
                return 1.0 / B
            return 1.0 / B - 1.0 / float(np.linalg.norm(inner))
        return 1.0 / B - 1.0 / float(np.linalg.norm(c_hat / (lam + mu)))

    mu_hi = float(np.linalg.norm(c_hat)) / B
    if f(mu_hi) >= 0.0:
        mu = mu_hi
    else:
        mu = brentq(f, 0.0, mu_hi, xtol=1e-300, rtol=4.0 * _EPS, maxiter=1000)
    if mu == 0.0:  # only when ‖Σ⁺c‖ = B up to rounding and c ∈ range(Σ)
        w = Q @ inner
    else:
        w = Q @ (c_hat / (lam + mu))
    return w * (B / float(np.linalg.norm(w)))  # μ > 0 ⇒ the constraint is active


def _l1_gap(sigma, c, w, B) -> float:
    """Frank–Wolfe duality gap ⟨g, w⟩ + B‖g‖∞ ≥ L(w) − min over the L1 ball, g = ∇L(w)."""
    g = 2.0 * (sigma @ w - c)
    return float(g @ w + B * np.max(np.abs(g)))


def _l1_polish(sigma, c, w, B):
    """Solve the KKT system on the support and signs of w; return feasible candidates."""
    d = w.shape[0]
    support = np.nonzero(w)[0]
    out = []
    if support.size == 0:
        return out
    signs = np.sign(w[support])
    S = sigma[np.ix_(support, support)]
    # (a) active constraint: 2Σ_SS w_S + ν·σ = 2c_S, σᵀw_S = B
    m = support.size
    K = np.zeros((m + 1, m + 1))
    K[:m, :m] = 2.0 * S
    K[:m, m] = signs
    K[m, :m] = signs
    rhs = np.concatenate([2.0 * c[support], [B]])
    sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
    cand = np.zeros(d)
    cand[support] = sol[:m]
    if np.all(cand[support] * signs >= 0.0):
        n1 = float(np.abs(cand).sum())
        if n1 > 0.0:
            out.append(cand * (B / n1))
    # (b) inactive constraint: Σ_SS w_S = c_S
    cand = np.zeros(d)
    cand[support] = np.linalg.lstsq(S, c[support], rcond=None)[0]
    if np.abs(cand).sum() <= B:
        out.append(cand)
    return out


def _l1_optimum(sigma, c, lam, Q, c_hat, pos, B, target, max_iter):
    """min wᵀΣw − 2cᵀw over ‖w‖₁ ≤ B: FISTA with adaptive restart and an active-set
    polish, stopped by the Frank–Wolfe duality gap."""
    lam_max = float(lam[-1])
    if lam_max == 0.0:  # Σ = 0: a linear objective, minimised at a vertex
        w = np.zeros_like(c)
        j = int(np.argmax(np.abs(c)))
        if c[j] != 0.0:
            w[j] = B * np.sign(c[j])
        return w
    if not np.any(c_hat[~pos]):
        inner = Q @ np.where(pos, c_hat / np.where(pos, lam, 1.0), 0.0)
        if np.abs(inner).sum() <= B and _l1_gap(sigma, c, inner, B) <= target:
            return inner
        x = project_l1_ball(inner, B)
    else:
        x = np.zeros_like(c)
    best, best_gap = x, _l1_gap(sigma, c, x, B)
    if best_gap <= target:
        return best
    step = 1.0 / (2.0 * lam_max)
    y = x.copy()
    t = 1.0
    last_pattern = polished_pattern = b""
    for it in range(1, max_iter + 1):
        x_new = project_l1_ball(y - step * 2.0 * (sigma @ y - c), B)
        # gradient-based adaptive restart (O'Donoghue & Candès 2015)
        if (y - x_new) @ (x_new - x) > 0.0:
            t = 1.0
        t_new = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        y = x_new + ((t - 1.0) / t_new) * (x_new - x)
        x, t = x_new, t_new
        if it % 10 == 0:
            gap = _l1_gap(sigma, c, x, B)
            if gap < best_gap:
                best, best_gap = x, gap
            if gap <= target:
                return x
            # polish once per support/sign pattern, when it has held for 10 iterations
            pattern = np.sign(x).astype(np.int8).tobytes()
            stable = pattern == last_pattern and pattern != polished_pattern
            last_pattern = pattern
            if not stable:
                continue
            polished_pattern = pattern
            for cand in _l1_polish(sigma, c, x, B):
                gap = _l1_gap(sigma, c, cand, B)
                if gap < best_gap:
                    best, best_gap = cand, gap
                if gap <= target:
                    return cand
    raise RuntimeError(
        f"constrained_optimum(norm='l1') did not reach the duality gap {target:.3g} in "
        f"{max_iter} iterations (best gap {best_gap:.3g}); raise tol or max_iter"
    )


def constrained_optimum(
    moments, B, *, norm: str = "l2", tol=1e-12, half: bool = False, max_iter=100_000
) -> tuple[np.ndarray, float]:
    """The minimiser of the population risk over the ball {‖w‖_p ≤ B}.

    Parameters
    ----------
    moments : Design or tuple (Σ, c, s)
        E[xxᵀ] (symmetric positive semi-definite), E[xy], E[y²].
    B : float
        Radius of the ball, B > 0.
    norm : {"l2", "l1"}
        The ball of Ridge (p = 2) or Lasso (p = 1).
    tol : float
        Relative accuracy for ``norm="l1"``: the iteration stops once the Frank–Wolfe
        duality gap, an upper bound on L(w) − min L, is at most
        tol·max(E[y²], 2B‖c‖∞, B²·max Σ_ii), the size of L's variation on the ball.
        ``norm="l2"`` is solved in closed form up to a scalar root (accurate to rounding).
    half : bool
        Report ½ L at the optimum (hk12/ks15 convention) instead of L.
    max_iter : int
        Iteration limit for ``norm="l1"`` (RuntimeError if the gap is not reached).

    Returns
    -------
    w_opt : ndarray, shape (d,)
        A minimiser (for ``"l2"``, the minimum-norm one when the objective is flat).
    risk_opt : float
        L(w_opt), or ½ L(w_opt) when ``half``.

    Notes
    -----
    L2: with Σ = Q diag(λ) Qᵀ and ĉ = Qᵀc, if c ∈ range(Σ) and ‖Σ⁺c‖₂ ≤ B the optimum is
    Σ⁺c; otherwise it is (Σ + μI)⁻¹c with the Lagrange multiplier μ > 0 found by Brent's
    method on 1/B − 1/‖(Σ + μI)⁻¹c‖₂ = 0 (the trust-region subproblem; Σ may be singular).
    L1: accelerated projected gradient (FISTA, step 1/(2λ_max), adaptive restart) from the
    projection of Σ⁺c; once the support and signs of the iterate have been stable for 10
    iterations, the KKT system on them is solved exactly, and the first iterate or
    candidate whose duality gap meets the target is returned.
    """
    sigma, c, s = _moments(moments)
    B = check_real("B", B, low=0.0, strict_low=True)
    norm = _check_norm(norm)
    tol = check_real("tol", tol, low=0.0, high=1.0, strict_low=True)
    max_iter = check_int("max_iter", max_iter, low=1)
    lam, Q, c_hat, pos = _spectrum(sigma, c)
    if norm == "l2":
        w = _l2_optimum(lam, Q, c_hat, pos, B)
    else:
        scale = max(s, 2.0 * B * float(np.max(np.abs(c))), B * B * float(np.max(np.diag(sigma))))
        target = tol * max(scale, _TINY)
        w = _l1_optimum(sigma, c, lam, Q, c_hat, pos, B, target, max_iter)
    value = float(_quadratic(w[None, :], sigma, c, s)[0])
    return w, (0.5 * value if half else value)


def excess_risk(w, moments, B, *, norm: str, half: bool = False, optimum=None):
    """L(w) − min over {‖v‖_p ≤ B} of L(v), for one w or a stack of them.

    Parameters
    ----------
    w : array_like, shape (d,) or (r, d)
        Predictor(s) to evaluate. They are not required to lie in the ball (a w outside
        it may have negative excess risk, which is itself evidence of a missing projection).
    moments : Design or tuple (Σ, c, s)
    B : float
        Radius of the ball, B > 0.
    norm : {"l2", "l1"}
    half : bool
        Use the ½-scaled loss of hk12/ks15.
    optimum : tuple (w_opt, risk_opt), optional
        The result of :func:`constrained_optimum` for these moments, B and norm, to avoid
        solving again (only w_opt is used).

    Returns
    -------
    float or ndarray of shape (r,)

    Notes
    -----
    Computed as the exact expansion L(w) − L(w*) = 2⟨Σw* − c, Δ⟩ + ΔᵀΣΔ with Δ = w − w*,
    which avoids the cancellation of subtracting two nearly equal risks.
    """
    sigma, c, s = _moments(moments)
    B = check_real("B", B, low=0.0, strict_low=True)
    norm = _check_norm(norm)
    W, single = _weights(w, c.shape[0])
    if optimum is None:
        w_opt, _ = constrained_optimum((sigma, c, s), B, norm=norm)
    else:
        try:
            w_opt = check_matrix("optimum[0]", optimum[0], ndim=1)
        except (TypeError, IndexError, KeyError):
            raise ParameterError("optimum must be the tuple (w_opt, risk_opt)") from None
        if w_opt.shape != c.shape:
            raise ParameterError(f"optimum[0] must have length d={c.shape[0]}")
        if _ball_norm(w_opt, norm) > B * (1.0 + 1e-9):
            raise ParameterError(f"optimum[0] lies outside the {norm} ball of radius B={B}")
    delta = W - w_opt[None, :]
    out = 2.0 * (delta @ (sigma @ w_opt - c)) + np.einsum("ij,ij->i", delta @ sigma, delta)
    if half:
        out = 0.5 * out
    return float(out[0]) if single else out


# --------------------------------------------------------------------------------------
# the supremum of |quadratic| over the L1 ball
# --------------------------------------------------------------------------------------


def _quadratic_form_values(W, E, e, c):
    return ((W @ E) * W).sum(axis=1) - W @ e + c


def _face_candidates(E, e, B, supports, signs):
    """Critical points of q on the faces conv{B σ_i e_i : i ∈ S}, for a batch of supports S
    (rows of ``supports``) and every sign pattern σ (rows of ``signs``); returns the feasible
    ones (in the face) as an (n, d) array."""
    d = e.shape[0]
    n, s = supports.shape
    n_sig = signs.shape[0]
    M = np.zeros((n, n_sig, s + 1, s + 1))
    M[..., :s, :s] = 2.0 * E[supports[:, :, None], supports[:, None, :]][:, None]
    M[..., :s, s] = -signs[None]
    M[..., s, :s] = signs[None]
    rhs = np.zeros((n, n_sig, s + 1))
    rhs[..., :s] = e[supports][:, None, :]
    rhs[..., s] = B
    sol = np.einsum("...ij,...j->...i", np.linalg.pinv(M), rhs)[..., :s]
    signed = signs[None] * sol
    ok = np.all(signed >= -1e-9 * B, axis=-1) & np.all(np.isfinite(sol), axis=-1)
    mags = np.maximum(signed[ok], 0.0)
    total = mags.sum(axis=-1)
    good = total > 0.0
    mags = mags[good] * (B / total[good, None])
    rows = np.broadcast_to(supports[:, None, :], (n, n_sig, s))[ok][good]
    sig = np.broadcast_to(signs[None], (n, n_sig, s))[ok][good]
    W = np.zeros((mags.shape[0], d))
    np.put_along_axis(W, rows, sig * mags, axis=1)
    return W


def l1_ball_sup_abs_quadratic(E, e, c, B, *, max_face_dim=None):
    """Certified bounds on sup over ‖w‖₁ ≤ B of |q(w)|, q(w) = wᵀEw − eᵀw + c.

    This is the quantity of cbss11 Lemma 10 (E = Ā − X, e = v̄ − x̄, c = ȳ − (1/m)Σy²), where q
    may be indefinite, so neither the vertices nor a convex solver give the supremum.

    Method. E is symmetrised. The maximum of |q| over the cross-polytope is attained in the
    relative interior of some face F (the ball itself, or F = conv{B σ_i e_i : i ∈ S} for a
    support S and signs σ), at a point where the gradient of q along aff F vanishes: on the
    interior 2Ew = e; on F the linear system 2E_SS w_S − e_S = μσ, σᵀw_S = B. When that system
    is singular its solutions in relint F form an affine set on which q is constant and which
    reaches the boundary of F, so the value is also taken on a smaller face. Enumerating every
    face (3^d − 1 of them, with the interior) therefore gives the exact supremum; enumerating
    only the faces with at most ``max_face_dim`` non-zero coordinates gives a lower bound.

    Parameters
    ----------
    E : array_like, shape (d, d)
    e : array_like, shape (d,)
    c : float
    B : float
        Radius of the L1 ball, B > 0.
    max_face_dim : int or None
        Largest support size enumerated; None (or ≥ d) enumerates every face (exact).

    Returns
    -------
    lower : float
        The largest |q| over the candidates; every candidate lies in the ball, so this is a
        valid lower bound whatever the enumeration.
    upper : float
        A valid upper bound: the exact value (with a 1e-9 relative allowance for rounding) when
        every face was enumerated, otherwise Hölder's B²·min(max_rs |E_rs|, ‖E‖₂) + B‖e‖∞ + |c|.
    exact : bool
        Whether every face was enumerated.
    argmax : ndarray, shape (d,)
        The candidate attaining ``lower``.
    """
    E = check_matrix("E", E, ndim=2)
    e = check_matrix("e", e, ndim=1)
    d = e.shape[0]
    if E.shape != (d, d):
        raise ParameterError(f"E must have shape ({d}, {d}) like e, got {E.shape}")
    B = check_real("B", B, low=0.0, strict_low=True)
    c = check_real("c", c)
    E = 0.5 * (E + E.T)
    top = d if max_face_dim is None else min(check_int("max_face_dim", max_face_dim, low=0), d)
    exact = top >= d
    best, best_w = abs(c), np.zeros(d)
    w = np.linalg.pinv(2.0 * E) @ e  # the interior critical point (least squares if singular)
    if np.abs(w).sum() <= B:
        value = abs(float(_quadratic_form_values(w[None, :], E, e, c)[0]))
        if value > best:
            best, best_w = value, w
    for s in range(1, top + 1):
        supports = np.array(list(itertools.combinations(range(d), s)), dtype=np.int64)
        signs = np.array(list(itertools.product((-1.0, 1.0), repeat=s)))
        batch = max(1, 20000 // signs.shape[0])
        for start in range(0, supports.shape[0], batch):
            W = _face_candidates(E, e, B, supports[start : start + batch], signs)
            if W.shape[0] == 0:
                continue
            values = np.abs(_quadratic_form_values(W, E, e, c))
            j = int(np.argmax(values))
            if values[j] > best:
                best, best_w = float(values[j]), W[j]
    holder = B * B * min(float(np.abs(E).max()), float(np.linalg.norm(E, 2))) + B * float(np.abs(e).max()) + abs(c)
    upper = min(holder, best * (1.0 + 1e-9) + 1e-12 * holder) if exact else holder
    return best, max(upper, best), exact, best_w
