"""Learners written the way a user would write them (plain NumPy, their own random generator), to
check ``theorycheck conform``: one correct AERR and copies with the defects the conformance issue
lists. None shares code or random streams with theorycheck.algorithms."""

from __future__ import annotations

import math

import numpy as np


class MyAERR:
    """hk12 Algorithm 1 from the paper: k uniform draws for x̃ (weight d/k), one j ∝ w_j² for φ̃,
    projected gradient step, average of the iterates."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, record_trajectory=False):
        self.k, self.B, self.eta, self.random_state, self.record_trajectory = k, B, eta, random_state, record_trajectory

    # the parts a defect changes
    x_weight = None  # None: d/k (the paper)

    def inner(self, rng, w, x, y):
        """(φ̃, j read) of lines 8–9."""
        sq = float(w @ w)
        if sq == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=w * w / sq))
        return sq * x[j] / w[j] - y, j

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        eta = self.eta if self.eta is not None else B * math.sqrt(2 * k / (d * m)) / 2  # unused by conform
        rng = np.random.default_rng(self.random_state)
        w = np.zeros(d)
        ws, gs, coords, js = [], [], [], []
        n_read = 0
        for t in range(m):
            x = X[t]
            idx = rng.integers(0, d, size=k)
            xt = np.zeros(d)
            weight = d / k if self.x_weight is None else self.x_weight
            for i in idx:
                xt[i] += weight * x[i]
            phi, j = self.inner(rng, w, x, y[t])
            g = phi * xt
            ws.append(w.copy())
            gs.append(g)
            coords.append(idx)
            js.append(j)
            n_read += len(set(idx.tolist()) | ({j} if j >= 0 else set()))
            v = w - eta * g
            w = v * B / max(np.linalg.norm(v), B)
        self.coef_ = np.mean(ws, axis=0)
        self.n_attributes_seen_ = n_read
        self.eta_ = eta
        if self.record_trajectory:
            self.trajectory_ = {"w": np.array(ws), "g": np.array(gs), "coordinates": np.array(coords),
                                "j": np.array(js)}
        return self


class NoFactorD(MyAERR):
    """x̃ without the factor d: its gradient is biased by 1/d."""

    x_weight = 1.0


class ReadsEverything(MyAERR):
    """Uses the exact ⟨w, x⟩ (all d attributes) but records and counts only k + 1."""

    def inner(self, rng, w, x, y):
        sq = float(w @ w)
        if sq == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=w * w / sq))
        return float(w @ x) - y, j


class AbsDraw(MyAERR):
    """Draws j ∝ |w_j| but weights by ‖w‖²/w_j as if it had drawn ∝ w_j²: biased."""

    def inner(self, rng, w, x, y):
        l1 = float(np.abs(w).sum())
        if l1 == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=np.abs(w) / l1))
        return float(w @ w) * x[j] / w[j] - y, j


class AELRInnerProduct(MyAERR):
    """AELR's inner-product draw (j ∝ |w_j|, φ̃ = ‖w‖₁ sign(w_j) x_j − y): unbiased, another law."""

    def inner(self, rng, w, x, y):
        l1 = float(np.abs(w).sum())
        if l1 == 0.0:
            return -y, -1
        j = int(rng.choice(len(w), p=np.abs(w) / l1))
        return l1 * np.sign(w[j]) * x[j] - y, j


# ---------------------------------------------------------------------- cbss11's AER and Baseline
def project_l1(v, radius):
    """Euclidean projection onto {‖w‖₁ ≤ radius} (Duchi et al. 2008, sort-based)."""
    if np.abs(v).sum() <= radius:
        return v.copy()
    u = np.sort(np.abs(v))[::-1]
    cumulative = np.cumsum(u)
    index = np.arange(1, len(u) + 1)
    rho = np.nonzero(u * index > cumulative - radius)[0][-1]
    theta = (cumulative[rho] - radius) / (rho + 1.0)
    return np.sign(v) * np.maximum(np.abs(v) - theta, 0.0)


class MyAER:
    """cbss11 Figure 2 from the paper: v from a uniform k/2-subset without replacement (weight 2d/k),
    ŷ from k/2 independent draws i ∝ |w_i| (term (2/k)·sgn(w_i)·‖w‖₁·x_i), the Pegasos step
    w ← (1 − 1/t)w − (2/(λt))(ŷ − y)v, projection on the L1 ball, w̄ the average of the iterates
    after each update. Records w_t, g̃_t = 2(ŷ − y)v and the attributes read (``read``, −1-padded)."""

    radius_factor = 1.0  # a defect changes it

    def __init__(self, k=2, B=1.0, lam=None, random_state=None, record_trajectory=False):
        self.k, self.B, self.lam, self.random_state = k, B, lam, random_state
        self.record_trajectory = record_trajectory

    def prediction(self, rng, w, x, half):
        """(ŷ, draws) of eq. (7)."""
        cumulative = np.cumsum(np.abs(w))
        l1 = float(cumulative[-1])
        if l1 == 0.0:
            return 0.0, []
        draws = np.minimum(np.searchsorted(cumulative, rng.random(half) * l1, side="right"), len(w) - 1)
        return float((np.sign(w[draws]) * x[draws]).sum() * l1 / half), draws.tolist()

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        half = k // 2
        lam = 12.0 * d * math.sqrt(math.log(m) / (m * k)) if self.lam is None else float(self.lam)
        rng = np.random.default_rng(self.random_state)
        w, total = np.zeros(d), np.zeros(d)
        ws, gs, reads = [], [], []
        for t in range(1, m + 1):
            x = X[t - 1]
            subset = rng.permutation(d)[:half]
            v = np.zeros(d)
            v[subset] = (2.0 / k) * d * x[subset]
            y_hat, draws = self.prediction(rng, w, x, half)
            g = 2.0 * (y_hat - y[t - 1]) * v
            ws.append(w.copy())
            gs.append(g)
            reads.append(list(dict.fromkeys(subset.tolist() + draws)))
            w = project_l1((1.0 - 1.0 / t) * w - g / (lam * t), self.radius_factor * B)
            total += w
        self.coef_ = total / m
        self.lam_ = lam
        self.n_attributes_seen_ = sum(len(r) for r in reads)
        if self.record_trajectory:
            read = np.full((m, max(len(r) for r in reads)), -1, dtype=np.int64)
            for t, r in enumerate(reads):
                read[t, :len(r)] = r
            self.trajectory_ = {"w": np.array(ws), "g": np.array(gs), "read": read}
        return self


class AERTwiceTheBall(MyAER):
    """Projects onto the L1 ball of radius 2B instead of B."""

    radius_factor = 2.0


class AERReadsEverything(MyAER):
    """Uses the exact ⟨w, x⟩ (all d attributes) for ŷ, but draws, records and counts k/2 as the paper does."""

    def prediction(self, rng, w, x, half):
        _, draws = super().prediction(rng, w, x, half)
        return float(w @ x), draws


class AERReadsOneMore(MyAER):
    """Also reads the first attribute of every example (and says so), beyond AER's budget of k; it does
    not use it, so w̄ is the paper's."""

    def prediction(self, rng, w, x, half):
        y_hat, draws = super().prediction(rng, w, x, half)
        return y_hat + 0.0 * x[0], [*draws, 0]


class MyBaseline:
    """cbss11 Figure 1 from the paper: from each example a uniform k-subset C in random order (I its
    first half, J the rest), v_t = (d/k)x on C, A_t = 2d(d − 1)/k²·x_i x_j on I×J and J×I plus
    (d/k)x_c² on the diagonal (the unbiased constants); then ŵ minimises wᵀĀw − wᵀv̄ over the L1 ball
    by projected gradient from 0 (and from 10 random points when Ā is not PSD). Records A_t, v_t, C."""

    diagonal_weight = None  # None: d/k (unbiased)

    def __init__(self, k=2, B=1.0, random_state=None, record_trajectory=False):
        self.k, self.B, self.random_state, self.record_trajectory = k, B, random_state, record_trajectory

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        rng = np.random.default_rng(self.random_state)
        diagonal = d / k if self.diagonal_weight is None else self.diagonal_weight(d, k)
        As, vs, reads = np.zeros((m, d, d)), np.zeros((m, d)), np.zeros((m, k), dtype=np.int64)
        for t in range(m):
            x = X[t]
            C = rng.permutation(d)[:k]
            first, second = C[: k // 2], C[k // 2:]
            vs[t, C] = d / k * x[C]
            As[t, C, C] = diagonal * x[C] ** 2
            block = 2.0 * d * (d - 1) / k**2 * np.outer(x[first], x[second])
            As[t][np.ix_(first, second)] = block
            As[t][np.ix_(second, first)] = block.T
            reads[t] = C
        A, v = As.mean(axis=0), (2.0 * y[:, None] * vs).mean(axis=0)
        top = max(float(np.abs(np.linalg.eigvalsh(A)).max()), 1e-12)
        starts = [np.zeros(d)]
        if np.linalg.eigvalsh(A)[0] < -1e-12 * top:
            starts += [project_l1(rng.normal(size=d), B) for _ in range(10)]
        best, value = None, math.inf
        for w in starts:
            for _ in range(5000):
                step = project_l1(w - (2.0 * A @ w - v) / (2.0 * top), B)
                done = np.abs(step - w).max() <= 1e-13 * max(1.0, np.abs(w).max())
                w = step
                if done:
                    break
            f = float(w @ A @ w - w @ v)
            if f < value:
                best, value = w, f
        self.coef_ = best
        self.n_attributes_seen_ = k * m
        if self.record_trajectory:
            self.trajectory_ = {"A": As, "v": vs, "read": reads}
        return self


class BaselineDiagonalDminus1(MyBaseline):
    """The diagonal of A_t weighted (d − 1)/k instead of d/k: Ā is biased on its diagonal."""

    diagonal_weight = staticmethod(lambda d, k: (d - 1) / k)


# ---------------------------------------------------------------------- a plain AERR: scikit-learn's shape only
class PlainAERR:
    """hk12 Algorithm 1 as a user writes it: no path, no record_trajectory, no partial_fit; fit sets
    coef_ and n_attributes_seen_ (distinct attributes read per example, summed)."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None):
        self.k, self.B, self.eta, self.random_state = k, B, eta, random_state

    def step_size(self, d, m):
        return math.sqrt(self.k / (2 * d * m))  # Theorem 3.1

    def inner(self, w, x, j):
        return (w @ w) * x[j] / w[j]  # line 9: reads x[j] only

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        eta = self.step_size(d, m) if self.eta is None else float(self.eta)
        rng = np.random.default_rng(self.random_state)
        w = np.full(d, 1e-3 * B / math.sqrt(d))  # line 1: w_1 ≠ 0, ‖w_1‖ ≤ B
        total, n_read = np.zeros(d), 0
        for t in range(m):
            x = X[t]
            idx = rng.integers(0, d, size=k)  # lines 3-7
            x_tilde = np.zeros(d)
            np.add.at(x_tilde, idx, d / k * x[idx])
            j = int(rng.choice(d, p=w * w / (w @ w)))  # line 8
            g = (self.inner(w, x, j) - y[t]) * x_tilde
            total += w
            n_read += len(set(idx.tolist()) | {j})
            v = w - eta * g
            w = v * B / max(np.linalg.norm(v), B)
        self.coef_ = total / m
        self.n_attributes_seen_ = n_read
        return self


class PlainAERRReadsEverything(PlainAERR):
    """Uses the exact ⟨w, x⟩ (all d attributes) but counts k + 1 reads per example, as the paper does."""

    def inner(self, w, x, j):
        return w @ x


class PlainAERRDefaultEta(PlainAERR):
    """Its only defect: the default step size √(k/(dm)), not Theorem 3.1's √(k/(2dm))."""

    def step_size(self, d, m):
        return math.sqrt(self.k / (d * m))


#: a user's configured instance with the default-η defect (for ``--subject learner=...:PLAIN_DEFAULT_ETA``)
PLAIN_DEFAULT_ETA = PlainAERRDefaultEta(k=2)


class PlainAERRTakesRecording(PlainAERR):
    """Accepts record_trajectory=True but records nothing: the claims that need a path cannot run on it."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None, record_trajectory=False):
        super().__init__(k, B, eta, random_state)
        self.record_trajectory = record_trajectory


class MyAERRIgnoresEta(MyAERR):
    """Steps with √(k/(dm)) whatever η it is given, and says so in eta_."""

    def fit(self, X, y):
        given = self.eta
        self.eta = math.sqrt(self.k / (np.shape(X)[0] * np.shape(X)[1]))
        try:
            return super().fit(X, y)
        finally:
            self.eta = given


# ---------------------------------------------------------------------- the same plain AERR, recording its path
from theorycheck.recording import RecordsPath  # noqa: E402 (the README's example: the two lines it adds)


class RecordedAERR(RecordsPath):  # added line 1 of 2
    """PlainAERR with its path recorded by :class:`theorycheck.recording.RecordsPath`: the class inherits it
    and calls ``self.record`` once per step; nothing else differs."""

    def __init__(self, k=1, B=1.0, eta=None, random_state=None):
        self.k, self.B, self.eta, self.random_state = k, B, eta, random_state

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        eta = math.sqrt(k / (2 * d * m)) if self.eta is None else float(self.eta)  # Theorem 3.1
        rng = np.random.default_rng(self.random_state)
        w = np.full(d, 1e-3 * B / math.sqrt(d))  # line 1: w_1 ≠ 0, ‖w_1‖ ≤ B
        total, n_read = np.zeros(d), 0
        for t in range(m):
            x = X[t]
            idx = rng.integers(0, d, size=k)  # lines 3-7
            x_tilde = np.zeros(d)
            np.add.at(x_tilde, idx, d / k * x[idx])
            j = int(rng.choice(d, p=w * w / (w @ w)))  # line 8
            g = ((w @ w) * x[j] / w[j] - y[t]) * x_tilde
            self.record(w=w, g=g, read=[*idx, j], eta=eta, B=B)  # added line 2 of 2
            total += w
            n_read += len(set(idx.tolist()) | {j})
            v = w - eta * g
            w = v * B / max(np.linalg.norm(v), B)
        self.coef_ = total / m
        self.n_attributes_seen_ = n_read
        return self


# ---------------------------------------------------------------------- sk13's Scoring and Full
class MyScoring:
    """sk13 Algorithm 1, Scoring, from the paper: x̄ the mean of the k judgments, b̂ = (1/m)Σ y x̄,
    v̂ the mean over objects of the unbiased variance of the judgments (eq. (2)), σ̂² = max(0, mean x̄² − v̂/k);
    then B greedy steps, each adding the judgment of largest gain of Σ_{r>0} b̂²/(σ̂² + v̂/r) (lowest index
    first on ties). Sets r_."""

    def __init__(self, budget=10):
        self.budget = budget

    def statistics(self, J, y):
        means = J.mean(axis=2)
        m, _, k = J.shape
        v = J.var(axis=2, ddof=1).mean(axis=0)
        return means, means.T @ y / m, v, means.T @ means / m, k

    def objective(self, r, b, v, second, k):
        sigma2 = np.maximum(0.0, np.diag(second) - v / k)
        on = r > 0
        return float(np.sum(b[on] ** 2 / (sigma2[on] + v[on] / r[on])))

    def fit(self, J, y):
        J, y = np.asarray(J, dtype=float), np.asarray(y, dtype=float)
        _, b, v, second, k = self.statistics(J, y)
        r = np.zeros(J.shape[1], dtype=int)
        for _ in range(int(self.budget)):
            gains = []
            for a in range(len(r)):
                r[a] += 1
                gains.append(self.objective(r, b, v, second, k))
                r[a] -= 1
            r[int(np.argmax(gains))] += 1
        self.r_ = r
        return self


class ScoringTopFeatures(MyScoring):
    """Not greedy: ranks the features once by b̂²/(σ̂² + v̂) and deals the budget out one judgment at a time
    to the top ⌈B/2⌉ of them in turn."""

    def fit(self, J, y):
        J, y = np.asarray(J, dtype=float), np.asarray(y, dtype=float)
        _, b, v, second, k = self.statistics(J, y)
        score = [self.objective(np.eye(len(b), dtype=int)[a], b, v, second, k) for a in range(len(b))]
        top = np.argsort(score)[::-1][: max(1, math.ceil(int(self.budget) / 2))]
        r = np.zeros(len(b), dtype=int)
        for t in range(int(self.budget)):
            r[top[t % len(top)]] += 1
        self.r_ = r
        return self


class ScoringPopulationVariance(MyScoring):
    """VarEst with 1/k instead of 1/(k − 1) (numpy's default var): v̂ too small by (k − 1)/k."""

    def statistics(self, J, y):
        means, b, v, second, k = super().statistics(J, y)
        return means, b, v * (k - 1) / k, second, k


class MyFull(MyScoring):
    """sk13 Algorithm 1, Full: Σ̂ = MakePSD((1/m)Σ x̄x̄ᵀ − Diag(v̂)/k) (eigenvalues clipped at 0) and the
    objective sub_r(b̂)ᵀ sub_r(Σ̂ + Diag(v̂/r))⁺ sub_r(b̂), maximised by the same greedy steps."""

    def covariance(self, second, v, k):
        vals, vecs = np.linalg.eigh(second - np.diag(v / k))
        return (vecs * np.maximum(vals, 0.0)) @ vecs.T

    def objective(self, r, b, v, second, k):
        on = np.flatnonzero(r > 0)
        if on.size == 0:
            return 0.0
        M = self.covariance(second, v, k)[np.ix_(on, on)] + np.diag(v[on] / r[on])
        return float(b[on] @ np.linalg.pinv(M) @ b[on])


class FullDiagonal(MyFull):
    """Full that keeps only the diagonal of Σ̂: Scoring's objective under Full's name (the covariances
    between features, Full's idea, are ignored)."""

    def covariance(self, second, v, k):
        return np.diag(np.maximum(0.0, np.diag(second) - v / k))


class FullRepeatsIgnored(MyFull):
    """Full with the noise term Diag(v̂/k) of line 10 in place of Diag(v̂/r): repeats gain nothing."""

    def objective(self, r, b, v, second, k):
        return super().objective(np.where(r > 0, k, 0), b, v, second, k)


# ---------------------------------------------------------------------- reyzin11's AdaBoostRS and AdaBoostRS_AC
class MyAdaBoostRS:
    """reyzin11 from the paper: Algorithm 1 (AdaBoost) with decision stumps h(x) = s if x[j] > θ else −s
    (θ midpoints of consecutive training values, the stump of least weighted error), α_t = ½ ln((1 − ε_t)/ε_t);
    then Algorithm 2 per test example: draw stumps ∝ α while k + max c(h) < B (k the cost of the distinct
    features examined so far) and predict the sign of the unweighted vote (a tie: +1)."""

    def __init__(self, n_estimators=50, random_state=None):
        self.n_estimators, self.random_state = n_estimators, random_state

    def alpha(self, eps):
        return 0.5 * math.log((1 - eps) / eps)

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        D = np.full(m, 1.0 / m)
        stumps, alphas = [], []
        for _ in range(int(self.n_estimators)):
            best = None
            for j in range(d):
                values = np.unique(X[:, j])
                for theta in (values[:-1] + values[1:]) / 2:
                    for s in (1.0, -1.0):
                        eps = D[np.where(X[:, j] > theta, s, -s) != y].sum()
                        if best is None or eps < best[0] - 1e-12:
                            best = (eps, j, theta, s)
            eps, j, theta, s = best
            if not 0 < eps < 0.5:
                break
            h = np.where(X[:, j] > theta, s, -s)
            a = self.alpha(eps)
            stumps.append((j, theta, s))
            alphas.append(a)
            D = D * np.exp(-a * y * h)
            D /= D.sum()
        self.features_ = np.array([j for j, _, _ in stumps])
        self.thresholds_ = np.array([t for _, t, _ in stumps])
        self.polarities_ = np.array([s for _, _, s in stumps])
        self.alphas_ = np.array(alphas)
        return self

    # the parts a defect changes
    def probabilities(self, costs):
        return self.alphas_ / self.alphas_.sum()

    def increment(self, i, costs):
        return 1.0

    def keep_drawing(self, spent, top, budget):
        return spent + top < budget

    def predict(self, X, budget, costs=None):
        X = np.asarray(X, dtype=float)
        costs = np.ones(X.shape[1]) if costs is None else np.asarray(costs, dtype=float)
        rng = np.random.default_rng(self.random_state)
        p = self.probabilities(costs)
        top = costs[self.features_].max()
        out = np.empty(X.shape[0])
        for e in range(X.shape[0]):
            x, seen, spent, vote = X[e], set(), 0.0, 0.0
            while self.keep_drawing(spent, top, budget):
                i = int(rng.choice(len(p), p=p))
                j = int(self.features_[i])
                if j not in seen:
                    seen.add(j)
                    spent += costs[j]
                h = self.polarities_[i] if x[j] > self.thresholds_[i] else -self.polarities_[i]
                vote += self.increment(i, costs) * h
            out[e] = 1.0 if vote >= 0 else -1.0
        return out


class RSIgnoresAlpha(MyAdaBoostRS):
    """Draws the stumps uniformly, not ∝ α: the paper's idea (sample the vote's own weights) removed."""

    def probabilities(self, costs):
        return np.full(len(self.alphas_), 1.0 / len(self.alphas_))


class RSAlphaWithoutHalf(MyAdaBoostRS):
    """α_t = ln((1 − ε_t)/ε_t), twice Algorithm 1's: D_t moves too fast, so the later stumps differ."""

    def alpha(self, eps):
        return math.log((1 - eps) / eps)


class RSSpendsTheBudget(MyAdaBoostRS):
    """Draws while k < B (not k + max c(h) < B): it examines one more feature than the box allows."""

    def keep_drawing(self, spent, top, budget):
        return spent < budget


class MyAdaBoostRSAC(MyAdaBoostRS):
    """reyzin11 Algorithm 3: draws ∝ α/c(h) and each draw counts ±c(h) in the vote."""

    def probabilities(self, costs):
        w = self.alphas_ / costs[self.features_]
        return w / w.sum()

    def increment(self, i, costs):
        return costs[self.features_[i]]


class ACIgnoresCosts(MyAdaBoostRSAC):
    """Draws ∝ α like AdaBoostRS (votes still ±c(h)): the cost-aware sampling, Algorithm 3's idea, removed."""

    def probabilities(self, costs):
        return self.alphas_ / self.alphas_.sum()


class ACUnitVotes(MyAdaBoostRSAC):
    """Draws ∝ α/c(h) but counts each draw ±1: the importance weight c(h) of Theorem 5 forgotten."""

    def increment(self, i, costs):
        return 1.0


# ---------------------------------------------------------------------- hk12 §4: GenEst and AESVR
def my_genest(w, x, y, coefficients, B, random_state=None):
    """hk12 Procedure 3 from the paper: N = ⌈4B²⌉; n with Pr[n] = 2^-(n+1); each of the n factors is one draw
    θ̃ = ‖w‖²x_j/w_j − y with j ∝ w_j² when n ≤ 2 log₂ N, else the mean of N such draws; returns
    (2^(n+1)·aₙ·Π θ̃, queries of x)."""
    rng = np.random.default_rng(random_state)
    N = max(1, math.ceil(4 * B * B))
    n = 0
    while rng.random() < 0.5:
        n += 1
    reps = 1 if n <= 2 * math.log2(N) else N
    sq = float(w @ w)
    product, queries = 1.0, 0
    for _ in range(n):
        draws = rng.choice(len(w), size=reps, p=w * w / sq)
        product *= float(np.mean([sq * x[j] / w[j] for j in draws])) - y
        queries += reps
    a = coefficients[n] if n < len(coefficients) else 0.0
    return 2.0 ** (n + 1) * a * product, queries


def genest_uniform_queries(w, x, y, coefficients, B, random_state=None):
    """Procedure 3 with each θ̃ from a uniform j and weight d·w_j (unbiased for ⟨w, x⟩ − y, another law)."""
    rng = np.random.default_rng(random_state)
    N = max(1, math.ceil(4 * B * B))
    n = 0
    while rng.random() < 0.5:
        n += 1
    reps = 1 if n <= 2 * math.log2(N) else N
    product, queries = 1.0, 0
    for _ in range(n):
        draws = rng.integers(0, len(w), size=reps)
        product *= float(np.mean([len(w) * w[j] * x[j] for j in draws])) - y
        queries += reps
    a = coefficients[n] if n < len(coefficients) else 0.0
    return 2.0 ** (n + 1) * a * product, queries


def genest_one_draw_per_factor(w, x, y, coefficients, B, random_state=None):
    """Procedure 3 without its second branch: one draw per factor whatever n (queries n, never n·N)."""
    rng = np.random.default_rng(random_state)
    n = 0
    while rng.random() < 0.5:
        n += 1
    sq = float(w @ w)
    product = 1.0
    for _ in range(n):
        j = rng.choice(len(w), p=w * w / sq)
        product *= sq * x[j] / w[j] - y
    a = coefficients[n] if n < len(coefficients) else 0.0
    return 2.0 ** (n + 1) * a * product, n


def genest_reads_everything(w, x, y, coefficients, B, random_state=None):
    """Computes each factor from the exact ⟨w, x⟩ (all of x) but reports Procedure 3's queries."""
    rng = np.random.default_rng(random_state)
    N = max(1, math.ceil(4 * B * B))
    n = 0
    while rng.random() < 0.5:
        n += 1
    reps = 1 if n <= 2 * math.log2(N) else N
    a = coefficients[n] if n < len(coefficients) else 0.0
    return 2.0 ** (n + 1) * a * (float(w @ x) - y) ** n, n * reps


class MyAESVR:
    """hk12 Algorithm 4 from the paper: Algorithm 1's x̃ (k uniform draws, weight d/k) with
    φ̃ = ½[GenEst(w, x/ε, (y + δ)/ε) + GenEst(w, x/ε, (y − δ)/ε)], f′ = erf (eq. (7), 60 coefficients),
    GenEst's B = 2B/ε; projected step, the average of the iterates."""

    def __init__(self, k=1, B=1.0, delta=0.1, eps=1.0, eta=None, random_state=None):
        self.k, self.B, self.delta, self.eps, self.eta, self.random_state = k, B, delta, eps, eta, random_state

    coefficients = np.array([0.0 if n % 2 == 0 else 2 / math.sqrt(math.pi) * (-1) ** (n // 2)
                             / (math.factorial(n // 2) * n) for n in range(60)])

    def phi(self, w, x, y, seed):
        gB = 2 * self.B / self.eps
        plus, _ = my_genest(w, x / self.eps, (y + self.delta) / self.eps, self.coefficients, gB, seed)
        minus, _ = my_genest(w, x / self.eps, (y - self.delta) / self.eps, self.coefficients, gB, seed + 1)
        return 0.5 * (plus + minus)

    def output(self, iterates):
        return np.mean(iterates, axis=0)

    def fit(self, X, y):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        m, d = X.shape
        k, B = int(self.k), float(self.B)
        eta = B * math.sqrt(2 * k / (d * m)) if self.eta is None else float(self.eta)
        rng = np.random.default_rng(self.random_state)
        w = np.full(d, 1e-3 * B / math.sqrt(d))
        iterates = []
        for t in range(m):
            iterates.append(w.copy())
            idx = rng.integers(0, d, size=k)
            x_tilde = np.zeros(d)
            np.add.at(x_tilde, idx, d / k * X[t][idx])
            g = self.phi(w, X[t], y[t], int(rng.integers(2**31))) * x_tilde
            v = w - eta * g
            w = v * B / max(np.linalg.norm(v), B)
        self.coef_ = self.output(iterates)
        self.eta_ = eta
        return self


class AESVRUnscaled(MyAESVR):
    """Forgets Algorithm 4's scaling by 1/ε: GenEst on x and y ± δ, so f_ε′ is evaluated at ε times its argument."""

    def phi(self, w, x, y, seed):
        plus, _ = my_genest(w, x, y + self.delta, self.coefficients, 2 * self.B, seed)
        minus, _ = my_genest(w, x, y - self.delta, self.coefficients, 2 * self.B, seed + 1)
        return 0.5 * (plus + minus)


class AESVRLastIterate(MyAESVR):
    """Returns the last iterate instead of the average (line 14)."""

    def output(self, iterates):
        return iterates[-1]
