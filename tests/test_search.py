"""SVCSearch: the (C, γ) search against an exhaustive cold GridSearchCV, thread invariance,
warm starts reaching the same optimum, and scikit-learn's result layout."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from fwsvm import SVC, SVCSearch

CS = [0.1, 1.0, 10.0]
GAMMAS = [0.02, 0.1, 0.5]


def _data(n_classes: int = 2):
    return make_classification(n_samples=240, n_features=6, n_informative=4, n_classes=n_classes,
                               n_clusters_per_class=1, flip_y=0.05, random_state=3)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_same_choice_and_scores_as_an_exhaustive_cold_grid_search(loss) -> None:
    X, y = _data()
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    # Tight tolerance: warm-started and cold fits reach the same optimum, so the same scores.
    template = SVC(loss=loss, tol=1e-7)
    ours = SVCSearch(template, Cs=CS, gammas=GAMMAS, cv=cv).fit(X, y)
    grid = GridSearchCV(template, {"C": CS, "gamma": GAMMAS}, cv=cv).fit(X, y)
    assert ours.best_params_ == grid.best_params_
    assert ours.best_index_ == grid.best_index_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], grid.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"], grid.cv_results_["rank_test_score"])
    assert ours.cv_results_["params"] == grid.cv_results_["params"]
    for k in range(4):
        np.testing.assert_allclose(ours.cv_results_[f"split{k}_test_score"], grid.cv_results_[f"split{k}_test_score"])
    np.testing.assert_array_equal(ours.predict(X), grid.predict(X))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_warm_and_cold_fits_reach_the_same_certified_optimum(loss) -> None:
    X, y = _data()
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    template = SVC(loss=loss, tol=1e-8)
    warm = SVCSearch(template, Cs=CS, gammas=GAMMAS, cv=cv, refit=False, warm_start=True).fit(X, y)
    cold = SVCSearch(template, Cs=CS, gammas=GAMMAS, cv=cv, refit=False, warm_start=False).fit(X, y)
    np.testing.assert_array_equal(warm.cv_results_["mean_test_score"], cold.cv_results_["mean_test_score"])
    if loss == "squared_hinge":
        # On the simplex the neighbour's α saves steps on the walk through the grid.
        assert warm.cv_results_["n_iter"].sum() < cold.cv_results_["n_iter"].sum()


@pytest.mark.parametrize("n_classes, loss", [(2, "hinge"), (3, "hinge"), (2, "squared_hinge")])
def test_results_do_not_depend_on_n_jobs(n_classes, loss) -> None:
    # Cold fits run one task per grid point and fold; warm ones (the squared hinge's default)
    # one chain per γ and fold, each fit starting from the previous C's solution.
    X, y = _data(n_classes)
    runs = [SVCSearch(SVC(loss=loss), Cs=CS, gammas=GAMMAS, cv=3, n_jobs=j, refit=False).fit(X, y)
            for j in (1, 2, -1)]
    for other in runs[1:]:
        for key in ("mean_test_score", "rank_test_score", "n_iter"):
            np.testing.assert_array_equal(runs[0].cv_results_[key], other.cv_results_[key])


def test_default_grid_centres_gamma_on_scale_and_takes_scoring() -> None:
    X, y = _data()
    search = SVCSearch(cv=3, scoring="balanced_accuracy").fit(X, y)
    gammas = sorted({p["gamma"] for p in search.cv_results_["params"]})
    scale = 1.0 / (X.shape[1] * X.var())
    np.testing.assert_allclose(gammas, [scale * 2.0**k for k in (-4, -2, 0, 2, 4)])
    assert sorted({p["C"] for p in search.cv_results_["params"]}) == [2.0**k for k in (-3, -1, 1, 3, 5, 7, 9)]
    assert len(search.cv_results_["params"]) == 35
    assert 0.5 < search.best_score_ <= 1.0
    assert search.score(X, y) == pytest.approx(
        __import__("sklearn.metrics", fromlist=["balanced_accuracy_score"]).balanced_accuracy_score(y, search.predict(X)))


@pytest.mark.parametrize("params, message", [
    (dict(Cs=[1.0, -1.0]), "Cs must be"),
    (dict(gammas=[]), "gammas must be"),
    (dict(estimator=SVC(kernel="linear"), gammas=[1.0]), "the kernel must be rbf"),
])
def test_bad_grids_are_refused(params, message) -> None:
    X, y = _data()
    with pytest.raises(ValueError, match=message):
        SVCSearch(cv=3, **params).fit(X, y)


def test_halving_scores_growing_subsamples_and_keeps_the_best_third() -> None:
    X, y = make_classification(n_samples=900, n_features=6, n_informative=4, flip_y=0.05, random_state=4)
    search = SVCSearch(Cs=[0.1, 1.0, 10.0], gammas=[0.01, 0.05, 0.2, 1.0, 5.0], cv=3, halving=True,
                       min_resources=100, local_search=False).fit(X, y)
    # 15 candidates, factor 3: 15 → 5 → 2 on 100, 300, 900 samples.
    assert search.n_candidates_ == [15, 5, 2]
    assert search.n_resources_ == [100, 300, 900]
    r = search.cv_results_
    assert len(r["params"]) == 22 and list(np.bincount(r["iter"])) == [15, 5, 2]
    # The survivors of a round are the best third of it.
    first = r["mean_test_score"][:15]
    survivors = [p for p, it in zip(r["params"], r["iter"]) if it == 1]
    best_first = [r["params"][k] for k in np.argsort(-first, kind="stable")[:5]]
    assert sorted(map(str, survivors)) == sorted(map(str, best_first))
    # The choice is the best of the last round, on all the data.
    assert r["iter"][search.best_index_] == 2
    assert search.best_score_ == r["mean_test_score"][r["iter"] == 2].max()
    assert search.score(X, y) > 0.8
    # A splitter splits every round's subsample; fixed index lists cannot.
    shuffled = SVCSearch(Cs=[0.1, 1.0, 10.0], gammas=[0.01, 0.05, 0.2, 1.0, 5.0], halving=True, min_resources=100,
                         local_search=False, cv=StratifiedKFold(3, shuffle=True, random_state=0)).fit(X, y)
    assert shuffled.n_resources_ == [100, 300, 900] and shuffled.n_splits_ == 3
    assert shuffled.score(X, y) > 0.8
    with pytest.raises(ValueError, match="give cv as a number of folds or a splitter"):
        SVCSearch(cv=list(StratifiedKFold(3).split(X, y)), halving=True).fit(X, y)


def test_halving_ends_at_a_local_maximum_of_the_full_data_score() -> None:
    """The local search after the rounds: the choice's grid neighbours are all scored on all
    the data and none beats it, and those scores are the exhaustive search's."""
    X, y = make_classification(n_samples=900, n_features=6, n_informative=4, flip_y=0.05, random_state=4)
    Cs, gammas = [0.1, 1.0, 10.0, 100.0], [0.01, 0.05, 0.2, 1.0, 5.0]
    search = SVCSearch(Cs=Cs, gammas=gammas, cv=3, halving=True, min_resources=100, local_search=True).fit(X, y)
    exhaustive = SVCSearch(Cs=Cs, gammas=gammas, cv=3).fit(X, y)
    r = search.cv_results_
    full = {(p["C"], p["gamma"]): score for p, score, m in zip(r["params"], r["mean_test_score"], r["n_resources"])
            if m == len(y)}
    every = {(p["C"], p["gamma"]): score for p, score in zip(exhaustive.cv_results_["params"],
                                                             exhaustive.cv_results_["mean_test_score"])}
    for key, score in full.items():
        assert score == every[key]  # the same folds on all the data: the same scores
    best = (search.best_params_["C"], search.best_params_["gamma"])
    assert search.best_score_ == full[best] == max(full.values())
    i, j = Cs.index(best[0]), gammas.index(best[1])
    for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
        if 0 <= a < len(Cs) and 0 <= b < len(gammas):
            assert full[(Cs[a], gammas[b])] <= full[best]
    # The local search's steps are further rounds on all the data.
    assert len(search.n_resources_) == len(search.n_candidates_) > 3
    assert set(search.n_resources_[3:]) <= {len(y)}
    assert list(r["iter"]) == sorted(r["iter"])


def test_a_kernel_without_gamma_searches_c_only() -> None:
    X, y = _data()
    search = SVCSearch(SVC(kernel="linear"), Cs=CS, cv=3).fit(X, y)
    assert [p["C"] for p in search.cv_results_["params"]] == CS
    assert search.best_params_["C"] in CS


# The refit at the best point with max_iter=30 warns for itself.
@pytest.mark.filterwarnings("ignore:Solver terminated early")
def test_a_step_budget_per_grid_point_is_reported() -> None:
    from sklearn.datasets import make_classification
    from sklearn.exceptions import ConvergenceWarning

    X, y = make_classification(n_samples=300, n_features=6, random_state=0)
    with pytest.warns(ConvergenceWarning, match="cv_results_\\['converged'\\]") as record:
        search = SVCSearch(SVC(max_iter=30), Cs=[0.1, 100.0], gammas=[0.1, 10.0], cv=3).fit(X, y)
    assert len([w for w in record if issubclass(w.category, ConvergenceWarning)]) >= 1
    converged = search.cv_results_["converged"]
    assert converged.shape == (4,) and converged.min() < 1.0
    assert np.all((converged >= 0) & (converged <= 1))
    full = SVCSearch(SVC(), Cs=[0.1, 100.0], gammas=[0.1, 10.0], cv=3).fit(X, y)
    assert np.all(full.cv_results_["converged"] == 1.0)


def test_a_precomputed_kernel_is_split_by_rows_and_columns() -> None:
    """The folds of a precomputed kernel take its train columns (scikit-learn's ``_safe_split``):
    the scores are GridSearchCV's; halving subsamples rows and columns alike."""
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = _data()
    K = rbf_kernel(X, gamma=0.2)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    ours = SVCSearch(SVC(kernel="precomputed", tol=1e-7), Cs=CS, cv=cv).fit(K, y)
    grid = GridSearchCV(SVC(kernel="precomputed", tol=1e-7), {"C": CS}, cv=cv).fit(K, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], grid.cv_results_["mean_test_score"])
    halved = SVCSearch(SVC(kernel="precomputed"), Cs=CS, cv=cv, halving=True, min_resources=60).fit(K, y)
    assert halved.n_resources_[0] < len(y) and halved.best_params_["C"] in CS


def test_input_is_checked_once_and_dataframes_keep_their_names() -> None:
    pd = pytest.importorskip("pandas")
    X, y = _data()
    bad = X.copy()
    bad[5, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SVCSearch(Cs=CS, gammas=GAMMAS, cv=3).fit(bad, y)
    with pytest.raises(ValueError, match="C"):
        SVCSearch(SVC(C=-1.0), Cs=CS, gammas=GAMMAS, cv=3).fit(X, y)
    frame = pd.DataFrame(X, columns=[f"f{k}" for k in range(X.shape[1])])
    search = SVCSearch(Cs=CS, gammas=GAMMAS, cv=3).fit(frame, y)
    np.testing.assert_array_equal(search.best_estimator_.feature_names_in_, frame.columns)
    plain = SVCSearch(Cs=CS, gammas=GAMMAS, cv=3).fit(X, y)
    np.testing.assert_array_equal(search.cv_results_["mean_test_score"], plain.cv_results_["mean_test_score"])


def test_folds_split_once_or_per_task_give_the_same_results(monkeypatch) -> None:
    """Folds are split and checked once and kept while their copies fit in FOLD_CACHE_BYTES,
    else split again by every task: the scores do not depend on which."""
    import scipy.sparse as sp

    import fwsvm._folds as folds

    X, y = _data()
    for data in (X, sp.csr_matrix(X)):
        kept = SVCSearch(Cs=CS, gammas=GAMMAS, cv=3, n_jobs=2).fit(data, y)
        monkeypatch.setattr(folds, "FOLD_CACHE_BYTES", 0)
        split = SVCSearch(Cs=CS, gammas=GAMMAS, cv=3, n_jobs=2).fit(data, y)
        monkeypatch.undo()
        np.testing.assert_array_equal(kept.cv_results_["mean_test_score"], split.cv_results_["mean_test_score"])
        assert kept.best_params_ == split.best_params_
