"""One registry of named designs, by setting: the designs, registered in the catalogue that looks them up
(:mod:`.catalogue`).

A setting fixes the theorems' hypotheses on x: ``"ridge"`` (‖x‖₂ ≤ 1, hk12 §3.1),
``"lasso"`` (‖x‖∞ ≤ 1, cbss11 §5–6 and hk12 §3.2). A design is built from a claim's
parameters (``d``, ``B``, ``noise``, ``rho``, ``s`` as it needs) by :func:`build_design`, and
every design follows :class:`theorycheck.protocols.Design`: a sampler with a ``random_state``,
exact moments, and ``satisfies(norm, B)``. Claims list design names in their profiles; a user's
``design`` subject receives the same (params, name) and may return any object of that protocol.

Besides the benign designs (equal or 1-sparse non-negative weights), the registry holds
adversarial ones that exercise what a wrong estimator gets wrong: mixed signs and unequal
weights (a sign error in an inner-product estimate shows), |y| = B exactly (the range the
lemmas' constants are built for), correlated attributes, and an active constraint (the
unconstrained minimiser outside the ball, so that a missing projection shows).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from .catalogue import SETTINGS, build_design, describe_designs, design_names, register_design  # noqa: F401
from .designs import Design, correlated_design, product_sign_design, sparse_lasso_design


def ridge_design(params: dict, name: str) -> Design:
    """The default ``design`` subject of the Ridge claims: (params, name) → Design."""
    return build_design("ridge", name, params)


def lasso_design(params: dict, name: str) -> Design:
    """The default ``design`` subject of the Lasso claims: (params, name) → Design."""
    return build_design("lasso", name, params)


@dataclasses.dataclass(frozen=True, eq=False)
class SignFlipped:
    """A design with the sign of some attributes flipped: x' = S·x for S = diag(signs).

    S is orthogonal and keeps every norm of x, so the hypotheses and the risk landscape are those
    of ``base`` (a learner's excess risk at S·w equals the base's at w), while w*' = S·w* has the
    signs of ``signs``: a design whose w* is non-negative becomes one with mixed signs and keeps
    everything else, including how far the trivial learner is from w*. Exact moments:
    E[x'x'ᵀ] = SΣS, E[x'y] = S·E[xy], E[y²] unchanged.
    """

    base: Design
    signs: np.ndarray
    name: str

    @property
    def d(self) -> int:
        return self.base.d

    def __getattr__(self, attr):  # the declared bounds and parameters of the base design
        if attr in ("x_bound_l2", "x_bound_linf", "y_bound", "y_second_moment", "params"):
            return getattr(self.base, attr)
        raise AttributeError(attr)

    @property
    def second_moment(self) -> np.ndarray:
        return self.signs[:, None] * self.base.second_moment * self.signs[None, :]

    @property
    def cross_moment(self) -> np.ndarray:
        return self.signs * self.base.cross_moment

    @property
    def w_star(self) -> np.ndarray:
        return self.signs * self.base.w_star

    @property
    def moments(self) -> tuple[np.ndarray, np.ndarray, float]:
        return self.second_moment, self.cross_moment, self.y_second_moment

    def sample(self, n, random_state) -> tuple[np.ndarray, np.ndarray]:
        X, y = self.base.sample(n, random_state)
        return X * self.signs[None, :], y

    def satisfies(self, norm: str, B) -> bool:
        return self.base.satisfies(norm, B)


def alternating_signs(d: int) -> np.ndarray:
    """(−1, +1, −1, +1, ...): the first attribute flipped, so a 1-sparse w* turns negative."""
    return np.array([(-1.0) ** (i + 1) for i in range(d)])


def mixed_weights(d: int) -> np.ndarray:
    """Unequal weights of alternating sign, (+1, −2, +3, −4, ...)/d: no two |w_i| are equal."""
    return np.array([(-1.0) ** i * (i + 1) for i in range(d)]) / d


# ------------------------------------------------------------------------------ both settings
# The same constructions scaled to the setting's norm: ‖x‖₂ ≤ 1 (ridge) or ‖x‖∞ ≤ 1 (lasso).
def _correlated(norm, p, w=None):
    return correlated_design(p["d"], rho=p["rho"], norm=norm, B=p["B"], noise=p["noise"], w=w)


for _setting, _norm in (("ridge", "l2"), ("lasso", "linf")):
    register_design(_setting, "correlated", "equicorrelated sign attributes (correlation rho), equal weights, "
                    "noisy labels")(functools.partial(_correlated, _norm))
    register_design(_setting, "mixed", "independent sign attributes, unequal weights of alternating sign, noisy "
                    "labels")(lambda p, norm=_norm: product_sign_design(p["d"], norm=norm, B=p["B"], noise=p["noise"],
                                                                       w=mixed_weights(p["d"])))
    register_design(_setting, "correlated_mixed", "equicorrelated attributes with unequal weights of alternating "
                    "sign")(lambda p, norm=_norm: _correlated(norm, p, mixed_weights(p["d"])))


# ------------------------------------------------------------------------------ ridge (l2)
@register_design("ridge", "boundary", "x uniform on {±1/√d}^d, y = B·√d·x_1 = ±B: |y| = B always, and the "
                 "unconstrained minimiser B√d·e_1 lies outside the ball, so the constraint is active at w* = B·e_1")
def _ridge_boundary(p):
    d, B = p["d"], p["B"]
    e1 = np.zeros(d)
    e1[0] = 1.0
    base = product_sign_design(d, norm="l2", B=B * math.sqrt(d), noise=0.0, w=e1)
    return dataclasses.replace(base, name="boundary", y_bound=B, params={"d": d, "B": B, "target": "B*sign(x_1)"})


@register_design("ridge", "product_sign", "independent sign attributes, equal weights, noisy labels (a weak test: "
                 "L(0) − L(w*) is small)")
def _ridge_product(p):
    return product_sign_design(p["d"], norm="l2", B=p["B"], noise=p["noise"])


@register_design("ridge", "correlated_signed", "the 'correlated' design with every other attribute's sign flipped: "
                 "w* has mixed signs, and L(w_1) − L(w*) stays as large as on 'correlated' at any d")
def _ridge_correlated_signed(p):
    return SignFlipped(_correlated("l2", p), alternating_signs(p["d"]), "correlated_signed")


# ------------------------------------------------------------------------------ lasso (l1)
@register_design("lasso", "sparse", "sign attributes, s equal non-zero weights, noisy labels")
def _lasso_sparse(p):
    return sparse_lasso_design(p["d"], p["s"], B=p["B"], noise=p["noise"])


@register_design("lasso", "sparse_signed", "the 'sparse' design with every other attribute's sign flipped: w* has "
                 "mixed signs (a 1-sparse w* is negative)")
def _lasso_sparse_signed(p):
    return SignFlipped(_lasso_sparse(p), alternating_signs(p["d"]), "sparse_signed")


@register_design("lasso", "sparse-uniform", "attributes uniform on [−1, 1], s equal non-zero weights, noisy labels")
def _lasso_sparse_uniform(p):
    return sparse_lasso_design(p["d"], p["s"], B=p["B"], noise=p["noise"], x_dist="uniform")


@register_design("lasso", "product", "independent sign attributes, dense equal weights, noisy labels")
def _lasso_product(p):
    return product_sign_design(p["d"], norm="linf", B=p["B"], noise=p["noise"])


@register_design("lasso", "label_bound", "sign attributes, y = B·x_1 exactly: |y| = B on every example and w* = B·e_1 "
                 "on the sphere of the L1 ball")
def _lasso_label_bound(p):
    return sparse_lasso_design(p["d"], 1, B=p["B"], noise=0.0)


@register_design("lasso", "boundary", "x uniform on {±1/√d}^d (so ‖x‖∞ ≤ 1), y = B·√d·x_1 = ±B: the unconstrained "
                 "minimiser B√d·e_1 has ‖·‖₁ = B√d > B, so the L1 constraint is active at w* = B·e_1")
def _lasso_boundary(p):
    return _ridge_boundary(p)


# ------------------------------------------------------------------------------ ks15 §5.1 (both settings)
# The decaying-moment family u_i = i^α: as printed (it breaks ‖x‖₂ ≤ 1 and |y| ≤ B; the experiments use
# it) and bounded (the hypotheses hold, same second-moment profile, so the same ratios ρ). New keys, read
# with defaults so that existing claims are unaffected: alpha (default −1.0), w_seed (default 0).
from .decaying import decaying_bounded_design, decaying_design  # noqa: E402


def _decaying(setting, p):
    return decaying_design(p["d"], p.get("alpha", -1.0), setting=setting, w_seed=p.get("w_seed", 0))


def _decaying_bounded(setting, p):
    return decaying_bounded_design(p["d"], p.get("alpha", -1.0), setting=setting, B=p["B"], noise=p["noise"],
                                   w_seed=p.get("w_seed", 0))


register_design("ridge", "decaying", "ks15 §5.1 as printed: x_i ~ Bernoulli(u_i), u = i^alpha/‖i^alpha‖₂ when that "
                "exceeds 1, y = ⟨w*, x⟩ with w* uniform on {±1}^d (from w_seed), no noise; breaks ‖x‖₂ ≤ 1 and "
                "|y| ≤ B (B and noise unused)")(functools.partial(_decaying, "ridge"))
register_design("ridge", "decaying_bounded", "ks15 §5.1's profile with the hypotheses: x_i = √v_i·Bernoulli(½), "
                "v = u/Σu (so ‖x‖₂ ≤ 1, E[x²] ∝ u), w* = B(1 − noise)·√v along E[x], noisy labels")(
    functools.partial(_decaying_bounded, "ridge"))
register_design("lasso", "decaying", "ks15 §5.1 as printed: x_i ~ Bernoulli(i^alpha), y = ⟨w*, x⟩ with w* in "
                "{−1, 0, 1} w.p. 0.15/0.7/0.15 (from w_seed), no noise; |y| may exceed B (B and noise unused)")(
    functools.partial(_decaying, "lasso"))
register_design("lasso", "decaying_bounded", "ks15 §5.1's attributes x_i ~ Bernoulli(i^alpha), w* = B(1 − noise)·"
                "(1, −½, ¼)/1.75 on the first three attributes, noisy labels: ‖x‖∞ ≤ 1 and |y| ≤ B")(
    functools.partial(_decaying_bounded, "lasso"))


# ------------------------------------------------------------------------------ ks15: one dominant attribute
# Where distribution-dependent sampling gains most (streaming.spiked_stream): x_1 = ±a carries all but `tail` of
# E‖x‖², the other d − 1 attributes share `tail`; y = B(1 − noise)·x_1 + noise·B·ξ. New key: tail (default 10⁻³).
from .streaming import spiked_stream  # noqa: E402


def _spiked(setting, p):
    return spiked_stream(1, p["d"], setting=setting, B=p["B"], noise=p["noise"], tail=p.get("tail", 1e-3),
                         random_state=0)


register_design("ridge", "spiked", "independent signs, x_1 = ±√(1 − tail), the others ±√(tail/(d − 1)) (‖x‖₂ = 1), "
                "y = B(1 − noise)·x_1 + noise: one attribute carries almost every second moment")(
    functools.partial(_spiked, "ridge"))
register_design("lasso", "spiked", "independent signs, x_1 = ±1, the others ±√(tail/(d − 1)) (‖x‖∞ = 1), "
                "y = B(1 − noise)·x_1 + noise: one attribute carries almost every second moment")(
    functools.partial(_spiked, "lasso"))
