"""Explicit random streams for numba kernels.

Kernels never use numba's global ``np.random`` state. Each kernel receives a state array
(two ``uint64`` words of xoroshiro128+) created here from a ``numpy.random.SeedSequence``,
so a stream is fixed by (base seed, claim id, repetition) and does not depend on threads,
jobs or the order in which claims run.

Public helpers: :func:`kernel_state` builds a state array; the jitted ``next_*`` functions are
for use inside other kernels.

One convention for every subject. Whatever a claim checks (a learner, an estimator, a
predictor, a design) receives its randomness as one ``random_state`` argument, which may be an
int ≥ 0, a :class:`numpy.random.SeedSequence`, a :class:`numpy.random.Generator` or a kernel
state (``uint64[2]``, advanced in place so that successive calls continue one stream). Claims
pass an int or a kernel state; :func:`as_kernel_state` and :func:`as_generator` turn any of
them into what a kernel or NumPy code needs.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numba import njit

from .validation import ParameterError

_U64 = np.uint64
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53


def kernel_state(seed_sequence: np.random.SeedSequence) -> np.ndarray:
    """Return a fresh xoroshiro128+ state (``uint64[2]``) drawn from ``seed_sequence``."""
    state = seed_sequence.generate_state(2, dtype=np.uint64)
    if state[0] == 0 and state[1] == 0:  # the one forbidden state
        state[1] = _U64(0x9E3779B97F4A7C15)
    return state


def seed_sequence(random_state) -> np.random.SeedSequence:
    """Turn ``random_state`` into a :class:`numpy.random.SeedSequence`.

    Parameters
    ----------
    random_state : None, int, numpy.random.SeedSequence, numpy.random.Generator or
        numpy.random.RandomState
        ``None`` draws fresh OS entropy; an int ≥ 0 seeds a new sequence; a SeedSequence
        is used as it is (it is not advanced, so reusing it reproduces a fit); a Generator
        or RandomState is advanced to draw 128 bits of entropy.

    Returns
    -------
    numpy.random.SeedSequence
    """
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, bool | np.bool_):
        raise ParameterError(f"random_state must be None, an int or a numpy seed object, got {random_state!r}")
    if isinstance(random_state, numbers.Integral):
        seed = int(random_state)
        if seed < 0:
            raise ParameterError(f"random_state must be a non-negative int, got {seed}")
        return np.random.SeedSequence(seed)
    if isinstance(random_state, np.random.Generator):
        words = random_state.integers(0, 2**32, size=4, dtype=np.uint64)
        return np.random.SeedSequence([int(w) for w in words])
    if isinstance(random_state, np.random.RandomState):
        words = random_state.randint(0, 2**31, size=4)
        return np.random.SeedSequence([int(w) for w in words])
    raise ParameterError(
        f"random_state must be None, an int, or a numpy SeedSequence / Generator / RandomState, got {random_state!r}"
    )


def is_kernel_state(random_state) -> bool:
    """Whether ``random_state`` is a kernel state array (``uint64[2]``)."""
    return isinstance(random_state, np.ndarray) and random_state.dtype == np.uint64 and random_state.shape == (2,)


def as_kernel_state(random_state) -> np.ndarray:
    """The kernel state for ``random_state`` (see the module docstring for what it may be).

    A kernel state is returned as it is (the caller's stream advances); anything else seeds a
    fresh state through :func:`seed_sequence`'s rules.
    """
    if isinstance(random_state, np.ndarray):
        if random_state.dtype != np.uint64 or random_state.shape != (2,):
            raise ParameterError("random_state must be a uint64 array of shape (2,) from theorycheck.rng.kernel_state, "
                                 f"got dtype {random_state.dtype} and shape {random_state.shape}")
        if not random_state.flags.writeable or not random_state.flags.c_contiguous:
            raise ParameterError("random_state must be a writeable, contiguous array (it is advanced in place)")
        if random_state[0] == 0 and random_state[1] == 0:
            raise ParameterError("random_state must not be all zeros (the forbidden xoroshiro128+ state)")
        return random_state
    return kernel_state(seed_sequence(random_state))


def as_generator(random_state) -> np.random.Generator:
    """A NumPy Generator for ``random_state`` (a Generator is returned as it is)."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if is_kernel_state(random_state):
        words = [int(random_state[0]), int(random_state[1])]
        random_state[:] = kernel_state(np.random.SeedSequence(words))  # move the caller's stream on
        return np.random.default_rng(words)
    return np.random.default_rng(seed_sequence(random_state))


@njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << _U64(k)) | (x >> _U64(64 - k))


@njit(cache=True)
def next_u64(state):
    """Advance ``state`` in place and return the next 64-bit output."""
    s0 = state[0]
    s1 = state[1]
    result = s0 + s1
    s1 ^= s0
    state[0] = _rotl(s0, 24) ^ s1 ^ (s1 << _U64(16))
    state[1] = _rotl(s1, 37)
    return result


@njit(cache=True)
def next_uniform(state):
    """A float uniform on [0, 1) with 53 random bits."""
    return float(next_u64(state) >> _U64(11)) * _TWO_M53


@njit(cache=True)
def next_index(state, n):
    """An integer uniform on {0, ..., n-1} (bias below n / 2**53)."""
    return int(next_uniform(state) * n)


@njit(cache=True)
def next_sign(state):
    """A Rademacher variable: -1.0 or +1.0 with probability 1/2 each."""
    return 1.0 if (next_u64(state) >> _U64(63)) == _U64(1) else -1.0


@njit(cache=True)
def next_normal(state):
    """A standard normal variable (Box–Muller, one of the pair)."""
    u1 = next_uniform(state)
    while u1 == 0.0:
        u1 = next_uniform(state)
    u2 = next_uniform(state)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@njit(cache=True)
def next_weighted_index(state, cumulative):
    """An index i drawn with probability (cumulative[i] - cumulative[i-1]) / cumulative[-1].

    ``cumulative`` is a non-decreasing array of partial sums of non-negative weights.
    """
    u = next_uniform(state) * cumulative[-1]
    lo = 0
    hi = cumulative.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cumulative[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def cumulative_sums(weights):
    """The partial sums w_0, w_0 + w_1, ... of a 1-d float64 array: ``np.cumsum(weights)`` bit for
    bit (the same left-to-right additions), about four times faster at n = 10⁵."""
    out = np.empty_like(weights)
    total = 0.0
    for i in range(weights.shape[0]):
        total += weights[i]
        out[i] = total
    return out


@njit(cache=True)
def guide_table(cumulative):
    """The guide table of :func:`next_guided_index` for fixed partial sums (O(n) once): entry b
    is the first index whose partial sum exceeds b·total/n (Chen's indexed search), counted as the
    number of indices i < n − 1 whose bucket ⌈c_i·n/total⌉ is at most b, in two passes without
    data-dependent branches. Rounding may move an entry by a bucket's indices; the search
    (:func:`guided_search`) corrects that in both directions, so the draws never depend on it."""
    n = cumulative.shape[0]
    guide = np.empty(n, dtype=np.int64)
    total = cumulative[n - 1] if n else 0.0
    if not 0.0 < total < np.inf:
        for b in range(n):
            guide[b] = n - 1
        return guide
    count = np.zeros(n + 1, dtype=np.int64)
    scale = n / total
    for i in range(n - 1):
        count[min(math.ceil(cumulative[i] * scale), n)] += 1
    running = 0
    for b in range(n):
        running += count[b]
        guide[b] = running
    return guide


@njit(cache=True)
def guided_search(cumulative, guide, uniform):
    """The first index whose partial sum exceeds ``uniform``·total (the last index if none), found
    from the guide's entry for the uniform's bucket: a step back first, should rounding have put
    that entry past the answer, then forward."""
    n = cumulative.shape[0]
    u = uniform * cumulative[n - 1]
    b = int(uniform * n)
    i = guide[b if b < n else n - 1]
    while i > 0 and cumulative[i - 1] > u:
        i -= 1
    while i < n - 1 and cumulative[i] <= u:
        i += 1
    return i


@njit(cache=True)
def next_guided_index(state, cumulative, guide):
    """The index :func:`next_weighted_index` draws, from the same uniform, in O(1) expected time
    (``guide`` from :func:`guide_table` of the same ``cumulative``)."""
    return guided_search(cumulative, guide, next_uniform(state))


@njit(cache=True)
def sample_without_replacement(state, n, k, out):
    """Fill ``out[:k]`` with a uniformly random k-subset of {0..n-1} (partial Fisher–Yates
    on a scratch permutation kept in ``out``; ``out`` must have length n)."""
    for i in range(n):
        out[i] = i
    for i in range(k):
        j = i + next_index(state, n - i)
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp
