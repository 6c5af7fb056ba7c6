"""Tests of theorycheck.algorithms.boosting (reyzin11 Algorithms 1–3 and §6's rule).

Every kernel is compared with a slow, literal reference written below (plain Python loops over
the boxes of the paper) that consumes the same random stream: both call the jitted generators of
``theorycheck.rng`` in the same order on copies of one state, so τ, the features examined and
their cost must agree exactly.

The cross-check against scikit-learn's ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))``
has two halves:

* ``criterion="gini", weight_floor=eps`` picks scikit-learn's stump (weighted Gini split,
  majority leaves) and clips D at machine ε as scikit-learn does: the stumps' partitions of the
  training set, the staged training-error curve and the vote agree (vote to 1e-12 after the
  factor 2 of SAMME's α = ln((1−ε)/ε) = 2·Algorithm 1's α; curves exactly).
* the paper's ``criterion="error"`` (smallest weighted error) cannot agree in general: from the
  first round where the smallest-error stump and the best-Gini stump differ, the runs follow
  different D_t. The test shows, at that round and under the common D_t, that our stump has the
  smaller weighted error and scikit-learn's the better Gini score: the weak learner is the whole
  difference. Two more precise differences are checked: a perfect stump (γ = 1) gets α = ∞
  here and estimator weight 1 in scikit-learn (margins agree), and without the ε-clip the runs
  part once some D_t(i) falls below machine ε.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from theorycheck.algorithms import AdaBoostDeterministic, AdaBoostRS, AdaBoostRSAC, AdaBoostStumps
from theorycheck.rng import kernel_state, next_sign, next_weighted_index
from theorycheck.validation import ParameterError

EPS = np.finfo(float).eps
TIE = 1e-12


def _state(seed):
    return kernel_state(np.random.SeedSequence(seed))


# ---------------------------------------------------------------------------------------
# data


def _real(m=60, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] - 0.3 * X[:, 2] + 0.5 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


def _binary(m=80, d=8, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, size=(m, d)).astype(float)
    score = X[:, :4] @ np.array([4.0, 3.0, 2.0, 1.0]) - 5.0 + rng.normal(size=m)
    return X, np.where(score > 0, 1.0, -1.0)


def _levels(m=80, d=6, seed=2):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(m, d)) / 3.0
    y = np.where(X[:, 0] - X[:, 1] + 0.3 * rng.normal(size=m) > 0, 1.0, -1.0)
    return X, y


def _sk_sets():
    cancer = load_breast_cancer()
    digits = load_digits()
    keep = np.isin(digits.target, [4, 9])
    Xc, yc = make_classification(400, 15, random_state=0)
    Xb, yb = _binary(300, 20, seed=3)
    return {
        "breast_cancer": (cancer.data, cancer.target, 200),
        "digits49": (digits.data[keep], digits.target[keep], 100),
        "make_classification": (Xc, yc, 200),
        "binary": (Xb, yb, 100),
    }


# ---------------------------------------------------------------------------------------
# slow references


def _candidates(X):
    """Every stump (j, θ, s) of the box in the kernel's order: features, thresholds ascending
    (midpoints of consecutive distinct values), polarity +1 then −1."""
    out = []
    for j in range(X.shape[1]):
        vals = np.unique(X[:, j])
        for a, b in itertools.pairwise(vals):
            thr = a / 2.0 + b / 2.0
            if thr == b:
                thr = a
            out.append((j, thr))
    return out


def _gini_score(D, y, left):
    score = 0.0
    for side in (left, ~left):
        w = D[side].sum()
        if w > 0:
            pos, neg = D[side & (y > 0)].sum(), D[side & (y < 0)].sum()
            score += (pos * pos + neg * neg) / w
    return score


def ref_adaboost(X, y, T, criterion="error", floor=0.0):
    """Algorithm 1 line by line: (stumps [(j, θ, s)], alphas, training errors)."""
    m = X.shape[0]
    D = np.full(m, 1.0 / m)
    stumps, alphas, errs = [], [], []
    vote = np.zeros(m)
    cands = _candidates(X)
    for _ in range(T):
        if floor > 0:
            D = np.maximum(D, floor)
            D = D / D.sum()
        best, choice = -np.inf, None
        for j, thr in cands:
            right = X[:, j] > thr
            if criterion == "error":
                for s in (1, -1):
                    h = np.where(right, s, -s)
                    gamma = float(np.sum(D * y * h))
                    if gamma > best + TIE:
                        best, choice = gamma, (j, thr, s)
            else:
                score = _gini_score(D, y, ~right)
                if score > best:
                    best = score
                    lab = [1 if D[side & (y > 0)].sum() > D[side & (y < 0)].sum() else -1 for side in (~right, right)]
                    choice = (j, thr, lab[1]) if lab[0] != lab[1] else (j, -np.inf, lab[1])
        j, thr, s = choice
        h = np.where(X[:, j] > thr, s, -s)
        gamma = float(np.sum(D * y * h))
        if gamma <= 0:
            break
        stumps.append(choice)
        if np.all(h == y):
            alphas.append(np.inf)
            errs.append(0.0)
            break
        alpha = 0.5 * np.log((1 + gamma) / (1 - gamma))  # the box's formula
        alphas.append(alpha)
        vote += alpha * h
        errs.append(float(np.mean(np.where(vote > 0, 1.0, -1.0) != y)))
        D = D * np.exp(-alpha * y * h)
        D = D / D.sum()
    return stumps, np.array(alphas), np.array(errs)


def _h(model, i, x):
    return model.polarities_[i] if x[model.features_[i]] > model.thresholds_[i] else -model.polarities_[i]


def _law(model, costs, cost_aware):
    c = np.ones(model.n_features_in_) if costs is None else np.asarray(costs, float)
    ch = c[model.features_]
    if model.perfect_:
        p = np.zeros(model.n_estimators_)
        p[-1] = 1.0
    else:
        w = model.alphas_ / ch if cost_aware else model.alphas_
        p = w / w.sum()
    inc = ch if cost_aware else np.ones_like(ch)
    return c, ch, p, np.cumsum(p), inc


def ref_budgeted(model, X, B, costs, state, cost_aware):
    """Algorithms 2 / 3 for each row, literally (plus the documented exhaustion and tie rules)."""
    c, ch, p, cumulative, inc = _law(model, costs, cost_aware)
    maxc = ch.max()
    relevant = {int(model.features_[i]) for i in range(len(p)) if p[i] > 0}
    full = np.sign(model.decision_function(X))
    out = []
    for e, x in enumerate(X):
        k, F, order, v, tau, exhausted = 0.0, set(), [], 0.0, 0, False
        while k + maxc < B:
            if relevant <= F:
                exhausted = True
                break
            i = next_weighted_index(state, cumulative)
            new = {int(model.features_[i])} - F
            for j in new:
                k += c[j]
                order.append(j)
            F |= new
            v += inc[i] * _h(model, i, x)
            tau += 1
        sign = full[e] if exhausted else np.sign(v)
        tie = sign == 0
        if tie:
            sign = next_sign(state)
        out.append(dict(pred=sign, tau=tau, order=order, cost=k, vote=v, tie=tie, exhausted=exhausted))
    return out


def ref_deterministic(model, X, B, costs, state, prefix):
    """§6: stumps by decreasing α/c (ties: lower index), taken while the new cost fits."""
    c = np.ones(model.n_features_in_) if costs is None else np.asarray(costs, float)
    ratio = model.alphas_ / c[model.features_]
    order = sorted(range(len(ratio)), key=lambda i: (-ratio[i], i))
    out = []
    for x in X:
        k, F, seen, v, taken = 0.0, set(), [], 0.0, 0
        for i in order:
            j = int(model.features_[i])
            new = 0.0 if j in F else c[j]
            if k + new > B:
                if prefix:
                    break
                continue
            if j not in F:
                F.add(j)
                seen.append(j)
                k += new
            v += model.alphas_[i] * _h(model, i, x)
            taken += 1
        sign = np.sign(v)
        tie = sign == 0
        if tie:
            sign = next_sign(state)
        out.append(dict(pred=sign, tau=taken, order=seen, cost=k, vote=v, tie=tie))
    return out


def ref_sample_path(model, X, taus, costs, state, cost_aware):
    c, _, _, cumulative, inc = _law(model, costs, cost_aware)
    votes, counts, cost = [], [], []
    for x in X:
        F, k, v, rv, rc, rk = set(), 0.0, 0.0, [], [], []
        for tau in range(1, max(taus) + 1):
            i = next_weighted_index(state, cumulative)
            j = int(model.features_[i])
            if j not in F:
                F.add(j)
                k += c[j]
            v += inc[i] * _h(model, i, x)
            if tau in taus:
                rv.append(v)
                rc.append(len(F))
                rk.append(k)
        votes.append(rv)
        counts.append(rc)
        cost.append(rk)
    return np.array(votes), np.array(counts), np.array(cost)


def _check_records(model, ref):
    assert np.array_equal(model.n_samples_, [r["tau"] for r in ref])
    assert np.array_equal(model.n_features_examined_, [len(r["order"]) for r in ref])
    np.testing.assert_allclose(model.cost_spent_, [r["cost"] for r in ref], rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.votes_, [r["vote"] for r in ref], rtol=0, atol=1e-9)
    assert np.array_equal(model.ties_, [r["tie"] for r in ref])
    for e, r in enumerate(ref):
        assert list(model.examined(e)) == r["order"]


# ---------------------------------------------------------------------------------------
# Algorithm 1


@pytest.mark.parametrize("data", [_real, _binary, _levels])
@pytest.mark.parametrize("criterion, floor", [("error", 0.0), ("gini", 0.0), ("gini", EPS)])
def test_adaboost_matches_reference(data, criterion, floor):
    X, y = data()
    T = 15
    model = AdaBoostStumps(n_estimators=T, criterion=criterion, weight_floor=floor).fit(X, y)
    stumps, alphas, errs = ref_adaboost(X, y, T, criterion, floor)
    assert model.n_estimators_ == len(stumps)
    assert list(zip(model.features_, model.thresholds_, model.polarities_, strict=True)) == stumps
    np.testing.assert_allclose(model.alphas_, alphas, rtol=1e-9)
    np.testing.assert_array_equal(model.training_errors_, errs)
    # γ_t and ε_t are those of Algorithm 1, and α_t = ½ ln((1 + γ_t)/(1 − γ_t))
    np.testing.assert_allclose(model.errors_, (1 - model.edges_) / 2, atol=1e-12)
    np.testing.assert_allclose(model.alphas_, 0.5 * np.log((1 + model.edges_) / (1 - model.edges_)), rtol=1e-9)


def test_binary_features_give_two_stumps_each():
    X, y = _binary()
    assert len(_candidates(X)) * 2 == 2 * X.shape[1]  # one threshold × two polarities per feature
    model = AdaBoostStumps(n_estimators=40).fit(X, y)
    assert np.all(model.thresholds_ == 0.5)
    X4, y4 = _levels()
    model = AdaBoostStumps(n_estimators=40).fit(X4, y4)
    assert set(np.round(model.thresholds_, 12)) <= {round(1 / 6, 12), 0.5, round(5 / 6, 12)}


def test_perfect_stump_has_infinite_alpha():
    X, y = _real(50, 4, seed=5)
    y = np.where(X[:, 2] > 0.1, 1.0, -1.0)
    model = AdaBoostRS(n_estimators=30, random_state=0).fit(X, y)
    assert model.n_estimators_ == 1 and model.perfect_
    assert np.isinf(model.alphas_[0]) and model.edges_[0] == 1.0 and model.errors_[0] == 0.0
    assert model.training_errors_[-1] == 0.0
    np.testing.assert_array_equal(model.vote_weights_, [1.0])
    np.testing.assert_array_equal(model.margins(X, y), np.ones(len(y)))
    assert np.all(np.isinf(model.decision_function(X)))
    np.testing.assert_array_equal(model.sampling_probabilities(), [1.0])
    assert np.array_equal(model.predict(X, budget=3), y)
    # scikit-learn gives the perfect stump weight 1 (not ∞) and stops too: the margins agree
    sk = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1), n_estimators=30, random_state=0).fit(X, y)
    assert len(sk.estimators_) == 1 and sk.estimator_weights_[0] == 1.0
    np.testing.assert_allclose(sk.decision_function(X) / 2, model.margins(X, y) * y)


def test_no_edge_raises():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([-1.0, 1.0, 1.0, -1.0])  # XOR: every stump errs on half the weight
    with pytest.raises(ParameterError, match="positive edge"):
        AdaBoostStumps(n_estimators=5).fit(X, y)
    with pytest.raises(ParameterError, match="positive edge"):
        AdaBoostStumps().fit(np.ones((6, 2)), [0, 1, 0, 1, 0, 1])


def test_labels_map_to_pm1():
    X, y = _real()
    ref = AdaBoostStumps(n_estimators=10).fit(X, y)
    for labels in (np.where(y > 0, "yes", "no"), (y > 0).astype(int), np.where(y > 0, 7, 3)):
        model = AdaBoostStumps(n_estimators=10).fit(X, labels)
        np.testing.assert_array_equal(model.alphas_, ref.alphas_)
        np.testing.assert_array_equal(model.predict(X), model.classes_[(ref.predict(X) > 0).astype(int)])
        np.testing.assert_allclose(model.margins(X, labels), ref.margins(X, y))
    with pytest.raises(ParameterError, match="Only binary"):
        AdaBoostStumps().fit(X, np.arange(len(y)) % 3)
    with pytest.raises(ParameterError, match="outside classes_"):
        ref.margins(X, np.zeros(len(y)))


def test_margins_and_vote():
    X, y = _real()
    model = AdaBoostStumps(n_estimators=20).fit(X, y)
    H = model.hypothesis_outputs(X)
    assert set(np.unique(H)) <= {-1.0, 1.0}
    np.testing.assert_allclose(model.decision_function(X), H @ model.alphas_)
    np.testing.assert_allclose(model.margins(X, y), y * (H @ model.alphas_) / model.alphas_.sum())
    assert np.all(np.abs(model.margins(X, y)) <= 1 + 1e-12)


@pytest.mark.parametrize("bad", [dict(n_estimators=0), dict(criterion="entropy"), dict(weight_floor=-1.0)])
def test_bad_parameters(bad):
    X, y = _real()
    with pytest.raises(ParameterError):
        AdaBoostStumps(**bad).fit(X, y)


# ---------------------------------------------------------------------------------------
# scikit-learn cross-check


def _sk_fit(X, y, T):
    sk = AdaBoostClassifier(estimator=DecisionTreeClassifier(max_depth=1), n_estimators=T, random_state=0).fit(X, y)
    curve = np.array([np.mean(p != y) for p in sk.staged_predict(X)])
    return sk, curve


def _first_difference(sk, model, X):
    H = model.hypothesis_outputs(X) > 0
    for t, est in enumerate(sk.estimators_[: model.n_estimators_]):
        if not np.array_equal(est.predict(X) == sk.classes_[1], H[:, t]):
            return t
    return None


@pytest.mark.parametrize("name", ["breast_cancer", "digits49", "make_classification", "binary"])
def test_sklearn_mode_reproduces_adaboostclassifier(name):
    X, y, T = _sk_sets()[name]
    sk, curve = _sk_fit(X, y, T)
    model = AdaBoostStumps(n_estimators=T, criterion="gini", weight_floor=EPS).fit(X, y)
    assert model.n_estimators_ == len(sk.estimators_) == T
    assert _first_difference(sk, model, X) is None  # the same stump every round
    np.testing.assert_array_equal(model.training_errors_, curve)  # the training-error curves agree exactly
    # SAMME's α for two classes is ln((1−ε)/ε) = 2 α_t; scikit-learn's vote is Σ w h / Σ w
    np.testing.assert_allclose(sk.estimator_weights_, 2 * model.alphas_, rtol=1e-9)
    signs = np.where(y == model.classes_[1], 1, -1)
    np.testing.assert_allclose(sk.decision_function(X), 2 * model.margins(X, y) * signs, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(sk.predict(X), model.predict(X))


@pytest.mark.parametrize("name", ["breast_cancer", "make_classification", "binary"])
def test_paper_weak_learner_is_the_difference_from_sklearn(name):
    X, y, T = _sk_sets()[name]
    sk, curve = _sk_fit(X, y, T)
    model = AdaBoostStumps(n_estimators=T, criterion="error", weight_floor=EPS).fit(X, y)
    t = _first_difference(sk, model, X)
    assert t is not None, "the two weak learners never differed: nothing to explain"
    np.testing.assert_array_equal(model.training_errors_[:t], curve[:t])  # identical until round t
    # the common D_t, replayed from the shared first t rounds
    ys = np.where(y == model.classes_[1], 1.0, -1.0)
    D = np.full(len(y), 1.0 / len(y))
    H = model.hypothesis_outputs(X)
    for s in range(t):
        D = np.maximum(D, EPS)
        D /= D.sum()
        D = D * np.exp(-model.alphas_[s] * ys * H[:, s])
        D /= D.sum()
    D = np.maximum(D, EPS)
    D /= D.sum()
    ours = H[:, t]
    theirs = np.where(sk.estimators_[t].predict(X) == sk.classes_[1], 1.0, -1.0)
    err_ours, err_theirs = D[ours != ys].sum(), D[theirs != ys].sum()
    assert err_ours < err_theirs  # the paper's weak learner: smallest weighted error
    j_sk = sk.estimators_[t].tree_.feature[0]
    left_sk = sk.estimators_[t].apply(X) == sk.estimators_[t].tree_.children_left[0]
    left_ours = X[:, model.features_[t]] <= model.thresholds_[t]
    assert j_sk >= 0
    assert _gini_score(D, ys, left_sk) > _gini_score(D, ys, left_ours)  # scikit-learn's: best Gini split


def test_without_the_clip_runs_part_once_weights_fall_below_eps():
    X, y, _ = _sk_sets()["breast_cancer"]
    T = 400
    sk, _ = _sk_fit(X, y, T)
    model = AdaBoostStumps(n_estimators=T, criterion="gini", weight_floor=0.0).fit(X, y)
    t = _first_difference(sk, model, X)
    assert t is not None
    ys = np.where(y == model.classes_[1], 1.0, -1.0)
    D = np.full(len(y), 1.0 / len(y))
    H = model.hypothesis_outputs(X)
    smallest = []
    for s in range(t):
        smallest.append(D.min())
        D = D * np.exp(-model.alphas_[s] * ys * H[:, s])
        D /= D.sum()
    smallest.append(D.min())
    assert min(smallest) < EPS  # the clip was active before the runs parted
    assert smallest[0] > EPS


# ---------------------------------------------------------------------------------------
# Algorithms 2 and 3 and §6


def _fitted(cls, data=_real, T=30, **kw):
    X, y = data(m=120, d=10, seed=4)
    return cls(n_estimators=T, **kw).fit(X, y), X, y


@pytest.mark.parametrize("cls, aware", [(AdaBoostRS, False), (AdaBoostRSAC, True)])
@pytest.mark.parametrize("B, with_costs", [(1.0, False), (4.0, False), (7.0, False), (2.5, True), (6.0, True)])
def test_sampling_matches_reference(cls, aware, B, with_costs):
    model, X, _ = _fitted(cls)
    costs = np.random.default_rng(7).uniform(0.05, 1.0, size=X.shape[1]) if with_costs else None
    preds = model.predict(X, budget=B, costs=costs, random_state=_state(11))
    ref = ref_budgeted(model, X, B, costs, _state(11), aware)
    _check_records(model, ref)
    assert np.array_equal(model.exhausted_, [r["exhausted"] for r in ref])
    assert np.array_equal(preds, [r["pred"] for r in ref])
    assert np.all(model.cost_spent_ < B)  # the budget guarantee of the printed loop


@pytest.mark.parametrize("rule", ["greedy", "prefix"])
@pytest.mark.parametrize("B, with_costs", [(1.0, False), (3.0, False), (2.5, True)])
def test_deterministic_matches_reference(rule, B, with_costs):
    model, X, _ = _fitted(AdaBoostDeterministic, rule=rule)
    costs = np.random.default_rng(8).uniform(0.05, 1.0, size=X.shape[1]) if with_costs else None
    preds = model.predict(X, budget=B, costs=costs, random_state=_state(12))
    ref = ref_deterministic(model, X, B, costs, _state(12), rule == "prefix")
    _check_records(model, ref)
    assert np.array_equal(preds, [r["pred"] for r in ref])
    assert np.all(model.cost_spent_ <= B)


@pytest.mark.parametrize("cls, aware", [(AdaBoostRS, False), (AdaBoostRSAC, True)])
def test_sample_path_matches_reference(cls, aware):
    model, X, _ = _fitted(cls)
    costs = np.random.default_rng(9).uniform(0.05, 1.0, size=X.shape[1])
    taus = [1, 2, 5, 17, 40]
    path = model.sample_path(X[:25], taus, costs=costs, random_state=_state(13))
    votes, counts, cost = ref_sample_path(model, X[:25], taus, costs, _state(13), aware)
    np.testing.assert_allclose(path.votes, votes, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(path.n_features, counts)
    np.testing.assert_allclose(path.cost, cost, rtol=0, atol=1e-12)
    if not aware:
        assert np.all(np.abs(path.votes) <= np.array(taus))


def test_stopping_rule_as_printed_unit_costs():
    """Unit costs: the loop runs while k + 1 < B, so exactly ⌈B⌉ − 1 features are examined
    (when the ensemble has that many), each at most once, and τ ≥ that count."""
    model, X, _ = _fitted(AdaBoostRS, T=60)
    n_rel = len(set(model.features_))
    for B in (2, 3, 4.5, 6):
        model.predict(X, budget=B, random_state=1)
        expected = min(int(np.ceil(B)) - 1, n_rel)
        assert np.all(model.n_features_examined_ == expected)
        np.testing.assert_array_equal(model.cost_spent_, model.n_features_examined_)
        assert np.all(model.n_samples_ >= model.n_features_examined_)
        for e in range(len(X)):
            assert len(set(model.examined(e))) == len(model.examined(e))
    model.predict(X, budget=1, random_state=1)  # k + 1 < 1 never holds: τ = 0, a coin per row
    assert np.all(model.n_samples_ == 0) and np.all(model.ties_)


def test_repeated_features_cost_nothing():
    """Few features, many rounds: stumps share features, so draws outnumber the features paid."""
    X, y = _real(150, 3, seed=6)
    model = AdaBoostRS(n_estimators=80).fit(X, y)
    assert model.n_estimators_ > len(set(model.features_))
    model.predict(X, budget=3, random_state=2)  # k + 1 < 3: at most 2 features
    assert np.all(model.n_features_examined_ <= 2)
    assert model.n_samples_.mean() > 2.5  # resampled features were free
    np.testing.assert_array_equal(model.cost_spent_, model.n_features_examined_)


def test_exhausted_ensemble_uses_the_full_vote():
    X, y = _real(100, 3, seed=7)
    model = AdaBoostRSAC(n_estimators=40, random_state=0).fit(X, y)
    n_rel = len(set(model.features_))
    preds = model.predict(X, budget=n_rel + 5)  # never exhausted by the printed rule
    assert np.all(model.exhausted_)
    assert np.all(model.n_features_examined_ == n_rel)
    np.testing.assert_array_equal(preds, model.predict(X))


def test_safety_cap():
    model, X, _ = _fitted(AdaBoostRS, max_samples=3)
    model.predict(X, budget=50.0, random_state=0)
    assert np.all(model.n_samples_ <= 3)
    assert np.all(model.capped_ == (model.n_samples_ == 3)) and model.capped_.any()
    assert not np.any(model.capped_ & model.exhausted_)


def test_sampling_law_is_the_boxes():
    """p and the vote increments give E[v_1] = Σ α h / Σ α (RS) and Σ α h / Σ(α/c) (AC, Thm 5)."""
    model_rs, X, _ = _fitted(AdaBoostRS)
    model_ac, _, _ = _fitted(AdaBoostRSAC)
    costs = np.random.default_rng(3).uniform(0.1, 1.0, size=X.shape[1])
    H = model_rs.hypothesis_outputs(X)
    a = model_rs.alphas_
    ch = costs[model_rs.features_]
    np.testing.assert_allclose(H @ (model_rs.sampling_probabilities(costs) * model_rs.vote_increments(costs)),
                               H @ a / a.sum(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(H @ (model_ac.sampling_probabilities(costs) * model_ac.vote_increments(costs)),
                               H @ a / np.sum(a / ch), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(model_ac.sampling_probabilities(), model_rs.sampling_probabilities())  # equal costs
    np.testing.assert_array_equal(model_ac.hypothesis_costs(costs), ch)


def test_random_state_conventions():
    model, X, _ = _fitted(AdaBoostRS, random_state=5)
    a = model.predict(X, budget=4)
    first = model.n_samples_.copy()
    b = model.predict(X, budget=4)
    np.testing.assert_array_equal(a, b)  # an int seed: reproducible
    np.testing.assert_array_equal(first, model.n_samples_)
    state = _state(21)
    whole = model.predict(X, budget=4, random_state=state.copy())
    taus = model.n_samples_.copy()
    head = model.predict(X[:50], budget=4, random_state=state)  # a kernel state advances in place
    t_head = model.n_samples_.copy()
    tail = model.predict(X[50:], budget=4, random_state=state)
    np.testing.assert_array_equal(np.concatenate([head, tail]), whole)
    np.testing.assert_array_equal(np.concatenate([t_head, model.n_samples_]), taus)


def test_sample_path_continues_predicts_draws():
    model, X, _ = _fitted(AdaBoostRSAC)
    costs = np.random.default_rng(4).uniform(0.1, 1.0, size=X.shape[1])
    for e in range(5):
        model.predict(X[e:e + 1], budget=4.0, costs=costs, random_state=_state(30 + e))
        tau, vote, n_feat = model.n_samples_[0], model.votes_[0], model.n_features_examined_[0]
        path = model.sample_path(X[e:e + 1], [tau], costs=costs, random_state=_state(30 + e))
        assert path.votes[0, 0] == vote and path.n_features[0, 0] == n_feat


@pytest.mark.parametrize("cls", [AdaBoostRS, AdaBoostRSAC, AdaBoostDeterministic])
def test_budgeted_predict_reads_only_what_it_examines(cls):
    """Through a watched view, a budgeted prediction reads exactly the features it reports examined (its
    validation included); a NaN at a feature it does not examine changes nothing, one it examines raises."""
    from theorycheck.observe import observed_call

    model, X, _ = _fitted(cls)
    costs = np.random.default_rng(5).uniform(0.05, 1.0, size=X.shape[1])
    preds, read, bulk = observed_call(lambda v: model.predict(v, budget=3.5, costs=costs, random_state=_state(3)), X)
    examined = np.zeros(X.shape, dtype=bool)
    for e in range(X.shape[0]):
        examined[e, model.examined(e)] = True
    np.testing.assert_array_equal(read, examined)
    assert not bulk and examined.sum() == model.n_features_examined_.sum()
    holes = np.where(examined, X, np.nan)
    np.testing.assert_array_equal(model.predict(holes, budget=3.5, costs=costs, random_state=_state(3)), preds)
    e, j = 7, model.examined(7)[0]
    bad = X.copy()
    bad[e, j] = np.inf
    with pytest.raises(ParameterError, match=f"example {e}, feature {j}"):
        model.predict(bad, budget=3.5, costs=costs, random_state=_state(3))


@pytest.mark.parametrize("cls", [AdaBoostRS, AdaBoostRSAC])
def test_sample_path_reads_only_what_it_examines(cls):
    """As a budgeted prediction: per row the entries read through a watched view are the distinct features its
    draws examined (n_features at the last τ); unread entries may be NaN, a read one may not."""
    from theorycheck.observe import observed_call

    model, X, _ = _fitted(cls)
    costs = np.random.default_rng(6).uniform(0.05, 1.0, size=X.shape[1])
    taus = [1, 3, 12]
    path, read, bulk = observed_call(lambda v: model.sample_path(v, taus, costs=costs, random_state=_state(4)), X)
    assert not bulk
    np.testing.assert_array_equal(read.sum(axis=1), path.n_features[:, -1])
    again = model.sample_path(np.where(read, X, np.nan), taus, costs=costs, random_state=_state(4))
    np.testing.assert_array_equal(again.votes, path.votes)
    e, j = 3, int(np.flatnonzero(read[3])[0])
    bad = X.copy()
    bad[e, j] = np.nan
    with pytest.raises(ParameterError, match=f"example {e}, feature {j}"):
        model.sample_path(bad, taus, costs=costs, random_state=_state(4))


@pytest.mark.parametrize("call", [
    dict(budget=0.0), dict(budget=-1.0), dict(budget=np.inf), dict(budget=3, costs=np.ones(3)),
    dict(budget=3, costs="zeros"), dict(budget=3, costs="nan"),
])
def test_bad_predict_arguments(call):
    model, X, _ = _fitted(AdaBoostRSAC)
    if isinstance(call.get("costs"), str):
        call = dict(call, costs=np.zeros(X.shape[1]) if call["costs"] == "zeros" else np.full(X.shape[1], np.nan))
    with pytest.raises(ParameterError):
        model.predict(X, **call)


def test_bad_sample_path_arguments():
    model, X, _ = _fitted(AdaBoostRS)
    for taus in ([], [0, 1], [3, 2], [1.5]):
        with pytest.raises(ParameterError):
            model.sample_path(X, taus)
    with pytest.raises(ParameterError):
        AdaBoostDeterministic(n_estimators=5).fit(X, np.sign(X[:, 0])).sample_path(X, [1])
    with pytest.raises(ParameterError, match="rule"):
        AdaBoostDeterministic(n_estimators=5, rule="best").fit(X, np.sign(X[:, 0])).predict(X, budget=2)


@parametrize_with_checks([AdaBoostStumps(n_estimators=10), AdaBoostRS(n_estimators=10, random_state=0),
                          AdaBoostRSAC(n_estimators=10, random_state=0), AdaBoostDeterministic(n_estimators=10)])
def test_sklearn_compatible(estimator, check):
    check(estimator)
